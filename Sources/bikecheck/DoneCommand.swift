import ArgumentParser
import BikeCheckKit

struct DoneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "done",
        abstract: "Record a service: append an entry to the bike's (or the gear's or part's) log.",
        discussion: """
            Adds '- date: …, done: [intervals], cost, category, note' to the bike's log, in the style of the \
            entries already there, changing no other line: at the end, or, in a log kept in date \
            order, before the first later entry. An interval already logged on that day is not \
            logged again (a different --cost, --category or --note for it is refused: edit that \
            entry by hand). --cost is read as the file reads 'cost:' (45.99, or 45.99 USD); a cost \
            in another currency than garage.yaml's, or in none, is written and warned about as the \
            file is: costs and exports report it apart. \
            A task that 'replaces' a component starts that component's life again. An interval \
            done is no longer snoozed: its line leaves 'snooze:' (not for an entry older than its \
            last service). --todo closes a one-off job: \
            it leaves 'todo:' and the entry says 'todo: TEXT'. --reading INTERVAL=VALUE writes a \
            measurement of an interval with a 'wear_limit:' under 'readings:' (0.5%, 1.8mm, in the \
            limit's unit); with only readings the entry has no 'done:': a measurement is not a \
            service. The garage is checked before and after.

            Examples:
              bikecheck done grail chain-lube
              bikecheck done grail chain-replace chain-lube --date 2025-11-16 --cost 45.99 --category parts
              bikecheck done tarmac brake-pads --cost "27.80 EUR" --category parts
              bikecheck done stumpy fork-lowers --note "new wipers" --commit
              bikecheck done race-wheels hub-service --cost 40
              bikecheck done grail --todo "replace rear derailleur hanger" --cost 19
              bikecheck done grail --reading chain-replace=0.5%
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var write: WriteOptions

    @Argument(
        help: ArgumentHelp(
            "The bike (its file name in bikes/), gear (in gear/), or a part (in parts/) for the part's own intervals.", valueName: "bike-or-part"),
        completion: Completions.bikesAndParts)
    var bike: String

    @Argument(help: "The intervals that were done, e.g. chain-lube.", completion: Completions.doneIntervals)
    var intervals: [String] = []

    @Option(help: ArgumentHelp("A to-do that was done: its id, or its text as written under 'todo:'.", valueName: "text-or-id"))
    var todo: String?

    @Option(help: ArgumentHelp("When it was done, YYYY-MM-DD (default: today).", valueName: "date"))
    var date: Day?

    @Option(
        help: ArgumentHelp(
            "What it cost, as the log's 'cost:' takes it: 45.99, or with a currency code, \"45.99 USD\" (default: the garage's currency).",
            valueName: "amount"))
    var cost: String?

    @Option(help: ArgumentHelp("What kind of cost it was, for 'costs --by category' and exports: parts, labour…", valueName: "text"))
    var category: String?

    @Option(help: ArgumentHelp("A note for the log.", valueName: "text"))
    var note: String?

    @Option(
        help: ArgumentHelp(
            "A measurement of an interval with a wear_limit, e.g. chain-replace=0.5% or brake-pads=1.8mm (repeatable).", valueName: "interval=value"))
    var reading: [String] = []

    func run() throws {
        let root = try global.garageRoot()
        try write.perform({ () throws(WriteFailure) in try plan(root, today: today()) }, root: root, global: global)
    }

    /// The change to write: the command's, and `bikecheck mcp`'s done tool's.
    func plan(_ root: String, today: Day) throws(WriteFailure) -> GarageChange {
        let record = ServiceRecord(bike: bike, intervals: intervals, date: date, cost: cost, note: note, todo: todo, category: category, readings: reading)
        return try ServiceRecorder.plan(record, in: WriteContext(root: root, today: today))
    }
}
