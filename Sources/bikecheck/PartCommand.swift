import ArgumentParser
import BikeCheckKit
import Diagnostics

struct PartCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "part",
        abstract: "Parts that move between bikes (parts/ID.yaml), and what every part has done in its life.",
        subcommands: [List.self, Show.self, Add.self, Mount.self, Unmount.self, Retire.self]
    )

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a part: writes parts/ID.yaml (on the shelf until mounted).",
            discussion: "Example:\n  bikecheck part add race-wheels --name \"DT Swiss ARC 1100\" --bought 2025-03-01 --template wheelset"
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var write: WriteOptions

        @Argument(help: "The part's id, which becomes its file name (parts/ID.yaml).")
        var id: String

        @Option(help: ArgumentHelp("The part's name.", valueName: "text"))
        var name: String

        @Option(help: ArgumentHelp("When it was bought, YYYY-MM-DD.", valueName: "date"))
        var bought: Day?

        @Option(name: .customLong("template"), help: ArgumentHelp("A template whose intervals follow the part (repeat for more).", valueName: "template"))
        var templates: [String] = []

        func run() throws {
            let root = try global.garageRoot()
            let part = NewPart(id: id, name: name, bought: bought, templates: templates)
            try write.perform(
                { () throws(WriteFailure) in
                    try PartEditor.add(part, in: WriteContext(root: root, today: today()))
                }, root: root, global: global)
        }
    }

    struct Mount: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mount",
            abstract: "Mount a part on a bike (or on another part): ends its open mount the day before and opens a new one.",
            discussion: """
                Appends '- {bike: BIKE, from: DATE}' to the part's mounts, in the style of those \
                already there; a mount still open elsewhere gets 'to:' the day before. Rides \
                on DATE count for the new bike. Given a part's id instead of a bike's (a bike of that id \
                comes first), it writes '- {part: PART, from: DATE}': tyres on a wheelset, which then wear \
                with whatever bike the wheelset is on.

                Examples:
                  bikecheck part mount race-wheels tarmac
                  bikecheck part mount race-wheels grail --date 2026-05-01 --commit
                  bikecheck part mount race-tyres race-wheels
                """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var write: WriteOptions

        @Argument(help: "The part.", completion: Completions.parts)
        var part: String

        @Argument(help: "The bike it goes on, or the part (a wheelset for tyres).", completion: Completions.bikesAndParts)
        var bike: String

        @Option(help: ArgumentHelp("The first day on the bike, YYYY-MM-DD (default: today).", valueName: "date"))
        var date: Day?

        func run() throws {
            let root = try global.garageRoot()
            try write.perform(
                { () throws(WriteFailure) in
                    try PartEditor.mount(part, on: bike, date: date, in: WriteContext(root: root, today: today()))
                }, root: root, global: global)
        }
    }

    struct Unmount: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unmount",
            abstract: "Take a part off its bike, back on the shelf: its open mount ends the day before the date."
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var write: WriteOptions

        @Argument(help: "The part.", completion: Completions.parts)
        var part: String

        @Option(help: ArgumentHelp("The first day off the bike, YYYY-MM-DD (default: today).", valueName: "date"))
        var date: Day?

        func run() throws {
            let root = try global.garageRoot()
            try write.perform(
                { () throws(WriteFailure) in
                    try PartEditor.unmount(part, date: date, in: WriteContext(root: root, today: today()))
                }, root: root, global: global)
        }
    }

    struct Retire: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retire",
            abstract: "Retire a part: sets 'retired:'; a mount still open ends that day.",
            discussion: "Example:\n  bikecheck part retire old-chain --date 2026-01-01"
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var write: WriteOptions

        @Argument(help: "The part.", completion: Completions.parts)
        var part: String

        @Option(help: ArgumentHelp("When it was retired, YYYY-MM-DD (default: today).", valueName: "date"))
        var date: Day?

        func run() throws {
            let root = try global.garageRoot()
            try write.perform(
                { () throws(WriteFailure) in
                    try PartEditor.retire(part, on: date, in: WriteContext(root: root, today: today()))
                }, root: root, global: global)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Every part and every component in a bike file, with its life so far.",
            discussion:
                "For each part: distance, moving time, rides, first and last use, where it is now. For each component: the current one's life (since its install or latest replacement) and the slot's total (every ride of its bike that counts through the component's filter, whichever component filled it, plus its usage before tracking: never less than the component's life). Text is in garage.yaml's units (km or mi); JSON (schemas/parts.schema.json) in Strava's units (distance m, moving_time s)."
        )

        @OptionGroup var global: GlobalOptions

        @OptionGroup var asOf: AsOfOptions

        func run() throws {
            let report = try global.reportingGarageErrors(asJSON: format == .json) { try build() }
            switch format {
            case .json: Terminal.standardOutput.write(json: try ReportOutput.json(report, git: GarageCommit.of(garage: try global.garageRoot())))
            case .text: Terminal.standardOutput.write(PartLifeTextRenderer().renderList(report))
            }
        }

        func answer() throws -> String { try ReportOutput.json(try build(), git: GarageCommit.of(garage: try global.garageRoot())) }

        private func build() throws -> PartLifeReport {
            let (loaded, planner) = try load(global, asOf: asOf)
            return planner.lives(loaded.garage, summaries: loaded.activitySummaries)
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "A part's mount history, with the usage on each bike.",
            discussion: "Example:\n  bikecheck part show race-wheels"
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The part (its file name in parts/).", completion: Completions.parts)
        var part: String

        @OptionGroup var asOf: AsOfOptions

        func run() throws {
            let report = try global.reportingGarageErrors(asJSON: format == .json) { try build() }
            switch format {
            case .json: Terminal.standardOutput.write(json: try ReportOutput.json(report, git: GarageCommit.of(garage: try global.garageRoot())))
            case .text: Terminal.standardOutput.write(PartLifeTextRenderer().renderShow(report))
            }
        }

        func answer() throws -> String { try ReportOutput.json(try build(), git: GarageCommit.of(garage: try global.garageRoot())) }

        private func build() throws -> PartLifeReport {
            let (loaded, planner) = try load(global, asOf: asOf)
            let known = loaded.garage.parts.map(\.part.id.rawValue)
            guard known.contains(part) else {
                let hint = didYouMean(part, among: known)
                throw UsageError(
                    "no part '\(part)'\(hint)", help: known.isEmpty ? "add one with a file parts/ID.yaml" : "parts: \(known.joined(separator: ", "))")
            }
            return planner.lives(loaded.garage, summaries: loaded.activitySummaries, only: [PartID(part)])
        }
    }
}

/// The garage with its activity summaries; `GarageHasErrors` when it has errors.
private func load(_ global: GlobalOptions, asOf: AsOfOptions) throws -> (LoadedGarage, StatusPlanner) {
    let loaded = GarageLoader.load(at: try global.garageRoot(), options: .init(activities: .summaries, today: today()))
    if loaded.hasErrors { throw GarageHasErrors(loaded: loaded) }
    return (loaded, StatusPlanner(asOf: asOf.day))
}
