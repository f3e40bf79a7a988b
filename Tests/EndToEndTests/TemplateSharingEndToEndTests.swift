import Foundation
import TestSupport
import Testing

/// A club's templates repository: a work tree where the club edits, and a bare repository riders
/// fetch from (by plain path or file:// URL), both in a fresh temporary folder.
final class Club {
    let folder: URL
    var work: URL { folder.appendingPathComponent("club-work") }
    var bare: URL { folder.appendingPathComponent("club.git") }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("bikecheck-club-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try git(["init", "--quiet", "--bare", "-b", "main", bare.path], in: folder)
        try git(["init", "--quiet", "-b", "main"], in: work)
        try git(["remote", "add", "origin", bare.path], in: work)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Writes files into the club's tree, commits them, tags the commit when asked, and pushes.
    @discardableResult
    func publish(_ files: [String: String], tag: String? = nil, message: String = "update") throws -> String {
        for (path, text) in files {
            let url = work.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        try git(["add", "-A"], in: work)
        try git(["commit", "--quiet", "-m", message], in: work)
        if let tag { try git(["tag", tag], in: work) }
        try git(["push", "--quiet", "--tags", "origin", "main"], in: work)
        return try git(["rev-parse", "HEAD"], in: work).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

let fox36 = """
    name: Fox 36
    description: Fox's schedule for the 36.
    intervals:
      lowers:
        task: Lower leg service
        component: fork
        every: 50 h
      damper:
        task: Damper service
        component: fork
        every: 125 h

    """

@Suite struct TemplateSharingEndToEndTests {
    func startedGarage() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        #expect(try runBikecheck(["init", "."], in: folder.root).status == 0)
        try git(["init", "--quiet"], in: folder.root)
        try git(["add", "."], in: folder.root)
        try git(["commit", "--quiet", "-m", "start"], in: folder.root)
        return folder
    }

    /// Every file of the garage's work tree, for "nothing was written".
    func snapshot(_ garage: TemporaryFolder) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let e = FileManager.default.enumerator(atPath: garage.path)
        while let item = e?.nextObject() as? String {
            guard !item.hasPrefix(".git/"), !item.hasPrefix(".bikecheck"), item != ".git" else { continue }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: garage.path + "/" + item, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[item] = try Data(contentsOf: garage.root.appendingPathComponent(item))
            }
        }
        return files
    }

    @Test func importAtATagRecordsARelativeUrlThePathAndTheExactCommit() throws {
        let club = try Club()
        let v1 = try club.publish(
            ["templates/fox-36.yaml": fox36, "templates/road.yaml": "name: Club road\nintervals:\n  wash:\n    every: 1 week\n"], tag: "v1")
        try club.publish(["templates/fox-36.yaml": fox36.replacingOccurrences(of: "50 h", with: "40 h")])
        let garage = try startedGarage()
        // A plain path, relative to where the rider runs bikecheck.
        let relative = "../" + club.folder.lastPathComponent + "/club.git"
        let r = try garage.run(["template", "import", club.bare.path, "fox-36", "--ref", "v1", "--commit"], environment: gitAuthor)
        #expect(r.status == 0, "\(r.stderr)")
        let copied = try garage.read("templates/fox-36.yaml")
        #expect(copied.contains("source:\n  url: \(relative)\n  path: templates/fox-36.yaml\n  ref: v1\n  commit: \(v1)\n"), "\(copied)")
        #expect(copied.contains("every: 50 h"))
        #expect(try git(["log", "--format=%s", "-1"], in: garage.root) == "Import template fox-36 from \(relative) at \(v1.prefix(12))\n")
        #expect(try git(["status", "--porcelain"], in: garage.root).isEmpty)
        #expect(try garage.run(["validate"]).status == 0)

        // A file:// URL, the default branch: the newer commit, recorded the same way.
        let latest = try garage.run(["template", "import", "file://" + club.bare.path, "fox-36", "--as", "fox-36-latest"])
        #expect(latest.status == 0, "\(latest.stderr)")
        let newer = try garage.read("templates/fox-36-latest.yaml")
        #expect(newer.contains("  url: \(relative)\n") && newer.contains("every: 40 h") && !newer.contains("ref:"), "\(newer)")
        // No absolute path of this machine in anything bikecheck wrote.
        for (path, data) in try snapshot(garage) {
            let text = String(decoding: data, as: UTF8.self)
            #expect(!text.contains(club.folder.path) && !text.contains(garage.path), "\(path)")
        }
        #expect(try garage.run(["template", "list", "--format", "json"]).stdout.contains("templates/fox-36.yaml@\(v1.prefix(12)) (v1)"))
    }

    @Test func anUnreachableRepositoryIsAClearErrorAndNothingIsWritten() throws {
        let garage = try startedGarage()
        let before = try snapshot(garage)
        for url in ["https://rider:s3cret@127.0.0.1:1/club/templates.git", "file:///nonexistent/club.git", "ssh://127.0.0.1:1/club.git"] {
            let r = try garage.run(["template", "import", url], environment: ["BIKECHECK_GIT_TIMEOUT": "20"])
            #expect(r.status == 1, "\(url): \(r.stderr)")
            #expect(r.stderr.contains("error: ") && r.stderr.contains("nothing was written"), "\(r.stderr)")
            #expect(!r.stderr.contains("s3cret"))
        }
        let helper = try garage.run(["template", "import", "ext::sh -c touch% hacked"])
        #expect(helper.status == 2 && helper.stderr.contains("remote helper"), "\(helper.stderr)")
        #expect(try snapshot(garage) == before)
    }

    @Test func aSymlinkAnInvalidTemplateOrAMissingNameInTheRepositoryIsRefusedUnwritten() throws {
        let club = try Club()
        try FileManager.default.createDirectory(at: club.work.appendingPathComponent("templates"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: club.work.appendingPathComponent("templates/stolen.yaml").path, withDestinationPath: "/etc/passwd")
        try club.publish(["templates/fox-36.yaml": fox36, "templates/bad.yaml": "name: Bad\nintervals:\n  wash:\n    every: 1 fortnight\n"])
        let garage = try startedGarage()
        let before = try snapshot(garage)
        let link = try garage.run(["template", "import", club.bare.path, "stolen"])
        #expect(link.status == 1 && link.stderr.contains("'templates/stolen.yaml' in ") && link.stderr.contains("is a symbolic link"), "\(link.stderr)")
        #expect(!link.stderr.contains("root:"))
        // A submodule where a template file belongs is not followed either.
        try git(["update-index", "--add", "--cacheinfo", "160000,\(String(repeating: "a", count: 40)),templates/sub.yaml"], in: club.work)
        try git(["commit", "--quiet", "-m", "submodule"], in: club.work)
        try git(["push", "--quiet", "origin", "main"], in: club.work)
        let sub = try garage.run(["template", "import", club.bare.path, "sub"])
        #expect(sub.status == 1 && sub.stderr.contains("'templates/sub.yaml' in ") && sub.stderr.contains("is a submodule"), "\(sub.stderr)")
        let all = try garage.run(["template", "import", club.bare.path])
        #expect(all.status == 1, "\(all.stderr)")
        let bad = try garage.run(["template", "import", club.bare.path, "bad", "fox-36"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("templates/bad.yaml:4:12: error:") && bad.stderr.contains("'templates/bad.yaml' of ../"), "\(bad.stderr)")
        let typo = try garage.run(["template", "import", club.bare.path, "fox36"])
        #expect(typo.status == 2 && typo.stderr.contains("did you mean 'fox-36'?"), "\(typo.stderr)")
        let tag = try garage.run(["template", "import", club.bare.path, "--ref", "v9"])
        #expect(tag.status == 1 && tag.stderr.contains("at 'v9'"), "\(tag.stderr)")
        #expect(try snapshot(garage) == before)
    }

    /// A garage that imported fox-36 from the club at v1 and committed it.
    func importedFromClub() throws -> (Club, TemporaryFolder, String) {
        let club = try Club()
        let v1 = try club.publish(["templates/fox-36.yaml": fox36], tag: "v1")
        let garage = try startedGarage()
        let r = try garage.run(["template", "import", club.bare.path, "fox-36", "--commit"], environment: gitAuthor)
        #expect(r.status == 0, "\(r.stderr)")
        return (club, garage, v1)
    }

    @Test func updateMergesUpstreamsNewLimitAndIntervalWithTheRidersOwnEditAndValidates() throws {
        let (club, garage, v1) = try importedFromClub()
        // The rider shortens the damper interval, with a comment saying why.
        let mine = try garage.read("templates/fox-36.yaml").replacingOccurrences(of: "every: 125 h", with: "every: 100 h   # I ride in mud")
        try garage.write("templates/fox-36.yaml", mine)
        try git(["commit", "--quiet", "-am", "shorter damper"], in: garage.root)

        // Before upstream moves on, every template is current: exit 0.
        let current = try garage.run(["template", "outdated"])
        #expect(current.status == 0 && current.stdout.contains("fox-36  up to date at \(v1.prefix(12))"), "\(current.stdout)\(current.stderr)")
        let v2 = try club.publish(
            [
                "templates/fox-36.yaml": fox36.replacingOccurrences(of: "50 h", with: "40 h")
                    + "  air-can:\n    task: Air can service\n    component: fork\n    every: 1 year\n"
            ], tag: "v2")

        // Something outdated is a problem found, for cron: exit 1, in text and in JSON.
        let outdated = try garage.run(["template", "outdated"])
        #expect(outdated.status == 1, "\(outdated.stderr)")
        #expect(outdated.stdout.contains("fox-36  outdated: \(v1.prefix(12)) → \(v2.prefix(12))"), "\(outdated.stdout)")
        #expect(outdated.stdout.contains("added 'air-can'; 'lowers' every 50 h → 40 h"), "\(outdated.stdout)")
        let json = try garage.run(["template", "outdated", "--format", "json"])
        #expect(json.status == 1)
        #expect(json.stdout.contains("\"outdated\" : true") || json.stdout.contains("\"outdated\": true"), "\(json.stdout)")

        let dry = try garage.run(["template", "update", "--dry-run"])
        #expect(dry.status == 0 && dry.stdout.contains("+    every: 40 h") && dry.stdout.contains("+  air-can:"), "\(dry.stdout)\(dry.stderr)")
        #expect(try garage.read("templates/fox-36.yaml") == mine)

        let update = try garage.run(["template", "update", "--commit"], environment: gitAuthor)
        #expect(update.status == 0, "\(update.stderr)")
        let merged = try garage.read("templates/fox-36.yaml")
        #expect(
            merged == mine.replacingOccurrences(of: v1, with: v2).replacingOccurrences(of: "every: 50 h", with: "every: 40 h")
                + "  air-can:\n    task: Air can service\n    component: fork\n    every: 1 year\n", "\(merged)")
        #expect(try git(["log", "--format=%s", "-1"], in: garage.root) == "Update template fox-36 \(v1.prefix(12))..\(v2.prefix(12))\n")
        #expect(try git(["status", "--porcelain"], in: garage.root).isEmpty)
        #expect(try garage.run(["validate"]).status == 0)
        let after = try garage.run(["template", "outdated"])
        #expect(after.status == 0 && after.stdout.contains("fox-36  up to date at \(v2.prefix(12))"), "\(after.stdout)\(after.stderr)")

        // --ref moves the template to another tag, and source: follows it.
        let v3 = try club.publish(["templates/fox-36.yaml": fox36.replacingOccurrences(of: "Damper service", with: "Damper and seal service")], tag: "v3")
        try club.publish(["templates/fox-36.yaml": fox36.replacingOccurrences(of: "Lower leg", with: "Lowers")])
        let moved = try garage.run(["template", "update", "fox-36", "--ref", "v3"])
        #expect(moved.status == 0, "\(moved.stderr)")
        let atV3 = try garage.read("templates/fox-36.yaml")
        #expect(
            atV3.contains("  path: templates/fox-36.yaml\n  ref: v3\n  commit: \(v3)\n") && atV3.contains("Damper and seal service")
                && atV3.contains("every: 100 h   # I ride in mud") && atV3.contains("Lower leg service"), "\(atV3)")
        #expect(try garage.run(["validate"]).status == 0)
    }

    @Test func aTemplatePinnedToATagIsOutdatedWhenANewerTagExists() throws {
        let club = try Club()
        try club.publish(["templates/fox-36.yaml": fox36], tag: "v1.9")
        let garage = try startedGarage()
        #expect(try garage.run(["template", "import", club.bare.path, "fox-36", "--ref", "v1.9"]).status == 0)
        let current = try garage.run(["template", "outdated"])
        #expect(current.status == 0 && current.stdout.contains("up to date at"), "\(current.stdout)\(current.stderr)")
        // v1.10 and v2 come out; the tag v1.9 still names the same commit.
        try club.publish(["templates/fox-36.yaml": fox36.replacingOccurrences(of: "50 h", with: "40 h")], tag: "v1.10")
        try club.publish(["templates/fox-36.yaml": fox36.replacingOccurrences(of: "50 h", with: "30 h")], tag: "v2")
        try club.publish(["templates/fox-36.yaml": fox36], tag: "nightly")
        let outdated = try garage.run(["template", "outdated"])
        #expect(outdated.status == 1, "\(outdated.stdout)\(outdated.stderr)")
        #expect(outdated.stdout.contains("fox-36  outdated: a newer tag than"), "\(outdated.stdout)")
        #expect(outdated.stdout.contains("newer tags: v1.10, v2 ('bikecheck template update fox-36 --ref v2' moves to the newest)"), "\(outdated.stdout)")
        let json = try garage.run(["template", "outdated", "--format", "json"])
        #expect(json.stdout.contains("\"newer_tags\" : [\n      \"v1.10\",\n      \"v2\"\n    ]"), "\(json.stdout)")
    }

    @Test func aTrueConflictShowsBothValuesAndChangesNothingUnlessTheRiderKeepsTheirs() throws {
        let (club, garage, _) = try importedFromClub()
        let mine = try garage.read("templates/fox-36.yaml").replacingOccurrences(of: "every: 50 h", with: "every: 45 h")
        try garage.write("templates/fox-36.yaml", mine)
        try git(["commit", "--quiet", "-am", "my lowers"], in: garage.root)
        try club.publish(["templates/fox-36.yaml": fox36.replacingOccurrences(of: "50 h", with: "40 h").replacingOccurrences(of: "125 h", with: "150 h")])
        let before = try snapshot(garage)
        let r = try garage.run(["template", "update", "--commit"], environment: gitAuthor)
        #expect(r.status == 1)
        #expect(r.stderr.contains("interval 'lowers'") && !r.stderr.contains("interval 'damper'") && r.stderr.contains("nothing was written"), "\(r.stderr)")
        // Both values, where yours is written, and the way to keep yours.
        #expect(
            r.stderr.contains("templates/fox-36.yaml:12:12: error: interval 'lowers' every: yours 45 h, upstream 40 h (both were 50 h) [merge-conflict]"),
            "\(r.stderr)")
        #expect(r.stderr.contains("'bikecheck template update fox-36 --keep-mine'"), "\(r.stderr)")
        #expect(try snapshot(garage) == before)
        #expect(try git(["log", "--format=%s", "-1"], in: garage.root) == "my lowers\n")

        // --keep-mine: yours stays where both changed; upstream's other change is taken.
        let kept = try garage.run(["template", "update", "--keep-mine", "--dry-run"])
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(kept.stdout.contains("+    every: 150 h") && !kept.stdout.contains("every: 40 h"), "\(kept.stdout)")
        #expect(try snapshot(garage) == before)

        // An upstream version that is not a valid template is refused with its positions.
        try club.publish(["templates/fox-36.yaml": fox36.replacingOccurrences(of: "125 h", with: "125 hrs")])
        let invalid = try garage.run(["template", "update", "fox-36"])
        #expect(invalid.status == 1)
        #expect(
            invalid.stderr.contains("templates/fox-36.yaml:11:12: error: unknown unit") && invalid.stderr.contains("is not a valid template"),
            "\(invalid.stderr)")
        #expect(try snapshot(garage) == before)

        // Upstream valid again: --keep-mine writes the merge and says what of yours it kept.
        try club.publish(["templates/fox-36.yaml": fox36.replacingOccurrences(of: "50 h", with: "40 h").replacingOccurrences(of: "125 h", with: "150 h")])
        let update = try garage.run(["template", "update", "--keep-mine"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(update.stdout.contains("  kept yours: interval 'lowers' every: yours 45 h, upstream 40 h (both were 50 h)"), "\(update.stdout)")
        let merged = try garage.read("templates/fox-36.yaml")
        #expect(merged.contains("every: 45 h") && merged.contains("every: 150 h"), "\(merged)")
        #expect(try garage.run(["validate"]).status == 0)
        #expect(try garage.run(["template", "outdated"]).status == 0)
    }

    @Test func exportWritesASelfContainedTemplatesRepositoryThatValidatesAndAnotherRiderImportsFrom() throws {
        let (club, garage, _) = try importedFromClub()
        let published = FileManager.default.temporaryDirectory.appendingPathComponent("bikecheck-published-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: published) }
        let r = try garage.run(["template", "export", "fox-36", "road", published.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try runBikecheck(["validate", "--garage", published.path], in: garage.root).status == 0)
        let exported = try String(decoding: Data(contentsOf: published.appendingPathComponent("templates/fox-36.yaml")), as: UTF8.self)
        // The imported copy got the schema modeline init writes; the export keeps it, with the
        // schemas beside it (.schemas/), so the published folder checks in an editor too.
        #expect(exported == "# yaml-language-server: $schema=../.schemas/template.schema.json\n" + fox36, "\(exported)")
        #expect(FileManager.default.fileExists(atPath: published.appendingPathComponent(".schemas/template.schema.json").path))
        // Nothing in the folder refers to the garage it came from, or to the club it was imported from.
        let e = FileManager.default.enumerator(atPath: published.path)
        while let item = e?.nextObject() as? String {
            guard let data = FileManager.default.contents(atPath: published.path + "/" + item) else { continue }
            let text = String(decoding: data, as: UTF8.self)
            #expect(!text.contains(garage.path) && !text.contains(club.folder.lastPathComponent) && !text.contains("source:"), "\(item)")
        }

        // Kept in git, it is a templates repository; --commit commits there.
        try git(["init", "--quiet", "-b", "main"], in: published)
        try git(["add", "-A"], in: published)
        try git(["commit", "--quiet", "-m", "club templates"], in: published)
        try garage.write("templates/road.yaml", try garage.read("templates/road.yaml") + "  wash:\n    task: Wash the bike\n    every: 2 weeks\n")
        let again = try garage.run(["template", "export", "road", published.path, "--commit"], environment: gitAuthor)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try git(["log", "--format=%s", "-1"], in: published) == "Export template road\n")
        let other = try startedGarage()
        let imported = try other.run(["template", "import", published.path, "road", "--as", "club-road"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try other.read("templates/club-road.yaml").contains("wash:"))
        let usage = try garage.run(["template", "export", published.path])
        #expect(usage.status == 2)
    }

    @Test func aRepositoryThatNeverAnswersIsStoppedAtTheTimeLimitAndNothingIsWritten() throws {
        // A server on 127.0.0.1 that takes the connection and never says a word.
        let (fd, port) = try Self.silentListener()
        defer { close(fd) }
        let garage = try startedGarage()
        let before = try snapshot(garage)
        let started = Date()
        let r = try garage.run(["template", "import", "git://127.0.0.1:\(port)/club.git"], environment: ["BIKECHECK_GIT_TIMEOUT": "1"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("took longer than 1 s and was stopped; nothing was written"), "\(r.stderr)")
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(try snapshot(garage) == before)
        let bad = try garage.run(["template", "import", "git://127.0.0.1:\(port)/club.git"], environment: ["BIKECHECK_GIT_TIMEOUT": "soon"])
        #expect(bad.status == 2 && bad.stderr.contains("BIKECHECK_GIT_TIMEOUT 'soon'"), "\(bad.stderr)")
    }
}

extension TemplateSharingEndToEndTests {
    /// A listening socket on 127.0.0.1 that takes connections and never says a word; its port.
    static func silentListener() throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound, "a listener on 127.0.0.1")
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// Every failed fetch left its clone in `$TMPDIR` (96 MB each for an oversized repository):
    /// an hourly `template outdated` against a repository that is down filled /tmp.
    @Test func aFailedFetchLeavesNothingInTheTemporaryFolder() throws {
        let club = try Club()
        try club.publish(["templates/fox-36.yaml": fox36], tag: "v1")
        // A repository with more files than a fetch accepts: one blob under 20,002 names.
        let many = try Club()
        let script = """
            blob=$(echo x | git hash-object -w --stdin) &&
            seq 0 20001 | sed "s|^|100644 $blob\tt/f|" | git update-index --add --index-info &&
            git -c user.name=Test -c user.email=t@example.com commit -q -m many && git push -q origin main
            """
        #expect(try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script], in: many.work).status == 0)
        let empty = try Club()  // a repository with no commit
        let (fd, port) = try Self.silentListener()
        defer { close(fd) }
        let silent = "git://127.0.0.1:\(port)/club.git"

        let garage = try startedGarage()
        let temporary = try TemporaryFolder()
        let cases: [(arguments: [String], says: String)] = [
            (["template", "import", club.bare.path, "--ref", "v9"], "cannot fetch"),
            (["template", "import", many.bare.path], "has more than 20000 files"),
            (["template", "import", empty.bare.path], "has no commit to import from"),
            (["template", "import", silent], "took longer than 1 s"),
        ]
        for (arguments, says) in cases {
            let r = try garage.run(arguments, environment: ["TMPDIR": temporary.url.path, "BIKECHECK_GIT_TIMEOUT": "1"])
            #expect(r.status == 1 && r.stderr.contains(says), "\(arguments): \(r.stderr)")
            let left = try FileManager.default.contentsOfDirectory(atPath: temporary.url.path)
            #expect(left.isEmpty, "\(arguments) left \(left) in TMPDIR")
        }
    }
}
