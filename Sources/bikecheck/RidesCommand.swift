import ArgumentParser
import BikeCheckKit

struct RidesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rides",
        abstract: "The rides behind the numbers: counted or not, and why.",
        discussion: """
            Lists each bike's cached Strava rides and hand-entered rides, and Strava rides with no \
            gear of a sport type the bike counts. A ride does not count when its sport type is not \
            among the bike's counts, when it was on a trainer and the bike does not count those, or \
            when it has no gear. With --interval, the rides since that interval's anchor, as \
            status computes it: the answer to "why does my chain say 104 h?". A part's rides are \
            those of each bike it was on, on the days it was there, each with its bike.

            Examples:
              bikecheck rides grail --interval chain-lube
              bikecheck rides race-wheels --interval hub-service
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var query: ReportOptions

    @Option(help: ArgumentHelp("Rides up to this date (YYYY-MM-DD).", valueName: "date"))
    var until: Day?

    @Option(help: ArgumentHelp("The rides since this interval's anchor, on each bike that has it.", valueName: "id"))
    var interval: String?

    func run() throws {
        let (report, loaded) = try global.reportingGarageErrors { try build() }
        try ReportOutput.write(report, table: report.table, as: format, git: query.revision.commit(try global.garageRoot(), loaded))
    }

    func answer() throws -> String {
        let (report, loaded) = try build()
        return try ReportOutput.json(report, git: query.revision.commit(try global.garageRoot(), loaded))
    }

    private func build() throws -> (RidesReport, LoadedGarage) {
        let (loaded, asked) = try query.select(global, until: until)
        var report: RidesReport
        do {
            report = try RidesReport.build(loaded.garage, summaries: loaded.activitySummaries, query: asked, interval: interval.map(IntervalID.init))
        } catch .unknownInterval(let id, let known) {
            throw ReportOutput.noInterval(
                id, command: "rides", names: query.subjects, everything: "any bike", known: known, garage: loaded.garage, selection: asked.selection)
        }
        // Summaries carry no names: read them from the month files of the rides shown.
        report.names = ActivityNames.load(root: try global.garageRoot(), summaries: loaded.activitySummaries, records: report.activityRecords)
        return (report, loaded)
    }
}
