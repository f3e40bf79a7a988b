import ArgumentParser
import BikeCheckKit

struct TodoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "todo",
        abstract: "One-off jobs on a bike or a part, besides its intervals.",
        discussion: """
            A to-do lives under 'todo:' in the bike's (or the part's) file: a line of text, or \
            '{task: …, due: YYYY-MM-DD, id: …}'. status shows it; after its due day it is \
            overdue ('status --check' exits 1). 'bikecheck done BIKE --todo TEXT-OR-ID' closes it.

            Examples:
              bikecheck todo add grail "replace rear derailleur hanger" --due 2026-12-01
              bikecheck done grail --todo "replace rear derailleur hanger"
            """,
        subcommands: [Add.self]
    )

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
            help: ArgumentHelp("The bike (its file name in bikes/), or a part (in parts/).", valueName: "bike-or-part"),
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
