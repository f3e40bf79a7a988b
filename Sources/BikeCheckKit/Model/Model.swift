import Diagnostics

/// A typed identifier: a bike id cannot be passed where an interval id is wanted.
public struct ID<Kind>: Hashable, Comparable, CustomStringConvertible, Codable, Sendable {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (a: ID, b: ID) -> Bool { a.rawValue < b.rawValue }
    public init(from decoder: Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

public enum BikeKind {}
public enum TemplateKind {}
public enum IntervalKind {}
public enum ComponentKind {}
public typealias BikeID = ID<BikeKind>
public typealias TemplateID = ID<TemplateKind>
public typealias IntervalID = ID<IntervalKind>
public typealias ComponentID = ID<ComponentKind>

/// A value together with where the rider wrote it.
public struct Located<Value: Sendable>: Sendable {
    public var value: Value
    public var location: SourceLocation
    public init(_ value: Value, at location: SourceLocation) {
        self.value = value
        self.location = location
    }
}

extension Located: Equatable where Value: Equatable {}

public enum UnitSystem: String, Sendable, Codable, CaseIterable {
    case metric, imperial
}

/// `garage.yaml`: settings for the whole garage.
public struct GarageSettings: Sendable {
    public var name: String?
    public var units: UnitSystem = .metric
    public var currency: String?
    /// Fraction of an interval after which it is "due soon".
    public var dueSoon: Double = 0.8
    /// Sport types that count toward wear, unless a bike says otherwise.
    public var counts: [String] = GarageSettings.defaultCounts
    /// Whether rides on a trainer (Strava's `trainer: true`) wear a bike, unless it says otherwise.
    /// Off by default: an indoor ride does not wear tyres, brakes or suspension as a ride outside does.
    public var trainer = TrainerRule.no
    public var stravaClientID: String?
    /// Days after the last Strava sync from which status warns that its data may be stale.
    public var staleAfter = 14
    /// Days without a ride after which a bike on Strava is called quiet, while others have rides.
    public var quietAfter = 60
    /// Where and when `bikecheck notify` sends reminders; nil when garage.yaml has no `notify:`.
    public var notify: NotifySettings?

    public static let defaultCounts = ["EBikeRide", "EMountainBikeRide", "GravelRide", "MountainBikeRide", "Ride"]

    public init() {}
}

/// A part of a bike whose life is tracked: chain, fork, tyres.
public struct Component: Sendable {
    public var id: ComponentID
    public var name: String?
    public var installed: Day?
    /// Usage before tracking started (a second-hand fork, a used wheel).
    public var priorHours: Double = 0
    public var priorDistance: Double = 0
    public var priorRides: Double = 0
    /// Which rides wear it, where it differs from its bike.
    public var rideFilter = RideFilterSpec()
    public var location: SourceLocation
}

/// An interval as written in a template or a bike file; a bike's entry may override only some fields.
public struct IntervalSpec: Sendable {
    public var id: IntervalID
    public var task: String?
    public var component: Located<ComponentID>?
    public var replaces: Located<ComponentID>?
    public var every: Located<[Quantity]>?
    /// `every` was written but could not be read (already reported), so no "missing limit" follows.
    public var everyIsInvalid = false
    public var dueSoon: Double?
    /// Which rides count for it, where it differs from its component, part or bike.
    public var rideFilter = RideFilterSpec()
    public var location: SourceLocation
}

/// A reusable set of intervals.
public struct Template: Sendable {
    public var id: TemplateID
    public var name: String
    public var description: String?
    /// Where an imported template came from, as text to show.
    public var source: String?
    /// The git repository a template was imported from (`source: {url, path, commit}`).
    public var origin: TemplateOrigin?
    public var intervals: [IntervalSpec]
    public var location: SourceLocation
}

/// Where a template imported with git came from: `template outdated` and `update` fetch it again.
public struct TemplateOrigin: Sendable, Equatable {
    /// What `git clone` was given (credentials stripped); a local repository is a path relative
    /// to the garage.
    public var url: String
    /// The file's path inside the repository.
    public var path: String
    /// The full id of the commit the garage's copy was taken from.
    public var commit: String
    /// The tag or branch followed; nil follows the repository's default branch.
    public var ref: String?

    public init(url: String, path: String, commit: String, ref: String?) {
        self.url = url
        self.path = path
        self.commit = commit
        self.ref = ref
    }

    /// One line for people: `URL path@commit`.
    public var description: String { "\(url) \(path)@\(commit.prefix(12))" + (ref.map { " (\($0))" } ?? "") }
}

/// One service in a bike's log.
public struct LogEntry: Sendable {
    public var date: Day
    public var dateLocation: SourceLocation
    public var done: [Located<IntervalID>]
    /// What it cost, exact, in its own currency or else the garage's.
    public var cost: Located<Money>?
    /// Free text that groups costs: parts, labour, consumables.
    public var category: String?
    public var note: String?
    /// The one-off job this entry closed (`todo: replace rear derailleur hanger`), if any.
    public var todo: String?
    public var location: SourceLocation
}

/// A service put off: `snooze: {chain-lube: 2026-12-01}` on a bike or a part. Before that day
/// status shows the interval as snoozed, not as overdue or due soon; from that day on it counts
/// again. `done` for the interval removes it.
public struct Snooze: Sendable {
    public var interval: Located<IntervalID>
    /// The day the interval counts again.
    public var until: Day
    public var untilLocation: SourceLocation
}

/// A one-off job on a bike or a part (`todo:`): a text, an optional due day, and an optional id
/// to close it with (`done BIKE --todo ID`); without an id its text is its key.
public struct Todo: Sendable {
    public var task: String
    public var id: String?
    public var due: Day?
    public var location: SourceLocation

    /// Whether `name` (from the command line) names it: its id, or its text.
    public func isNamed(_ name: String) -> Bool { id == name || task == name }
}

public struct Bike: Sendable {
    public var id: BikeID
    public var name: String
    /// Strava gear id (`b12345678`): activities with this gear count for the bike.
    public var strava: Located<String>?
    public var bought: Day?
    public var retired: Day?
    /// What the bike cost when bought, counted in the year it was bought.
    public var price: Located<Money>?
    public var templates: [Located<TemplateID>]
    /// Sport types that count toward wear; nil means the garage's.
    public var counts: [String]?
    /// Whether rides on a trainer count for this bike; nil means the garage's.
    public var trainer: TrainerRule?
    public var components: [Component]
    public var intervals: [IntervalSpec]
    public var log: [LogEntry]
    /// Intervals put off until a day.
    public var snoozes: [Snooze] = []
    /// One-off jobs, in the order written.
    public var todos: [Todo] = []
    public var location: SourceLocation
    /// Where each top-level key's value was written, for diagnostics about it.
    public var fieldLocations: [String: SourceLocation] = [:]
    /// Top-level keys written misspelled (already reported): what they would have held is not
    /// reported missing again.
    public var misspelledKeys: Set<String> = []

    public func component(_ id: ComponentID) -> Component? { components.first { $0.id == id } }
}

/// A ride entered by hand in `rides.yaml`.
public struct Ride: Sendable {
    public var date: Day
    public var bike: Located<BikeID>
    public var movingTime: Double
    public var distance: Double
    public var sport: String?
    public var name: String?
    public var location: SourceLocation
    public var dateLocation: SourceLocation
}

/// An interval after templates and overrides are merged: everything needed to compute status.
public struct ResolvedInterval: Sendable {
    public var id: IntervalID
    public var task: String
    public var component: ComponentID?
    public var replaces: ComponentID?
    public var limits: [Quantity]
    public var dueSoon: Double
    /// The template it came from, or nil when the bike defines it.
    public var template: TemplateID?
    /// Which rides count: the interval's own filter over its component's (or part's); what it
    /// leaves out comes from the bike the rides were on.
    public var rideFilter = RideFilterSpec()
}

/// A bike with its intervals resolved.
public struct ResolvedBike: Sendable {
    public var bike: Bike
    public var intervals: [ResolvedInterval]
    public var counts: Set<String>
    /// Whether rides on a trainer count.
    public var trainer = TrainerRule.no

    /// The rides that count for the bike itself.
    public var filter: RideFilter { RideFilter(counts: counts, trainer: trainer) }
}

/// A whole garage, loaded and resolved.
public struct Garage: Sendable {
    public var root: String
    public var settings: GarageSettings
    public var bikes: [ResolvedBike]
    public var templates: [Template]
    public var rides: [Ride]
    /// Parts kept in `parts/`, which move between bikes.
    public var parts: [ResolvedPart] = []

    public func bike(_ id: BikeID) -> ResolvedBike? { bikes.first { $0.bike.id == id } }
    public func part(_ id: PartID) -> ResolvedPart? { parts.first { $0.part.id == id } }
}
