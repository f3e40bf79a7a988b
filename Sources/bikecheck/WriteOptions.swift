import ArgumentParser
import BikeCheckKit
import Foundation

/// Options every command that writes to the garage shares.
struct WriteOptions: ParsableArguments {
    @Flag(name: .customLong("dry-run"), help: "Print the change as a unified diff and write nothing.")
    var dryRun = false

    @Flag(help: "Commit the touched files with a descriptive message (the garage must be a git repository).")
    var commit = false

    /// Carries out a planned change and tells the rider what happened; failures exit 1 or 2.
    func perform(_ plan: () throws(WriteFailure) -> GarageChange, root: String, global: GlobalOptions) throws {
        do {
            let change = try plan()
            let writer = ChangeWriter(root: root, options: ChangeWriter.Options(dryRun: dryRun, commit: commit))
            let outcome = try writer.apply(change)
            if dryRun {
                Terminal.standardOutput.write(outcome.diff)
                if outcome.diff.isEmpty { Terminal.standardError.write("nothing would change\n") }
                return
            }
            for line in change.summary { Terminal.standardOutput.write(line + "\n") }
            if let hash = outcome.commit { Terminal.standardOutput.write("committed \(hash): \(change.message)\n") }
        } catch {
            throw failure(error, global: global)
        }
    }

    /// Prints why a write did not happen and gives the exit code: 2 for usage, 1 for refusals.
    func failure(_ error: WriteFailure, global: GlobalOptions) -> ExitCode {
        if !error.diagnostics.isEmpty { global.report(error.diagnostics, sources: error.sources) }
        var text = "error: \(error.message)\n"
        if let help = error.help { text += "  help: \(help)\n" }
        Terminal.standardError.write(text)
        return ExitCode(error.kind == .usage ? 2 : 1)
    }
}
