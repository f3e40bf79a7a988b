import Foundation
import TestSupport
import Testing

/// Snoozes and to-dos through the built binary: what status shows and `--check` counts on
/// either side of their days, and the writes of `snooze`, `todo add` and `done` with real git.
@Suite struct SnoozeTodoEndToEndTests {
    /// A bike whose bar tape (every month, last done 2026-01-01) is overdue from 2026-02-01.
    static func garage(extra: String) throws -> TemporaryFolder {
        try TemporaryFolder([
            "garage.yaml": "name: Test\n",
            "bikes/grail.yaml": """
            name: Grail
            bought: 2025-01-01
            intervals:
              bar-tape: {task: Replace bar tape, every: 1 months}
              chain-lube: {every: 12 months}
            log:
              - {date: 2026-01-01, done: [bar-tape, chain-lube]}
            \(extra)
            """,
        ])
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static func intervals(_ report: [String: Any]) throws -> [[String: Any]] {
        let bikes = try #require(report["bikes"] as? [[String: Any]])
        return try #require(bikes.first?["intervals"] as? [[String: Any]])
    }

    /// Holds status JSON to `schemas/status.schema.json` with check-jsonschema.
    static func expectStatusSchema(_ text: String, in garage: TemporaryFolder) throws {
        try garage.write("status.json", text)
        let schema = repositoryRoot.appendingPathComponent("schemas/status.schema.json").path
        if let result = try checkJSONSchema(["--schemafile", schema, garage.path + "/status.json"], in: garage.root) {
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        }
    }

    @Test func aSnoozedIntervalIsNeitherOverdueNorCheckedUntilItsDayThenItIsAgain() throws {
        let garage = try Self.garage(extra: "snooze:\n  bar-tape: 2026-03-15   # tape on order\n")
        let before = try garage.run(["status", "--check", "--as-of", "2026-03-14"])
        #expect(before.status == 0, "\(before.stdout)\(before.stderr)")
        #expect(before.stdout.contains("0 overdue, 0 due soon, 1 ok, 1 snoozed"), "\(before.stdout)")
        #expect(before.stdout.contains("  snoozed  bar-tape    "), "\(before.stdout)")
        #expect(before.stdout.contains("since 2026-01-01, snoozed until 2026-03-15\n"), "\(before.stdout)")
        // Put off, it goes after what is still to be watched.
        #expect(try #require(before.stdout.range(of: "chain-lube")).lowerBound < (try #require(before.stdout.range(of: "bar-tape")).lowerBound))

        let json = try garage.run(["status", "--format", "json", "--as-of", "2026-03-14"])
        let tape = try #require(try Self.intervals(Self.json(json.stdout)).first { $0["id"] as? String == "bar-tape" })
        #expect(tape["state"] as? String == "snoozed" && tape["snoozed_until"] as? String == "2026-03-15")
        #expect(tape["due"] as? String == "2026-03-15", "due again on the snooze's day, not before: \(tape)")
        #expect((tape["progress"] as? Double ?? 0) > 2, "the progress is still there: \(tape)")
        try Self.expectStatusSchema(json.stdout, in: garage)

        // On its day it counts again: overdue, and the check fails.
        let after = try garage.run(["status", "--check", "--as-of", "2026-03-15"])
        #expect(after.status == 1)
        #expect(after.stdout.contains("  overdue  bar-tape"), "\(after.stdout)")
        let afterJSON = try garage.run(["status", "--format", "json", "--as-of", "2026-03-15"])
        let due = try #require(try Self.intervals(Self.json(afterJSON.stdout)).first { $0["id"] as? String == "bar-tape" })
        #expect(due["state"] as? String == "overdue" && due["snoozed_until"] == nil)
    }

    @Test func aToDoPastItsDueDayFailsTheCheckAndShowsInTextAndJSON() throws {
        let garage = try Self.garage(
            extra: """
                snooze: {bar-tape: 2099-01-01}
                todo:
                  - replace rear derailleur hanger
                  - {task: fit mudguards, due: 2026-03-10, id: mudguards}
                """)
        let onTheDay = try garage.run(["status", "--check", "--as-of", "2026-03-10"])
        #expect(onTheDay.status == 0, "\(onTheDay.stdout)\(onTheDay.stderr)")
        #expect(onTheDay.stdout.contains(", 2 to-dos\n"), "\(onTheDay.stdout)")
        #expect(onTheDay.stdout.contains("  to-do  fit mudguards  due 2026-03-10 (due soon)\n  to-do  replace rear derailleur hanger\n"), "\(onTheDay.stdout)")

        let late = try garage.run(["status", "--check", "--as-of", "2026-03-11"])
        #expect(late.status == 1)
        #expect(late.stdout.contains(", 2 to-dos (1 overdue)\n") && late.stdout.contains("due 2026-03-10 (overdue)"), "\(late.stdout)")
        let json = try garage.run(["status", "--format", "json", "--as-of", "2026-03-11"])
        let bikes = try #require(try Self.json(json.stdout)["bikes"] as? [[String: Any]])
        let todos = try #require(bikes.first?["todos"] as? [[String: Any]])
        #expect(todos.map { $0["task"] as? String } == ["fit mudguards", "replace rear derailleur hanger"])
        #expect(todos.map { $0["state"] as? String } == ["overdue", "ok"])
        #expect(todos[0]["id"] as? String == "mudguards" && todos[0]["due"] as? String == "2026-03-10")
        try Self.expectStatusSchema(json.stdout, in: garage)
    }

    @Test func aPartsSnoozeAndToDoShowUnderTheBikeItIsOnAndItsOwnCommandsWriteItsFile() throws {
        let garage = try TemporaryFolder(copying: true)
        let snooze = try garage.run(["snooze", "race-wheels", "true-wheels", "--until", "2099-01-01"])
        #expect(snooze.status == 0, "\(snooze.stderr)")
        let add = try garage.run(["todo", "add", "race-wheels", "replace the rim tape", "--id", "rim-tape"])
        #expect(add.status == 0, "\(add.stderr)")
        let part = try garage.read("parts/race-wheels.yaml")
        #expect(part.hasSuffix("snooze:\n  true-wheels: 2099-01-01\ntodo:\n  - task: replace the rim tape\n    id: rim-tape\n"), "\(part)")
        let status = try garage.run(["status", "tarmac", "--as-of", "2026-11-15"])
        // 76 %: the race wheels (trainer: false, the bike's) count none of the tarmac's Zwift rides.
        #expect(status.stdout.contains("  snoozed   race-wheels: true-wheels    76%"), "\(status.stdout)")
        #expect(status.stdout.hasSuffix("  to-do  race-wheels: replace the rim tape\n"), "\(status.stdout)")
        let json = try garage.run(["status", "tarmac", "--as-of", "2026-11-15", "--format", "json"])
        let bikes = try #require(try Self.json(json.stdout)["bikes"] as? [[String: Any]])
        let todo = try #require((bikes.first?["todos"] as? [[String: Any]])?.first)
        #expect(todo["part"] as? String == "race-wheels" && todo["id"] as? String == "rim-tape")

        let done = try garage.run(["done", "race-wheels", "--todo", "rim-tape", "--date", "2026-11-15"])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(
            try garage.read("parts/race-wheels.yaml").hasSuffix("  - date: 2026-11-15\n    todo: replace the rim tape\nsnooze:\n  true-wheels: 2099-01-01\n"))
    }

    @Test func aToDoInAOneLineListIsNotRewrittenToCloseIt() throws {
        let garage = try Self.garage(extra: "todo: [hanger, mudguards]\n")
        let before = try garage.read("bikes/grail.yaml")
        let done = try garage.run(["done", "grail", "--todo", "hanger", "--date", "2026-03-01"])
        #expect(done.status == 1)
        #expect(done.stderr.contains("[yaml-edit-refused]") && done.stderr.contains("rewrite the list as '- item' lines"), "\(done.stderr)")
        #expect(try garage.read("bikes/grail.yaml") == before)
    }

    @Test func snoozeTodoAddAndDoneWriteMinimalCommittedChanges() throws {
        let garage = try trackedGarage(
            bike: """
                # my gravel bike
                name: Vélo
                bought: 2025-01-01
                templates: [road]
                components:
                  chain: {installed: 2025-01-01}

                log:
                  - date: 2026-01-01   # first lube
                    done: [chain-lube]

                """)
        let snooze = try garage.run(["snooze", "vélo", "chain-lube", "--until", "2099-01-01", "--commit"], environment: gitAuthor)
        #expect(snooze.status == 0, "\(snooze.stderr)")
        #expect(
            snooze.stdout
                == "vélo: chain-lube snoozed until 2099-01-01 in bikes/vélo.yaml\ncommitted \(try git(["rev-parse", "--short", "HEAD"], in: garage.root).trimmingCharacters(in: .whitespacesAndNewlines)): vélo: snooze chain-lube until 2099-01-01\n"
        )
        let first = changedLines(try git(["show", "--format=", "HEAD"], in: garage.root))
        #expect(first.removed.isEmpty && first.added == ["+snooze:", "+  chain-lube: 2099-01-01"])

        let add = try garage.run(["todo", "add", "vélo", "replace rear derailleur hanger", "--commit"], environment: gitAuthor)
        #expect(add.status == 0, "\(add.stderr)")
        #expect(changedLines(try git(["show", "--format=", "HEAD"], in: garage.root)).added == ["+todo:", "+  - replace rear derailleur hanger"])
        let again = try garage.run(["todo", "add", "vélo", "replace rear derailleur hanger"])
        #expect(again.status == 2 && again.stderr.contains("error: bike 'vélo' already has the to-do 'replace rear derailleur hanger'"), "\(again.stderr)")

        let done = try garage.run(
            ["done", "vélo", "chain-lube", "--todo", "replace rear derailleur hanger", "--date", "2026-02-01", "--commit"], environment: gitAuthor)
        #expect(done.status == 0, "\(done.stderr)")
        #expect(done.stdout.contains("vélo: chain-lube no longer snoozed\n"), "\(done.stdout)")
        #expect(try git(["log", "-1", "--format=%s"], in: garage.root) == "vélo: chain-lube, to-do 'replace rear derailleur hanger' done 2026-02-01\n")
        let last = changedLines(try git(["show", "--format=", "HEAD"], in: garage.root))
        #expect(last.removed == ["-snooze:", "-  chain-lube: 2099-01-01", "-todo:", "-  - replace rear derailleur hanger"])
        #expect(last.added == ["+  - date: 2026-02-01", "+    done: [chain-lube]", "+    todo: replace rear derailleur hanger"])
        #expect(try git(["status", "--porcelain"], in: garage.root).isEmpty)
        let validate = try garage.run(["validate"])
        #expect(validate.status == 0 && validate.stdout.isEmpty && validate.stderr.isEmpty, "\(validate.stdout)\(validate.stderr)")
    }
}
