import ArgumentParser
import BikeCheckKit
import Diagnostics
import Foundation

@main
struct BikeCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bikecheck",
        abstract: "Bike maintenance from plain YAML files: what is due, by hours, distance and time.",
        discussion: """
            Commands come first: 'bikecheck status grail', 'bikecheck --garage DIR status'. With \
            no command, bikecheck runs status; a word that is not a command is a usage error that \
            names the nearest one.

            A garage is a folder of YAML files (garage.yaml, bikes/, templates/, parts/, rides.yaml) with \
            activities cached under activities/. bikecheck finds it with --garage, else \
            BIKECHECK_GARAGE, else the nearest folder upward that holds garage.yaml.

            Exit codes: 0 all is well; 1 problems found: errors in the garage, overdue (or the level asked for) with status \
            --check, a notify channel that failed, a write refused, a sync stopped, output that cannot be written; 2 usage errors \
            (an unknown command or option, a bad value, no garage, an unknown bike, interval or template); 141 the reader of the \
            output went away (a broken pipe).

            Only files inside the garage are read: a garage file that is a symbolic link leading \
            outside it is refused (symlink-outside-garage). Control characters and bidirectional \
            controls from files, Strava and archives are printed visibly, as \\u{1B}.
            """,
        version: bikecheckVersion,
        subcommands: [
            StatusCommand.self, ValidateCommand.self, InitCommand.self, DoneCommand.self, SnoozeCommand.self, TodoCommand.self, BikeCommand.self,
            TemplateCommand.self, RideCommand.self, PartCommand.self, HistoryCommand.self, CostsCommand.self, UsageCommand.self, RidesCommand.self,
            ExportCommand.self, CalendarCommand.self, ReportCommand.self, NotifyCommand.self,
            LoginCommand.self, LogoutCommand.self, WhoamiCommand.self, SyncCommand.self, ImportCommand.self,
        ],
        defaultSubcommand: StatusCommand.self
    )

    /// Runs the command. Usage errors, bikecheck's (`UsageError`) and ArgumentParser's, print in
    /// bikecheck's style (`error:` and `help:` lines) and exit 2.
    static func main() {
        do {
            let arguments = try CommandRouting.route(Array(CommandLine.arguments.dropFirst()), root: Self.self)
            var command = try parseAsRoot(arguments)
            if let formatted = command as? any FormattedCommand { try formatted.checkFormat() }
            try command.run()
        } catch let error as UsageError {
            Terminal.standardError.write(UsageErrorStyle.render(error))
            Foundation.exit(2)
        } catch {
            // Help, --version, completions (all exit 0) and exit codes of bikecheck's own (which
            // printed already) as ArgumentParser has them.
            let code = exitCode(for: error)
            if code == .success || error is ExitCode { exit(withError: error) }
            Terminal.standardError.write(UsageErrorStyle.render(Day.explainingDates(fullMessage(for: error))))
            Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }
}

/// The one place errors with a help line are written: bikecheck's usage errors, refused writes,
/// and ArgumentParser's usage errors restyled.
enum UsageErrorStyle {
    /// `error: MESSAGE`, then `  help: HELP` when there is one.
    static func render(_ error: UsageError) -> TerminalText { render(message: error.message, help: error.help) }

    static func render(message: String, help: String?) -> TerminalText {
        var text: TerminalText = "error: \(message)\n"
        if let help { text += "  help: \(help)\n" }
        return text
    }

    /// `Error: Missing …` / `Help: …` / `Usage: …` / `See '…' for more information.` become
    /// `error: missing …`, `  help: …`, `  usage: …`, `  help: see '…'`.
    static func render(_ message: String) -> TerminalText {
        var out: TerminalText = ""
        for raw in message.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if let text = line.dropping(prefix: "Error:") {
                out += "error: \(lowercasingFirst(text))\n"
            } else if let text = line.dropping(prefix: "Help:") {
                out += "  help: \(text)\n"
            } else if let text = line.dropping(prefix: "Usage:") {
                out += "  usage: \(text)\n"
            } else if let text = line.dropping(prefix: "See ") {
                out += "  help: see \(text.hasSuffix(".") ? String(text.dropLast()) : text)\n"
            } else {
                out += out.isEmpty ? "error: \(lowercasingFirst(line))\n" : "  \(line)\n"
            }
        }
        return out
    }

    /// "Missing expected argument" → "missing expected argument"; "URL …" stays.
    static func lowercasingFirst(_ text: String) -> String {
        guard let first = text.first, first.isUppercase, text.dropFirst().first?.isUppercase != true else { return text }
        return first.lowercased() + text.dropFirst()
    }
}

extension String {
    /// The rest after `prefix`, trimmed; nil when the text does not start with it.
    func dropping(prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces) : nil
    }
}
