import Diagnostics

public enum PartKind {}
/// A part's id: the name of its file in `parts/`.
public typealias PartID = ID<PartKind>

/// A stretch of days a part spent on one bike: `from` through `to`, both inclusive local days;
/// an open mount (no `to`) is where the part is now.
public struct Mount: Sendable {
    public var bike: Located<BikeID>
    public var from: Day
    public var to: Day?
    public var fromLocation: SourceLocation
    public var toLocation: SourceLocation?
    /// The whole entry, for notes that point at it.
    public var location: SourceLocation

    /// Whether the part was on the bike on this day.
    public func covers(_ day: Day) -> Bool { from <= day && (to.map { day <= $0 } ?? true) }
}

/// A part whose life is its own file (`parts/ID.yaml`): a wheelset, a fork, a spare chain. It
/// moves between bikes; its usage is what counted for each bike on the days it was there.
public struct Part: Sendable {
    public var id: PartID
    public var name: String
    public var bought: Day?
    public var retired: Day?
    /// What it cost, exact, in its own currency or else the garage's: `costs` counts it on the
    /// day it was bought, on the part's own line.
    public var price: Located<Money>?
    /// A slot on a bike (`wheels`, `fork`): one part at a time fills it.
    public var slot: Located<String>?
    /// Usage before tracking started.
    public var priorHours: Double = 0
    public var priorDistance: Double = 0
    public var priorRides: Double = 0
    /// Which rides wear it, where it differs from the bike it is on.
    public var rideFilter = RideFilterSpec()
    public var templates: [Located<TemplateID>] = []
    public var intervals: [IntervalSpec] = []
    /// Where it has been, in the order written.
    public var mounts: [Mount] = []
    public var log: [LogEntry] = []
    /// Intervals put off until a day.
    public var snoozes: [Snooze] = []
    /// One-off jobs, in the order written.
    public var todos: [Todo] = []
    public var location: SourceLocation
    public var fieldLocations: [String: SourceLocation] = [:]
    public var misspelledKeys: Set<String> = []

    /// The mount that covers `day`, if the part was on a bike then.
    public func mount(on day: Day) -> Mount? { mounts.first { $0.covers(day) } }
}

/// A part with its intervals resolved.
public struct ResolvedPart: Sendable {
    public var part: Part
    public var intervals: [ResolvedInterval]
}
