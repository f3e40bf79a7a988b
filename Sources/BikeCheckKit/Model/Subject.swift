import Foundation

/// What a name on the command line means: a bike, or a part (`parts/ID.yaml`).
package enum Subject: Sendable, Hashable {
    case bike(BikeID)
    case part(PartID)
}

/// Which subject a name means: the one answer `status`, the reports and the writes share.
extension Garage {
    /// The bike of that id, else the part. A bike wins a name it shares with a part (the loader
    /// warns, `part-id-is-bike-id`); a file that exists but did not load (it has errors) still
    /// names its bike or part, so the rider hears about its errors rather than that it is
    /// missing. Any other name is a usage error naming the nearest bike or part.
    package func subject(named name: String) throws(UsageError) -> Subject {
        // A path is never an id: `../garage` must not find garage.yaml through bikes/.
        let isFileName = !name.contains("/")
        if bike(BikeID(name)) != nil || isFileName && hasBikeFile(name) { return .bike(BikeID(name)) }
        if part(PartID(name)) != nil || isFileName && hasPartFile(name) { return .part(PartID(name)) }
        throw noBikeOrPart(name)
    }

    /// The subjects named, in order, as a selection (nothing named: everything), and a note for
    /// each name a bike and a part share, saying which one is meant.
    package func subjects(named names: [String]) throws(UsageError) -> (selection: ReportSelection, notes: [String]) {
        var selection = ReportSelection()
        var notes: [String] = []
        for name in names {
            switch try subject(named: name) {
            case .bike(let id):
                selection.bikes.append(id)
                if let note = sharedNameNote(id) { notes.append(note) }
            case .part(let id): selection.parts.append(id)
            }
        }
        return (selection, notes)
    }

    /// Says that a name means the bike when a part has the same id, and how to name the part.
    package func sharedNameNote(_ bike: BikeID) -> String? {
        guard let part = part(PartID(bike.rawValue)) else { return nil }
        return "'\(bike.rawValue)' is the bike; part '\(bike.rawValue)' has the same id: rename \(part.part.location.file) to name the part"
    }

    /// Whether `parts/ID.yaml` (or `.yml`) exists, whether or not it loaded.
    package func hasPartFile(_ id: String) -> Bool {
        ["yaml", "yml"].contains { FileManager.default.fileExists(atPath: root + "/parts/\(id).\($0)") }
    }
}
