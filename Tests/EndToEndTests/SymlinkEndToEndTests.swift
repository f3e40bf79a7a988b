import Foundation
import TestSupport
import Testing

/// A cloned "club garage" whose files link to a token file elsewhere on the machine: bikecheck
/// refuses the links that leave the garage and never prints what they point at.
@Suite struct SymlinkEndToEndTests {
    static let secret = "SECRET-ACCESS-TOKEN-5f2c"
    /// A token file as a login leaves it; valid YAML, as JSON is.
    static let tokenFile = #"{"access_token": "SECRET-ACCESS-TOKEN-5f2c", "refresh_token": "SECRET-ACCESS-TOKEN-5f2c-refresh", "expires_at": 1}"# + "\n"

    /// The example garage with links out of it: a bike, a template, rides.yaml and the cache folder.
    static func clubGarage(outside: TemporaryFolder) throws -> TemporaryFolder {
        try outside.write("strava-token.json", tokenFile)
        try outside.write("cache/2026-01.json", "[" + tokenFile + "]")
        let token = outside.url.appendingPathComponent("strava-token.json").path
        let garage = try TemporaryFolder(copying: true)
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: garage.path + "/bikes/evil.yaml", withDestinationPath: token)
        try fm.createSymbolicLink(atPath: garage.path + "/templates/evil.yaml", withDestinationPath: token)
        try fm.removeItem(atPath: garage.path + "/rides.yaml")
        try fm.createSymbolicLink(atPath: garage.path + "/rides.yaml", withDestinationPath: token)
        try fm.removeItem(atPath: garage.path + "/activities")
        try fm.createSymbolicLink(atPath: garage.path + "/activities", withDestinationPath: outside.url.appendingPathComponent("cache").path)
        return garage
    }

    static func expectNoSecret(_ r: CommandResult, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!r.stdout.contains("SECRET") && !r.stderr.contains("SECRET"), "\(what) printed the linked file", sourceLocation: sourceLocation)
    }

    @Test func linksThatLeaveTheGarageAreRefusedAndNeverEchoed() throws {
        let outside = try TemporaryFolder()
        let garage = try Self.clubGarage(outside: outside)
        for arguments in [
            ["validate"], ["validate", "--format", "json"], ["status"], ["bike", "list"], ["template", "list"],
            ["template", "show", "evil"], ["done", "evil", "chain-lube", "--dry-run"],
        ] {
            let r = try garage.run(arguments)
            Self.expectNoSecret(r, arguments.joined(separator: " "))
            #expect(r.status != 0, "\(arguments): a garage with links out of it is not valid")
        }
        let r = try garage.run(["validate"])
        for file in ["bikes/evil.yaml", "templates/evil.yaml", "rides.yaml", "activities"] {
            #expect(
                r.stderr.contains("\(file): error: '\(file)' is a symbolic link that leads outside the garage; it was not read [symlink-outside-garage]"),
                "\(file): \(r.stderr)")
        }
        // The rest of the garage still loads.
        let list = try garage.run(["bike", "list"])
        #expect(list.stdout.contains("grail"), "\(list.stdout)")
    }

    @Test func templateImportNeverReadsALinkOutOfTheGarageItImportsFrom() throws {
        let outside = try TemporaryFolder()
        let club = try Self.clubGarage(outside: outside)
        let mine = try TemporaryFolder(["garage.yaml": "name: mine\n"])
        for arguments in [
            ["template", "import", club.path], ["template", "import", club.path, "evil"],
            ["template", "import", club.path + "/templates/evil.yaml"], ["template", "import", club.path + "/templates"],
            ["template", "import", club.path, "evil", "--dry-run", "--format", "json"],
        ] {
            let r = try mine.run(arguments)
            Self.expectNoSecret(r, arguments.joined(separator: " "))
            #expect(r.status == 1, "\(arguments): \(r.stderr)")
            #expect((r.stderr + r.stdout).contains("is a symbolic link that leads outside"), "\(arguments): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: mine.path + "/templates/evil.yaml"))
        // Templates that are real files in the club garage still import.
        let ok = try mine.run(["template", "import", club.path, "tubeless"])
        #expect(ok.status == 0, "\(ok.stderr)")
    }

    @Test func linksThatStayInsideTheGarageAreFollowed() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "name: x\n",
            "shared/commuter.yaml": "name: Commuter\nbought: 2025-01-01\n",
            "library/basics.yaml": "name: Basics\nintervals:\n  chain-lube:\n    every: 300 km\n",
        ])
        let fm = FileManager.default
        try fm.createDirectory(atPath: garage.path + "/bikes", withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: garage.path + "/bikes/commuter.yaml", withDestinationPath: "../shared/commuter.yaml")
        try fm.createSymbolicLink(atPath: garage.path + "/templates", withDestinationPath: "library")
        let r = try garage.run(["validate"])
        #expect(r.status == 0, "\(r.stderr)")
        let list = try garage.run(["bike", "list"])
        #expect(list.stdout.contains("commuter  Commuter"), "\(list.stdout)")
        #expect(try garage.run(["template", "list"]).stdout.contains("basics"))
    }
}

extension SymlinkEndToEndTests {
    /// `done` through `bikes/grail.yaml → ../shared/grail.yaml` turned the link into a regular
    /// file and left the shared file stale. The write goes to the target, the link stays, and
    /// `--commit` commits the target.
    @Test func aWriteThroughALinkInsideTheGarageChangesItsTargetAndKeepsTheLink() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "name: x\n",
            "shared/grail.yaml": "name: Grail\nbought: 2025-01-01\nintervals:\n  chain-lube:\n    every: 300 km\n",
        ])
        let fm = FileManager.default
        try fm.createDirectory(atPath: garage.path + "/bikes", withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: garage.path + "/bikes/grail.yaml", withDestinationPath: "../shared/grail.yaml")
        try git(["init", "--quiet"], in: garage.root)
        try git(["add", "."], in: garage.root)
        try git(["commit", "--quiet", "-m", "start"], in: garage.root)

        let r = try garage.run(["done", "grail", "chain-lube", "--date", "2026-01-10", "--commit"], environment: gitAuthor)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try fm.destinationOfSymbolicLink(atPath: garage.path + "/bikes/grail.yaml") == "../shared/grail.yaml")
        #expect(try garage.read("shared/grail.yaml").contains("2026-01-10"))
        #expect(try git(["status", "--porcelain"], in: garage.root).isEmpty, "the target was committed")
        #expect(try git(["show", "--stat", "--format=", "HEAD"], in: garage.root).contains("shared/grail.yaml"))
    }
}

extension SymlinkEndToEndTests {
    /// A `.bikecheck` that linked out of the garage received the locks, the index and a
    /// `.gitignore` of `*` (in someone's work tree, git then ignored every new file there); a lock
    /// file that was a link was created at its target. Both are refused, nothing written there.
    @Test func localStateNeverFollowsALinkOutOfTheGarage() throws {
        let outside = try TemporaryFolder()
        let garage = try TemporaryFolder(copying: true)
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: garage.path + "/.bikecheck", withDestinationPath: outside.url.path)
        let write = try garage.run(["done", "grail", "chain-lube", "--date", "2026-01-10"])
        #expect(write.status == 1, "\(write.stderr)")
        #expect(write.stderr.contains("symbolic link that leads outside the garage"), "\(write.stderr)")
        _ = try garage.run(["status"])
        let written = try fm.contentsOfDirectory(atPath: outside.url.path)
        #expect(written.isEmpty, "written outside: \(written)")

        // A lock file that is a link, inside a real .bikecheck.
        try fm.removeItem(atPath: garage.path + "/.bikecheck")
        try fm.createDirectory(atPath: garage.path + "/.bikecheck", withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: garage.path + "/.bikecheck/write.lock", withDestinationPath: outside.url.path + "/planted.lock")
        let locked = try garage.run(["done", "grail", "chain-lube", "--date", "2026-01-10"])
        #expect(locked.status == 1 && locked.stderr.contains("never follows links in its local state"), "\(locked.stderr)")
        #expect(!fm.fileExists(atPath: outside.url.path + "/planted.lock"))
    }
}
