import ArgumentParser
import BikeCheckKit
import Diagnostics
import Foundation
import NotifyKit

struct NotifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Send reminders for what newly crossed a band, through garage.yaml's notify: channels (for cron).",
        discussion: """
            Sends each interval that is overdue, due soon, or forecast due within one of the \
            bands' windows (default: overdue, due-soon, 30d, 7d, 1d, 0d) once per band, on every \
            channel set in garage.yaml's notify: (ntfy, webhook, email); again after 'repeat' \
            (default 7 days) while still unresolved; and forgets it once it is done. A snoozed \
            interval sends nothing until its snooze: day. A to-do with a due day is sent the \
            same way, by the band its due day puts it in, until 'done --todo' closes it. Stale \
            data (the last sync older than stale_after, a bike on Strava quiet for quiet_after) \
            is sent too, first and counted apart, once and again after 'repeat' until it goes \
            away, and printed on standard error on every run, as status does. What was \
            sent is kept in .bikecheck/notify-state.json (git-ignored), so a cron job every hour \
            sends nothing when nothing changed. Channels are sent at once, each bounded by \
            BIKECHECK_NOTIFY_TIMEOUT_MS (default 30000): a channel that fails or hangs is named on \
            standard error, keeps its reminders for the next run, and the command exits 1; the \
            others still deliver. Credentials come from the environment only: BIKECHECK_NTFY_TOKEN, \
            BIKECHECK_WEBHOOK_TOKEN, BIKECHECK_SMTP_USER and BIKECHECK_SMTP_PASSWORD \
            (BIKECHECK_SMTP_CA_FILE trusts another certificate authority for the mail server). \
            A garage with errors sends nothing (exit 1): a reminder left out by a broken file \
            must not look like nothing due.

            Examples:
              bikecheck notify --dry-run          what would be sent, changing nothing
              0 * * * *  bikecheck --garage ~/bikes notify     (crontab: every hour)
            """
    )

    @OptionGroup var global: GlobalOptions

    @OptionGroup var asOf: AsOfOptions

    @Flag(name: .customLong("dry-run"), help: "Print what would be sent on each channel; send nothing and change no state.")
    var dryRun = false

    func run() throws {
        let root = try global.garageRoot()
        // One run at a time sends: a second waits for the first, then finds its reminders sent.
        // Taken before the garage is read, so a run that waited sees what was done meanwhile.
        var lock: FileLock?
        if !dryRun {
            do {
                try LocalState.prepare(garage: root)
                lock = try FileLock(path: NotifyState.lockPath(garage: root), wait: 120)
            } catch {
                Terminal.standardError.write("error: \(error)\n")
                throw ExitCode(1)
            }
            guard lock != nil else {
                Terminal.standardError.write("error: another 'bikecheck notify' has been sending for 2 minutes; try again later\n")
                throw ExitCode(1)
            }
        }
        // Held until the state is saved: ARC may otherwise end it after its last use above.
        defer { withExtendedLifetime(lock) {} }
        let loaded = GarageLoader.load(at: root, options: .init(activities: .summaries, today: today()))
        if loaded.hasErrors {
            global.report(loaded.diagnostics, sources: loaded.sources)
            Terminal.standardError.write("notify sent nothing: fix the errors above first\n")
            throw ExitCode(1)
        }
        guard let settings = loaded.garage.settings.notify, !settings.channelNames.isEmpty else {
            Terminal.standardError.write(
                "error: garage.yaml sets no notify channel\n  help: add e.g. 'notify: {ntfy: {topic: my-bikes}}' (see the README's Reminders section)\n")
            throw ExitCode(2)
        }
        let channels = settings.channelNames
        if let problem = ChannelEnvironment.timeoutProblem(environment: ProcessInfo.processInfo.environment) {
            Terminal.standardError.write("error: \(problem)\n  help: unset it for 30000 (30 s), or write e.g. BIKECHECK_NOTIFY_TIMEOUT_MS=10000\n")
            throw ExitCode(2)
        }
        let report = StatusPlanner(asOf: asOf.day).plan(loaded.garage, summaries: loaded.activitySummaries)
        // Stale data is told like a reminder, and on every run on standard error, as status does:
        // "nothing is due" must never be the result of a sync that stopped.
        let warnings = Staleness.warnings(loaded, root: root, asOf: report.asOf)
        for w in warnings { Terminal.standardError.write("warning: \(w.message) [\(w.kind.rawValue)]\n  help: \(w.help)\n") }

        let (state, warning) = NotifyState.load(garage: root)
        if let warning { Terminal.standardError.write("warning: \(warning)\n") }
        let plan = NotifyPlan(report: report, warnings: warnings, settings: settings, channels: channels, state: state)

        if dryRun {
            Terminal.standardOutput.write(Self.describe(plan, channels: channels, verb: "would send"))
            return
        }
        let sender = Channels(
            settings: settings, environment: ChannelEnvironment(environment: ProcessInfo.processInfo.environment), garageName: loaded.garage.settings.name)
        let outcomes = sender.send(plan.pending, asOf: plan.asOf)
        let delivered = Set(outcomes.compactMap { $0.value == nil ? $0.key : nil })
        let after = plan.state(after: state, delivered: delivered, channels: channels)
        if after != state {
            do {
                try after.save(garage: root)
            } catch {
                Terminal.standardError.write("error: \(error); what was sent may be sent again next run\n")
                throw ExitCode(1)
            }
        }
        var out: TerminalText = ""
        for channel in channels {
            let pending = plan.pending[channel] ?? []
            if pending.isEmpty { continue }
            if delivered.contains(channel) { out += "\(channel): sent \(NotifyMessages.count(pending))\n" }
        }
        if out.string.isEmpty && outcomes.isEmpty {
            out =
                plan.due.isEmpty
                ? "nothing to send: nothing is in a band (\(settings.bands.map(\.description).joined(separator: ", ")))\n"
                : "nothing new to send (\(NotifyMessages.count(plan.due)) due, all sent)\n"
        }
        Terminal.standardOutput.write(out)
        let failed = channels.compactMap { c in outcomes[c].flatMap { $0 }.map { (c, $0) } }
        for (channel, failure) in failed {
            let count = NotifyMessages.count(plan.pending[channel] ?? [])
            Terminal.standardError.write("error: \(channel): \(failure.description); its \(count) will be tried again on the next run\n")
        }
        if !failed.isEmpty { throw ExitCode(1) }
    }

    /// Each channel's list: `ntfy: would send 2 reminders` and a line per reminder (a warning's:
    /// `warning  MESSAGE  HELP`).
    static func describe(_ plan: NotifyPlan, channels: [String], verb: String) -> TerminalText {
        var out: TerminalText = ""
        for channel in channels {
            let reminders = plan.pending[channel] ?? []
            if reminders.isEmpty {
                out += "\(channel): nothing new\n"
                continue
            }
            out += "\(channel): \(verb) \(NotifyMessages.count(reminders))\n"
            for r in reminders { out += "  \(r.label)  \(r.urgencyText)  \(r.task)\n" }
        }
        return out
    }
}
