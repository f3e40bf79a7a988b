import Foundation
import TestSupport
import Testing

/// The garage's history in git (issue 23): a bare remote and two clones in temporary folders,
/// real git and the real binary. Two riders log services on one bike; the merge keeps both.
@Suite struct GitHistoryEndToEndTests {
    static let bike = """
        name: Grail   # the gravel bike
        components:
          chain:
            name: KMC X11
            installed: 2025-01-01
        intervals:
          chain-lube:
            task: Lube the chain
            component: chain
            every: 10 h
          sealant:
            task: Top up sealant
            every: 3 months
        log:
          - date: 2025-09-15
            done: [chain-lube]   # after the wet ride

        """

    /// A remote with one commit of a small garage, and clones of it.
    final class Club {
        let folder: TemporaryFolder
        var remote: URL { folder.url.appendingPathComponent("remote.git") }

        init(setup: Bool = true) throws {
            folder = try TemporaryFolder()
            try git(["init", "--quiet", "--bare", remote.path], in: folder.url)
            let first = try clone("first")
            try first.write("garage.yaml", "units: metric\ncurrency: EUR\n")
            try first.write("bikes/grail.yaml", GitHistoryEndToEndTests.bike)
            if setup {
                let r = try run(["git", "setup"], in: first)
                #expect(r.status == 0, "\(r.stderr)")
                #expect(r.stdout.contains(".gitattributes") && r.stdout.contains("pre-commit"), "\(r.stdout)")
            }
            try git(["add", "-A"], in: first.url)
            try git(["commit", "--quiet", "-m", "garage"], in: first.url)
            try git(["push", "--quiet", "origin", "HEAD"], in: first.url)
        }

        /// A clone of the remote, with `git setup` run in it when asked.
        func clone(_ name: String, setup: Bool = false) throws -> TemporaryFolderView {
            try git(["clone", "--quiet", remote.path, name], in: folder.url)
            let view = TemporaryFolderView(url: folder.url.appendingPathComponent(name))
            if setup {
                let r = try run(["git", "setup"], in: view)
                #expect(r.status == 0, "\(r.stderr)")
            }
            return view
        }

        func run(_ arguments: [String], in clone: TemporaryFolderView) throws -> CommandResult {
            try runBikecheck(arguments, in: clone.url, environment: gitAuthor)
        }
    }

    /// A folder inside a temporary folder (a clone).
    struct TemporaryFolderView {
        let url: URL
        func write(_ relative: String, _ text: String) throws {
            let file = url.appendingPathComponent(relative)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        func read(_ relative: String) throws -> String {
            try String(decoding: Data(contentsOf: url.appendingPathComponent(relative)), as: UTF8.self)
        }
    }

    /// git that may fail (a merge with conflicts): its status and output.
    func gitResult(_ arguments: [String], in clone: TemporaryFolderView) throws -> CommandResult {
        try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["git"] + arguments, in: clone.url, environment: gitAuthor)
    }

    /// Two services on one bike, one in each clone, each committed; the second clone pulls.
    func twoServices(_ club: Club, setup: Bool) throws -> (TemporaryFolderView, CommandResult) {
        let one = try club.clone("one", setup: setup)
        let two = try club.clone("two", setup: setup)
        let lube = try club.run(["done", "grail", "chain-lube", "--date", "2025-10-01", "--commit"], in: one)
        #expect(lube.status == 0, "\(lube.stderr)")
        try git(["push", "--quiet", "origin", "HEAD"], in: one.url)
        let sealant = try club.run(["done", "grail", "sealant", "--date", "2025-10-02", "--note", "front and rear", "--commit"], in: two)
        #expect(sealant.status == 0, "\(sealant.stderr)")
        return (two, try gitResult(["pull", "--no-rebase", "--quiet", "origin", "HEAD"], in: two))
    }

    @Test func twoServicesOnOneBikeMergeWithoutAConflictAfterSetupAndValidate() throws {
        let club = try Club()
        let (two, pull) = try twoServices(club, setup: true)
        #expect(pull.status == 0, "\(pull.stdout)\(pull.stderr)")
        // Both entries, in date order, after the old one; its comment and the file's layout stay.
        #expect(
            try two.read("bikes/grail.yaml")
                == Self.bike + "  - date: 2025-10-01\n    done: [chain-lube]\n  - date: 2025-10-02\n    done: [sealant]\n    note: front and rear\n")
        #expect(try club.run(["validate"], in: two).status == 0)
        #expect(try gitResult(["status", "--porcelain"], in: two).stdout.isEmpty)
    }

    @Test func theSameMergeWithoutSetupConflicts() throws {
        let club = try Club(setup: false)
        let (two, pull) = try twoServices(club, setup: false)
        #expect(pull.status != 0)
        #expect(try two.read("bikes/grail.yaml").contains("<<<<<<<"))
    }

    @Test func aClonewithoutSetupFallsBackToGitsLineMerge() throws {
        // .gitattributes is committed, but this clone never ran setup: git merges by lines
        // (and conflicts), it does not fail on an unknown driver.
        let club = try Club(setup: true)
        let (two, pull) = try twoServices(club, setup: false)
        #expect(pull.status != 0)
        #expect(try two.read("bikes/grail.yaml").contains("<<<<<<<"))
    }

    @Test func theSameKeyChangedDifferentlyOnBothSidesStaysAConflictWithItsPlace() throws {
        let club = try Club()
        let one = try club.clone("one", setup: true)
        let two = try club.clone("two", setup: true)
        try one.write("bikes/grail.yaml", Self.bike.replacingOccurrences(of: "every: 10 h", with: "every: 8 h"))
        try git(["commit", "--quiet", "-am", "lube more often"], in: one.url)
        try git(["push", "--quiet", "origin", "HEAD"], in: one.url)
        try two.write("bikes/grail.yaml", Self.bike.replacingOccurrences(of: "every: 10 h", with: "every: 12 h"))
        try git(["commit", "--quiet", "-am", "lube less often"], in: two.url)
        let pull = try gitResult(["pull", "--no-rebase", "origin", "HEAD"], in: two)
        #expect(pull.status != 0)
        let said = pull.stdout + pull.stderr
        #expect(
            said.contains(
                "bikes/grail.yaml:10:12: error: 'intervals.chain-lube.every' was changed on both sides: here to 12 h, on the other side to 8 h [merge-conflict]"
            ),
            "\(said)")
        let left = try two.read("bikes/grail.yaml")
        #expect(left.contains("<<<<<<< ours") && left.contains("every: 12 h") && left.contains("every: 8 h") && left.contains(">>>>>>> theirs"), "\(left)")
        #expect(try gitResult(["diff", "--name-only", "--diff-filter=U"], in: two).stdout == "bikes/grail.yaml\n")
    }

    @Test func aMergeThatDoesNotValidateIsAConflict() throws {
        let club = try Club()
        let one = try club.clone("one", setup: true)
        let two = try club.clone("two", setup: true)
        // Each side adds a to-do with the id 'hanger': valid alone, together two to-dos answer
        // to one name.
        let a = try club.run(["todo", "add", "grail", "replace the hanger", "--id", "hanger", "--commit"], in: one)
        #expect(a.status == 0, "\(a.stderr)")
        try git(["push", "--quiet", "origin", "HEAD"], in: one.url)
        let b = try club.run(["todo", "add", "grail", "straighten the hanger", "--id", "hanger", "--commit"], in: two)
        #expect(b.status == 0, "\(b.stderr)")
        let alone = try club.run(["validate"], in: two)
        #expect(alone.status == 0, "\(alone.stderr)")
        let pull = try gitResult(["pull", "--no-rebase", "origin", "HEAD"], in: two)
        let said = pull.stdout + pull.stderr
        #expect(pull.status != 0, "\(said)")
        #expect(said.contains("does not validate") && said.contains("[merge-conflict]") && said.contains("[duplicate-todo]"), "\(said)")
        #expect(try gitResult(["diff", "--name-only", "--diff-filter=U"], in: two).stdout == "bikes/grail.yaml\n")
    }

    @Test func thePreCommitHookRefusesAStagedBrokenFileEvenWhenTheWorkTreeIsFixed() throws {
        let club = try Club()
        let one = try club.clone("one", setup: true)
        let broken = Self.bike.replacingOccurrences(of: "every: 10 h", with: "every: 10 hrs")
        try one.write("bikes/grail.yaml", broken)
        try git(["add", "bikes/grail.yaml"], in: one.url)
        // The work tree is fixed, the index is not: the commit would record the broken file.
        try one.write("bikes/grail.yaml", Self.bike)
        #expect(try club.run(["validate"], in: one).status == 0)
        let commit = try gitResult(["commit", "-m", "broken"], in: one)
        #expect(commit.status != 0)
        #expect(commit.stderr.contains("bikes/grail.yaml:10:12: error: unknown unit 'hrs'"), "\(commit.stderr)")
        #expect(commit.stderr.contains("the garage as staged has errors"), "\(commit.stderr)")
        #expect(try gitResult(["log", "--format=%s"], in: one).stdout == "garage\n")
        // Staging the fix lets the commit through.
        try git(["add", "bikes/grail.yaml"], in: one.url)
        try one.write("bikes/grail.yaml", broken)
        let fixed = try gitResult(["commit", "--quiet", "-m", "fine", "--allow-empty"], in: one)
        #expect(fixed.status == 0, "\(fixed.stderr)")
    }

    @Test func setupKeepsTheRidersOwnHookRunsItFirstAndIsIdempotent() throws {
        let club = try Club()
        let one = try club.clone("one")
        let hooks = one.url.appendingPathComponent(".git/hooks")
        let mine = "#!/bin/sh\necho rider-hook-ran >&2\nexit ${RIDER_HOOK_STATUS:-0}\n"
        try one.write(".git/hooks/pre-commit", mine)
        chmod(hooks.appendingPathComponent("pre-commit").path, 0o755)
        let first = try club.run(["git", "setup"], in: one)
        #expect(first.status == 0 && first.stdout.contains("kept your pre-commit hook"), "\(first.stdout)\(first.stderr)")
        #expect(try one.read(".git/hooks/pre-commit.before-bikecheck") == mine)
        let config = try gitResult(["config", "--local", "merge.bikecheck.driver"], in: one)
        #expect(config.stdout.contains(" git merge-driver --marker-size %L %O %A %B %P; "), "\(config.stdout)")
        // Again: nothing changes.
        let hook = try one.read(".git/hooks/pre-commit")
        let second = try club.run(["git", "setup"], in: one)
        #expect(second.status == 0 && second.stdout == "git setup: everything was in place already\n", "\(second.stdout)")
        #expect(try one.read(".git/hooks/pre-commit") == hook)
        #expect(try one.read(".git/hooks/pre-commit.before-bikecheck") == mine)
        #expect(try gitResult(["status", "--porcelain"], in: one).stdout.isEmpty)
        // The rider's hook runs first, and its refusal stops the commit.
        let ok = try gitResult(["commit", "--allow-empty", "--quiet", "-m", "x"], in: one)
        #expect(ok.status == 0 && ok.stderr.contains("rider-hook-ran"), "\(ok.stderr)")
        var env = gitAuthor
        env["RIDER_HOOK_STATUS"] = "3"
        let refused = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["git", "commit", "--allow-empty", "-m", "y"], in: one.url, environment: env)
        #expect(refused.status != 0 && refused.stderr.contains("rider-hook-ran"), "\(refused.stderr)")
    }

    /// Two rides in the activity cache, which git never holds (`.git/info/exclude` here).
    static let month = """
        [
        {"commute":false,"distance":47513.3,"elapsed_time":8058,"gear_id":"b1000001","id":16002190383,"manual":false,"moving_time":7688,"name":"Forest roads","sport_type":"GravelRide","start_date":"2025-11-01T16:19:34Z","start_date_local":"2025-11-01T17:19:34Z","timezone":"(GMT+01:00) Europe/Berlin","total_elevation_gain":427.6,"trainer":false,"type":"Ride"},
        {"commute":false,"distance":32301.5,"elapsed_time":5093,"gear_id":null,"id":16002213117,"manual":false,"moving_time":4114,"name":"Lunch ride","sport_type":"Ride","start_date":"2025-11-05T11:46:08Z","start_date_local":"2025-11-05T12:46:08Z","timezone":"(GMT+01:00) Europe/Berlin","total_elevation_gain":120.0,"trainer":false,"type":"Ride"}
        ]

        """

    @Test func statusAtRevEqualsStatusOnAWorktreeOfThatCommitAndLeavesTheCloneClean() throws {
        let club = try Club()
        let (two, pull) = try twoServices(club, setup: true)
        #expect(pull.status == 0, "\(pull.stderr)")
        // The rides come from the work tree's cache at every revision (each worktree gets a copy);
        // from the last commit on, the bike has the gear id of one of them.
        try two.write(".git/info/exclude", "activities/\n")
        try two.write("activities/2025-11.json", Self.month)
        try two.write("bikes/grail.yaml", try two.read("bikes/grail.yaml").replacingOccurrences(of: "name: Grail", with: "name: Grail\nstrava: b1000001"))
        try git(["commit", "--quiet", "-am", "grail on Strava"], in: two.url)
        let index = try Data(contentsOf: two.url.appendingPathComponent(".git/index"))
        let commands = [
            ["status", "--as-of", "2025-12-01"], ["status", "--format", "json", "--as-of", "2025-12-01"], ["history", "--format", "csv"],
            ["usage", "--as-of", "2025-12-01"], ["costs", "--format", "json", "--as-of", "2025-12-01"], ["rides", "--as-of", "2025-12-01"],
            ["calendar", "--as-of", "2025-12-01"], ["export", "ledger", "--as-of", "2025-12-01"], ["report", "--as-of", "2025-12-01"],
        ]
        for rev in ["HEAD~2", "HEAD~1^2", "HEAD~1", "HEAD"] {
            let worktree = club.folder.url.appendingPathComponent("at-\(rev.replacingOccurrences(of: "^", with: "-"))")
            try git(["worktree", "add", "--quiet", "--detach", worktree.path, rev], in: two.url)
            try TemporaryFolderView(url: worktree).write("activities/2025-11.json", Self.month)
            for arguments in commands {
                let there = try runBikecheck(arguments, in: worktree)
                let atRev = try club.run(arguments + ["--rev", rev], in: two)
                #expect(there.status == 0 && atRev.status == 0, "\(arguments) \(rev): \(there.stderr) \(atRev.stderr)")
                #expect(atRev.stdout == there.stdout, "\(arguments) --rev \(rev)")
            }
        }
        // The rides were read from the cache with the bike as it was at each commit.
        let rides = try ["HEAD~1", "HEAD"].map { try club.run(["rides", "--as-of", "2025-12-01", "--rev", $0], in: two).stdout }
        #expect(!rides[0].contains("Forest roads") && rides[1].contains("Forest roads"), "\(rides)")
        // The three revisions differ, so the comparison above means something.
        let logs = try ["HEAD~2", "HEAD~1^2", "HEAD~1"].map { try club.run(["history", "--format", "csv", "--rev", $0], in: two).stdout }
        #expect(Set(logs).count == 3)
        #expect(try gitResult(["status", "--porcelain"], in: two).stdout.isEmpty)
        #expect(try Data(contentsOf: two.url.appendingPathComponent(".git/index")) == index)
    }

    @Test func revReadsTheFilesOfThatCommitAndItsDayIsTheDefaultAsOf() throws {
        let club = try Club()
        let one = try club.clone("one", setup: true)
        // A commit of a broken file made on 2025-10-05, then fixed in the next commit.
        try one.write("bikes/grail.yaml", Self.bike.replacingOccurrences(of: "every: 10 h", with: "every: 10 hrs"))
        var env = gitAuthor
        env["GIT_COMMITTER_DATE"] = "2025-10-05T12:00:00+00:00"
        let broken = try runProcess(
            URL(fileURLWithPath: "/usr/bin/env"), ["git", "commit", "--quiet", "--no-verify", "-am", "broken"], in: one.url, environment: env)
        #expect(broken.status == 0, "\(broken.stderr)")
        try one.write("bikes/grail.yaml", Self.bike)
        env["GIT_COMMITTER_DATE"] = "2025-10-06T12:00:00+00:00"
        let fixed = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["git", "commit", "--quiet", "-am", "fixed"], in: one.url, environment: env)
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(try club.run(["validate"], in: one).status == 0)
        let old = try club.run(["validate", "--rev", "HEAD~1"], in: one)
        #expect(old.status == 1 && old.stderr.contains("bikes/grail.yaml:10:12: error: unknown unit 'hrs'"), "\(old.stderr)")
        // Without --as-of, status at a commit is as of the commit's day; --as-of still wins.
        let atFix = try club.run(["status", "--rev", "HEAD", "--format", "json"], in: one)
        #expect(atFix.status == 0 && atFix.stdout.contains("\"as_of\" : \"2025-10-06\""), "\(atFix.stderr)\(atFix.stdout.prefix(200))")
        let asked = try club.run(["status", "--rev", "HEAD", "--format", "json", "--as-of", "2025-12-24"], in: one)
        #expect(asked.stdout.contains("\"as_of\" : \"2025-12-24\""), "\(asked.stdout.prefix(200))")
        let bad = try club.run(["status", "--rev", "no-such-ref"], in: one)
        #expect(bad.status == 2 && bad.stderr.contains("error: --rev no-such-ref: 'no-such-ref' is not a commit of this repository"), "\(bad.stderr)")
        #expect(try gitResult(["status", "--porcelain"], in: one).stdout.isEmpty)
    }

    /// Every git bikecheck starts, logged by a `git` first on PATH, as one line of arguments each.
    func countingGit(_ club: Club) throws -> (environment: [String: String], log: URL) {
        let bin = club.folder.url.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let log = club.folder.url.appendingPathComponent("git.log")
        let real = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["sh", "-c", "command -v git"], in: club.folder.url).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let wrapper = bin.appendingPathComponent("git")
        try Data("#!/bin/sh\necho \"$*\" >> '\(log.path)'\nexec '\(real)' \"$@\"\n".utf8).write(to: wrapper)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper.path)
        var environment = gitAuthor
        environment["PATH"] = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        return (environment, log)
    }

    @Test func statusAtARevisionStartsTwoGitsAndReadsTheWorkTreesCacheForUnchangedFiles() throws {
        let club = try Club()
        let one = try club.clone("one", setup: true)
        try one.write("bikes/rocky.yaml", "name: Rocky\n")
        try git(["add", "-A"], in: one.url)
        try git(["commit", "--quiet", "-m", "rocky"], in: one.url)
        let (environment, log) = try countingGit(club)
        // A settled work tree, read once: the garage cache holds every file.
        usleep(200_000)
        let warm = try runBikecheck(["status", "--as-of", "2025-12-01"], in: one.url, environment: environment)
        #expect(warm.status == 0, "\(warm.stderr)")
        try? FileManager.default.removeItem(at: log)

        var timed = environment
        timed["BIKECHECK_TIMINGS"] = "1"
        let atHead = try runBikecheck(["status", "--rev", "HEAD", "--as-of", "2025-12-01"], in: one.url, environment: timed)
        #expect(atHead.status == 0 && atHead.stdout == warm.stdout, "\(atHead.stderr)")
        let calls = try String(decoding: Data(contentsOf: log), as: UTF8.self).split(separator: "\n")
        #expect(calls.count <= 2 && calls.contains { $0.contains("cat-file --batch") }, "\(calls)")
        // garage.yaml and both bikes: the bytes at HEAD are those the work tree's entries were made from.
        #expect(atHead.stderr.contains("(garage cache: 3 files)"), "\(atHead.stderr)")

        // A file changed since (and read so, its entry made anew): parsed from the commit, the
        // others still from the cache.
        try one.write("bikes/rocky.yaml", "name: Rocky Mountain\n")
        usleep(200_000)
        #expect(try runBikecheck(["status", "--as-of", "2025-12-01"], in: one.url, environment: timed).stderr.contains("(garage cache: 2 files)"))
        let earlier = try runBikecheck(["status", "--rev", "HEAD", "--as-of", "2025-12-01"], in: one.url, environment: timed)
        #expect(earlier.stdout == warm.stdout && earlier.stderr.contains("(garage cache: 2 files)"), "\(earlier.stderr)")
        #expect(try gitResult(["status", "--porcelain"], in: one).stdout == " M bikes/rocky.yaml\n")
    }

    @Test func reportsNameTheCommitTheyDescribeAndWhetherTheFilesHadChanges() throws {
        let club = try Club()
        let one = try club.clone("one", setup: true)
        let lube = try club.run(["done", "grail", "chain-lube", "--date", "2025-10-01", "--commit"], in: one)
        #expect(lube.status == 0, "\(lube.stderr)")
        let head = try git(["rev-parse", "HEAD"], in: one.url).trimmingCharacters(in: .newlines)
        let previous = try git(["rev-parse", "HEAD~1"], in: one.url).trimmingCharacters(in: .newlines)
        let clean = "\"git\" : {\n    \"changes\" : false,\n    \"commit\" : \"\(head)\"\n  }"
        for arguments in [["status"], ["history"], ["costs"], ["usage"], ["rides"], ["part", "list"]] {
            let r = try club.run(arguments + ["--format", "json", "--as-of", "2025-12-01"], in: one)
            #expect(r.status == 0 && r.stdout.contains(clean), "\(arguments): \(r.stderr)\(r.stdout.prefix(300))")
        }
        let page = try club.run(["report", "--as-of", "2025-12-01"], in: one)
        #expect(page.stdout.contains("at git commit <code class=\"commit\">\(head)</code> as of 2025-12-01"), "\(page.stderr)")
        // A change not committed is said; --rev describes exactly its commit.
        try one.write("bikes/grail.yaml", try one.read("bikes/grail.yaml") + "# a comment\n")
        let changed = try club.run(["status", "--format", "json"], in: one)
        #expect(changed.stdout.contains("\"git\" : {\n    \"changes\" : true,\n    \"commit\" : \"\(head)\"\n  }"), "\(changed.stdout.prefix(300))")
        let changedPage = try club.run(["report"], in: one)
        #expect(changedPage.stdout.contains("<code class=\"commit\">\(head)</code> with changes not yet committed"))
        let atRev = try club.run(["history", "--format", "json", "--rev", "HEAD~1"], in: one)
        #expect(atRev.stdout.contains("\"git\" : {\n    \"changes\" : false,\n    \"commit\" : \"\(previous)\"\n  }"), "\(atRev.stdout.prefix(300))")
        // Outside git: null.
        let loose = try TemporaryFolder(["garage.yaml": "units: metric\n"])
        let none = try runBikecheck(["status", "--format", "json"], in: loose.url)
        #expect(none.status == 0 && none.stdout.contains("\"git\" : null"), "\(none.stderr)\(none.stdout)")
    }

    @Test func setupOutsideAGitWorkTreeSaysToRunGitInitFirst() throws {
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n"])
        let r = try runBikecheck(["git", "setup"], in: garage.url)
        #expect(r.status == 1)
        #expect(r.stderr.contains("is not in a git work tree: run 'git init' there first"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: garage.url.appendingPathComponent(".gitattributes").path))
    }
}
