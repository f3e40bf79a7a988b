import ArgumentParser
import BikeCheckKit

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "What is overdue, due soon and fine, per bike, most urgent first.",
        discussion: "Usage counts the cached Strava activities with the bike's gear id and the bike's hand-entered rides, of the sport types that count for it, since each interval's anchor: the later of its last service and its component's (re)install, else the day the bike was bought, else its first counted ride. A part's intervals (parts/ID.yaml) show under the bike it is mounted on; its usage is what counted for each bike it was on, on the days it was there."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("Bikes and parts to show (default: every bike not retired, and the parts on no bike).", valueName: "bike-or-part"))
    var bikes: [String] = []

    @Option(name: .customLong("as-of"), help: ArgumentHelp("Compute as of this date (YYYY-MM-DD), for reproducible reports.", valueName: "date"))
    var asOf: Day?

    @Flag(help: "Exit 1 when anything is overdue (for cron and CI).")
    var check = false

    func run() throws {
        let loaded = GarageLoader.load(at: try global.garageRoot(), options: .init(activities: .summaries, today: today()))
        if loaded.hasErrors {
            // Machines asking for JSON get the diagnostics as validate prints them.
            if global.format == .json {
                Terminal.standardOutput.write(try JSONOutput.encode(JSONOutput.ValidationResult(loaded.diagnostics)))
            } else {
                global.report(loaded.diagnostics, sources: loaded.sources)
            }
            throw ExitCode(1)
        }
        let known = loaded.garage.bikes.map(\.bike.id.rawValue)
        let knownParts = loaded.garage.parts.map(\.part.id.rawValue)
        for name in bikes where !known.contains(name) && !knownParts.contains(name) {
            let hint = likelyMeant(name, among: known + knownParts).map { "; did you mean '\($0)'?" } ?? ""
            let parts = knownParts.isEmpty ? "" : "; parts: \(knownParts.joined(separator: ", "))"
            let what = knownParts.isEmpty ? "bike" : "bike or part"
            Terminal.standardError.write("error: no \(what) '\(name)'\(hint)\n  help: bikes: \(known.joined(separator: ", "))\(parts)\n")
            throw ExitCode(2)
        }
        let planner = StatusPlanner(asOf: asOf ?? today())
        let report = planner.plan(loaded.garage, summaries: loaded.activitySummaries,
                                  only: bikes.filter(known.contains).map(BikeID.init),
                                  parts: bikes.filter { !known.contains($0) }.map(PartID.init))
        switch global.format {
        case .json: Terminal.standardOutput.write(try JSONOutput.encode(report))
        case .text: Terminal.standardOutput.write(StatusTextRenderer(colored: global.colored(for: .standardOutput)).render(report))
        }
        if check && report.hasOverdue { throw ExitCode(1) }
    }
}
