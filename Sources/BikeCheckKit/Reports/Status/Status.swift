import Foundation

/// How urgent an interval (or a to-do) is.
package enum IntervalState: String, Sendable, Codable, Comparable {
    case overdue
    case dueSoon = "due-soon"
    case ok
    /// Put off by the rider (`snooze:`) until `snoozedUntil`: neither overdue nor due soon
    /// whatever its progress, until that day.
    case snoozed

    private var rank: Int {
        switch self {
        case .overdue: 0
        case .dueSoon: 1
        case .ok: 2
        case .snoozed: 3
        }
    }
    package static func < (a: IntervalState, b: IntervalState) -> Bool { a.rank < b.rank }
}

/// Usage since an anchor, in Strava's units.
package struct Usage: Sendable, Codable, Equatable {
    /// Moving time, in seconds.
    package var movingTime: Double = 0
    /// Distance, in metres.
    package var distance: Double = 0
    /// Calendar days since the anchor.
    package var days: Int = 0
    package var rides: Int = 0

    package init(movingTime: Double = 0, distance: Double = 0, days: Int = 0, rides: Int = 0) {
        self.movingTime = movingTime
        self.distance = distance
        self.days = days
        self.rides = rides
    }

    enum CodingKeys: String, CodingKey {
        case movingTime = "moving_time"
        case distance, days, rides
    }

    /// Usage before tracking, as a part or component declares it: nil when it declares none.
    init?(prior hours: Double, distance: Double, rides: Double) {
        guard hours != 0 || distance != 0 || rides != 0 else { return nil }
        self.init(movingTime: hours * 3600, distance: distance, rides: Int(rides))
    }

    /// This usage with `prior`'s added (days stay this usage's).
    func adding(_ prior: Usage?) -> Usage {
        guard let prior else { return self }
        var sum = self
        sum.movingTime += prior.movingTime
        sum.distance += prior.distance
        sum.rides += prior.rides
        return sum
    }
}

/// One limit of an interval and how far along it is.
package struct LimitStatus: Sendable, Codable, Equatable {
    /// As written: `10 h`, `6 months`.
    package var every: String
    package var measure: Measure
    /// The unit the limit was written in, and its size in the base unit, for display.
    package var unit: String
    package var unitSize: Double
    /// The limit in the measure's base unit (seconds, metres, days, months or rides).
    package var limit: Double
    /// Used so far, in the same unit (months are counted as calendar days over the month's span).
    package var used: Double
    package var progress: Double
    /// The day this limit is reached at the recent pace; nil without a pace.
    package var due: Day?
    /// Under `fixed` and `catch-up`, the day its current window began (the previous due point, or
    /// the day the odometer passed it); nil otherwise. Not in the JSON: it is the interval's
    /// `since` when this limit is the one shown.
    package var windowStart: Day? = nil

    enum CodingKeys: String, CodingKey {
        case every, measure, unit
        case unitSize = "unit_size"
        case limit, used, progress, due
    }
}

/// Where an interval's count starts.
package enum AnchorKind: String, Sendable, Codable {
    /// The latest log entry that did it.
    case done
    /// The install date of its component.
    case installed
    /// The latest log entry that replaced its component.
    case replaced
    /// The day the bike was bought.
    case bought
    /// The bike's first counted ride.
    case firstRide = "first-ride"
    /// Nothing to count from yet.
    case none
}

package struct IntervalStatus: Sendable, Codable, Equatable {
    package var id: String
    package var task: String
    package var component: String?
    package var template: String?
    package var state: IntervalState
    /// The largest fraction over the limits; 1 or more is overdue.
    package var progress: Double
    package var since: Day?
    package var anchor: AnchorKind
    package var usage: Usage
    package var limits: [LimitStatus]
    /// The earliest day a limit is reached at the recent pace.
    package var due: Day?
    /// The part (in `parts/`) the interval belongs to, when it is a part's and not the bike's.
    package var part: String? = nil
    /// Its urgency band (see `UrgencyBand`), set once the whole status is planned.
    package var band: UrgencyBand = .ok

    /// While the interval is snoozed (`state` is `.snoozed`): the day it counts again.
    package var snoozedUntil: Day? = nil
    /// The usage before tracking that `usage` includes (a second-hand part's or component's
    /// `hours:`/`distance:`/`rides:`, until it is first serviced); nil when it adds none. The
    /// planner decides it once; `rides --interval` shows it beside the rides it counted.
    package var prior: Usage? = nil
    /// Its measured wear (`wear_limit:` and readings since its anchor); nil without a reading.
    package var wear: WearStatus? = nil

    enum CodingKeys: String, CodingKey {
        case id, task, component, template, state, progress, since, anchor, usage, limits, due, part, band
        case snoozedUntil = "snoozed_until"
        case wear
    }

    /// Marks it snoozed when `snoozes` put it off past `asOf`; from the snooze's day on it is
    /// what its progress says. Until then it is due no sooner than that day, so a forecast
    /// (status, the calendar, reminders) never brings it back early.
    mutating func applySnooze(_ snoozes: [Snooze], asOf: Day) {
        guard let until = snoozes.last(where: { $0.interval.value.rawValue == id })?.until, asOf < until else { return }
        state = .snoozed
        snoozedUntil = until
        due = max(until, due ?? until)
    }

    /// The limit the renderers show: the one furthest along (the first of equals).
    package var deciding: LimitStatus? { limits.max { $0.progress < $1.progress } }

    /// The limit whose forecast is `due`, when it is not the one shown (`deciding`): with two
    /// limits (`[4000 km, 2 years]`) the one furthest along may not be the one reached first at
    /// the recent pace, so the renderers name it beside the day (`due ~2026-11-23 by 4000 km`).
    package var dueLimit: LimitStatus? {
        guard limits.count > 1, let due, state != .snoozed, let by = limits.first(where: { $0.due == due }), by != deciding else { return nil }
        return by
    }

    /// Whether `due` is the day the measured wear reaches its limit, sooner than any limit's.
    package var dueByWear: Bool {
        guard let due, let w = wear?.due, state != .snoozed else { return false }
        return w == due && !limits.contains { $0.due == due }
    }

    /// Nothing is forecast where the clock has stopped (a retired bike or part).
    mutating func stopForecasts() {
        due = nil
        for k in limits.indices { limits[k].due = nil }
        wear?.due = nil
    }
}

/// A one-off job (`todo:`) as of the report's day.
package struct TodoStatus: Sendable, Codable, Equatable {
    package var task: String
    package var id: String?
    package var due: Day?
    /// `overdue` after its due day, `due-soon` within `TodoStatus.dueSoonDays` of it, else `ok`.
    package var state: IntervalState
    /// The part (in `parts/`) it belongs to, when it is a part's shown under its bike.
    package var part: String? = nil

    /// A key that names the to-do wherever its owner is: `bike/ID/todo/TODO`, or `part/ID/todo/TODO`
    /// for a part's (shown under `bike` or not), `TODO` its id, else its text percent-encoded.
    /// Reminders and calendar events are named by it.
    package func key(bike: String?) -> String {
        Self.key(owner: part.map { "part/\($0)" } ?? "bike/\(bike ?? "")", todo: id ?? task)
    }

    /// `OWNER/todo/TODO`, for `OWNER` `bike/ID` or `part/ID` and a to-do's id or text.
    package static func key(owner: String, todo: String) -> String {
        owner + "/todo/" + (todo.addingPercentEncoding(withAllowedCharacters: keyCharacters) ?? "")
    }

    /// What a to-do's text keeps in a key: RFC 3986's unreserved characters.
    package static let keyCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    /// How many days before its due day a to-do is due soon.
    package static let dueSoonDays = 7

    package init(_ todo: Todo, asOf: Day, part: String? = nil) {
        self.part = part
        task = todo.task
        id = todo.id
        due = todo.due
        if let due = todo.due {
            state = asOf > due ? .overdue : due.ordinal - asOf.ordinal <= Self.dueSoonDays ? .dueSoon : .ok
        } else {
            state = .ok
        }
    }

    /// Most urgent first (by state, then due day, undated last), keeping the given order otherwise.
    package static func sortedByUrgency(_ todos: [TodoStatus]) -> [TodoStatus] {
        todos.enumerated().sorted { a, b in
            if a.element.state != b.element.state { return a.element.state < b.element.state }
            if a.element.due != b.element.due { return (a.element.due?.ordinal ?? Int.max) < (b.element.due?.ordinal ?? Int.max) }
            return a.offset < b.offset
        }.map(\.element)
    }

    /// Most urgent first: by state, then due day (undated last), then as written.
    static func sorted(_ todos: [(todo: Todo, part: String?)], asOf: Day) -> [TodoStatus] {
        todos.enumerated().map { (k: $0.offset, s: TodoStatus($0.element.todo, asOf: asOf, part: $0.element.part)) }
            .sorted { a, b in
                if a.s.state != b.s.state { return a.s.state < b.s.state }
                if a.s.due != b.s.due { return (a.s.due?.ordinal ?? Int.max) < (b.s.due?.ordinal ?? Int.max) }
                return a.k < b.k
            }.map(\.s)
    }
}

package struct BikeStatus: Sendable, Codable, Equatable {
    package var id: String
    package var name: String
    package var retired: Day?
    package var intervals: [IntervalStatus]
    /// Its one-off jobs, most urgent first.
    package var todos: [TodoStatus] = []
    /// A household's: whose bike it is (`rider:`); nil when it names none.
    package var rider: String? = nil
    /// What gear it is (`gear/`); nil for a bike.
    package var kind: GearKind? = nil
}

/// A part reported on its own: on the shelf, or named on the command line.
package struct PartStatus: Sendable, Codable, Equatable {
    package var id: String
    package var name: String
    /// The bike it is mounted on as of the report's day; nil on the shelf.
    package var bike: String?
    package var retired: Day?
    package var intervals: [IntervalStatus]
    /// Its one-off jobs, most urgent first.
    package var todos: [TodoStatus] = []
    /// A household's: whose part it is (`rider:`); nil when it names none.
    package var rider: String? = nil
}

/// What `bikecheck status` reports: a typed model, rendered at the edge.
package struct StatusReport: Sendable, Codable, Equatable {
    package var asOf: Day
    /// The figures are SI (`"units": "si"`); `units` is what the rider reads (`display_units`).
    package var jsonUnits = JSONUnits.si
    package var units: UnitSystem
    package var bikes: [BikeStatus]
    /// Parts on no bike (or named), with their own intervals.
    package var parts: [PartStatus] = []
    /// Signs that the data behind the report stopped arriving (see `Staleness`).
    package var warnings: [StaleWarning] = []
    /// Every interval, most urgent first, when asked for (`status --by urgency`).
    package var urgency: [IntervalReference]? = nil

    enum CodingKeys: String, CodingKey {
        case asOf = "as_of"
        case jsonUnits = "units"
        case units = "display_units"
        case bikes, parts, warnings, urgency
    }

    /// The bikes' to-dos that are overdue or due soon (past or within a week of their day), most
    /// urgent first: by state, then due day (undated last), then bike; the report's "next up".
    package func dueTodos() -> [(bike: BikeStatus, todo: TodoStatus)] {
        bikes.flatMap { b in b.todos.filter { $0.state != .ok }.map { (bike: b, todo: $0) } }
            .sorted { ($0.todo.state, $0.todo.due?.ordinal ?? Int.max, $0.bike.id) < ($1.todo.state, $1.todo.due?.ordinal ?? Int.max, $1.bike.id) }
    }

    /// Whether an interval or a to-do is overdue (a snoozed interval is not, until its day).
    package var hasOverdue: Bool {
        bikes.contains { $0.intervals.contains { $0.state == .overdue } || $0.todos.contains { $0.state == .overdue } }
            || parts.contains { $0.intervals.contains { $0.state == .overdue } || $0.todos.contains { $0.state == .overdue } }
    }
}
