import ArgumentParser
import BikeCheckKit

struct UsageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "usage",
        abstract: "How much each bike was ridden, per month or year, and its odometer.",
        discussion: """
            Counts the rides status counts: cached Strava activities with the bike's gear id and \
            hand-entered rides, of the sport types that count for the bike (trainer rides only \
            where the bike counts them). The odometer is the distance of every counted ride up to \
            the end of the month or year, including those before --since. A part's rides are \
            those that counted for each bike it was on, on the days it was mounted there; its \
            odometer starts from its usage before tracking.

            Examples:
              bikecheck usage grail --per year --as-of 2026-11-15
              bikecheck usage race-wheels
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var query: ReportOptions

    @Option(help: "One line per month or per year.")
    var per: UsageReport.Period = .month

    func run() throws {
        let (report, loaded) = try global.reportingGarageErrors { try build() }
        try ReportOutput.write(report, table: report.table, as: format, git: query.revision.commit(try global.garageRoot(), loaded))
        Terminal.endAfterOutput()
    }

    func answer() throws -> String {
        let (report, loaded) = try build()
        return try ReportOutput.json(report, git: query.revision.commit(try global.garageRoot(), loaded))
    }

    private func build() throws -> (UsageReport, LoadedGarage) {
        let (loaded, asked) = try query.select(global)
        let report = UsageReport.build(loaded.garage, summaries: loaded.activitySummaries, query: asked, period: per)
        return (report, loaded)
    }
}
