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
        // Summaries: the same checks of the activity cache as whole activities, for less.
        let loaded = try revision.load(try global.garageRoot(), .init(activities: .summaries, today: today()))
        let diagnostics = loaded.diagnostics
        switch format {
        case .json: Terminal.standardOutput.write(json: try JSONOutput.encode(JSONOutput.ValidationResult(diagnostics)))
        case .text: global.report(diagnostics, sources: loaded.sources)
        }
        if loaded.hasErrors || (strict && !diagnostics.isEmpty) { throw ExitCode(1) }
    }
}
