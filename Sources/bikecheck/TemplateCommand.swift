import ArgumentParser
import BikeCheckKit
import Diagnostics
import Foundation

struct TemplateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "template",
        abstract: "List, show, apply and import service templates.",
        subcommands: [List.self, Show.self, Apply.self, Import.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the garage's templates.")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            let loaded = GarageLoader.load(at: try global.garageRoot(), options: GarageLoader.Options(activities: .skip))
            global.report(loaded.diagnostics, sources: loaded.sources)
            let templates = loaded.garage.templates
            switch format {
            case .json:
                struct Row: Encodable { var id: String, name: String, source: String?, intervals: [String], bikes: [String] }
                Terminal.standardOutput.write(json: try JSONOutput.encode(templates.map { t in
                    Row(id: t.id.rawValue, name: t.name, source: t.source, intervals: t.intervals.map(\.id.rawValue),
                        bikes: users(of: t.id, in: loaded.garage))
                }))
            case .text:
                let width = templates.map { TerminalText(escaping: $0.id).string.count }.max() ?? 0
                for t in templates {
                    let id = TerminalText(escaping: t.id)
                    var line: TerminalText = "\(id)" + .spaces(width - id.string.count) + "  \(t.name)  (\(t.intervals.count) interval\(t.intervals.count == 1 ? "" : "s"))"
                    let bikes = users(of: t.id, in: loaded.garage)
                    if !bikes.isEmpty { line += "  used by \(bikes.joined(separator: ", "))" }
                    Terminal.standardOutput.write(line + "\n")
                }
            }
            if loaded.hasErrors { throw ExitCode(1) }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a template's intervals.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The template.")
        var template: String

        func run() throws {
            let context = WriteContext(root: try global.garageRoot(), today: today())
            let loaded = context.loaded
            let t: Template
            do {
                t = try context.template(template)
            } catch {
                // A template file with errors does not load: say why, then what there is.
                global.report(loaded.diagnostics.filter { $0.location.file.hasPrefix("templates/\(template).") }, sources: loaded.sources)
                Terminal.standardError.write("error: \(error.message)\n" + (error.help.map { "  help: \($0)\n" } ?? ""))
                throw ExitCode(2)
            }
            var out: TerminalText = "\(t.id) · \(t.name)\n"
            if let d = t.description { out += "\(lines: d.trimmingCharacters(in: .whitespacesAndNewlines))\n" }
            if let s = t.source { out += "source: \(s)\n" }
            let width = t.intervals.map { TerminalText(escaping: $0.id).string.count }.max() ?? 0
            for i in t.intervals {
                let id = TerminalText(escaping: i.id)
                var line: TerminalText = "  \(id)" + .spaces(width - id.string.count)
                line += "  every \(i.every?.value.map(\.text).joined(separator: " or ") ?? "?")"
                if let task = i.task { line += "  \(task)" }
                if let c = i.replaces { line += "  (replaces \(c.value))" }
                out += line + "\n"
            }
            let bikes = users(of: t.id, in: loaded.garage)
            if !bikes.isEmpty { out += "used by: \(bikes.joined(separator: ", "))\n" }
            Terminal.standardOutput.write(out)
        }
    }

    struct Apply: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a template to a bike's 'templates:' list.",
            discussion: "Example:\n  bikecheck template apply tubeless grail"
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var write: WriteOptions

        @Argument(help: "The template.")
        var template: String

        @Argument(help: "The bike.")
        var bike: String

        func run() throws {
            let root = try global.garageRoot()
            try write.perform({ () throws(WriteFailure) in
                try TemplateImporter.apply(template, to: bike, in: WriteContext(root: root, today: today()))
            }, root: root, global: global)
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy templates from a file or another garage, noting their source.",
            discussion: """
                PATH is a template file, or a garage (or templates folder) to import from: the named \
                templates, or all of them. Each copy gets 'source:' saying where it came from; a \
                different template of the same name is never overwritten. A template file that is a \
                symbolic link leading outside the garage (or folder) it comes from is refused, unread.

                Examples:
                  bikecheck template import ~/Downloads/fox-36.yaml
                  bikecheck template import ../club-garage road-basics --commit
                  bikecheck template import ../club-garage/templates/road.yaml --as club-road
                """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var write: WriteOptions

        @Argument(help: "A template file, or a garage folder.")
        var path: String

        @Argument(help: "Templates to import from a garage folder (default: all).")
        var templates: [String] = []

        @Option(name: .customLong("as"), help: ArgumentHelp("Import a single template under this name.", valueName: "name"))
        var newName: String?

        func run() throws {
            let root = try global.garageRoot()
            let cwd = FileManager.default.currentDirectoryPath
            try write.perform({ () throws(WriteFailure) in
                try TemplateImporter.importTemplates(from: path, names: templates, as: newName,
                                                     in: WriteContext(root: root, today: today()), workingDirectory: cwd)
            }, root: root, global: global)
        }
    }
}

/// The bikes that use a template, by id.
func users(of template: TemplateID, in garage: Garage) -> [String] {
    garage.bikes.filter { $0.bike.templates.contains { $0.value == template } }.map(\.bike.id.rawValue)
}
