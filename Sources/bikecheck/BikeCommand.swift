import ArgumentParser
import BikeCheckKit
import Diagnostics
import Foundation

struct BikeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bike",
        abstract: "Add, list and retire bikes.",
        subcommands: [Add.self, List.self, Retire.self]
    )

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a bike: writes bikes/ID.yaml.",
            discussion: """
                Example:
                  bikecheck bike add grail --name "Canyon Grail CF SL 7" --strava b1234567 --template gravel --template tubeless
                """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var write: WriteOptions

        @Argument(help: "The bike's id, which becomes its file name (bikes/ID.yaml).")
        var id: String

        @Option(help: ArgumentHelp("The bike's name.", valueName: "text"))
        var name: String

        @Option(help: ArgumentHelp("The bike's Strava gear id (b12345678).", valueName: "gear-id"))
        var strava: String?

        @Option(help: ArgumentHelp("When it was bought, YYYY-MM-DD.", valueName: "date"))
        var bought: Day?

        @Option(
            name: .customLong("template"), help: ArgumentHelp("A template to apply (repeat for more).", valueName: "template"),
            completion: Completions.templates)
        var templates: [String] = []

        func run() throws {
            let root = try global.garageRoot()
            let bike = NewBike(id: id, name: name, strava: strava, bought: bought, templates: templates)
            try write.perform(
                { () throws(WriteFailure) in
                    try BikeEditor.add(bike, in: WriteContext(root: root, today: today()))
                }, root: root, global: global)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the garage's bikes.")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            let loaded = GarageLoader.load(at: try global.garageRoot(), options: GarageLoader.Options(activities: .skip))
            global.report(loaded.diagnostics, sources: loaded.sources)
            let bikes = loaded.garage.bikes.map(\.bike)
            switch format {
            case .json:
                struct Row: Encodable {
                    var id: String, name: String, strava: String?, bought: String?, retired: String?, templates: [String]
                    /// Gear's kind (`gear/`); absent for a bike.
                    var kind: String?
                }
                Terminal.standardOutput.write(
                    json: try JSONOutput.encode(
                        bikes.map {
                            Row(
                                id: $0.id.rawValue, name: $0.name, strava: $0.strava?.value, bought: $0.bought?.description,
                                retired: $0.retired?.description, templates: $0.templates.map(\.value.rawValue), kind: $0.kind?.rawValue)
                        }))
            case .text:
                let width = bikes.map { TerminalText(escaping: $0.id).string.count }.max() ?? 0
                for b in bikes {
                    let id = TerminalText(escaping: b.id)
                    var line: TerminalText = "\(id)" + .spaces(width - id.string.count) + "  \(b.name)"
                    if let kind = b.kind { line += "  (\(kind.rawValue))" }
                    if let gear = b.strava?.value { line += "  strava \(gear)" }
                    if !b.templates.isEmpty { line += "  templates: \(b.templates.map(\.value.rawValue).joined(separator: ", "))" }
                    if let retired = b.retired { line += "  retired \(retired)" }
                    Terminal.standardOutput.write(line + "\n")
                }
                if bikes.isEmpty { Terminal.standardError.write("no bikes yet; add one with 'bikecheck bike add ID --name NAME'\n") }
            }
            if loaded.hasErrors { throw ExitCode(1) }
        }
    }

    struct Retire: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retire",
            abstract: "Retire a bike: sets 'retired:' so status leaves it out.",
            discussion: "Example:\n  bikecheck bike retire tarmac --date 2026-01-01"
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var write: WriteOptions

        @Argument(help: "The bike.", completion: Completions.bikes)
        var bike: String

        @Option(help: ArgumentHelp("When it was retired, YYYY-MM-DD (default: today).", valueName: "date"))
        var date: Day?

        func run() throws {
            let root = try global.garageRoot()
            try write.perform(
                { () throws(WriteFailure) in
                    try BikeEditor.retire(bike, on: date, in: WriteContext(root: root, today: today()))
                }, root: root, global: global)
        }
    }
}
