import ArgumentParser
import BikeCheckKit

struct CostsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "costs",
        abstract: "What the bikes cost: service costs and purchase prices, per bike, year, month or category.",
        discussion: """
            Costs come from the logs' 'cost:' (grouped by 'category:') and the bikes' and parts' \
            'price:', counted on the day they were bought. Each cost is counted once, where it is \
            written: a part's price and log are on the part's own line, never in a bike's. Amounts are exact decimals; each currency has \
            lines and a total of its own, never added to another. Cost per 1,000 km (mi for units: imperial) and per ride \
            hour spread a line's total over the counted rides behind it (the bike's, or every \
            bike's in that year or month), counted as status counts them.

            Examples:
              bikecheck costs --by year --since 2025-01-01 --format csv
              bikecheck costs grail race-wheels
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var query: ReportOptions

    @Option(help: "Group by bike, rider (a household's: garage.yaml's riders:; '(shared)' for what names none), year, month or category.")
    var by: CostReport.Grouping = .bike

    func run() throws {
        let (report, loaded) = try global.reportingGarageErrors { try build() }
        try ReportOutput.write(report, table: report.table, as: format, git: query.revision.commit(try global.garageRoot(), loaded))
        Terminal.endAfterOutput()
    }

    func answer() throws -> String {
        let (report, loaded) = try build()
        return try ReportOutput.json(report, git: query.revision.commit(try global.garageRoot(), loaded))
    }

    private func build() throws -> (CostReport, LoadedGarage) {
        let (loaded, asked) = try query.select(global)
        let report = CostReport.build(loaded.garage, summaries: loaded.activitySummaries, query: asked, by: by)
        return (report, loaded)
    }
}
