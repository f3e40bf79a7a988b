/// How urgent an interval is, as one band: overdue; forecast due within a window of days (the
/// nearest window that holds the forecast due day: 0, 1, 7 or 30 days by default, as the
/// Checkpoint seed's notices); due soon by progress (`due_soon`); or none of these.
///
/// Bands are computed from an `IntervalStatus` alone (its state, progress and forecast), so
/// anything that changes the status (a service, a snooze) changes the band with it. Only an
/// `overdue`, `due-soon` or `ok` state can be in a band: a state added later (snoozed, say)
/// is in none until this says otherwise.
package enum UrgencyBand: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    case overdue
    /// The forecast due day is at most this many days after the report's day.
    case within(days: Int)
    case dueSoon
    case ok

    /// The forecast windows, in days, when the garage names none (`notify: bands:`).
    package static let defaultWindows = [30, 7, 1, 0]
    /// The widest window accepted: the forecast looks no further than ten years.
    package static let maximumWindow = 3650

    /// Most urgent first: overdue, the nearest forecast window first, due soon, ok.
    private var rank: Int {
        switch self {
        case .overdue: 0
        case .within(let days): 1 + days
        case .dueSoon: 2 + Self.maximumWindow
        case .ok: 3 + Self.maximumWindow
        }
    }

    /// `a < b` when `a` is more urgent.
    package static func < (a: UrgencyBand, b: UrgencyBand) -> Bool { a.rank < b.rank }

    /// `overdue`, `within:7d`, `due-soon`, `ok`: as `--check` and `notify: bands:` write them.
    package var description: String {
        switch self {
        case .overdue: "overdue"
        case .within(let days): "within:\(days)d"
        case .dueSoon: "due-soon"
        case .ok: "ok"
        }
    }

    /// In words, for messages: "overdue", "due within 7 days", "due today".
    package var words: String {
        switch self {
        case .overdue: "overdue"
        case .within(0): "due today"
        case .within(1): "due within 1 day"
        case .within(let days): "due within \(days) days"
        case .dueSoon: "due soon"
        case .ok: "ok"
        }
    }

    /// Reads `overdue`, `due-soon`, `ok`, `within:7d` (also `within:2w`, `7d`, `2w`, `7 days`).
    package init?(_ text: String) {
        switch text {
        case "overdue": self = .overdue
        case "due-soon": self = .dueSoon
        case "ok": self = .ok
        default:
            let window = text.hasPrefix("within:") ? String(text.dropFirst("within:".count)) : text
            guard let days = DayWindow.parse(window) else { return nil }
            self = .within(days: days)
        }
    }

    package init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let band = UrgencyBand(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a band: \(text)"))
        }
        self = band
    }

    package func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    /// The band of `interval` on `asOf`, with these forecast windows (days, any order).
    package static func of(_ interval: IntervalStatus, asOf: Day, windows: [Int] = defaultWindows) -> UrgencyBand {
        // Only the states known here are in a band; see the type's comment.
        guard interval.state == .overdue || interval.state == .dueSoon || interval.state == .ok else { return .ok }
        if interval.state == .overdue { return .overdue }
        if let due = interval.due, let days = windows.filter({ due.ordinal - asOf.ordinal <= $0 }).min() { return .within(days: days) }
        return interval.state == .dueSoon ? .dueSoon : .ok
    }

    /// The band of a to-do on `asOf`, by its due day (exact, not forecast): overdue after it,
    /// the narrowest window that holds it, else due soon within a week of it; undated, ok.
    package static func of(_ todo: TodoStatus, asOf: Day, windows: [Int] = defaultWindows) -> UrgencyBand {
        guard let due = todo.due else { return .ok }
        if todo.state == .overdue { return .overdue }
        if let days = windows.filter({ due.ordinal - asOf.ordinal <= $0 }).min() { return .within(days: days) }
        return todo.state == .dueSoon ? .dueSoon : .ok
    }
}

/// What `status --check LEVEL` fires on.
package enum CheckLevel: Equatable, Sendable, CustomStringConvertible {
    /// Anything overdue (a bare `--check`).
    case overdue
    /// Anything overdue or due soon by progress.
    case dueSoon
    /// Anything overdue or forecast due within this many days.
    case within(days: Int)

    /// `overdue`, `due-soon`, `within:7d` (also `within:2w`, `within:14 days`).
    package init?(_ text: String) {
        switch text {
        case "overdue": self = .overdue
        case "due-soon": self = .dueSoon
        default:
            guard text.hasPrefix("within:"), let days = DayWindow.parse(String(text.dropFirst("within:".count))) else { return nil }
            self = .within(days: days)
        }
    }

    package var description: String {
        switch self {
        case .overdue: "overdue"
        case .dueSoon: "due-soon"
        case .within(let days): "within:\(days)d"
        }
    }

    /// The levels accepted, for help lines.
    package static let accepted = "overdue, due-soon, or within:N with N days or weeks (within:7d, within:2w)"

    /// Whether `interval` is at this level or a more urgent one, on `asOf`.
    package func isReached(by interval: IntervalStatus, asOf: Day) -> Bool {
        switch self {
        case .overdue: interval.state == .overdue
        case .dueSoon: interval.state == .overdue || interval.state == .dueSoon
        case .within(let days): Self.isDue(interval, within: days, asOf: asOf)
        }
    }

    /// A to-do reaches a level by its own state (past its due day, or within a week of it), or
    /// when its due day is at most `days` days away.
    package func isReached(by todo: TodoStatus, asOf: Day) -> Bool {
        switch self {
        case .overdue: todo.state == .overdue
        case .dueSoon: todo.state == .overdue || todo.state == .dueSoon
        case .within(let days): todo.state == .overdue || todo.due.map { $0.ordinal - asOf.ordinal <= days } ?? false
        }
    }

    /// Overdue, or forecast due at most `days` days after `asOf`.
    package static func isDue(_ interval: IntervalStatus, within days: Int, asOf: Day) -> Bool {
        if interval.state == .overdue { return true }
        guard interval.state == .dueSoon || interval.state == .ok, let due = interval.due else { return false }
        return due.ordinal - asOf.ordinal <= days
    }
}

/// A window of whole days: `14d`, `2w`, or the garage's own spelling, `14 days`, `2 weeks`.
package enum DayWindow {
    /// The forms accepted, for help lines.
    package static let accepted = "a number of days or weeks: 14d, 2w, 14 days, 2 weeks"

    /// Days, from 0 up to `UrgencyBand.maximumWindow`; nil for anything else (months too: their
    /// length depends on the day they start from).
    package static func parse(_ raw: String) -> Int? {
        let text = raw.trimmingSpaces()
        var days: Int?
        if let last = text.last, last == "d" || last == "w", let n = Int(text.dropLast()), text.dropLast().allSatisfy(\.isASCII), n >= 0 {
            days = last == "d" ? n : n.multipliedReportingOverflow(by: 7).overflow ? nil : n * 7
        } else if case .success(let q) = Quantity.parse(text), q.measure == .days, q.amount == q.amount.rounded() {
            days = Int(q.amount)
        } else if text == "0 days" || text == "0 day" {
            days = 0
        }
        guard let days, (0...UrgencyBand.maximumWindow).contains(days) else { return nil }
        return days
    }
}

/// One interval in a list across the garage: whose it is, and its status.
package struct UrgentInterval: Sendable, Equatable {
    /// The bike it shows under; nil for a part reported on its own.
    package var bike: String?
    package var bikeName: String?
    /// The part it belongs to, when it is a part's.
    package var part: String?
    package var status: IntervalStatus

    /// A key that names the interval wherever it is mounted: `bike/ID/INTERVAL` for a bike's own,
    /// `part/ID/INTERVAL` for a part's (a part keeps its intervals from bike to bike).
    package var key: String {
        if let part { return "part/\(part)/\(status.id)" }
        return "bike/\(bike ?? "")/\(status.id)"
    }
}

/// A reference to one interval, for JSON's urgency order.
package struct IntervalReference: Sendable, Codable, Equatable {
    package var bike: String?
    package var part: String?
    package var interval: String
    package var band: UrgencyBand

    package init(bike: String?, part: String?, interval: String, band: UrgencyBand) {
        self.bike = bike
        self.part = part
        self.interval = interval
        self.band = band
    }
}

extension StatusReport {
    /// Every interval of the report once (a named part on a shown bike counts under the bike),
    /// most urgent first: overdue by progress, then by forecast due day (none last), then by
    /// progress; ties by bike, part and interval id.
    package func byUrgency() -> [UrgentInterval] {
        var all: [UrgentInterval] = []
        for bike in bikes {
            all += bike.intervals.map { UrgentInterval(bike: bike.id, bikeName: bike.name, part: $0.part, status: $0) }
        }
        let shownBikes = Set(bikes.map(\.id))
        for part in parts where !(part.bike.map(shownBikes.contains) ?? false) {
            all += part.intervals.map { UrgentInterval(bike: part.bike, bikeName: nil, part: part.id, status: $0) }
        }
        func order(_ u: UrgentInterval) -> (Int, Double, Int, Double) {
            let s = u.status
            if s.state == .overdue { return (0, -s.progress, 0, 0) }
            return (1, 0, s.due?.ordinal ?? Int.max, -s.progress)
        }
        // Sorted as positions with their keys made once: sorting the intervals themselves moved
        // (copied, retained, released) large values and remade both keys at every comparison
        // (at 500 bikes, 120 M instructions for 3,650 intervals). The same comparisons in the
        // same sort give the same order.
        let keys = all.map(order)
        let names = all.map { ($0.bike ?? "", $0.part ?? "", $0.status.id) }
        let sorted = all.indices.sorted { a, b in
            if keys[a] != keys[b] { return keys[a] < keys[b] }
            return names[a] < names[b]
        }
        return sorted.map { all[$0] }
    }

    /// The report with only the intervals overdue or forecast due within `days` days; bikes and
    /// parts left with none are left out.
    package func keeping(within days: Int) -> StatusReport {
        var out = self
        let level = CheckLevel.within(days: days)
        for k in out.bikes.indices {
            out.bikes[k].intervals.removeAll { !CheckLevel.isDue($0, within: days, asOf: asOf) }
            out.bikes[k].todos.removeAll { !level.isReached(by: $0, asOf: asOf) }
        }
        for k in out.parts.indices {
            out.parts[k].intervals.removeAll { !CheckLevel.isDue($0, within: days, asOf: asOf) }
            out.parts[k].todos.removeAll { !level.isReached(by: $0, asOf: asOf) }
        }
        out.bikes.removeAll { $0.intervals.isEmpty && $0.todos.isEmpty }
        out.parts.removeAll { $0.intervals.isEmpty && $0.todos.isEmpty }
        return out
    }

    /// Whether any interval is at `level` or a more urgent one.
    package func reaches(_ level: CheckLevel) -> Bool {
        bikes.contains { $0.intervals.contains { level.isReached(by: $0, asOf: asOf) } || $0.todos.contains { level.isReached(by: $0, asOf: asOf) } }
            || parts.contains { $0.intervals.contains { level.isReached(by: $0, asOf: asOf) } || $0.todos.contains { level.isReached(by: $0, asOf: asOf) } }
    }

    /// Sets every interval's band, with these forecast windows.
    mutating func assignBands(windows: [Int]) {
        for b in bikes.indices {
            for k in bikes[b].intervals.indices { bikes[b].intervals[k].band = UrgencyBand.of(bikes[b].intervals[k], asOf: asOf, windows: windows) }
        }
        for p in parts.indices {
            for k in parts[p].intervals.indices { parts[p].intervals[k].band = UrgencyBand.of(parts[p].intervals[k], asOf: asOf, windows: windows) }
        }
    }
}
