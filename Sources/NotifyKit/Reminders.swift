import BikeCheckKit
import Foundation

/// One thing worth telling the rider: an interval or a to-do in a band, or a sign of stale data.
package struct Reminder: Sendable, Equatable {
    /// What a reminder is about.
    package enum Subject: Sendable, Equatable {
        /// An interval in a band.
        case interval(IntervalStatus)
        /// A one-off job with a due day, in a band by that day.
        case todo(TodoStatus)
        /// Data that stopped arriving, so that "nothing is due" may be wrong.
        case stale(StaleWarning)
    }

    /// The state file's key (see `NotifyState.Key`): `bike/ID/INTERVAL/BAND`,
    /// `bike/ID/todo/TODO/BAND` (`part/…` for a part's), `stale/sync` or `stale/bike/ID`.
    package var key: String
    /// The key without the band: one interval, to-do or warning whatever its band.
    package var subjectKey: String
    package var bike: String?
    package var bikeName: String?
    package var part: String?
    /// The band crossed; nil for a stale-data warning, which has none.
    package var band: UrgencyBand?
    package var subject: Subject

    /// What it counts from: a service moves an interval's anchor, a new due day a to-do's, a
    /// sync or a ride a warning's; any of these makes it a new reminder.
    package var since: Day? {
        switch subject {
        case .interval(let status): status.since
        case .todo(let todo): todo.due
        case .stale(let warning): warning.since
        }
    }

    /// Whether it is a stale-data warning rather than something to do.
    package var isWarning: Bool {
        if case .stale = subject { return true }
        return false
    }

    /// `grail: chain-lube`, `grail: race-wheels: true-wheels`, `grail: to-do`, `warning`.
    package var label: String {
        switch subject {
        case .interval(let status): [bike, part, status.id].compactMap { $0 }.joined(separator: ": ")
        case .todo: [bike, part, "to-do"].compactMap { $0 }.joined(separator: ": ")
        case .stale: "warning"
        }
    }

    /// What to do: the interval's task, the to-do's text, or the warning's help.
    package var task: String {
        switch subject {
        case .interval(let status): status.task
        case .todo(let todo): todo.task
        case .stale(let warning): warning.help
        }
    }

    /// `overdue (112%)`, `due within 7 days (~2026-11-19, 84%)`, `due soon (85%)`, for a to-do
    /// `overdue (due 2026-11-10)`, `due within 7 days (2026-11-19)`; a warning's message.
    package var urgencyText: String {
        switch subject {
        case .interval(let status):
            let percent = "\(ReportNumber.percent(status.progress))%"
            guard let band else { return percent }
            // Due by a measurement says so: the reading and its limit (`measured 0.7 / 0.75 %`).
            let measured = status.wear.map { ", measured \(WearAmount.number($0.latest.value)) / \(WearAmount(amount: $0.limit, unit: $0.unit))" } ?? ""
            if case .within = band, let due = status.due { return "\(band.words) (~\(due)\(status.dueByWear ? " by measurement" : ""), \(percent)\(measured))" }
            return "\(band.words) (\(percent)\(measured))"
        case .todo(let todo):
            guard let band, let due = todo.due else { return band?.words ?? "" }
            return band == .overdue ? "overdue (due \(due))" : "\(band.words) (\(due))"
        case .stale(let warning):
            return warning.message
        }
    }

    /// Every interval and to-do of `report` in one of the garage's bands, most urgent first (intervals,
    /// then to-dos, as `status --by urgency` lists them), after `warnings`.
    static func all(_ report: StatusReport, settings: NotifySettings, warnings: [StaleWarning]) -> [Reminder] {
        let wanted = Set(settings.bands)
        var out = warnings.map { w in
            let key = NotifyState.Key.staleSubject(bike: w.kind == .quietBike ? w.bike : nil)
            return Reminder(key: key, subjectKey: key, bike: w.bike, bikeName: nil, part: nil, band: nil, subject: .stale(w))
        }
        out += report.byUrgency().compactMap { u in
            let band = u.status.band
            guard band != .ok, wanted.contains(band) else { return nil }
            return Reminder(
                key: u.key + "/" + band.description, subjectKey: u.key, bike: u.bike, bikeName: u.bikeName, part: u.part, band: band,
                subject: .interval(u.status))
        }
        var seen = Set<String>()
        for todo in todos(of: report) {
            let band = UrgencyBand.of(todo.status, asOf: report.asOf, windows: settings.windows)
            guard band != .ok, wanted.contains(band) else { continue }
            let owner = todo.part.map { "part/\($0)" } ?? "bike/\(todo.bike ?? "")"
            let subject = NotifyState.Key.todoSubject(owner: owner, todo: todo.status.id ?? todo.status.task)
            // Two to-dos written alike are one reminder.
            guard seen.insert(subject).inserted else { continue }
            out.append(
                Reminder(
                    key: subject + "/" + band.description, subjectKey: subject, bike: todo.bike, bikeName: todo.bikeName, part: todo.part,
                    band: band, subject: .todo(todo.status)))
        }
        return out
    }

    /// Every to-do of the report once, with the bike it shows under, most urgent first (a named
    /// part's on a shown bike count under the bike, as `StatusReport.byUrgency` counts intervals).
    static func todos(of report: StatusReport) -> [(bike: String?, bikeName: String?, part: String?, status: TodoStatus)] {
        var all: [(bike: String?, bikeName: String?, part: String?, status: TodoStatus)] = []
        for bike in report.bikes { all += bike.todos.map { (bike.id, bike.name, $0.part, $0) } }
        let shownBikes = Set(report.bikes.map(\.id))
        for part in report.parts where !(part.bike.map(shownBikes.contains) ?? false) {
            all += part.todos.map { (part.bike, nil, part.id, $0) }
        }
        // Most urgent first, as `TodoStatus.sortedByUrgency` orders them: state, due day, as written.
        return all.enumerated().sorted { a, b in
            let (x, y) = (a.element.status, b.element.status)
            if x.state != y.state { return x.state < y.state }
            if x.due != y.due { return (x.due?.ordinal ?? Int.max) < (y.due?.ordinal ?? Int.max) }
            return a.offset < b.offset
        }.map(\.element)
    }
}

/// What one run of `bikecheck notify` sends on each channel, and the state after it.
package struct NotifyPlan: Sendable {
    package var asOf: Day
    /// The stale-data warnings, then every interval and to-do now in a band the garage sends,
    /// most urgent first.
    package var due: [Reminder]
    /// What each channel is to send: what it has not taken yet, or took `repeat` days ago or more.
    package var pending: [String: [Reminder]]

    /// Plans a run: `channels` by name, `state` as loaded, `warnings` as `Staleness` finds them.
    package init(report: StatusReport, warnings: [StaleWarning] = [], settings: NotifySettings, channels: [String], state: NotifyState) {
        self.init(
            report: report, warnings: warnings, settings: settings,
            routes: channels.map { Route(channel: $0, repeatDays: settings.repeatDays) }, state: state)
    }

    /// Where reminders go: a channel, which of them it takes (nil: all), and its quiet period.
    package struct Route: Sendable {
        package var channel: String
        package var takes: (@Sendable (Reminder) -> Bool)?
        package var repeatDays: Int?

        package init(channel: String, takes: (@Sendable (Reminder) -> Bool)? = nil, repeatDays: Int?) {
            self.channel = channel
            self.takes = takes
            self.repeatDays = repeatDays
        }
    }

    /// Plans a run over `routes`: the garage's channels take everything, a rider's only theirs.
    package init(report: StatusReport, warnings: [StaleWarning] = [], settings: NotifySettings, routes: [Route], state: NotifyState) {
        asOf = report.asOf
        due = Reminder.all(report, settings: settings, warnings: warnings)
        var pending: [String: [Reminder]] = [:]
        for route in routes {
            pending[route.channel] = due.filter {
                (route.takes?($0) ?? true) && !Self.isCovered($0, on: route.channel, state: state, asOf: report.asOf, repeatDays: route.repeatDays)
            }
        }
        self.pending = pending
    }

    /// Whether `channel` already took this reminder, or one as urgent or more for the same
    /// subject since the same anchor, within the quiet period.
    static func isCovered(_ reminder: Reminder, on channel: String, state: NotifyState, asOf: Day, repeatDays: Int?) -> Bool {
        for (text, entry) in state.entries where entry.since == reminder.since {
            guard let key = NotifyState.Key(text), key.subject == reminder.subjectKey, let day = entry.sent[channel] else { continue }
            if let band = key.band, let wanted = reminder.band, band > wanted { continue }
            guard let repeatDays else { return true }
            if asOf.ordinal - day.ordinal < repeatDays { return true }
        }
        return false
    }

    /// The state after this run: what each channel in `delivered` took is recorded as sent
    /// today; reminders no longer due (serviced, done, out of every band, or a warning that
    /// went away) are forgotten, as are the channels no longer set. A channel that failed keeps
    /// its old record, so it is retried.
    package func state(after old: NotifyState, delivered: Set<String>, channels: [String]) -> NotifyState {
        var state = NotifyState()
        let current = Dictionary(due.map { ($0.subjectKey, $0.since) }, uniquingKeysWith: { a, _ in a })
        for (key, entry) in old.entries {
            guard let subject = NotifyState.Key(key)?.subject, let since = current[subject], since == entry.since else { continue }
            var kept = entry
            kept.sent = entry.sent.filter { channels.contains($0.key) }
            if !kept.sent.isEmpty { state.entries[key] = kept }
        }
        for channel in delivered {
            for reminder in pending[channel] ?? [] {
                state.entries[reminder.key, default: .init(since: reminder.since)].sent[channel] = asOf
            }
        }
        return state
    }
}
