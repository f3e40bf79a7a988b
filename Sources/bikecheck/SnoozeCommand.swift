import ArgumentParser
import BikeCheckKit

struct SnoozeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snooze",
        abstract: "Put off an interval until a day: status shows it as snoozed, not as due.",
        discussion: """
            Writes 'INTERVAL: DATE' under 'snooze:' in the bike's (or the gear's or part's) file, changing \
            no other line. Until that day status shows the interval as snoozed, and neither \
            'status --check' nor reminders count it as overdue or due; from that day on it is \
            what its usage says. 'bikecheck done' for the interval removes the line. A snooze \
            whose day has passed is a warning (snooze-expired): remove it. Snoozing again \
            changes the date. --as-of gives the day the write counts as today (the --until day \
            must be after it), so a script's writes are reproducible as reports are.

            Examples:
              bikecheck snooze grail chain-lube --until 2026-12-01
              bikecheck snooze race-wheels hub-service --until 2027-03-01 --commit
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var write: WriteOptions
    @OptionGroup var asOf: AsOfOptions

    @Argument(
        help: ArgumentHelp(
            "The bike (its file name in bikes/), gear (in gear/), or a part (in parts/) for the part's own intervals.", valueName: "bike-or-part"),
        completion: Completions.bikesAndParts)
    var bike: String

    @Argument(help: "The interval to put off, e.g. chain-lube.", completion: Completions.snoozeIntervals)
    var interval: String

    @Option(help: ArgumentHelp("The day it counts again, YYYY-MM-DD, after today.", valueName: "date"))
    var until: Day

    func run() throws {
        let root = try global.garageRoot()
        let record = SnoozeRecord(owner: bike, interval: interval, until: until)
        try write.perform(
            { () throws(WriteFailure) in
                try SnoozeRecorder.plan(record, in: WriteContext(root: root, today: asOf.day))
            }, root: root, global: global)
    }
}
