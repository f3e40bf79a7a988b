/// What a report line is about: a bike, or a part (`parts/ID.yaml`), which every report that
/// groups by subject takes without changing shape.
package struct ReportSubject: Sendable, Hashable, Comparable, Encodable {
    package enum Kind: String, Sendable, Hashable, Comparable, Encodable {
        case bike, part
        package static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
    }

    package var kind: Kind
    package var id: String
    package var name: String

    package static func bike(_ bike: Bike) -> ReportSubject { ReportSubject(kind: .bike, id: bike.id.rawValue, name: bike.name) }
    package static func part(_ part: Part) -> ReportSubject { ReportSubject(kind: .part, id: part.id.rawValue, name: part.name) }

    /// Bikes first, then parts, each by id.
    package static func < (a: ReportSubject, b: ReportSubject) -> Bool { (a.kind, a.id) < (b.kind, b.id) }

    /// In a sentence (a footer): the bike's id, or `ID (part)`.
    package var label: String { kind == .bike ? id : id + " (part)" }
}

/// What a report is asked: the bikes and parts (`selection`), the day it is computed as of, and
/// the days it covers (`since` through `until`, else through `asOf`). The one value every report
/// builder takes, made once where the command line (or an MCP call) is read.
package struct ReportQuery: Sendable {
    package var selection: ReportSelection
    package var asOf: Day
    package var since: Day?
    package var until: Day?

    package init(_ selection: ReportSelection = .everything, asOf: Day, since: Day? = nil, until: Day? = nil) {
        self.selection = selection
        self.asOf = asOf
        self.since = since
        self.until = until
    }

    package init(bikes: [BikeID] = [], parts: [PartID] = [], asOf: Day, since: Day? = nil, until: Day? = nil) {
        self.init(ReportSelection(bikes: bikes, parts: parts), asOf: asOf, since: since, until: until)
    }
}

/// The bikes and parts a report is about, as named on the command line (see
/// `Garage.subjects(named:)`): with none named, every bike and every part (reports that list
/// rides: every bike).
package struct ReportSelection: Sendable {
    package var bikes: [BikeID]
    package var parts: [PartID]

    package init(bikes: [BikeID] = [], parts: [PartID] = []) {
        self.bikes = bikes
        self.parts = parts
    }

    package static let everything = ReportSelection()

    package var isEverything: Bool { bikes.isEmpty && parts.isEmpty }

    package func includes(_ bike: BikeID) -> Bool { isEverything || bikes.contains(bike) }

    /// Whether a part is shown; `byDefault` says whether parts are shown when nothing is named.
    package func includes(_ part: PartID, byDefault: Bool = true) -> Bool { isEverything ? byDefault : parts.contains(part) }

    /// The interval ids `--interval` may name for these bikes and parts (every bike, and every
    /// part when `parts`, when none is named): those their files list and those their logs did.
    package func intervalIDs(in garage: Garage, parts byDefault: Bool = true) -> [String] {
        var ids = Set<String>()
        for resolved in garage.bikes where includes(resolved.bike.id) {
            ids.formUnion(resolved.intervals.map(\.id.rawValue))
            for entry in resolved.bike.log { ids.formUnion(entry.done.map(\.value.rawValue)) }
        }
        for rp in garage.parts where includes(rp.part.id, byDefault: byDefault) {
            ids.formUnion(rp.intervals.map(\.id.rawValue))
            for entry in rp.part.log { ids.formUnion(entry.done.map(\.value.rawValue)) }
        }
        return ids.sorted()
    }
}
