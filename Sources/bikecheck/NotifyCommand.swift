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
            away, and printed on standard error on every run, as status does. In a household \
            (garage.yaml's riders:), a rider's own notify: channels, named RIDER/CHANNEL, get only \
            the bikes and parts whose rider: names them; garage.yaml's notify: gets everything. What was \
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
        let run = NotifyRun(
            root: try global.garageRoot(), asOf: asOf.day, today: today(), dryRun: dryRun, environment: ProcessInfo.processInfo.environment)
        let outcome: NotifyRun.Outcome
        do {
            outcome = try run.run()
        } catch .lock(let problem) {
            Terminal.standardError.write(ErrorStyle.render(message: problem))
            throw ExitCode(1)
        } catch .garageErrors(let loaded) {
            global.report(loaded.diagnostics, sources: loaded.sources)
            Terminal.standardError.write("notify sent nothing: fix the errors above first\n")
            throw ExitCode(1)
        } catch .usage(let error) {
            throw error
        }
        for w in outcome.warnings { Terminal.standardError.write(ErrorStyle.render(w)) }
        if let warning = outcome.stateWarning { Terminal.standardError.write(ErrorStyle.render(warning)) }
        let plan = outcome.plan, channels = outcome.channels
        if dryRun {
            Terminal.standardOutput.write(Self.describe(plan, channels: channels, verb: "would send"))
            return
        }
        if let failure = outcome.saveFailure {
            Terminal.standardError.write(ErrorStyle.render(message: "\(failure); what was sent may be sent again next run"))
            throw ExitCode(1)
        }
        var out: TerminalText = ""
        for channel in channels {
            let pending = plan.pending[channel] ?? []
            if pending.isEmpty { continue }
            if outcome.delivered.contains(channel) { out += "\(channel): sent \(NotifyMessages.count(pending))\n" }
        }
        if out.string.isEmpty && outcome.outcomes.isEmpty {
            out =
                plan.due.isEmpty
                ? "nothing to send: nothing is in a band (\(outcome.settings.bands.map(\.description).joined(separator: ", ")))\n"
                : "nothing new to send (\(NotifyMessages.count(plan.due)) due, all sent)\n"
        }
        Terminal.standardOutput.write(out)
        for (channel, failure) in outcome.failed {
            let count = NotifyMessages.count(plan.pending[channel] ?? [])
            Terminal.standardError.write(ErrorStyle.render(message: "\(channel): \(failure.description); its \(count) will be tried again on the next run"))
        }
        if !outcome.failed.isEmpty { throw ExitCode(1) }
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
