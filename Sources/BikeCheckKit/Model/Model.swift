import Diagnostics

/// A typed identifier: a bike id cannot be passed where an interval id is wanted.
package struct ID<Kind>: Hashable, Comparable, CustomStringConvertible, Codable, Sendable {
    package let rawValue: String
    package init(_ rawValue: String) { self.rawValue = rawValue }
    package var description: String { rawValue }
    package static func < (a: ID, b: ID) -> Bool { a.rawValue < b.rawValue }
    package init(from decoder: Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    package func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

package enum BikeKind {}
package enum TemplateKind {}
package enum IntervalKind {}
package enum ComponentKind {}
package typealias BikeID = ID<BikeKind>
package typealias TemplateID = ID<TemplateKind>
package typealias IntervalID = ID<IntervalKind>
package typealias ComponentID = ID<ComponentKind>

/// A value together with where the rider wrote it.
package struct Located<Value: Sendable>: Sendable {
    package var value: Value
    package var location: SourceLocation
    package init(_ value: Value, at location: SourceLocation) {
        self.value = value
        self.location = location
    }
}

extension Located: Equatable where Value: Equatable {}

package enum UnitSystem: String, Sendable, Codable, CaseIterable {
    case metric, imperial
}

/// `garage.yaml`: settings for the whole garage.
package struct GarageSettings: Sendable {
    package var name: String?
    package var units: UnitSystem = .metric
    package var currency: String?
    /// Fraction of an interval after which it is "due soon".
    package var dueSoon: Double = 0.8
    /// Sport types that count toward wear, unless a bike says otherwise.
    package var counts: [String] = GarageSettings.defaultCounts
    /// Whether rides on a trainer (Strava's `trainer: true`) wear a bike, unless it says otherwise.
    /// Off by default: an indoor ride does not wear tyres, brakes or suspension as a ride outside does.
    package var trainer = TrainerRule.no
    package var stravaClientID: String?
    /// Days after the last Strava sync from which status warns that its data may be stale.
    package var staleAfter = 14
    /// Days without a ride after which a bike on Strava is called quiet, while others have rides.
    package var quietAfter = 60
    /// Where and when `bikecheck notify` sends reminders; nil when garage.yaml has no `notify:`.
    package var notify: NotifySettings?
    /// The household (`riders:`), in the order written; empty for a garage of one rider.
    package var riders: [Rider] = []

    package func rider(_ name: String) -> Rider? { riders.first { $0.name == name } }

    package static let defaultCounts = ["EBikeRide", "EMountainBikeRide", "GravelRide", "MountainBikeRide", "Ride"]

    package init() {}
}

/// One rider of a household sharing the garage (`riders: {NAME: {notify: …}}`): bikes and parts
/// name theirs with `rider: NAME`; each keeps their own Strava login and reminders.
package struct Rider: Sendable {
    package var name: String
    /// Where this rider's reminders go; nil when they have none of their own.
    package var notify: NotifySettings?
    package var location: SourceLocation

    package init(name: String, notify: NotifySettings? = nil, location: SourceLocation) {
        self.name = name
        self.notify = notify
        self.location = location
    }
}

/// A part of a bike whose life is tracked: chain, fork, tyres.
package struct Component: Sendable, Equatable {
    package var id: ComponentID
    package var name: String?
    package var installed: Day?
    /// Usage before tracking started (a second-hand fork, a used wheel).
    package var priorHours: Double = 0
    package var priorDistance: Double = 0
    package var priorRides: Double = 0
    /// Which rides wear it, where it differs from its bike.
    package var rideFilter = RideFilterSpec()
    package var location: SourceLocation
    /// Where `installed:`'s value is written, for the checks that point at it.
    package var installedLocation: SourceLocation? = nil
}

/// An interval as written in a template or a bike file; a bike's entry may override only some fields.
package struct IntervalSpec: Sendable, Equatable {
    package var id: IntervalID
    package var task: String?
    package var component: Located<ComponentID>?
    package var replaces: Located<ComponentID>?
    package var every: Located<[Quantity]>?
    /// `every` was written but could not be read (already reported), so no "missing limit" follows.
    package var everyIsInvalid = false
    package var dueSoon: Double?
    /// Which rides count for it, where it differs from its component, part or bike.
    package var rideFilter = RideFilterSpec()
    package var location: SourceLocation
    /// `repeat:`, when written.
    package var repeatRule: RepeatRule? = nil
    /// `wear_limit:`, when written: the measurement at which the job is due (`0.75 %`, `1 mm`).
    package var wearLimit: Located<WearAmount>? = nil
}

/// How the next due point follows a service (`repeat:`, named as org-mode names its repeaters).
package enum RepeatRule: String, Sendable, Hashable, CaseIterable {
    /// One interval after the day (or the odometer) it was done: the default.
    case fromDone = "from-done"
    /// One interval after the previous due point, however early or late it was done; a late job
    /// can stay overdue.
    case fixed
    /// The previous due point moved on by whole intervals until it is past the service: the
    /// annual service that stays in March.
    case catchUp = "catch-up"
}

/// A reusable set of intervals.
package struct Template: Sendable {
    package var id: TemplateID
    package var name: String
    package var description: String?
    /// Where an imported template came from, as text to show.
    package var source: String?
    /// The git repository a template was imported from (`source: {url, path, commit}`).
    package var origin: TemplateOrigin?
    package var intervals: [IntervalSpec]
    package var location: SourceLocation
}

/// Where a template imported with git came from: `template outdated` and `update` fetch it again.
package struct TemplateOrigin: Sendable, Equatable {
    /// What `git clone` was given (credentials stripped); a local repository is a path relative
    /// to the garage.
    package var url: String
    /// The file's path inside the repository.
    package var path: String
    /// The full id of the commit the garage's copy was taken from.
    package var commit: String
    /// The tag or branch followed; nil follows the repository's default branch.
    package var ref: String?

    package init(url: String, path: String, commit: String, ref: String?) {
        self.url = url
        self.path = path
        self.commit = commit
        self.ref = ref
    }

    /// One line for people: `URL path@commit`.
    package var description: String { "\(url) \(path)@\(commit.prefix(12))" + (ref.map { " (\($0))" } ?? "") }
}

/// One service in a bike's log.
package struct LogEntry: Sendable, Equatable {
    package var date: Day
    package var dateLocation: SourceLocation
    package var done: [Located<IntervalID>]
    /// What it cost, exact, in its own currency or else the garage's.
    package var cost: Located<Money>?
    /// Free text that groups costs: parts, labour, consumables.
    package var category: String?
    package var note: String?
    /// The one-off job this entry closed (`todo: replace rear derailleur hanger`), if any.
    package var todo: String?
    package var location: SourceLocation
    /// Measurements taken (`readings: {chain-replace: 0.5 %}`), in the order written; an entry
    /// may hold only these: a measurement is not a service.
    package var readings: [Reading] = []
}

/// A service put off: `snooze: {chain-lube: 2026-12-01}` on a bike or a part. Before that day
/// status shows the interval as snoozed, not as overdue or due soon; from that day on it counts
/// again. `done` for the interval removes it.
package struct Snooze: Sendable, Equatable {
    package var interval: Located<IntervalID>
    /// The day the interval counts again.
    package var until: Day
    package var untilLocation: SourceLocation
}

/// A one-off job on a bike or a part (`todo:`): a text, an optional due day, and an optional id
/// to close it with (`done BIKE --todo ID`); without an id its text is its key.
package struct Todo: Sendable, Equatable {
    package var task: String
    package var id: String?
    package var due: Day?
    package var location: SourceLocation

    /// Whether `name` (from the command line) names it: its id, or its text.
    package func isNamed(_ name: String) -> Bool { id == name || task == name }
}

/// What a file in `gear/` is (`kind:`): gear that wears as a bike does, with its own rides.
package enum GearKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// Running or walking shoes: their own Strava gear (`g…`), runs, walks and hikes.
    case shoes
    /// A smart trainer: the indoor rides of every bike, or those its `devices:` recorded.
    case trainer
    /// A helmet: the outdoor rides of every bike.
    case helmet
    /// Anything else that wears with riding: the rides of every bike, as a bike counts them.
    case other

    /// The sport types a gear item counts when it does not say (`counts:`): a pair of shoes
    /// counts what is walked or run in them; the rest what a bike counts (a trainer also the
    /// VirtualRide its rides on it are).
    package func defaultCounts(garage: [String]) -> [String] {
        switch self {
        case .shoes: ["Hike", "Run", "TrailRun", "Walk"]
        case .trainer: garage.contains("VirtualRide") ? garage : garage + ["VirtualRide"]
        case .helmet, .other: garage
        }
    }

    /// Whether its rides on a trainer count when it does not say (`trainer:`): shoes wear on a
    /// treadmill too; a trainer is all indoor rides (or, with `devices:`, every ride they
    /// recorded, all of them on it); a helmet and other gear as the garage says for a bike.
    package func defaultTrainer(garage: TrainerRule, hasDevices: Bool) -> TrainerRule {
        switch self {
        case .shoes: .yes
        case .trainer: hasDevices ? .yes : .only
        case .helmet, .other: garage
        }
    }
}

package struct Bike: Sendable, Equatable {
    package var id: BikeID
    package var name: String
    /// What gear it is, for a file in `gear/`; nil for a bike (`bikes/`). Gear is a bike in
    /// everything else: components, intervals, templates, log, costs and the reports.
    package var kind: GearKind? = nil
    /// The rider whose bike it is (`rider: NAME`, one of garage.yaml's `riders:`); nil when shared.
    package var rider: Located<String>?
    /// Strava gear id (`b12345678`): activities with this gear count for the bike.
    package var strava: Located<String>?
    /// Serial numbers of the devices that record only this bike's rides: `import files` puts
    /// their files' rides on it.
    package var devices: [Located<Int64>] = []
    package var bought: Day?
    package var retired: Day?
    /// What the bike cost when bought, counted in the year it was bought.
    package var price: Located<Money>?
    package var templates: [Located<TemplateID>]
    /// Sport types that count toward wear; nil means the garage's.
    package var counts: [String]?
    /// Whether rides on a trainer count for this bike; nil means the garage's.
    package var trainer: TrainerRule?
    package var components: [Component]
    package var intervals: [IntervalSpec]
    package var log: [LogEntry]
    /// Intervals put off until a day.
    package var snoozes: [Snooze] = []
    /// One-off jobs, in the order written.
    package var todos: [Todo] = []
    package var location: SourceLocation
    /// Where each top-level key's value was written, for diagnostics about it.
    package var fieldLocations: [String: SourceLocation] = [:]
    /// Top-level keys written misspelled (already reported): what they would have held is not
    /// reported missing again.
    package var misspelledKeys: Set<String> = []

    package func component(_ id: ComponentID) -> Component? { components.first { $0.id == id } }

    /// The gear id `import files` gives the rides it puts on this bike: `bike:` and its id, so
    /// that they are the bike's with or without a Strava gear id.
    package var importedGearID: String { "bike:" + id.rawValue }

    /// The gear ids whose activities are this bike's: its Strava gear id and `importedGearID`.
    package var gearIDs: [String] { [strava?.value, importedGearID].compactMap { $0 } }

    /// Whether it is gear (`gear/`), not a bike.
    package var isGear: Bool { kind != nil }

    /// What the rider calls it in a sentence: "bike", or the gear's kind ("shoes", "trainer").
    package var noun: String { kind.map { $0 == .other ? "gear" : $0.rawValue } ?? "bike" }

    /// Its file's folder: `bikes`, or `gear`.
    package var folder: String { isGear ? "gear" : "bikes" }

    /// Whether it is gear worn on the rides of every bike: a trainer, a helmet or other gear with
    /// neither a Strava gear id nor devices of its own (with either, its rides are its own).
    package var wearsOnEveryBike: Bool {
        guard let kind, kind != .shoes else { return false }
        return strava == nil && devices.isEmpty
    }
}

/// A ride entered by hand in `rides.yaml`.
package struct Ride: Sendable {
    package var date: Day
    package var bike: Located<BikeID>
    package var movingTime: Double
    package var distance: Double
    package var sport: String?
    package var name: String?
    package var location: SourceLocation
    package var dateLocation: SourceLocation
}

/// An interval after templates and overrides are merged: everything needed to compute status.
package struct ResolvedInterval: Sendable {
    package var id: IntervalID
    package var task: String
    package var component: ComponentID?
    package var replaces: ComponentID?
    package var limits: [Quantity]
    package var dueSoon: Double
    /// The template it came from, or nil when the bike defines it.
    package var template: TemplateID?
    /// Which rides count: the interval's own filter over its component's (or part's); what it
    /// leaves out comes from the bike the rides were on.
    package var rideFilter = RideFilterSpec()
    /// How the next due point follows a service.
    package var repeatRule = RepeatRule.fromDone
    /// The measurement at which it is due (`wear_limit:`), when it has one.
    package var wearLimit: WearAmount? = nil
}

/// A bike with its intervals resolved.
package struct ResolvedBike: Sendable {
    package var bike: Bike
    package var intervals: [ResolvedInterval]
    package var counts: Set<String>
    /// Whether rides on a trainer count.
    package var trainer = TrainerRule.no
    /// For gear worn on every bike's rides (`Bike.wearsOnEveryBike`): the bikes whose rides are
    /// its too (every bike of the garage, or of its rider and shared ones), and their gear ids.
    package var ridesOf: Set<BikeID> = []
    package var ridesOfGearIDs: [String] = []

    /// The rides that count for the bike itself.
    package var filter: RideFilter { RideFilter(counts: counts, trainer: trainer) }
}

/// A whole garage, loaded and resolved.
package struct Garage: Sendable {
    package var root: String
    package var settings: GarageSettings
    package var bikes: [ResolvedBike]
    package var templates: [Template]
    package var rides: [Ride]
    /// Parts kept in `parts/`, which move between bikes.
    package var parts: [ResolvedPart] = []

    package func bike(_ id: BikeID) -> ResolvedBike? { bikes.first { $0.bike.id == id } }
    package func part(_ id: PartID) -> ResolvedPart? { parts.first { $0.part.id == id } }
}
