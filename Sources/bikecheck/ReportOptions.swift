import ArgumentParser
import BikeCheckKit

/// The day a command computes as of: `--as-of`, else today. Declared once, for every command
/// that takes it (as ArgumentParser's `Math` example and swift-format's `LintFormatOptions`
/// share their options).
struct AsOfOptions: ParsableArguments {
    @Option(
        name: .customLong("as-of"),
        help: ArgumentHelp("Compute as of this date, YYYY-MM-DD (default: today), for reproducible output.", valueName: "date"))
    var asOf: Day?

    /// `--as-of`, else today.
    var day: Day { asOf ?? today() }
}

/// What a report is about and when: the bikes and parts named, `--since` and `--as-of`, shared
/// by the report commands (costs, usage, history, rides, export).
struct ReportOptions: ParsableArguments {
    @Argument(
        help: ArgumentHelp("Bikes and parts to report on (default: every bike, and every part but in 'rides').", valueName: "bike-or-part"),
        completion: Completions.bikesAndParts)
    var subjects: [String] = []

    @Option(help: ArgumentHelp("From this date, YYYY-MM-DD.", valueName: "date"))
    var since: Day?

    @OptionGroup var asOf: AsOfOptions

    /// `--as-of`, else today.
    var day: Day { asOf.day }

    func validate() throws {
        // A range that ends before it starts is a mistake, not an empty report.
        if let since, let end = asOf.asOf, since > end {
            throw ValidationError("--since \(since) is after --as-of \(end)\nHelp: give a --since on or before the --as-of day")
        }
    }

    /// The garage, and the subjects named as a selection (see `ReportOutput.load`).
    func load(_ global: GlobalOptions) throws -> (LoadedGarage, ReportSelection) { try ReportOutput.load(global, names: subjects) }
}
