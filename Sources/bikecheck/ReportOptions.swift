import ArgumentParser
import BikeCheckKit

/// The day a command computes as of: `--as-of`, else today. Declared once, for every command
/// that takes it (as ArgumentParser's `Math` example and swift-format's `LintFormatOptions`
/// share their options).
struct AsOfOptions: ParsableArguments {
    @Option(
        name: .customLong("as-of"),
        help: ArgumentHelp("Compute as of this date, YYYY-MM-DD (default: today), for reproducible output.", valueName: "date"))
    var asOf: Day?

    /// `--as-of`, else today.
    var day: Day { asOf ?? today() }
}

/// `--rev REF`: the garage's YAML files as git has them at a commit, read without touching the
/// work tree or the index; the activities still come from the garage's cache.
struct RevisionOption: ParsableArguments {
    @Option(
        name: .customLong("rev"),
        help: ArgumentHelp(
            "Read the garage's files as they were at this git commit (HEAD~1, a tag, an id, or @YYYY-MM-DD: the last commit on or before that day) without touching the work tree; activities still come from the cache; --as-of defaults to the commit's day.",
            valueName: "ref"))
    var rev: String?

    /// `--as-of`, else the day of the `--rev` commit (in the committer's zone), else today.
    func day(_ asOf: AsOfOptions, root: String) -> Day {
        if let day = asOf.asOf { return day }
        if let rev, let commit = try? GitSnapshot.commit(rev, of: root) { return commit.day }
        return today()
    }

    /// The commit the report describes: the `--rev` commit (whose files are exactly what was
    /// read), else the garage's HEAD and whether its files had changes; nil outside git.
    func commit(_ root: String) -> GarageCommit? {
        guard let rev else { return GarageCommit.of(garage: root) }
        return (try? GitSnapshot.commit(rev, of: root)).map { GarageCommit(commit: $0.id, changes: false) }
    }

    /// Loads the garage at `root`, or its files at the `--rev` commit (written out to a temporary
    /// folder, loaded, removed) with the activities of `root`. A ref that is not a commit is a
    /// usage error.
    func load(_ root: String, _ options: GarageLoader.Options) throws -> LoadedGarage {
        guard let rev else { return GarageLoader.load(at: root, options: options) }
        return try Self.load(rev, root, options).loaded
    }

    /// The garage's files at commit `rev` (written out to a temporary folder, loaded, removed),
    /// with the activities of `root`, and the commit's id. Not a commit: a usage error.
    /// `label` names the revision in messages (default `--rev REV`).
    static func load(_ rev: String, _ root: String, _ options: GarageLoader.Options, label: String? = nil) throws -> (loaded: LoadedGarage, commit: String) {
        let label = label ?? "--rev \(rev)"
        let snapshot: GitSnapshot
        let id: String
        do {
            let commit = try GitSnapshot.commit(rev, of: root)
            for warning in commit.warnings { Terminal.standardError.write(ErrorStyle.render(warning: "\(label): \(warning)")) }
            snapshot = try GitSnapshot.take(.commit(commit.id), of: root)
            id = commit.id
        } catch {
            throw UsageError(
                "\(label): \(error.description)", help: "name a commit of the garage's repository: HEAD~1, a tag, a commit id, or @YYYY-MM-DD")
        }
        defer { snapshot.remove() }
        var options = options
        options.activitiesFrom = root
        return (GarageLoader.load(at: snapshot.garage, options: options), id)
    }
}

/// What a report is about and when: the bikes and parts named, `--since` and `--as-of`, shared
/// by the report commands (costs, usage, history, rides, export), and `--rev`.
struct ReportOptions: ParsableArguments, CheckedOptions {
    @Argument(
        help: ArgumentHelp("Bikes and parts to report on (default: every bike, and every part but in 'rides').", valueName: "bike-or-part"),
        completion: Completions.bikesAndParts)
    var subjects: [String] = []

    @Option(help: ArgumentHelp("From this date, YYYY-MM-DD.", valueName: "date"))
    var since: Day?

    @OptionGroup var asOf: AsOfOptions

    @OptionGroup var revision: RevisionOption

    @OptionGroup var riderOption: RiderOption

    /// `--as-of`, else the `--rev` commit's day, else today.
    func day(_ global: GlobalOptions) throws -> Day { revision.day(asOf, root: try global.garageRoot()) }

    func checkUsage() throws(UsageError) {
        // A range that ends before it starts is a mistake, not an empty report.
        if let since, let end = asOf.asOf, since > end {
            throw UsageError("--since \(since) is after --as-of \(end)", help: "give a --since on or before the --as-of day")
        }
    }

    /// The garage, and the subjects named as a selection (see `ReportOutput.load`).
    func load(_ global: GlobalOptions) throws -> (LoadedGarage, ReportSelection) {
        let day = riderOption.rider == nil ? nil : try self.day(global)
        return try ReportOutput.load(global, names: subjects, revision: revision, rider: riderOption.rider, asOf: day, allTime: true)
    }
}

/// `--rider NAME`: a household rider's bikes and parts only (docs/household.md), for the reports,
/// `calendar` and `report`; chosen where the report commands load (`ReportOutput.load`).
struct RiderOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Only this rider's bikes and parts (garage.yaml's riders:, a bike's or part's rider:); a rider with none gets an empty report.",
            valueName: "name"))
    var rider: String?
}
