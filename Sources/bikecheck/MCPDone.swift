import ArgumentParser
import BikeCheckKit
import BikeCheckMCP
import Foundation

/// `bikecheck mcp`'s one write, `done`, as plan-then-apply: a call without `confirm` writes
/// nothing and answers with `done --dry-run --format json`'s object and a `confirm` token; a
/// call with that token writes the change, through done's own plan and `ChangeWriter` (under the
/// garage's write lock, atomically, checked after), and only while the token still matches: it is
/// the SHA-256 of the planned change (each file's path, its bytes as read and as planned, the
/// commit message and whether to commit), so an edit of the file since, or other arguments, make
/// it stale and the write is refused.
struct MCPDone {
    var root: String
    /// `bikecheck mcp --as-of`: the default date of the service.
    var asOf: Day?

    static let declared: [MCPTools.Declared] = [
        (
            .init("bike", .string, "The bike (its id: the file name in bikes/ without .yaml), or a part for the part's own intervals.", required: true),
            .positional
        ),
        (.init("intervals", .strings, "The intervals that were done, by id, e.g. [\"chain-lube\"]."), .positional),
        (.init("date", .date, "When it was done, YYYY-MM-DD (default: the server's --as-of, else today)."), .option("date")),
        (.init("cost", .amount, "What it cost, as the log's cost: takes it: 45.99, or \"45.99 USD\"."), .option("cost")),
        (.init("category", .string, "What kind of cost: parts, labour…"), .option("category")),
        (.init("note", .string, "A note for the log."), .option("note")),
        (.init("todo", .string, "A to-do that was done: its id, or its text as written under todo:."), .option("todo")),
        (.init("commit", .boolean, "Commit the changed file with git, as done --commit does."), .option("commit")),
        (.init("confirm", .string, "The token the first call returned: writes the change it showed. Leave out to see the change first."), .option("confirm")),
    ]

    var tool: MCPTool {
        let context = self
        return MCPTool(
            name: "done", title: "Log a service",
            description:
                "Record a service: append an entry to the bike's (or part's) log, as 'bikecheck done' does. Call without confirm first: nothing is written, and the answer has the diff and a confirm token; call again with confirm set to it to write.",
            arguments: Self.declared.map(\.argument),
            annotations: .init(readOnly: false, destructive: false, idempotent: false)
        ) { arguments in
            context.call(arguments)
        }
    }

    /// What the first call answers: done's dry-run object and the token that writes it.
    struct Plan: Encodable {
        var report: WriteOptions.Report
        var confirm: String?

        private enum Keys: String, CodingKey { case confirm }

        func encode(to encoder: Encoder) throws {
            try report.encode(to: encoder)
            var c = encoder.container(keyedBy: Keys.self)
            if let confirm { try c.encode(confirm, forKey: .confirm) }
        }
    }

    func call(_ arguments: MCPTool.Arguments) -> MCPTool.Result {
        // The command line done would be given, without `confirm` (done has no such option).
        var given = arguments
        let confirm = given.values.removeValue(forKey: "confirm")
        let declared = Self.declared.filter { $0.argument.name != "confirm" }
        let command: DoneCommand
        do {
            command = try DoneCommand.parse(MCPTools(root: root).commandLine(declared, given))
        } catch {
            return .init(text: MCPTools.named(Day.explainingDates("Error: " + DoneCommand.message(for: error)), declared), isError: true)
        }
        let commit = command.write.commit
        let day = asOf ?? today()
        do {
            let lockWait = try WriteOptions.lockWait()
            guard case .text(let token)? = confirm else {
                let writer = ChangeWriter(root: root, options: .init(dryRun: true, commit: commit, lockWait: lockWait))
                let (change, outcome) = try writer.perform { () throws(WriteFailure) in try command.plan(root, today: day) }
                let report = WriteOptions.Report(change, outcome, dryRun: true)
                return .json(try JSONOutput.encode(Plan(report: report, confirm: report.diff.isEmpty ? nil : Self.token(change, commit: commit))))
            }
            let writer = ChangeWriter(root: root, options: .init(dryRun: false, commit: commit, lockWait: lockWait))
            // Checked under the write lock, where the change is planned again from the files as
            // they are: what is written is what the token was given for.
            let (change, outcome) = try writer.perform { () throws(WriteFailure) in
                let change = try command.plan(root, today: day)
                guard Self.token(change, commit: commit) == token else {
                    throw WriteFailure(
                        .refused,
                        "the confirm token is not this change's: the garage's files changed since it was given, or the arguments differ; nothing was written",
                        help: "call done again without confirm to see the change as it is now")
                }
                return change
            }
            return .json(try JSONOutput.encode(WriteOptions.Report(change, outcome, dryRun: false)))
        } catch let failure as WriteFailure {
            return .json((try? JSONOutput.encode(WriteOptions.Failure(failure))) ?? "", isError: true)
        } catch {
            return MCPTools.failure(error, declared)
        }
    }

    /// The token of a planned change: SHA-256, in hex, over every file's path, bytes before and
    /// bytes after, the commit message and whether to commit (each part length-prefixed).
    static func token(_ change: GarageChange, commit: Bool) -> String {
        var bytes = Array("bikecheck-mcp-done-1".utf8)
        func add(_ part: [UInt8]) {
            bytes += Array("\(part.count):".utf8)
            bytes += part
        }
        add(Array(change.message.utf8))
        add(commit ? [1] : [0])
        for file in change.files.sorted(by: { $0.path < $1.path }) {
            add(Array(file.path.utf8))
            if let before = file.before { add([1] + before) } else { add([0]) }
            add(file.after)
        }
        return SHA256.hex(bytes)
    }
}
