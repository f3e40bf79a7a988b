import ArgumentParser

@main
struct BikeCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bikecheck",
        abstract: "Bike maintenance from plain YAML files: what is due, by hours, distance and time.",
        discussion: """
            A garage is a folder of YAML files (garage.yaml, bikes/, templates/, rides.yaml) with \
            activities cached under activities/. bikecheck finds it with --garage, else \
            BIKECHECK_GARAGE, else the nearest folder upward that holds garage.yaml.

            Exit codes: 0 all is well, 1 problems found (errors, or overdue with --check), 2 usage \
            errors (bad options, no garage).
            """,
        subcommands: [
            StatusCommand.self, ValidateCommand.self,
            LoginCommand.self, LogoutCommand.self, WhoamiCommand.self, SyncCommand.self, ImportCommand.self,
        ],
        defaultSubcommand: StatusCommand.self
    )
}
