import ArgumentParser
import BikeCheckKit
import Diagnostics

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "The garage as one HTML page to open in a browser, print or hand to a buyer.",
        discussion: """
            One self-contained file (inline CSS and SVG, no script, nothing loaded from anywhere): \
            what is next across the bikes, then per bike each interval's progress with its state \
            and forecast, riding per month over the last twelve months (a chart and its table), \
            its parts and components with their lives, its costs per year and category, and every \
            service with the odometer at the time, its cost and note; then every part and where \
            it has been. The numbers are those of status, part list, usage, costs and history. \
            Light and dark follow the browser; printed, each bike starts a page, and with one \
            --bike the page is that bike's service record. The same garage and --as-of give the \
            same bytes.

            Examples:
              bikecheck report --html --output garage.html
              bikecheck report --bike grail --as-of 2026-11-15 > grail-service-record.html
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print HTML (the default and, for now, the only format: the same as --format html).")
    var html = false

    @Option(
        name: .customLong("bike"), help: ArgumentHelp("Only this bike (repeat for more; default: every bike not retired).", valueName: "bike"),
        completion: Completions.bikes)
    var bikes: [String] = []

    @Option(help: ArgumentHelp("Write the page to this file (default: standard output).", valueName: "file"), completion: .file())
    var output: String?

    @OptionGroup var asOf: AsOfOptions

    @OptionGroup var revision: RevisionOption

    @OptionGroup var riderOption: RiderOption

    func run() throws {
        let (loaded, chosen) = try ReportOutput.loadBikes(
            global, names: bikes, revision: revision, rider: riderOption.rider, asOf: asOf.asOf, command: "report --bike",
            help: "the report of a bike lists the parts that were on it")
        let day = revision.day(asOf, loaded)
        var report = GarageReport.build(loaded.garage, summaries: loaded.activitySummaries, only: chosen, asOf: day)
        report.git = revision.commit(try global.garageRoot(), loaded)
        switch format {
        case .html:
            let page = HTMLReportRenderer().render(report)
            guard let output else {
                Terminal.standardOutput.write(html: page)
                return
            }
            do {
                try AtomicFile.write(Array(page.string.utf8), to: output)
            } catch {
                Terminal.standardError.write(ErrorStyle.render(message: "\(error)"))
                throw ExitCode(1)
            }
        }
    }
}
