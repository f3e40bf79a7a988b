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
            TemplateCommand.self, RideCommand.self, PartCommand.self, HistoryCommand.self, DiffCommand.self, CostsCommand.self, UsageCommand.self,
            RidesCommand.self,
            ExportCommand.self, CalendarCommand.self, ReportCommand.self, NotifyCommand.self,
            LoginCommand.self, LogoutCommand.self, WhoamiCommand.self, SyncCommand.self, ImportCommand.self, GitCommand.self, LSPCommand.self, MCPCommand.self,
        ],
        defaultSubcommand: StatusCommand.self
    )

    /// Runs the command. Usage errors, bikecheck's (`UsageError`) and ArgumentParser's, print in
    /// bikecheck's style (`error:` and `help:` lines) and exit 2.
    static func main() {
        // `bikecheck --help` alone: the root's help, printed as ArgumentParser prints it after a
        // parse, without the parse (which reflects over status's options, the default command's,
        // and then renders the page twice: once for the exit code, once to print).
        let given = Array(CommandLine.arguments.dropFirst())
        if given == ["--help"] || given == ["-h"] {
            print(helpMessage())
            Foundation.exit(0)
        }
        do {
            let tree = CommandRouting.Node(Self.self)
            let arguments = try CommandRouting.route(given, tree: tree)
            var command = try CommandRouting.parseDirectly(arguments, tree: tree) ?? parseAsRoot(arguments)
            if let formatted = command as? any FormattedCommand {
                try formatted.checkFormat()
                try formatted.checkOptionGroups()
            }
            try command.run()
        } catch let error as UsageError {
            Terminal.standardError.write(ErrorStyle.render(error))
            Foundation.exit(2)
        } catch {
            // Help, --version, completions (all exit 0) and exit codes of bikecheck's own (which
            // printed already) as ArgumentParser has them.
            let code = exitCode(for: error)
            if code == .success || error is ExitCode { exit(withError: error) }
            Terminal.standardError.write(ErrorStyle.render(Day.explainingDates(fullMessage(for: error))))
            Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }
}
