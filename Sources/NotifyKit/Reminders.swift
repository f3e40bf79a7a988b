import BikeCheckKit

/// One interval in a band worth a reminder.
public struct Reminder: Sendable, Equatable {
    /// `bike/ID/INTERVAL/BAND` or `part/ID/INTERVAL/BAND`: stable wherever a part is mounted.
    public var key: String
    /// The interval's key without the band (see `UrgentInterval.key`).
    public var intervalKey: String
    public var bike: String?
    public var bikeName: String?
    public var part: String?
    public var band: UrgencyBand
    public var status: IntervalStatus

    /// `grail: chain-lube`, `grail: race-wheels: true-wheels`, `spare-wheels: sealant`.
    public var label: String { [bike, part, status.id].compactMap { $0 }.joined(separator: ": ") }

    /// `overdue (112%)`, `due within 7 days (~2026-11-19, 84%)`, `due soon (85%)`.
    public var urgencyText: String {
        let percent = "\(Int((status.progress * 100).rounded(.down)))%"
        if case .within = band, let due = status.due { return "\(band.words) (~\(due), \(percent))" }
        return "\(band.words) (\(percent))"
    }
}

/// What one run of `bikecheck notify` sends on each channel, and the state after it.
public struct NotifyPlan: Sendable {
    public var asOf: Day
    /// Every interval now in a band the garage sends, most urgent first.
    public var due: [Reminder]
    /// What each channel is to send: what it has not taken yet, or took `repeat` days ago or more.
    public var pending: [String: [Reminder]]

    /// Plans a run: `channels` by name, `state` as loaded.
    public init(report: StatusReport, settings: NotifySettings, channels: [String], state: NotifyState) {
        asOf = report.asOf
        let wanted = Set(settings.bands)
        due = report.byUrgency().compactMap { u in
            let band = u.status.band
            guard band != .ok, wanted.contains(band) else { return nil }
            return Reminder(
                key: u.key + "/" + band.description, intervalKey: u.key, bike: u.bike, bikeName: u.bikeName, part: u.part, band: band,
                status: u.status)
        }
        var pending: [String: [Reminder]] = [:]
        for channel in channels {
            pending[channel] = due.filter { !Self.isCovered($0, on: channel, state: state, asOf: report.asOf, repeatDays: settings.repeatDays) }
        }
        self.pending = pending
    }

    /// Whether `channel` already took this reminder, or one as urgent or more for the same
    /// interval since the same service, within the quiet period.
    static func isCovered(_ reminder: Reminder, on channel: String, state: NotifyState, asOf: Day, repeatDays: Int?) -> Bool {
        for (key, entry) in state.entries where key.hasPrefix(reminder.intervalKey + "/") && entry.since == reminder.status.since {
            guard let band = UrgencyBand(String(key.dropFirst(reminder.intervalKey.count + 1))), band <= reminder.band,
                let day = entry.sent[channel]
            else { continue }
            guard let repeatDays else { return true }
            if asOf.ordinal - day.ordinal < repeatDays { return true }
        }
        return false
    }

    /// The state after this run: what each channel in `delivered` took is recorded as sent
    /// today; reminders no longer due (serviced, or out of every band) are forgotten, as are the
    /// channels no longer set. A channel that failed keeps its old record, so it is retried.
    public func state(after old: NotifyState, delivered: Set<String>, channels: [String]) -> NotifyState {
        var state = NotifyState()
        let current = Dictionary(due.map { ($0.intervalKey, $0.status.since) }, uniquingKeysWith: { a, _ in a })
        for (key, entry) in old.entries {
            let intervalKey = key.split(separator: "/").prefix(3).joined(separator: "/")
            guard let since = current[intervalKey], since == entry.since else { continue }
            var kept = entry
            kept.sent = entry.sent.filter { channels.contains($0.key) }
            if !kept.sent.isEmpty { state.entries[key] = kept }
        }
        for channel in delivered {
            for reminder in pending[channel] ?? [] {
                state.entries[reminder.key, default: .init(since: reminder.status.since)].sent[channel] = asOf
            }
        }
        return state
    }
}
