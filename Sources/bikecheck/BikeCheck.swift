import ArgumentParser
import Foundation

@main
struct BikeCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bikecheck",
        abstract: "Bike maintenance from plain YAML files: what is due, by hours, distance and time.",
        discussion: """
            A garage is a folder of YAML files (garage.yaml, bikes/, templates/, parts/, rides.yaml) with \
            activities cached under activities/. bikecheck finds it with --garage, else \
            BIKECHECK_GARAGE, else the nearest folder upward that holds garage.yaml.

            Exit codes: 0 all is well; 1 problems found: errors in the garage, overdue with status \
            --check, a write refused, a sync stopped; 2 usage errors (bad options, no garage, an \
            unknown bike, interval or template).
            """,
        subcommands: [
            StatusCommand.self, ValidateCommand.self, InitCommand.self, DoneCommand.self, BikeCommand.self,
            TemplateCommand.self, RideCommand.self, PartCommand.self,
            LoginCommand.self, LogoutCommand.self, WhoamiCommand.self, SyncCommand.self, ImportCommand.self,
        ],
        defaultSubcommand: StatusCommand.self
    )

    /// Runs the command, mapping ArgumentParser's usage failures (64) to the documented exit 2.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
