import ArgumentParser
import BikeCheckKit

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "What changed in the garage between two commits: services, intervals, parts moved, bikes.",
        discussion: """
            Reads the garage's files at REV1 and at REV2 (default: the work tree, as it is now) \
            the way --rev does, without touching the work tree or the index, and compares the \
            garages, not the text: services logged or taken out of a log (bike, date, intervals, \
            cost), intervals added, removed or given another every (a template's too), parts \
            mounted on or taken off a bike, and bikes and parts added, removed or retired. A \
            comment or a re-indented file is no change here; `git diff` shows those. A revision \
            is anything git names a commit by (HEAD~3, a tag, an id) or @YYYY-MM-DD, the last \
            commit on or before that day.

            Examples:
              bikecheck diff HEAD~1
              bikecheck diff @2026-01-01 HEAD --format json
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The earlier version: a commit (HEAD~1, a tag, an id) or @YYYY-MM-DD.", valueName: "rev1"))
    var from: String

    @Argument(help: ArgumentHelp("The later version (default: the work tree).", valueName: "rev2"))
    var to: String?

    func run() throws {
        let root = try global.garageRoot()
        let options = GarageLoader.Options(activities: .skip, today: nil)
        let old = try RevisionOption.load(from, root, options, label: "diff")
        let new = if let to { try RevisionOption.load(to, root, options, label: "diff") } else { GarageLoader.load(at: root, options: options) }
        for (side, loaded) in [(from, old), (to ?? "the work tree", new)] where loaded.hasErrors {
            global.report(loaded.diagnostics, sources: loaded.sources)
            ErrorStyle.write(notes: ["the garage at \(side) has errors, so it is not compared"])
            throw ExitCode(1)
        }
        let report = GarageDiff.build(
            from: old.garage, to: new.garage, revisions: (from: from, fromCommit: old.commit?.id ?? "", to: to, toCommit: new.commit?.id))
        // The later side's commit, as the other reports stamp theirs.
        try ReportOutput.write(
            report, table: report.table, as: format, git: new.commit.map { GarageCommit(commit: $0.id, changes: false) } ?? GarageCommit.of(garage: root))
    }
}
