import ArgumentParser
import BikeCheckKit

struct PartCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "part",
        abstract: "Parts that move between bikes (parts/ID.yaml), and what every part has done in its life.",
        subcommands: [List.self, Show.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Every part and every component in a bike file, with its life so far.",
            discussion: "For each part: distance, moving time, rides, first and last use, where it is now. For each component: the current one's life (since its install or latest replacement) and the slot's total (every counted ride of its bike). JSON: schemas/parts.schema.json, in Strava's units (distance m, moving_time s)."
        )

        @OptionGroup var global: GlobalOptions

        @Option(name: .customLong("as-of"), help: ArgumentHelp("Compute as of this date (YYYY-MM-DD).", valueName: "date"))
        var asOf: Day?

        func run() throws {
            let (loaded, planner) = try load(global, asOf: asOf)
            let report = planner.lives(loaded.garage, summaries: loaded.activitySummaries)
            switch global.format {
            case .json: Terminal.standardOutput.write(try JSONOutput.encode(report))
            case .text: Terminal.standardOutput.write(PartLifeTextRenderer().renderList(report))
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A part's mount history, with the usage on each bike.",
            discussion: "Example:\n  bikecheck part show race-wheels"
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The part (its file name in parts/).")
        var part: String

        @Option(name: .customLong("as-of"), help: ArgumentHelp("Compute as of this date (YYYY-MM-DD).", valueName: "date"))
        var asOf: Day?

        func run() throws {
            let (loaded, planner) = try load(global, asOf: asOf)
            let known = loaded.garage.parts.map(\.part.id.rawValue)
            guard known.contains(part) else {
                let hint = likelyMeant(part, among: known).map { "; did you mean '\($0)'?" } ?? ""
                Terminal.standardError.write("error: no part '\(part)'\(hint)\n  help: "
                                             + (known.isEmpty ? "add one with a file parts/ID.yaml\n" : "parts: \(known.joined(separator: ", "))\n"))
                throw ExitCode(2)
            }
            let report = planner.lives(loaded.garage, summaries: loaded.activitySummaries, only: [PartID(part)])
            switch global.format {
            case .json: Terminal.standardOutput.write(try JSONOutput.encode(report))
            case .text: Terminal.standardOutput.write(PartLifeTextRenderer().renderShow(report))
            }
        }
    }
}

/// The garage with its activity summaries, or its diagnostics and exit 1 when it has errors.
private func load(_ global: GlobalOptions, asOf: Day?) throws -> (LoadedGarage, StatusPlanner) {
    let loaded = GarageLoader.load(at: try global.garageRoot(), options: .init(activities: .summaries, today: today()))
    if loaded.hasErrors {
        switch global.format {
        case .json: Terminal.standardOutput.write(try JSONOutput.encode(JSONOutput.ValidationResult(loaded.diagnostics)))
        case .text: global.report(loaded.diagnostics, sources: loaded.sources)
        }
        throw ExitCode(1)
    }
    return (loaded, StatusPlanner(asOf: asOf ?? today()))
}
