import Foundation
import TestSupport
import Testing

/// An author for commits made by the binary, whatever the machine's git config says.
let gitAuthor = [
    "GIT_AUTHOR_NAME": "Test Rider", "GIT_AUTHOR_EMAIL": "rider@example.com",
    "GIT_COMMITTER_NAME": "Test Rider", "GIT_COMMITTER_EMAIL": "rider@example.com",
]

let roadTemplate = """
    name: Road basics
    intervals:
      chain-lube:
        task: Lube the chain
        component: chain
        every: 10 h
      chain-replace:
        task: Replace the chain
        component: chain
        replaces: chain
        every: 3000 km
      bar-tape:
        every: 12 months

    """

/// A git-tracked garage with one bike file written exactly as given.
func trackedGarage(bike: String, bytes: [UInt8]? = nil) throws -> TemporaryFolder {
    let garage = try TemporaryFolder([
        "garage.yaml": "# my bikes\nname: Test garage\n",
        "templates/road.yaml": roadTemplate,
    ])
    if let bytes { try garage.writeBytes("bikes/vélo.yaml", bytes) } else { try garage.write("bikes/vélo.yaml", bike) }
    try git(["init", "--quiet"], in: garage.root)
    try git(["add", "."], in: garage.root)
    try git(["commit", "--quiet", "-m", "start"], in: garage.root)
    return garage
}

/// The lines of `git diff` that add or remove text (headers left out).
func changedLines(_ diff: String) -> (added: [String], removed: [String]) {
    // Split on LF alone: in a CRLF file "\r\n" is one Character and would not split.
    let lines = diff.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { String(String.UnicodeScalarView($0)) }
    let body = lines.filter { !$0.hasPrefix("+++") && !$0.hasPrefix("---") }
    return (body.filter { $0.hasPrefix("+") }, body.filter { $0.hasPrefix("-") })
}

/// Every file of a garage folder (not .git, nor the local state in .bikecheck/ where the
/// write lock lives), with its bytes.
func snapshot(_ garage: TemporaryFolder) throws -> [String: Data] {
    var files: [String: Data] = [:]
    let enumerator = FileManager.default.enumerator(atPath: garage.path)
    while let item = enumerator?.nextObject() as? String {
        if item == ".git" || item == ".bikecheck" { enumerator?.skipDescendants(); continue }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: garage.path + "/" + item, isDirectory: &isDirectory), !isDirectory.boolValue {
            files[item] = try Data(contentsOf: garage.root.appendingPathComponent(item))
        }
    }
    return files
}

/// An interval's anchor in `status --format json`: (since, anchor kind).
func statusAnchor(_ garage: TemporaryFolder, bike: String, interval: String) throws -> (String?, String?) {
    let r = try garage.run(["status", "--format", "json", "--as-of", "2026-11-15"])
    #expect(r.status == 0, "\(r.stderr)")
    let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
    let bikes = json?["bikes"] as? [[String: Any]] ?? []
    let intervals = bikes.first { $0["id"] as? String == bike }?["intervals"] as? [[String: Any]] ?? []
    let found = intervals.first { $0["id"] as? String == interval }
    return (found?["since"] as? String, found?["anchor"] as? String)
}

struct HandEditedBike: Sendable, CustomStringConvertible {
    var description: String
    var lf: String
    var crlf = false
    /// The file as written: with CRLF line ends when `crlf`.
    var text: String { crlf ? lf.replacingOccurrences(of: "\n", with: "\r\n") : lf }
    /// Old lines the edit may rewrite (an empty `log: []` becomes `log:`).
    var rewrites: Int
}

let handEditedBikes: [HandEditedBike] = [
    HandEditedBike(
        description: "comments, CRLF, Unicode, trailing comments",
        lf: """
            # yaml-language-server: $schema=../.schemas/bike.schema.json
            name: Vélo de route — «Bianchi» 🚲   # the old one
            templates: [road]

            components:
              chain:
                installed: 2026-01-10   # KMC X11

            log:
              - date: 2026-02-01
                done: [chain-lube]   # first lube
                note: |
                  Wet lube, winter.

            # Notes below are mine.

            """, crlf: true, rewrites: 0),
    HandEditedBike(
        description: "no final newline and no log key",
        lf: """
            name: Ünïcode
            templates: [road]   # one template
            components:
              chain: {installed: 2026-01-10}
            # last line is a comment without a newline
            """, rewrites: 0),
    HandEditedBike(
        description: "an empty flow log",
        lf: """
            name: Empty log
            templates: [road]
            log: []   # nothing yet
            notes: keep me

            """, rewrites: 1),
    HandEditedBike(
        description: "a null log and indentless lists",
        lf: """
            name: Null log
            templates:
            - road
            log:
            # the end

            """, rewrites: 0),
]

@Suite struct DoneEndToEndTests {
    @Test(arguments: handEditedBikes)
    func doneOnAHandEditedFileOnlyAddsLinesKeepsCommentsAndChangesStatus(bike: HandEditedBike) throws {
        let garage = try trackedGarage(bike: bike.text)
        let before = try statusAnchor(garage, bike: "vélo", interval: "chain-lube")
        #expect(before.0 != "2026-11-10")

        let r = try garage.run(["done", "vélo", "chain-lube", "--date", "2026-11-10", "--note", "yes: 2 drops"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("logged chain-lube on 2026-11-10"))

        let diff = try git(["diff", "--no-color"], in: garage.root)
        let (added, removed) = changedLines(diff)
        #expect(removed.count == bike.rewrites, "\(diff)")
        #expect(added.contains { $0.contains("date: 2026-11-10") }, "\(diff)")
        #expect(added.contains { $0.contains("note: \"yes: 2 drops\"") }, "\(diff)")

        let after = try garage.read("bikes/vélo.yaml")
        for line in bike.lf.split(separator: "\n") {
            guard let hash = line.firstIndex(of: "#") else { continue }
            #expect(after.contains(line[hash...]), "lost comment \(line[hash...])")
        }
        #expect(bike.text.hasSuffix("\n") == after.hasSuffix("\n"))
        if bike.text.contains("\r\n") {
            let scalars = Array(after.unicodeScalars)
            let bare = scalars.indices.filter { scalars[$0] == "\n" && ($0 == 0 || scalars[$0 - 1] != "\r") }
            #expect(bare.isEmpty, "bare LF in a CRLF file")
            #expect(scalars.filter { $0 == "\n" }.count > 10)
        }

        let validate = try garage.run(["validate"])
        #expect(validate.status == 0, "\(validate.stderr)")
        let now = try statusAnchor(garage, bike: "vélo", interval: "chain-lube")
        #expect(now.0 == "2026-11-10")
        #expect(now.1 == "done")
    }

    @Test func aReplacingTaskRestartsTheComponentsLife() throws {
        let garage = try trackedGarage(bike: handEditedBikes[0].text)
        let r = try garage.run(["done", "vélo", "chain-replace", "--date", "2026-11-01"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("replaces chain"))
        // chain-lube tracks the chain: a new chain counts from its replacement.
        let lube = try statusAnchor(garage, bike: "vélo", interval: "chain-lube")
        #expect(lube.0 == "2026-11-01")
        #expect(lube.1 == "replaced")
    }

    @Test func doneWithCommitCommitsJustTheBikeWithADescriptiveMessage() throws {
        let garage = try trackedGarage(bike: handEditedBikes[2].text)
        try garage.write("notes.txt", "not part of the change\n")
        let r = try garage.run(
            ["done", "vélo", "chain-lube", "bar-tape", "--date", "2026-11-16", "--cost", "12.50", "--commit"],
            environment: gitAuthor)
        #expect(r.status == 0, "\(r.stderr)")
        let log = try git(["log", "--format=%s", "-1"], in: garage.root)
        #expect(log == "vélo: chain-lube, bar-tape done 2026-11-16\n")
        let files = try git(["show", "--name-only", "--format=", "HEAD"], in: garage.root)
        #expect(files.contains("bikes/v"))
        #expect(!files.contains("notes.txt"))
        let status = try git(["status", "--porcelain"], in: garage.root)
        #expect(status == "?? notes.txt\n")
        #expect(try garage.read("bikes/vélo.yaml").contains("    cost: 12.50\n"))
    }

    @Test func dryRunPrintsTheDiffAndWritesNothing() throws {
        let garage = try trackedGarage(bike: handEditedBikes[1].text)
        let before = try snapshot(garage)
        let r = try garage.run(["done", "vélo", "chain-lube", "--date", "2026-11-16", "--dry-run"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("+++ b/bikes/vélo.yaml"))
        #expect(
            r.stdout.hasSuffix(
                "+log:\n+  - date: 2026-11-16\n+    done: [chain-lube]\n # last line is a comment without a newline\n\\ No newline at end of file\n"))
        #expect(try snapshot(garage) == before)
    }

    @Test(arguments: [
        (["done", "vélo", "chain-lub"], Int32(2), "did you mean 'chain-lube'?"),
        (["done", "velo", "chain-lube"], Int32(2), "did you mean 'vélo'?"),
        (["done", "vélo", "chain-lube", "--date", "2099-01-01"], Int32(2), "in the future"),
        (["done", "vélo", "chain-lube", "--date", "2999-01-01"], Int32(2), "not a plausible date"),
        (["done", "vélo", "chain-lube", "--date", "1989-12-31"], Int32(2), "before 1990"),
        (["done", "vélo", "chain-lube", "--cost", "cheap"], Int32(2), "not an amount"),
        // What the log would then refuse to read as an exact amount is refused before it is written.
        (["done", "vélo", "chain-lube", "--cost", "1e3"], Int32(2), "not an amount"),
        (["done", "vélo", "chain-lube", "--cost", "0.12345"], Int32(2), "has more than 4 decimals"),
        (["done", "vélo", "chain-lube", "--cost", "inf"], Int32(2), "not an amount"),
        (["done", "vélo", "chain-lube", "--commit", "--date", "2026-01-01"], Int32(1), "git repository"),
    ])
    func refusedWritesLeaveEveryFileByteIdentical(arguments: [String], status: Int32, message: String) throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "name: x\n", "templates/road.yaml": roadTemplate,
            "bikes/vélo.yaml": handEditedBikes[0].text,
        ])
        let before = try snapshot(garage)
        let r = try garage.run(arguments)
        #expect(r.status == status, "\(r.stderr)")
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(try snapshot(garage) == before)
    }

    @Test func jsonOutputSaysWhatWasWrittenAndCommitted() throws {
        let garage = try trackedGarage(bike: handEditedBikes[2].text)
        let r = try garage.run(["done", "vélo", "bar-tape", "--date", "2026-11-16", "--commit", "--format", "json"], environment: gitAuthor)
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(json["files"] as? [String] == ["bikes/vélo.yaml"])
        #expect(json["message"] as? String == "vélo: bar-tape done 2026-11-16")
        #expect((json["commit"] as? String)?.isEmpty == false)
        #expect(json["dry_run"] as? Bool == false)

        let refused = try garage.run(["done", "vélo", "bar-tap", "--format", "json"])
        #expect(refused.status == 2)
        let error = try #require(try JSONSerialization.jsonObject(with: Data(refused.stdout.utf8)) as? [String: Any])
        #expect((error["error"] as? String)?.contains("did you mean 'bar-tape'?") == true)
    }

    @Test func aLogTheEngineCannotEditSafelyIsRefusedWithItsLocation() throws {
        let text = "name: Flow\ntemplates: [road]\nlog: [{date: 2026-01-01, done: [chain-lube]}]\n"
        let garage = try trackedGarage(bike: text)
        let r = try garage.run(["done", "vélo", "chain-lube", "--date", "2026-11-16"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("bikes/vélo.yaml:3:6: error:"), "\(r.stderr)")
        #expect(r.stderr.contains("[yaml-edit-refused]"))
        #expect(try garage.read("bikes/vélo.yaml") == text)
    }

    @Test func aBikeFileWithErrorsIsNotTouched() throws {
        let text = "name: Broken\ntemplates: [road]\nintervals:\n  chain-lube:\n    every: 10 hrs\n"
        let garage = try trackedGarage(bike: text)
        let r = try garage.run(["done", "vélo", "chain-lube", "--date", "2026-11-16"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("bikes/vélo.yaml:5:12: error:"), "\(r.stderr)")
        #expect(try garage.read("bikes/vélo.yaml") == text)
    }

    @Test func aFailedCommitPutsEveryFileBack() throws {
        let garage = try trackedGarage(bike: handEditedBikes[2].text)
        let before = try snapshot(garage)
        // The repository's pre-commit hook refuses, so the commit cannot happen. (An
        // `index.lock` no git holds no longer stops it: it is stale, and cleared.)
        try installHook("pre-commit", "#!/bin/sh\necho 'refused by the hook' >&2\nexit 1\n", in: garage)
        let r = try garage.run(["done", "vélo", "chain-lube", "--date", "2026-11-16", "--commit"], environment: gitAuthor)
        #expect(r.status == 1)
        #expect(r.stderr.contains("git"), "\(r.stderr)")
        try FileManager.default.removeItem(atPath: garage.path + "/.git/hooks/pre-commit")
        #expect(try snapshot(garage) == before)
        #expect(try git(["status", "--porcelain"], in: garage.root).isEmpty)
    }

    @Test func aCommitHookThatRefusesPutsEveryFileBack() throws {
        let garage = try trackedGarage(bike: handEditedBikes[2].text)
        try garage.write(".git/hooks/pre-commit", "#!/bin/sh\necho 'not today' >&2\nexit 1\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: garage.path + "/.git/hooks/pre-commit")
        let before = try snapshot(garage)
        let r = try garage.run(["done", "vélo", "chain-lube", "--date", "2026-11-16", "--commit"], environment: gitAuthor)
        #expect(r.status == 1)
        #expect(r.stderr.contains("not today"), "\(r.stderr)")
        #expect(try snapshot(garage) == before)
        #expect(try git(["status", "--porcelain"], in: garage.root).isEmpty)
    }

    @Test func aChattyCommitHookDoesNotHangTheCommit() throws {
        let garage = try trackedGarage(bike: handEditedBikes[2].text)
        // 300 KB on standard error and some on standard output: far more than a pipe holds.
        try garage.write(
            ".git/hooks/pre-commit",
            """
            #!/bin/sh
            i=0
            while [ $i -lt 3000 ]; do
              echo "checking the garage, line $i of a very chatty hook that says far too much..........." >&2
              i=$((i+1))
            done
            echo "all good"
            exit 0

            """)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: garage.path + "/.git/hooks/pre-commit")
        let r = try runBikecheck(
            ["done", "vélo", "chain-lube", "--date", "2026-11-16", "--commit"], in: garage.root,
            environment: gitAuthor, timeout: 20)
        #expect(r.status == 0, "\(r.stderr.suffix(500))")
        #expect(try git(["log", "--format=%s", "-1"], in: garage.root).contains("chain-lube done 2026-11-16"))
        #expect(try git(["status", "--porcelain"], in: garage.root).isEmpty)
    }

    @Test func aServiceAlreadyLoggedThatDayIsNotLoggedTwiceAndTheOthersAre() throws {
        let garage = try trackedGarage(bike: handEditedBikes[2].text)
        #expect(try garage.run(["done", "vélo", "chain-lube", "--date", "2026-11-16"]).status == 0)
        let both = try garage.run(["done", "vélo", "chain-lube", "chain-replace", "--date", "2026-11-16"])
        #expect(both.status == 0, "\(both.stderr)")
        #expect(both.stdout.contains("chain-lube on 2026-11-16 was already in the log"), "\(both.stdout)")
        let text = try garage.read("bikes/vélo.yaml")
        #expect(
            text.components(separatedBy: "chain-lube").count - 1 == handEditedBikes[2].text.components(separatedBy: "chain-lube").count - 1 + 1,
            "chain-lube is written once more, not twice")
        // A different cost for a service already logged is refused, and nothing changes.
        let cost = try garage.run(["done", "vélo", "chain-lube", "--date", "2026-11-16", "--cost", "12"])
        #expect(cost.status == 1)
        #expect(cost.stderr.contains("already in the log"), "\(cost.stderr)")
        #expect(try garage.read("bikes/vélo.yaml") == text)
    }

    @Test func aBackdatedServiceGoesInDateOrderInALogKeptInDateOrder() throws {
        let bike =
            "name: Grail\nintervals:\n  chain-lube:\n    every: 10 h\nlog:\n  - date: 2026-03-01\n    done: [chain-lube]\n  # summer\n  - date: 2026-07-01\n    done: [chain-lube]\n"
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/grail.yaml": bike])
        let r = try garage.run(["done", "grail", "chain-lube", "--date", "2026-05-01", "--garage", garage.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            try garage.read("bikes/grail.yaml")
                == "name: Grail\nintervals:\n  chain-lube:\n    every: 10 h\nlog:\n  - date: 2026-03-01\n    done: [chain-lube]\n  - date: 2026-05-01\n    done: [chain-lube]\n  # summer\n  - date: 2026-07-01\n    done: [chain-lube]\n"
        )
    }

    @Test func doingTheSameServiceTwiceWritesOnce() throws {
        let garage = try trackedGarage(bike: handEditedBikes[2].text)
        #expect(try garage.run(["done", "vélo", "chain-lube", "--date", "2026-11-16"]).status == 0)
        let once = try garage.read("bikes/vélo.yaml")
        let again = try garage.run(["done", "vélo", "chain-lube", "--date", "2026-11-16"])
        #expect(again.status == 0)
        #expect(again.stdout.contains("already in the log"))
        #expect(try garage.read("bikes/vélo.yaml") == once)
    }
}
