import ArgumentParser
import BikeCheckKit
import Diagnostics

struct TodoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "todo",
        abstract: "One-off jobs on a bike, gear or a part, besides its intervals.",
        discussion: """
            A to-do lives under 'todo:' in the bike's (or the gear's or part's) file: a line of text, or \
            '{task: …, due: YYYY-MM-DD, id: …}'. status shows it; after its due day it is \
            overdue ('status --check' exits 1). 'bikecheck done BIKE --todo TEXT-OR-ID' closes it.

            Examples:
              bikecheck todo add grail "replace rear derailleur hanger" --due 2026-12-01
              bikecheck todo list
              bikecheck done grail --todo "replace rear derailleur hanger"
            """,
        subcommands: [Add.self, List.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "The to-dos of every bike and part, or of those named, most urgent first.",
            discussion: """
                One line per to-do: its bike or part, its state as of --as-of (overdue after its \
                due day, due-soon in the 7 days up to it, else ok), its due day, its text and its \
                id. Retired bikes and parts are listed too. Exits 0 when there is none.

                Examples:
                  bikecheck todo list
                  bikecheck todo list grail --as-of 2026-11-15
                """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var asOf: AsOfOptions

        @Argument(help: ArgumentHelp("Bikes or parts to list (default: all).", valueName: "bike-or-part"), completion: Completions.bikesAndParts)
        var names: [String] = []

        func run() throws {
            let loaded = GarageLoader.load(at: try global.garageRoot(), options: .init(activities: .skip, today: today()))
            if loaded.hasErrors {
                global.report(loaded.diagnostics, sources: loaded.sources)
                throw ExitCode(1)
            }
            let garage = loaded.garage
            let owners: [(name: String, todos: [Todo])] =
                garage.bikes.map { ($0.bike.id.rawValue, $0.bike.todos) } + garage.parts.map { ($0.part.id.rawValue, $0.part.todos) }
            let known = owners.map(\.name)
            for name in names where !known.contains(name) {
                throw UsageError("no bike or part '\(name)'\(didYouMean(name, among: known))", help: "bikes and parts: \(known.joined(separator: ", "))")
            }
            var rows: [[String]] = []
            for owner in owners where names.isEmpty || names.contains(owner.name) {
                for t in TodoStatus.sortedByUrgency(owner.todos.map { TodoStatus($0, asOf: asOf.day) }) {
                    rows.append([owner.name, t.state.rawValue, t.due?.description ?? "no date", t.task, t.id.map { "(\($0))" } ?? ""])
                }
            }
            guard !rows.isEmpty else {
                Terminal.standardOutput.write(TerminalText(stringLiteral: "No to-dos.\n"))
                return
            }
            let widths = (0..<4).map { c in rows.map { $0[c].count }.max() ?? 0 }
            var out: TerminalText = ""
            for row in rows {
                var line = (0..<4).map { c in row[c].padding(toLength: widths[c], withPad: " ", startingAt: 0) }.joined(separator: "  ")
                line += row[4].isEmpty ? "" : "  " + row[4]
                while line.hasSuffix(" ") { line.removeLast() }
                out += TerminalText(escaping: line) + "\n"
            }
            Terminal.standardOutput.write(out)
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a to-do to a bike's (or a part's) 'todo:' list.",
            discussion: """
                Appends the job to 'todo:', creating the list at the end of the file when there \
                is none, changing no other line: a line of text, or with --due or --id a \
                mapping. The text (or the id) is what 'done --todo' names it by. The text is one \
                line: a line break or another control character is refused.

                Examples:
                  bikecheck todo add grail "replace rear derailleur hanger"
                  bikecheck todo add grail "true the rear wheel" --due 2026-12-01 --id true-wheel
                """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var write: WriteOptions

        @Argument(
            help: ArgumentHelp("The bike (its file name in bikes/), gear (in gear/), or a part (in parts/).", valueName: "bike-or-part"),
            completion: Completions.bikesAndParts)
        var bike: String

        @Argument(help: ArgumentHelp("What needs doing.", valueName: "text"))
        var text: String

        @Option(help: ArgumentHelp("When it should be done by, YYYY-MM-DD.", valueName: "date"))
        var due: Day?

        @Option(help: ArgumentHelp("A short name for 'done --todo' (letters, digits, '-', '_', '.').", valueName: "id"))
        var id: String?

        func run() throws {
            let root = try global.garageRoot()
            let new = NewTodo(owner: bike, task: text, due: due, id: id)
            try write.perform(
                { () throws(WriteFailure) in
                    try TodoRecorder.plan(new, in: WriteContext(root: root, today: today()))
                }, root: root, global: global)
        }
    }
}
