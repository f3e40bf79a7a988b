import ArgumentParser
import BikeCheckKit

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check every file of the garage; silent, exit 0, when all is well.",
        discussion:
            "Reports every problem at once as file:line:column: severity: message [id], with the line and a help line. Exit 1 when there are errors (or warnings, with --strict)."
    )

    @OptionGroup var global: GlobalOptions

    @OptionGroup var revision: RevisionOption

    @Flag(help: "Treat warnings as errors.")
    var strict = false

    func run() throws {
        let loaded = try load()
        let diagnostics = loaded.diagnostics
        switch format {
        case .json: Terminal.standardOutput.write(json: try Self.json(loaded))
        case .text: global.report(diagnostics, sources: loaded.sources)
        }
        if loaded.hasErrors || (strict && !diagnostics.isEmpty) { throw ExitCode(1) }
    }

    func answer() throws -> String { try Self.json(try load()) }

    private func load() throws -> LoadedGarage {
        // Summaries: the same checks of the activity cache as whole activities, for less.
        try revision.load(try global.garageRoot(), .init(activities: .summaries, today: today()))
    }

    private static func json(_ loaded: LoadedGarage) throws -> String { try JSONOutput.encode(JSONOutput.ValidationResult(loaded.diagnostics)) }
}
