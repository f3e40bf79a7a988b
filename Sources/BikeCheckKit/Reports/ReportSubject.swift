/// What a report line is about. Bikes today; a part (`parts/ID.yaml`) becomes a second case, so
/// every report that groups by subject takes parts without changing shape.
public struct ReportSubject: Sendable, Hashable, Comparable, Encodable {
    public enum Kind: String, Sendable, Hashable, Comparable, Encodable {
        case bike
        public static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
    }

    public var kind: Kind
    public var id: String
    public var name: String

    public static func bike(_ bike: Bike) -> ReportSubject { ReportSubject(kind: .bike, id: bike.id.rawValue, name: bike.name) }

    public static func < (a: ReportSubject, b: ReportSubject) -> Bool { (a.kind, a.id) < (b.kind, b.id) }
}
