import ArgumentParser
import BikeCheckKit

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Every service in the logs, newest first, with the riding since the task was last done.",
        discussion: """
            Each task says the counted rides' distance and time from the previous log entry that \
            did it through this one, as status counts them; the first time it says so. A part's \
            entries are its own log's, with the bike it was on that day; its riding is counted \
            on each bike it was on, on the days it was there.

            Examples:
              bikecheck history grail --interval chain-replace --since 2025-01-01
              bikecheck history race-wheels
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var query: ReportOptions

    @Option(help: ArgumentHelp("Entries up to this date (YYYY-MM-DD).", valueName: "date"))
    var until: Day?

    @Option(help: ArgumentHelp("Only entries that did this interval.", valueName: "id"))
    var interval: String?

    func run() throws {
        // The garage and its rides are let go before the table is laid out: only the report is kept.
        let (report, read) = try global.reportingGarageErrors { () -> (HistoryReport, GitSnapshot.Commit?) in
            let (report, loaded) = try build()
            return (report, loaded.commit)
        }
        try ReportOutput.write(report, table: report.table, as: format, git: query.revision.commit(try global.garageRoot(), read: read))
        // The entries are not taken apart one by one (a garage's history is a hundred thousand).
        Terminal.endAfterOutput()
    }

    func answer() throws -> String {
        let (report, loaded) = try build()
        return try ReportOutput.json(report, git: query.revision.commit(try global.garageRoot(), loaded))
    }

    private func build() throws -> (HistoryReport, LoadedGarage) {
        var (loaded, asked) = try query.select(global, until: until)
        if let interval, case let known = asked.selection.intervalIDs(in: loaded.garage), !known.contains(interval) {
            throw ReportOutput.noInterval(
                interval, command: "history", names: query.subjects, everything: "any bike or part", known: known, garage: loaded.garage,
                selection: asked.selection)
        }
        // The rides are handed over, not kept here: the history lets them go once its ledgers are
        // made, before its entries are (at 1,000,000 rides, 56 MB of the peak).
        let summaries = loaded.activitySummaries
        loaded.activities = .none
        let report = HistoryReport.build(loaded.garage, summaries: consume summaries, query: asked, interval: interval.map(IntervalID.init))
        return (report, loaded)
    }
}
