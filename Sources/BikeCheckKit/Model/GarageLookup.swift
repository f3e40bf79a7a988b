import Foundation

/// Questions every command asks of a loaded garage, answered in one place.
extension Garage {
    /// Whether `bikes/ID.yaml` or `gear/ID.yaml` (or `.yml`) exists, whether or not it loaded.
    package func hasBikeFile(_ id: String) -> Bool {
        ["bikes", "gear"].contains { folder in ["yaml", "yml"].contains { FileManager.default.fileExists(atPath: root + "/\(folder)/\(id).\($0)") } }
    }

    /// The usage error for a bike id the garage has no bike of: "no bike 'x'; did you mean 'y'?",
    /// with the bikes there are (or how to add one).
    package func noBike(_ id: String) -> UsageError {
        let ids = bikes.map(\.bike.id.rawValue)
        let hint = didYouMean(id, among: ids)
        return UsageError(
            "no bike '\(id)'\(hint)", help: ids.isEmpty ? "add one with 'bikecheck bike add ID --name NAME'" : bikesAndGear)
    }

    /// The usage error for a name that is neither a bike nor a part, with both lists.
    package func noBikeOrPart(_ id: String) -> UsageError {
        guard !parts.isEmpty else { return noBike(id) }
        let bikeIDs = bikes.map(\.bike.id.rawValue), partIDs = parts.map(\.part.id.rawValue)
        let hint = didYouMean(id, among: bikeIDs + partIDs)
        return UsageError("no bike or part '\(id)'\(hint)", help: "\(bikesAndGear); parts: \(partIDs.joined(separator: ", "))")
    }

    /// `bikes: a, b` and, when there is gear, `; gear: c`: the ids a bike's name may be.
    private var bikesAndGear: String {
        let gear = bikes.filter(\.bike.isGear).map(\.bike.id.rawValue)
        return "bikes: \(bikes.filter { !$0.bike.isGear }.map(\.bike.id.rawValue).joined(separator: ", "))"
            + (gear.isEmpty ? "" : "; gear: \(gear.joined(separator: ", "))")
    }

    /// Which bike each Strava gear id belongs to: gear id → bike id.
    package var bikeIDsByGearID: [String: String] {
        var out: [String: String] = [:]
        for resolved in bikes {
            if let gear = resolved.bike.strava?.value { out[gear] = resolved.bike.id.rawValue }
        }
        return out
    }

    /// The bikes that use a template, by id, in the garage's order.
    package func bikes(using template: TemplateID) -> [String] {
        bikes.filter { $0.bike.templates.contains { $0.value == template } }.map(\.bike.id.rawValue)
    }
}
