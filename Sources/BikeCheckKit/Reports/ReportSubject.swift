/// What a report line is about: a bike, or a part (`parts/ID.yaml`), which every report that
/// groups by subject takes without changing shape.
public struct ReportSubject: Sendable, Hashable, Comparable, Encodable {
    public enum Kind: String, Sendable, Hashable, Comparable, Encodable {
        case bike, part
        public static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
    }

    public var kind: Kind
    public var id: String
    public var name: String

    public static func bike(_ bike: Bike) -> ReportSubject { ReportSubject(kind: .bike, id: bike.id.rawValue, name: bike.name) }
    public static func part(_ part: Part) -> ReportSubject { ReportSubject(kind: .part, id: part.id.rawValue, name: part.name) }

    /// Bikes first, then parts, each by id.
    public static func < (a: ReportSubject, b: ReportSubject) -> Bool { (a.kind, a.id) < (b.kind, b.id) }

    /// In a sentence (a footer): the bike's id, or `ID (part)`.
    public var label: String { kind == .bike ? id : id + " (part)" }
}

/// The bikes and parts a report is about, as named on the command line (see
/// `Garage.subjects(named:)`): with none named, every bike and every part (reports that list
/// rides: every bike).
public struct ReportSelection: Sendable {
    public var bikes: [BikeID]
    public var parts: [PartID]

    public init(bikes: [BikeID] = [], parts: [PartID] = []) {
        self.bikes = bikes
        self.parts = parts
    }

    public static let everything = ReportSelection()

    public var isEverything: Bool { bikes.isEmpty && parts.isEmpty }

    public func includes(_ bike: BikeID) -> Bool { isEverything || bikes.contains(bike) }

    /// Whether a part is shown; `byDefault` says whether parts are shown when nothing is named.
    public func includes(_ part: PartID, byDefault: Bool = true) -> Bool { isEverything ? byDefault : parts.contains(part) }

    /// The interval ids `--interval` may name for these bikes and parts (every bike, and every
    /// part when `parts`, when none is named): those their files list and those their logs did.
    public func intervalIDs(in garage: Garage, parts byDefault: Bool = true) -> [String] {
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
