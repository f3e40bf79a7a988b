import Foundation
import TestSupport
import Testing
@testable import BikeCheckKit

@Suite struct UnifiedDiffTests {
    @Test func equalFilesHaveNoDiff() {
        #expect(UnifiedDiff.diff(path: "a.yaml", old: Array("x\n".utf8), new: Array("x\n".utf8)).isEmpty)
    }

    @Test func anAppendShowsContextAndAddedLines() {
        let old = Array("a\nb\nc\nd\ne\n".utf8)
        let new = Array("a\nb\nc\nd\ne\nf\ng\n".utf8)
        #expect(
            UnifiedDiff.diff(path: "bikes/x.yaml", old: old, new: new) == """
                --- a/bikes/x.yaml
                +++ b/bikes/x.yaml
                @@ -3,3 +3,5 @@
                 c
                 d
                 e
                +f
                +g

                """)
    }

    @Test func aChangedLineInTheMiddleAndAMissingFinalNewline() {
        let old = Array("1\n2\n3\n4\n5\n6\n7\n8\n9".utf8)
        let new = Array("1\n2\n3\n4\nfive\n6\n7\n8\n9".utf8)
        #expect(
            UnifiedDiff.diff(path: "f", old: old, new: new) == """
                --- a/f
                +++ b/f
                @@ -2,7 +2,7 @@
                 2
                 3
                 4
                -5
                +five
                 6
                 7
                 8

                """)
        let appended = UnifiedDiff.diff(path: "f", old: Array("a".utf8), new: Array("a\nb".utf8))
        #expect(appended == "--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n-a\n\\ No newline at end of file\n+a\n+b\n\\ No newline at end of file\n")
    }

    @Test(arguments: [
        ("a\nb\nc\n", "a\nB\nc\n", 1),
        ("a\nb\nc\nd\ne\n", "b\nc\nd\ne\nf\n", 2),
        ("a\nb", "a\nb\nc", 1),
        ("", "new\n", 1),
        ("same\n", "same\n", 0),
        ("x\n\u{E9}t\u{E9}\ny\n", "x\n\u{E9}t\u{E9} \u{1F6B2}\ny\nz\n", 2),
    ])
    func theChangedSpansTurnTheOldBytesIntoTheNewAndTouchNoSameLine(old: String, new: String, spans: Int) {
        let a = Array(old.utf8), b = Array(new.utf8)
        let found = UnifiedDiff.changedSpans(a, b)
        #expect(found.count == spans)
        var applied = a
        for span in found.reversed() { applied.replaceSubrange(span.old, with: span.new) }
        #expect(applied == b)
        // Whole lines: every span starts at a line's start.
        #expect(found.allSatisfy { $0.old.lowerBound == 0 || a[$0.old.lowerBound - 1] == UInt8(ascii: "\n") })
    }

    @Test func farApartChangesMakeTwoHunks() {
        let old = (1...20).map { "\($0)\n" }.joined()
        let new = old.replacingOccurrences(of: "2\n", with: "two\n").replacingOccurrences(of: "19\n", with: "nineteen\n")
        let diff = UnifiedDiff.diff(path: "f", old: Array(old.utf8), new: Array(new.utf8))
        #expect(diff.components(separatedBy: "@@ -").count == 3, "\(diff)")
    }

    @Test func aHunkEndsWithThreeContextLinesWhenManyUnchangedLinesFollow() {
        let old = (1...20).map { "\($0)\n" }.joined()
        let new = old.replacingOccurrences(of: "\n5\n", with: "\nfive\n")
        #expect(
            UnifiedDiff.diff(path: "f", old: Array(old.utf8), new: Array(new.utf8)) == """
                --- a/f
                +++ b/f
                @@ -2,7 +2,7 @@
                 2
                 3
                 4
                -5
                +five
                 6
                 7
                 8

                """)
    }

    @Test(arguments: [
        // One change, then more than 2 × 3 unchanged lines.
        ((1...30).map { "line \($0)\n" }.joined(), [5: "changed 5\n"]),
        // Two changes 7 lines apart (two hunks) and 6 apart (one), near both ends.
        ((1...40).map { "line \($0)\n" }.joined(), [1: "first\n", 9: "nine\n", 16: "sixteen\n", 38: "x\n"]),
    ])
    func theDiffAppliesWithRealPatchWithoutFuzz(old: String, changes: [Int: String]) throws {
        var lines = old.split(separator: "\n", omittingEmptySubsequences: false).map { String($0) + "\n" }
        lines.removeLast()
        for (line, text) in changes { lines[line - 1] = text }
        let new = lines.joined()
        let diff = UnifiedDiff.diff(path: "f.yaml", old: Array(old.utf8), new: Array(new.utf8))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bikecheck-diff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(old.utf8).write(to: dir.appendingPathComponent("f.yaml"))
        try Data(diff.utf8).write(to: dir.appendingPathComponent("change.diff"))
        let env = URL(fileURLWithPath: "/usr/bin/env")
        let check = try runProcess(env, ["git", "apply", "--check", "change.diff"], in: dir)
        #expect(check.status == 0, "\(check.stderr)\n\(diff)")
        let patch = try runProcess(env, ["patch", "-p1", "--fuzz=0", "--batch", "-i", "change.diff"], in: dir)
        #expect(patch.status == 0, "\(patch.stdout)\(patch.stderr)\n\(diff)")
        #expect(!patch.stdout.contains("fuzz"), "\(patch.stdout)")
        #expect(try String(decoding: Data(contentsOf: dir.appendingPathComponent("f.yaml")), as: UTF8.self) == new)
    }

    @Test func aNewFileDiffsAgainstDevNull() {
        #expect(UnifiedDiff.diff(path: "rides.yaml", old: nil, new: Array("rides:\n".utf8)) == "--- /dev/null\n+++ b/rides.yaml\n@@ -0,0 +1 @@\n+rides:\n")
    }
}

@Suite struct AtomicFileTests {
    @Test func writingTheSameBytesLeavesTheFileAlone() throws {
        let garage = try TemporaryFolder(["a.yaml": Array("x: 1\n".utf8)])
        let path = garage.root + "/a.yaml"
        let before = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        #expect(try AtomicFile.write(Array("x: 1\n".utf8), to: path) == false)
        #expect(try AtomicFile.write(Array("x: 2\n".utf8), to: path) == true)
        let after = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        #expect(before != after, "a changed file is replaced by rename")
        #expect(garage.read("a.yaml") == Array("x: 2\n".utf8))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: garage.root).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty)
    }

    @Test func aReplacedFileKeepsItsPermissions() throws {
        let garage = try TemporaryFolder(["a.yaml": Array("x: 1\n".utf8)])
        let path = garage.root + "/a.yaml"
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        try AtomicFile.write(Array("x: 2\n".utf8), to: path)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
    }

    @Test func aNewFileGetsItsFolder() throws {
        let garage = try TemporaryFolder([:])
        #expect(try AtomicFile.write(Array("rides:\n".utf8), to: garage.root + "/deep/er/rides.yaml"))
        #expect(garage.read("deep/er/rides.yaml") == Array("rides:\n".utf8))
    }
}

@Suite struct ServiceRecorderTests {
    func garage(_ bike: String) throws -> TemporaryFolder {
        var files = try exampleTemplates()
        files["bikes/grail.yaml"] = Array(bike.utf8)
        return try TemporaryFolder(files)
    }

    @Test func newEntriesFollowTheKeyOrderOfTheLastEntry() throws {
        let g = try garage("name: G\ntemplates: [road]\nlog:\n  - done: [bar-tape]\n    note: x\n    date: 2026-01-01\n")
        let change = try ServiceRecorder.plan(ServiceRecord(bike: "grail", intervals: ["chain-lube"], date: Day("2026-02-01"), note: "fresh"), in: g.context())
        let text = String(decoding: try #require(change.files.first).after, as: UTF8.self)
        #expect(text.hasSuffix("  - done: [chain-lube]\n    note: fresh\n    date: 2026-02-01\n"), "\(text)")
        #expect(change.message == "grail: chain-lube done 2026-02-01")
    }

    @Test func intervalsComeFromTemplatesAndTheBike() throws {
        let g = try garage("name: G\ntemplates: [road]\nintervals:\n  wax:\n    every: 300 km\n")
        #expect(throws: Never.self) {
            try ServiceRecorder.plan(ServiceRecord(bike: "grail", intervals: ["wax", "bar-tape"], date: Day("2026-02-01")), in: g.context())
        }
        #expect {
            try ServiceRecorder.plan(ServiceRecord(bike: "grail", intervals: ["wash"], date: Day("2026-02-01")), in: g.context())
        } throws: { error in
            (error as? WriteFailure)?.kind == .usage && (error as? WriteFailure)?.message.contains("has no interval 'wash'") == true
        }
    }

    @Test func theDateDefaultsToTodayAndMayNotBeInTheFuture() throws {
        let g = try garage("name: G\ntemplates: [road]\n")
        let change = try ServiceRecorder.plan(ServiceRecord(bike: "grail", intervals: ["bar-tape"]), in: g.context(today: "2026-03-04"))
        #expect(String(decoding: try #require(change.files.first).after, as: UTF8.self).contains("date: 2026-03-04"))
        #expect(throws: WriteFailure.self) {
            try ServiceRecorder.plan(ServiceRecord(bike: "grail", intervals: ["bar-tape"], date: Day("2026-03-05")), in: g.context(today: "2026-03-04"))
        }
    }
}

@Suite struct ChangeWriterTests {
    let valid = Array("name: Grail\n".utf8)

    @Test func aChangeThatBreaksTheGarageIsPutBack() throws {
        let garage = try TemporaryFolder(["garage.yaml": Array("name: g\n".utf8), "bikes/grail.yaml": valid])
        let broken = Array("name: [not, text]\n".utf8)
        let change = GarageChange(
            files: [
                FileChange(path: "bikes/grail.yaml", before: valid, after: broken),
                FileChange(path: "bikes/new.yaml", before: nil, after: valid),
            ], message: "m")
        #expect {
            try ChangeWriter(root: garage.root, options: .init()).apply(change)
        } throws: { error in
            guard let failure = error as? WriteFailure else { return false }
            return failure.kind == .refused && failure.diagnostics.contains { $0.location.file == "bikes/grail.yaml" }
        }
        #expect(garage.read("bikes/grail.yaml") == valid)
        #expect(garage.read("bikes/new.yaml") == nil)
    }

    @Test func aFileChangedSincePlanningIsNotOverwritten() throws {
        let garage = try TemporaryFolder(["garage.yaml": Array("name: g\n".utf8), "bikes/grail.yaml": Array("name: Edited meanwhile\n".utf8)])
        let change = GarageChange(files: [FileChange(path: "bikes/grail.yaml", before: valid, after: Array("name: Mine\n".utf8))], message: "m")
        #expect(throws: WriteFailure.self) { try ChangeWriter(root: garage.root, options: .init()).apply(change) }
        #expect(garage.read("bikes/grail.yaml") == Array("name: Edited meanwhile\n".utf8))
    }

    @Test func aDryRunReturnsTheDiffAndWritesNothing() throws {
        let garage = try TemporaryFolder(["garage.yaml": Array("name: g\n".utf8), "bikes/grail.yaml": valid])
        let change = GarageChange(
            files: [FileChange(path: "bikes/grail.yaml", before: valid, after: Array("name: Grail\nbought: 2024-01-01\n".utf8))], message: "m")
        let outcome = try ChangeWriter(root: garage.root, options: .init(dryRun: true)).apply(change)
        #expect(outcome.diff.contains("+bought: 2024-01-01\n"))
        #expect(outcome.written.isEmpty)
        #expect(garage.read("bikes/grail.yaml") == valid)
    }

    @Test func unchangedFilesAreNotWritten() throws {
        let garage = try TemporaryFolder(["garage.yaml": Array("name: g\n".utf8), "bikes/grail.yaml": valid])
        let outcome = try ChangeWriter(root: garage.root, options: .init(commit: true))
            .apply(GarageChange(files: [FileChange(path: "bikes/grail.yaml", before: valid, after: valid)], message: "m"))
        // Not even --commit outside a repository complains: there is nothing to do.
        #expect(outcome.written.isEmpty)
        #expect(outcome.diff.isEmpty)
    }
}

@Suite struct WriteLockTests {
    @Test func aHeldLockMakesTheNextWaitThenGiveUpAndIsFreeOnceReleased() throws {
        let garage = try TemporaryFolder([:])
        try LocalState.prepare(garage: garage.root)
        let path = ChangeWriter.lockPath(garage: garage.root)
        var first = try FileLock(path: path, wait: 0)
        #expect(first != nil)
        let start = Date()
        #expect(try FileLock(path: path, wait: 0.15) == nil)
        #expect(Date().timeIntervalSince(start) >= 0.15)
        first = nil
        #expect(try FileLock(path: path, wait: 0) != nil)
        _ = first
    }

    @Test func localStateIsIgnoredByGitFromItsOwnFolder() throws {
        let garage = try TemporaryFolder([:])
        try LocalState.prepare(garage: garage.root)
        #expect(garage.read(".bikecheck/.gitignore") == Array("# local state of bikecheck; not for git\n*\n".utf8))
    }

    @Test(arguments: [
        (".grail.yaml.bikecheck-Ab12Cd", true), (".rides.yaml.bikecheck-000000", true),
        ("grail.yaml.bikecheck-Ab12Cd", false), (".bikecheck-Ab12Cd", false), (".grail.yaml.bikecheck-Ab12C", false),
        (".grail.yaml.bikecheck-Ab12Cde", false), (".grail.yaml.bikecheck-Ab 2Cd", false), (".notes.bikecheck-keep", false),
    ])
    func onlyTheExactTemporaryNameIsRecognised(name: String, temporary: Bool) {
        #expect(AtomicFile.isTemporaryName(name) == temporary)
    }
}
