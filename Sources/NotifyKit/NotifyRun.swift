import BikeCheckKit
import Foundation
import Synchronization

/// One run of `bikecheck notify`: take the lock, load the garage, plan what newly crossed a
/// band, send it on every channel, and save what was delivered. The command calls `run()` once
/// and prints the outcome.
package struct NotifyRun: Sendable {
    package var root: String
    /// The day planned as of (`--as-of`, else today).
    package var asOf: Day
    /// The rider's today, for the garage's checks.
    package var today: Day
    /// Plan only: no lock, nothing sent, no state changed.
    package var dryRun: Bool
    /// Where the channels' credentials and timeout come from.
    package var environment: [String: String]

    package init(root: String, asOf: Day, today: Day, dryRun: Bool, environment: [String: String]) {
        self.root = root
        self.asOf = asOf
        self.today = today
        self.dryRun = dryRun
        self.environment = environment
    }

    /// Why a run sent nothing.
    package enum Failure: Error {
        /// The lock could not be taken, or another run held it too long (exit 1).
        case lock(String)
        /// The garage has errors: a reminder left out by a broken file must not look like
        /// nothing due (exit 1).
        case garageErrors(LoadedGarage)
        /// garage.yaml sets no channel, or the environment a bad timeout (exit 2).
        case usage(UsageError)
    }

    /// What a run planned and what became of it.
    package struct Outcome: Sendable {
        package var plan: NotifyPlan
        package var settings: NotifySettings
        package var channels: [String]
        /// Stale data, told like a reminder and printed on every run, as status does.
        package var warnings: [StaleWarning]
        /// Why the saved state could not be read, if it could not (it starts afresh).
        package var stateWarning: Warning?
        /// Each channel tried (none on a dry run): nil when it delivered.
        package var outcomes: [String: ChannelFailure?] = [:]
        /// Why what was delivered could not be saved, if it could not (exit 1).
        package var saveFailure: String?

        /// The channels that delivered.
        package var delivered: Set<String> { Set(outcomes.compactMap { $0.value == nil ? $0.key : nil }) }

        /// The channels that failed, in the channels' order, with why.
        package var failed: [(channel: String, failure: ChannelFailure)] {
            channels.compactMap { c in outcomes[c].flatMap { $0 }.map { (c, $0) } }
        }
    }

    package func run() throws(Failure) -> Outcome {
        // One run at a time sends: a second waits for the first, then finds its reminders sent.
        // Taken before the garage is read, so a run that waited sees what was done meanwhile.
        var lock: FileLock?
        if !dryRun {
            do {
                try LocalState.prepare(garage: root)
                lock = try FileLock(path: NotifyState.lockPath(garage: root), wait: 120)
            } catch {
                throw .lock("\(error)")
            }
            guard lock != nil else { throw .lock("another 'bikecheck notify' has been sending for 2 minutes; try again later") }
        }
        // Held until the state is saved: ARC may otherwise end it after its last use above.
        defer { withExtendedLifetime(lock) {} }
        let loaded = GarageLoader.load(at: root, options: .init(activities: .summaries, today: today))
        if loaded.hasErrors { throw .garageErrors(loaded) }
        let garage = loaded.garage
        let riders = garage.settings.riders.filter { !($0.notify?.channelNames.isEmpty ?? true) }
        guard let settings = garage.settings.notify ?? riders.first.map({ _ in NotifySettings() }),
            !settings.channelNames.isEmpty || !riders.isEmpty
        else {
            throw .usage(
                UsageError("garage.yaml sets no notify channel", help: "add e.g. 'notify: {ntfy: {topic: my-bikes}}' (see the README's Reminders section)"))
        }
        let routes = Self.routes(settings, riders: riders, garage: garage)
        let channels = routes.map(\.channel)
        if let problem = ChannelEnvironment.timeoutProblem(environment: environment) {
            throw .usage(UsageError(problem, help: "unset it for 30000 (30 s), or write e.g. BIKECHECK_NOTIFY_TIMEOUT_MS=10000"))
        }
        let report = StatusPlanner(asOf: asOf).plan(loaded.garage, summaries: loaded.activitySummaries)
        // "Nothing is due" must never be the result of a sync that stopped.
        let warnings = Staleness.warnings(loaded, root: root, asOf: report.asOf)
        let (state, stateWarning) = NotifyState.load(garage: root)
        let plan = NotifyPlan(report: report, warnings: warnings, settings: settings, routes: routes, state: state)
        var outcome = Outcome(plan: plan, settings: settings, channels: channels, warnings: warnings, stateWarning: stateWarning)
        if dryRun { return outcome }

        let sender = Channels(
            settings: settings, environment: ChannelEnvironment(environment: environment), garageName: loaded.garage.settings.name,
            riders: Dictionary(riders.compactMap { r in r.notify.map { (r.name, $0) } }, uniquingKeysWith: { a, _ in a }))
        // Each channel's delivery is saved as it answers: a run killed after one channel took
        // its reminders and before another answered sends the first nothing again.
        let saver = StateSaver(root: root, plan: plan, old: state, channels: channels)
        outcome.outcomes = sender.send(plan.pending, asOf: plan.asOf) { channel, failure in saver.answered(channel, failure) }
        outcome.saveFailure = saver.finish()
        return outcome
    }
    /// The garage's channels take every reminder; a rider's (`RIDER/ntfy`) only those of the
    /// bikes and parts whose `rider:` names them, and the warnings about no bike at all.
    static func routes(_ settings: NotifySettings, riders: [Rider], garage: Garage) -> [NotifyPlan.Route] {
        var routes = settings.channelNames.map { NotifyPlan.Route(channel: $0, repeatDays: settings.repeatDays) }
        for rider in riders {
            guard let own = rider.notify else { continue }
            let bikes = Set(garage.bikes.filter { $0.bike.rider?.value == rider.name }.map(\.bike.id.rawValue))
            let parts = Set(garage.parts.filter { $0.part.rider?.value == rider.name }.map(\.part.id.rawValue))
            let takes: @Sendable (Reminder) -> Bool = { r in
                if let part = r.part { return parts.contains(part) || (r.bike.map(bikes.contains) ?? false) }
                if let bike = r.bike { return bikes.contains(bike) }
                return r.isWarning
            }
            routes += own.channelNames.map { NotifyPlan.Route(channel: rider.name + "/" + $0, takes: takes, repeatDays: own.repeatDays) }
        }
        return routes
    }
}

/// Saves a run's state as its channels answer, each on its thread: every save is the whole state
/// after what has been delivered so far (`NotifyPlan.state(after:)`), written atomically under
/// its mutex while the run holds the notify lock, so the file is always one a run could have
/// ended with.
private final class StateSaver: Sendable {
    let root: String
    let plan: NotifyPlan
    let old: NotifyState
    let channels: [String]

    private struct Progress {
        var delivered: Set<String> = []
        /// The state on disk.
        var saved: NotifyState
        /// Why the last save failed; nil once one succeeds, as each save holds all delivered so far.
        var failure: String?
    }

    private let progress: Mutex<Progress>

    init(root: String, plan: NotifyPlan, old: NotifyState, channels: [String]) {
        self.root = root
        self.plan = plan
        self.old = old
        self.channels = channels
        progress = Mutex(Progress(saved: old))
    }

    func answered(_ channel: String, _ failure: ChannelFailure?) {
        guard failure == nil else { return }
        progress.withLock { progress in
            progress.delivered.insert(channel)
            save(&progress)
        }
    }

    /// The state once every channel answered (which also forgets what is resolved, if nothing
    /// was delivered); why it could not be saved, if it could not.
    func finish() -> String? {
        progress.withLock { progress in
            save(&progress)
            return progress.failure
        }
    }

    private func save(_ progress: inout Progress) {
        let after = plan.state(after: old, delivered: progress.delivered, channels: channels)
        guard after != progress.saved else { return }
        do {
            try after.save(garage: root)
            progress.saved = after
            progress.failure = nil
        } catch {
            progress.failure = "\(error)"
        }
    }
}
