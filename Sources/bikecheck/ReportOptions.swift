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

    /// `--as-of`, else the day of the commit `loaded` was read from (`--rev`, in the committer's
    /// zone), else today.
    func day(_ asOf: AsOfOptions, _ loaded: LoadedGarage) -> Day { asOf.asOf ?? loaded.commit?.day ?? today() }

    /// The commit the report describes: the `--rev` commit `loaded` was read from (whose files
    /// are exactly what was read), else the garage's HEAD and whether its files had changes; nil
    /// outside git.
    func commit(_ root: String, _ loaded: LoadedGarage) -> GarageCommit? { commit(root, read: loaded.commit) }

    /// The same from the commit a garage was read from (`LoadedGarage.commit`), for a command
    /// that lets the garage go before it writes.
    func commit(_ root: String, read: GitSnapshot.Commit?) -> GarageCommit? {
        guard rev != nil else { return GarageCommit.of(garage: root) }
        return read.map { GarageCommit(commit: $0.id, changes: false) }
    }

    /// Loads the garage at `root`, or its files at the `--rev` commit (read from git's objects)
    /// with the activities of `root`. A ref that is not a commit is a usage error.
    func load(_ root: String, _ options: GarageLoader.Options) throws -> LoadedGarage {
        guard let rev else { return GarageLoader.load(at: root, options: options) }
        return try Self.load(rev, root, options)
    }

    /// The garage's files at commit `rev` (`GitSnapshot`: one `git cat-file` reads them), with
    /// the activities of `root`; `LoadedGarage.commit` says which commit. Not a commit: a usage
    /// error. `label` names the revision in messages (default `--rev REV`).
    static func load(_ rev: String, _ root: String, _ options: GarageLoader.Options, label: String? = nil) throws -> LoadedGarage {
        let label = label ?? "--rev \(rev)"
        let snapshot: GitSnapshot
        do {
            snapshot = try GitSnapshot.take(.commit(rev), of: root)
        } catch {
            throw UsageError(
                "\(label): \(error.description)", help: "name a commit of the garage's repository: HEAD~1, a tag, a commit id, or @YYYY-MM-DD")
        }
        ErrorStyle.write((snapshot.commit?.warnings ?? []).map { Warning("\(label): \($0.message)", details: $0.details, help: $0.help) })
        var options = options
        options.snapshot = snapshot
        return GarageLoader.load(at: root, options: options)
    }
}

/// What a report is about and when: the bikes and parts named, `--since` and `--as-of`, shared
/// by the report commands (costs, usage, history, rides, export), and `--rev`.
struct ReportOptions: ParsableArguments, CheckedOptions {
    @Argument(
        help: ArgumentHelp("Bikes, gear and parts to report on (default: every bike and gear, and every part but in 'rides').", valueName: "bike-or-part"),
        completion: Completions.bikesAndParts)
    var subjects: [String] = []

    @Option(help: ArgumentHelp("From this date, YYYY-MM-DD.", valueName: "date"))
    var since: Day?

    @OptionGroup var asOf: AsOfOptions

    @OptionGroup var revision: RevisionOption

    @OptionGroup var riderOption: RiderOption

    /// `--as-of`, else the day of the `--rev` commit `loaded` was read from, else today.
    func day(_ loaded: LoadedGarage) -> Day { revision.day(asOf, loaded) }

    func checkUsage() throws(UsageError) {
        // A range that ends before it starts is a mistake, not an empty report.
        if let since, let end = asOf.asOf, since > end {
            throw UsageError("--since \(since) is after --as-of \(end)", help: "give a --since on or before the --as-of day")
        }
    }

    /// The garage, and what the report asks of it (see `ReportOutput.load`): the subjects named
    /// as a selection, `--since`, `until` (a command's `--until`) and the day.
    func load(_ global: GlobalOptions, until: Day? = nil) throws -> (LoadedGarage, ReportQuery) {
        try global.reportingGarageErrors { try select(global, until: until) }
    }

    /// `load`, with a garage that has errors thrown as `GarageHasErrors`.
    func select(_ global: GlobalOptions, until: Day? = nil) throws -> (LoadedGarage, ReportQuery) {
        let (loaded, selection) = try ReportOutput.select(
            global, names: subjects, revision: revision, rider: riderOption.rider, asOf: asOf.asOf, allTime: true)
        return (loaded, ReportQuery(selection, asOf: day(loaded), since: since, until: until))
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
