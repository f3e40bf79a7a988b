import ArgumentParser
import Foundation

@main
struct BikeCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bikecheck",
        abstract: "Bike maintenance from plain YAML files: what is due, by hours, distance and time.",
        discussion: """
            A garage is a folder of YAML files (garage.yaml, bikes/, templates/, rides.yaml) with \
            activities cached under activities/. bikecheck finds it with --garage, else \
            BIKECHECK_GARAGE, else the nearest folder upward that holds garage.yaml.

            Exit codes: 0 all is well; 1 problems found: errors in the garage, overdue with status \
            --check, a write refused, a sync stopped, output that cannot be written; 2 usage errors \
            (bad options, no garage, an unknown bike, interval or template); 141 the reader of the \
            output went away (a broken pipe).

            Only files inside the garage are read: a garage file that is a symbolic link leading \
            outside it is refused (symlink-outside-garage). Control characters and bidirectional \
            controls from files, Strava and archives are printed visibly, as \\u{1B}.
            """,
        subcommands: [
            StatusCommand.self, ValidateCommand.self, InitCommand.self, DoneCommand.self, BikeCommand.self,
            TemplateCommand.self, RideCommand.self, HistoryCommand.self, CostsCommand.self, UsageCommand.self, RidesCommand.self, ExportCommand.self, CalendarCommand.self,
            LoginCommand.self, LogoutCommand.self, WhoamiCommand.self, SyncCommand.self, ImportCommand.self,
        ],
        defaultSubcommand: StatusCommand.self
    )

    /// Runs the command, mapping ArgumentParser's usage failures (64) to the documented exit 2.
    static func main() {
        do {
            var command = try parseAsRoot()
            if let formatted = command as? any FormattedCommand { try formatted.checkFormat() }
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                Terminal.standardError.write("\(lines: fullMessage(for: error))\n")
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
