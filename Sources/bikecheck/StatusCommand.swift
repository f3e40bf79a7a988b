import ArgumentParser
import BikeCheckKit
import Diagnostics

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "What is overdue, due soon and fine, per bike, most urgent first.",
        discussion:
            "Stale data is a warning (standard error, and 'warnings' in the JSON), never an exit code: the last Strava sync older than stale_after (garage.yaml, 14 days; without a sync on record, the newest cached activity), a bike on Strava with no ride for quiet_after (60 days) while another has rides, or no bike on Strava with a ride for quiet_after though the sync is recent. When some files have errors, status lists them, shows the bikes they cannot touch and names the others (an error in a bike's file leaves that bike out, in a template every bike using it; an error elsewhere, such as garage.yaml, rides.yaml or the activity cache, leaves out every bike), and exits 1. Warnings are counted in one line on standard error; 'bikecheck validate' shows them. On a terminal, lines fit its width (COLUMNS, else the terminal's own); piped output keeps whole lines. A part's intervals (parts/ID.yaml) show under the bike it is mounted on; its usage is what counted for each bike it was on, on the days it was there; an error in a part file shows no status. Usage counts the cached Strava activities with the bike's gear id and the bike's hand-entered rides, of the sport types that count for it, since each interval's anchor: the later of its last service and its component's (re)install, else the day the bike was bought, else its first counted ride.\n\nEach interval has an urgency band: overdue; within:Nd when its forecast due day is at most N days away (windows of 30, 7, 1 and 0 days, or garage.yaml's notify: bands:); due-soon by progress; else ok. --format json carries it as 'band'.\n\nExamples:\n  bikecheck status --by urgency            one list across the garage, most urgent first\n  bikecheck status --within 14d            only what is overdue or forecast due within two weeks\n  bikecheck status --check within:7d       exit 1 when anything is due within a week (cron, CI)"
    )

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp("Bikes, gear and parts to show (default: every bike and gear not retired, and the parts on no bike).", valueName: "bike-or-part"),
        completion: Completions.bikesAndParts)
    var bikes: [String] = []

    @Option(
        help: ArgumentHelp(
            "Only this rider's bikes and parts (garage.yaml's riders:, a bike's or part's rider:); parts on them show whoever they belong to.",
            valueName: "name"))
    var rider: String?

    @OptionGroup var asOf: AsOfOptions

    @OptionGroup var revision: RevisionOption

    @OptionGroup var urgency: UrgencyOptions

    func run() throws {
        if format == .json {
            let (json, planned, warnings) = try global.reportingGarageErrors(asJSON: true) { try answerWithPlan() }
            Terminal.standardOutput.write(json: json)
            try finish(planned, warnings: warnings)
            Terminal.endAfterOutput()
        }
        let (root, loaded, named) = try load()
        var garage = loaded.garage
        if loaded.hasErrors {
            global.report(loaded.diagnostics, sources: loaded.sources)
            // The bikes the errors cannot touch still get their status; the others are named.
            guard let scope = StatusScope(loaded) else {
                Terminal.standardError.write("no status: these errors could change every bike's numbers\n")
                throw ExitCode(1)
            }
            let leftOut = scope.leftOut.filter { bikes.isEmpty ? loaded.garage.bike(BikeID($0))?.bike.retired == nil : bikes.contains($0) }
            if !leftOut.isEmpty {
                Terminal.standardError.write("status leaves out \(leftOut.joined(separator: ", ")): errors in their files or templates (above)\n")
            }
            garage = scope.garage
        }
        // Those the errors leave out are named above.
        if loaded.hasErrors, !bikes.isEmpty, !named.bikes.contains(where: { garage.bike($0) != nil }), !named.parts.contains(where: { garage.part($0) != nil })
        {
            throw ExitCode(1)
        }
        let (report, planned) = plan(garage, root: root, loaded: loaded, named: named)
        if loaded.hasErrors, planned.bikes.isEmpty, planned.parts.isEmpty { throw ExitCode(1) }
        switch format {
        case .json: break
        case .text:
            let renderer = StatusTextRenderer(
                colored: global.colored(for: .standardOutput), width: Terminal.standardOutput.columns, byUrgency: urgency.by == .urgency,
                window: urgency.within?.days)
            Terminal.standardOutput.write(renderer.render(report))
            for w in report.warnings { Terminal.standardError.write(ErrorStyle.render(w)) }
        }
        if loaded.hasErrors { throw ExitCode(1) }
        try finish(planned, warnings: loaded.diagnostics.filter { $0.severity == .warning }.count)
        Terminal.endAfterOutput()
    }

    /// What `--format json` prints (`bikecheck mcp`'s status): a garage with errors is thrown as
    /// `GarageHasErrors`, for validate's JSON of them.
    func answer() throws -> String { try answerWithPlan().json }

    private func answerWithPlan() throws -> (json: String, planned: StatusReport, warnings: Int) {
        let (root, loaded, named) = try load()
        if loaded.hasErrors { throw GarageHasErrors(loaded: loaded) }
        let (report, planned) = plan(loaded.garage, root: root, loaded: loaded, named: named)
        let json = try JSONOutput.encode(CommitStamped(report, git: revision.commit(root, loaded)))
        return (json, planned, loaded.diagnostics.filter { $0.severity == .warning }.count)
    }

    /// The garage and the bikes and parts named (their notes said on standard error).
    private func load() throws -> (root: String, loaded: LoadedGarage, named: ReportSelection) {
        let root = try global.garageRoot()
        let loaded = try revision.load(root, .init(activities: .summaries, today: today()))
        var (named, notes) = try loaded.garage.subjects(named: bikes)
        if let rider {
            try loaded.garage.checkRider(rider)
            named = loaded.garage.selection(of: rider, from: named, asOf: revision.day(asOf, loaded))
        }
        ErrorStyle.write(notes: notes)
        return (root, loaded, named)
    }

    /// What is due in `garage` (the loaded garage, or what its errors leave of it), shaped as
    /// `--by` and `--within` ask, with the stale-data warnings; and the whole plan, for `--check`.
    private func plan(_ garage: Garage, root: String, loaded: LoadedGarage, named: ReportSelection) -> (StatusReport, StatusReport) {
        var garage = garage
        let shown = named.bikes.filter { garage.bike($0) != nil }
        let shownParts = named.parts.filter { garage.part($0) != nil }
        let planner = StatusPlanner(asOf: revision.day(asOf, loaded))
        // A rider with nothing to show gets an empty status, not everyone's.
        if rider != nil, shown.isEmpty, shownParts.isEmpty { (garage.bikes, garage.parts) = ([], []) }
        let planned = planner.plan(garage, summaries: loaded.activitySummaries, only: shown, parts: shownParts)
        var report = urgency.shaping(planned)
        // Stale data warns, on standard error and in the JSON, and never changes the exit code.
        report.warnings = Staleness.warnings(loaded, root: root, asOf: planner.asOf)
        return (report, planned)
    }

    /// The warnings' count, and `--check`'s exit code (checked on the whole plan, whatever
    /// `--within` shows).
    private func finish(_ planned: StatusReport, warnings: Int) throws {
        if warnings > 0 {
            Terminal.standardError.write("\(warnings) warning\(warnings == 1 ? "" : "s"): run 'bikecheck validate'\n")
        }
        if let level = urgency.level, planned.reaches(level) { throw ExitCode(1) }
    }
}
