import ArgumentParser
import BikeCheckKit

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "What is overdue, due soon and fine, per bike, most urgent first.",
        discussion: "Usage counts the cached Strava activities with the bike's gear id and the bike's hand-entered rides, of the sport types that count for it, since each interval's anchor: the later of its last service and its component's (re)install, else the day the bike was bought, else its first counted ride."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Bikes to show (default: every bike not retired).")
    var bikes: [String] = []

    @Option(name: .customLong("as-of"), help: ArgumentHelp("Compute as of this date (YYYY-MM-DD), for reproducible reports.", valueName: "date"))
    var asOf: Day?

    @Flag(help: "Exit 1 when anything is overdue (for cron and CI).")
    var check = false

    func run() throws {
        let loaded = GarageLoader.load(at: try global.garageRoot(), options: .init(activities: .summaries, today: today()))
        if loaded.hasErrors {
            // Machines asking for JSON get the diagnostics as validate prints them.
            if format == .json {
                Terminal.standardOutput.write(json: try JSONOutput.encode(JSONOutput.ValidationResult(loaded.diagnostics)))
            } else {
                global.report(loaded.diagnostics, sources: loaded.sources)
            }
            throw ExitCode(1)
        }
        let known = loaded.garage.bikes.map(\.bike.id.rawValue)
        for name in bikes where !known.contains(name) {
            let hint = likelyMeant(name, among: known).map { "; did you mean '\($0)'?" } ?? ""
            Terminal.standardError.write("error: no bike '\(name)'\(hint)\n  help: bikes: \(known.joined(separator: ", "))\n")
            throw ExitCode(2)
        }
        let planner = StatusPlanner(asOf: asOf ?? today())
        let report = planner.plan(loaded.garage, summaries: loaded.activitySummaries, only: bikes.map(BikeID.init))
        switch format {
        case .json: Terminal.standardOutput.write(json: try JSONOutput.encode(report))
        case .text: Terminal.standardOutput.write(StatusTextRenderer(colored: global.colored(for: .standardOutput)).render(report))
        }
        if check && report.hasOverdue { throw ExitCode(1) }
    }
}
