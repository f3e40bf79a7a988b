import ArgumentParser
import BikeCheckKit
import Diagnostics
import Foundation

/// Options every command that writes to the garage shares.
struct WriteOptions: ParsableArguments {
    @Flag(name: .customLong("dry-run"), help: "Print the change as a unified diff and write nothing.")
    var dryRun = false

    @Flag(
        help:
            "Commit the touched files with a descriptive message (the garage must be a git repository, and those files must have no uncommitted changes of yours)."
    )
    var commit = false

    /// What a write command prints with `--format json`.
    struct Report: Encodable {
        var dryRun: Bool
        /// Files written (or, with --dry-run, that would be), relative to the garage.
        var files: [String]
        var message: String
        var summary: [String]
        /// The warnings standard error shows, each as its message.
        var warnings: [String]
        var commit: String?
        var diff: String

        enum CodingKeys: String, CodingKey {
            case dryRun = "dry_run"
            case files, message, summary, warnings, commit, diff
        }

        init(_ change: GarageChange, _ outcome: ChangeWriter.Outcome, dryRun: Bool) {
            self.dryRun = dryRun
            files = dryRun ? change.files.filter(\.isChange).map(\.path) : outcome.written
            message = change.message
            summary = change.summary
            warnings = change.warnings.map(\.message)
            commit = outcome.commit
            diff = outcome.diff
        }
    }

    /// What a refused write prints with `--format json`.
    struct Failure: Encodable {
        var error: String
        var help: String?
        var diagnostics: [DiagnosticRecord]

        init(_ failure: WriteFailure) {
            error = failure.message
            help = failure.help
            diagnostics = failure.diagnostics.map(DiagnosticRecord.init)
        }
    }

    /// Carries out a planned change and tells the rider what happened; failures exit 1 or 2.
    func perform(_ plan: () throws(WriteFailure) -> GarageChange, root: String, global: GlobalOptions) throws {
        let change: GarageChange
        let outcome: ChangeWriter.Outcome
        do {
            let options = ChangeWriter.Options(dryRun: dryRun, commit: commit, lockWait: try Self.lockWait())
            (change, outcome) = try ChangeWriter(root: root, options: options).perform(plan)
        } catch {
            throw failure(error, global: global)
        }
        if global.served(TextOrJSON.self) == .json {
            Terminal.standardOutput.write(json: try JSONOutput.encode(Report(change, outcome, dryRun: dryRun)))
            return
        }
        if dryRun {
            let diff = outcome.diff
            Terminal.standardOutput.write("\(lines: diff)")
            if diff.isEmpty { Terminal.standardError.write("nothing would change\n") }
            return
        }
        for line in change.summary { Terminal.standardOutput.write("\(line)\n") }
        ErrorStyle.write(change.warnings)
        if let hash = outcome.commit { Terminal.standardOutput.write("committed \(hash): \(change.message)\n") }
    }

    /// How long a write waits for another one to the same garage: `BIKECHECK_LOCK_WAIT`
    /// seconds, else 10.
    static func lockWait() throws(WriteFailure) -> Double {
        guard let text = ProcessInfo.processInfo.environment["BIKECHECK_LOCK_WAIT"], !text.isEmpty else { return ChangeWriter.defaultLockWait }
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 86_400 else {
            throw WriteFailure(
                .usage, "BIKECHECK_LOCK_WAIT '\(text)' is not a number of seconds", help: "write e.g. 10, or 0 to refuse at once when another write is running")
        }
        return seconds
    }

    /// Prints why a write did not happen and gives the exit code: 2 for usage, 1 for refusals.
    func failure(_ error: WriteFailure, global: GlobalOptions) -> ExitCode {
        if global.served(TextOrJSON.self) == .json {
            // Only text and whole numbers: this cannot fail to encode.
            Terminal.standardOutput.write(json: (try? JSONOutput.encode(Failure(error))) ?? "")
        } else {
            if !error.diagnostics.isEmpty { global.report(error.diagnostics, sources: error.sources) }
            Terminal.standardError.write(ErrorStyle.render(message: error.message, help: error.help))
        }
        return ExitCode(error.kind == .usage ? 2 : 1)
    }
}
