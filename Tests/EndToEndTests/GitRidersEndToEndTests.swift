import Foundation
import TestSupport
import Testing

/// Git as riders have it (issue 29): two real clones of one garage, real git, the real binary.
@Suite struct GitRidersEndToEndTests {
    typealias Club = GitHistoryEndToEndTests.Club
    typealias Clone = GitHistoryEndToEndTests.TemporaryFolderView

    static let bike = """
        name: Grail   # the gravel bike
        price: 2499
        components:
          chain:
            name: KMC X11
            installed: 2025-01-01
        intervals:
          chain-lube:
            task: Lube the chain
            component: chain
            every: 8 h  # gravel dust
          sealant:
            task: Top up sealant
            every: 3 months
        log:
          - date: 2025-09-15
            done: [chain-lube]   # after the wet ride

        """

    static let template = """
        name: Tubeless tyres
        intervals:
          sealant:
            task: Top up tubeless sealant
            every: 3 months  # Stan's says 2 to 7
            due_soon: 70%

        """

    /// A club whose garage has `bike` and `template`, committed and pushed, and two clones set up.
    func club() throws -> (Club, Clone, Clone) {
        let club = try Club()
        let zero = try club.clone("zero")
        try zero.write("bikes/grail.yaml", Self.bike)
        try zero.write("templates/tubeless.yaml", Self.template)
        try zero.write("bikes/tarmac.yaml", "name: Tarmac\ntemplates: [tubeless]\n")
        try git(["add", "-A"], in: zero.url)
        try git(["commit", "--quiet", "-m", "comments"], in: zero.url)
        try git(["push", "--quiet", "origin", "HEAD"], in: zero.url)
        return (club, try club.clone("one", setup: true), try club.clone("two", setup: true))
    }

    func gitResult(_ arguments: [String], in clone: Clone) throws -> CommandResult {
        try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["git"] + arguments, in: clone.url, environment: gitAuthor)
    }

    func commitAndPush(_ clone: Clone, _ message: String) throws {
        try git(["commit", "--quiet", "-am", message], in: clone.url)
        try git(["push", "--quiet", "origin", "HEAD"], in: clone.url)
    }

    @Test func theMergeKeepsTheOtherRidersCommentsOnChangedValuesAndCommentOnlyChanges() throws {
        let (club, one, two) = try club()
        // One rider lubes more often and says why, notes what the price includes, and changes a
        // template's comment only.
        try one.write(
            "bikes/grail.yaml",
            Self.bike.replacingOccurrences(of: "every: 8 h  # gravel dust", with: "every: 6 h  # after the muddy season")
                .replacingOccurrences(of: "price: 2499", with: "price: 2499  # with pedals"))
        try one.write("templates/tubeless.yaml", Self.template.replacingOccurrences(of: "# Stan's says 2 to 7", with: "# Orange Seal: 2 to 4"))
        try commitAndPush(one, "muddy season")
        // The other logs a service and changes the template's warning.
        let done = try club.run(["done", "grail", "sealant", "--date", "2025-10-02", "--commit"], in: two)
        #expect(done.status == 0, "\(done.stderr)")
        try two.write("templates/tubeless.yaml", Self.template.replacingOccurrences(of: "due_soon: 70%", with: "due_soon: 80%"))
        try git(["commit", "--quiet", "-am", "warn later"], in: two.url)
        let pull = try gitResult(["pull", "--no-rebase", "--quiet", "origin", "HEAD"], in: two)
        #expect(pull.status == 0, "\(pull.stdout)\(pull.stderr)")
        #expect(
            try two.read("bikes/grail.yaml")
                == Self.bike.replacingOccurrences(of: "every: 8 h  # gravel dust", with: "every: 6 h  # after the muddy season")
                .replacingOccurrences(of: "price: 2499", with: "price: 2499  # with pedals") + "  - date: 2025-10-02\n    done: [sealant]\n")
        #expect(
            try two.read("templates/tubeless.yaml")
                == Self.template.replacingOccurrences(of: "# Stan's says 2 to 7", with: "# Orange Seal: 2 to 4")
                .replacingOccurrences(of: "due_soon: 70%", with: "due_soon: 80%"))
        #expect(try club.run(["validate"], in: two).status == 0)
    }

    @Test func aValueChangedOnOneSideAndItsCommentOnTheOtherKeepsBoth() throws {
        let (club, one, two) = try club()
        defer { withExtendedLifetime(club) {} }
        try one.write("bikes/grail.yaml", Self.bike.replacingOccurrences(of: "every: 8 h", with: "every: 6 h"))
        try commitAndPush(one, "lube more often")
        try two.write(
            "bikes/grail.yaml",
            Self.bike.replacingOccurrences(of: "# gravel dust", with: "# gravel dust and rain")
                .replacingOccurrences(of: "  sealant:\n", with: "  # check before the race\n  sealant:\n"))
        try git(["commit", "--quiet", "-am", "notes"], in: two.url)
        let pull = try gitResult(["pull", "--no-rebase", "--quiet", "origin", "HEAD"], in: two)
        #expect(pull.status == 0, "\(pull.stdout)\(pull.stderr)")
        #expect(
            try two.read("bikes/grail.yaml")
                == Self.bike.replacingOccurrences(of: "every: 8 h  # gravel dust", with: "every: 6 h  # gravel dust and rain")
                .replacingOccurrences(of: "  sealant:\n", with: "  # check before the race\n  sealant:\n"))
    }

    @Test func entriesTheOtherSideAddedKeepTheirCommentsAndLayout() throws {
        let (club, one, two) = try club()
        let added =
            Self.bike.replacingOccurrences(
                of: "  sealant:\n",
                with: "  # the shop checks them\n  brake-pads:\n    task: Check the brake pads\n    every: 500 km   # dusty roads\n  sealant:\n"
            ) + "  - date: 2025-10-03   # in the rain\n    done: [chain-lube]\n"
        try one.write("bikes/grail.yaml", added)
        try commitAndPush(one, "pads")
        #expect(try club.run(["done", "grail", "sealant", "--date", "2025-10-04", "--commit"], in: two).status == 0)
        let pull = try gitResult(["pull", "--no-rebase", "--quiet", "origin", "HEAD"], in: two)
        #expect(pull.status == 0, "\(pull.stdout)\(pull.stderr)")
        #expect(try two.read("bikes/grail.yaml") == added + "  - date: 2025-10-04\n    done: [sealant]\n")
    }

    @Test func theSameCommentChangedDifferentlyIsAConflictNotAPick() throws {
        let (club, one, two) = try club()
        defer { withExtendedLifetime(club) {} }
        try one.write("bikes/grail.yaml", Self.bike.replacingOccurrences(of: "# gravel dust", with: "# mud"))
        try commitAndPush(one, "mud")
        try two.write(
            "bikes/grail.yaml", Self.bike.replacingOccurrences(of: "# gravel dust", with: "# dust").replacingOccurrences(of: "price: 2499", with: "price: 2599")
        )
        try git(["commit", "--quiet", "-am", "dust"], in: two.url)
        let pull = try gitResult(["pull", "--no-rebase", "origin", "HEAD"], in: two)
        #expect(pull.status != 0)
        #expect(
            (pull.stdout + pull.stderr).contains("'intervals.chain-lube.every' was changed on both sides and cannot be merged"), "\(pull.stdout)\(pull.stderr)")
        let left = try two.read("bikes/grail.yaml")
        #expect(left.contains("<<<<<<< ours") && left.contains("# dust") && left.contains("# mud"), "\(left)")
    }

    // MARK: - The pre-merge-commit check

    @Test func anAutomaticMergeThatDoesNotValidateIsRefusedByThePreMergeCommitHook() throws {
        let (club, one, two) = try club()
        #expect(FileManager.default.isExecutableFile(atPath: two.url.appendingPathComponent(".git/hooks/pre-merge-commit").path))
        // One rider renames the template's interval; the other logs it by its old name. Each
        // side is valid, and git merges the two files without asking any driver.
        try one.write("templates/tubeless.yaml", Self.template.replacingOccurrences(of: "  sealant:", with: "  sealant-top-up:"))
        try commitAndPush(one, "rename")
        let done = try club.run(["done", "tarmac", "sealant", "--date", "2025-10-03", "--commit"], in: two)
        #expect(done.status == 0, "\(done.stderr)")
        let pull = try gitResult(["pull", "--no-rebase", "origin", "HEAD"], in: two)
        #expect(pull.status != 0, "\(pull.stdout)\(pull.stderr)")
        #expect(pull.stderr.contains("bikes/tarmac.yaml:") && pull.stderr.contains("the garage as staged has errors"), "\(pull.stderr)")
        // No merge commit was made: the merge waits, staged, for the rider.
        #expect(try gitResult(["rev-parse", "-q", "--verify", "MERGE_HEAD"], in: two).status == 0)
        #expect(!(try gitResult(["log", "-1", "--format=%p"], in: two).stdout.contains(" ")))
    }

    // MARK: - Hooks that live with other hooks

    /// A git configuration of the rider's own (`GIT_CONFIG_GLOBAL`), beside a clone.
    func globalConfig(_ text: String, in club: Club) throws -> [String: String] {
        let file = club.folder.url.appendingPathComponent("gitconfig")
        try Data(text.utf8).write(to: file)
        var env = gitAuthor
        env["GIT_CONFIG_GLOBAL"] = file.path
        return env
    }

    @Test func aGlobalHooksPathIsNotWrittenSetupSaysWhatToAddAndOtherRepositoriesStillCommit() throws {
        let (club, one, _) = try club()
        let shared = club.folder.url.appendingPathComponent("global-hooks")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        let env = try globalConfig("[core]\n\thooksPath = \(shared.path)\n", in: club)
        for _ in 0..<2 {
            let setup = try runBikecheck(["git", "setup"], in: one.url, environment: env)
            #expect(setup.status == 0, "\(setup.stderr)")
            #expect(setup.stdout.contains("(core.hooksPath), not from its .git folder, so bikecheck did not write there.\n"), "\(setup.stdout)")
            #expect(setup.stdout.hasSuffix("none):\n    bikecheck git check-staged\n"), "\(setup.stdout)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared.path).isEmpty)
        // Another repository of the rider's, with no garage, commits as before.
        let other = club.folder.url.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        _ = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["git", "init", "--quiet"], in: other, environment: env)
        let commit = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["git", "commit", "--allow-empty", "-m", "x"], in: other, environment: env)
        #expect(commit.status == 0, "\(commit.stderr)")
        // The line setup prints, added to the shared hook, checks a garage and passes elsewhere.
        try Data("#!/bin/sh\n\(bikecheckBinary.path) git check-staged\n".utf8).write(to: shared.appendingPathComponent("pre-commit"))
        chmod(shared.appendingPathComponent("pre-commit").path, 0o755)
        #expect(try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["git", "commit", "--allow-empty", "-m", "y"], in: other, environment: env).status == 0)
        try one.write("bikes/grail.yaml", Self.bike.replacingOccurrences(of: "every: 8 h", with: "every: 8 hrs"))
        let refused = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["git", "commit", "-am", "broken"], in: one.url, environment: env)
        #expect(refused.status != 0 && refused.stderr.contains("unknown unit 'hrs'"), "\(refused.stderr)")
    }

    @Test func aTrackedHooksPathGetsNoAbsolutePathAndSetupIsIdempotent() throws {
        let (club, one, _) = try club()
        try one.write(".githooks/post-checkout", "#!/bin/sh\nexit 0\n")
        try git(["add", ".githooks"], in: one.url)
        try git(["config", "core.hooksPath", ".githooks"], in: one.url)
        let first = try club.run(["git", "setup"], in: one)
        #expect(first.status == 0 && first.stdout.contains("core.hooksPath"), "\(first.stdout)\(first.stderr)")
        let second = try club.run(["git", "setup"], in: one)
        #expect(second.stdout == first.stdout)
        #expect(try FileManager.default.contentsOfDirectory(atPath: one.url.appendingPathComponent(".githooks").path) == ["post-checkout"])
        // Nothing tracked or to be tracked names a path of this machine.
        try git(["add", "-A"], in: one.url)
        let named = try gitResult(["grep", "--cached", "-l", bikecheckBinary.deletingLastPathComponent().path], in: one)
        #expect(named.stdout.isEmpty, "\(named.stdout)")
    }

    // MARK: - The pre-commit framework

    /// The pre-commit framework (PyPI `pre-commit`, in the tools environment), a folder where
    /// `bikecheck` is found by name, and the framework's cache beside the clone.
    func framework(_ club: Club) throws -> (run: ([String], Clone) throws -> CommandResult, env: [String: String]) {
        let bin = club.folder.url.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: bin.appendingPathComponent("bikecheck"), withDestinationURL: bikecheckBinary)
        var env = gitAuthor
        env["PATH"] = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        env["PRE_COMMIT_HOME"] = club.folder.url.appendingPathComponent("pre-commit-cache").path
        env["NO_COLOR"] = "1"
        env["BIKECHECK_GARAGE"] = ""
        let preCommit = toolsPython.deletingLastPathComponent().appendingPathComponent("pre-commit")
        let run: ([String], Clone) throws -> CommandResult = { arguments, clone in
            if arguments.first == "pre-commit" {
                return try runProcess(preCommit, Array(arguments.dropFirst()), in: clone.url, environment: env)
            }
            return try runProcess(URL(fileURLWithPath: "/usr/bin/env"), arguments, in: clone.url, environment: env)
        }
        return (run, env)
    }

    @Test(arguments: [true, false]) func setupAndThePreCommitFrameworkInEitherOrderTwiceNeverRefuseAGoodCommit(setupFirst: Bool) throws {
        let (club, one, _) = try club()
        let (run, _) = try framework(club)
        // The configuration docs/git.md shows, offline: `repo: local`.
        try one.write(".pre-commit-config.yaml", "repos:\n" + Self.documentedLocalHook())
        #expect(try run(["git", "add", ".pre-commit-config.yaml"], one).status == 0)
        #expect(try run(["git", "commit", "--no-verify", "--quiet", "-m", "hooks"], one).status == 0)
        let steps: [[String]] =
            setupFirst
            ? [["bikecheck", "git", "setup"], ["pre-commit", "install"], ["bikecheck", "git", "setup"], ["pre-commit", "install"]]
            : [["pre-commit", "install"], ["bikecheck", "git", "setup"], ["pre-commit", "install"], ["bikecheck", "git", "setup"]]
        for step in steps {
            let r = try run(step, one)
            #expect(r.status == 0, "\(step): \(r.stdout)\(r.stderr)")
        }
        let install = try run(["pre-commit", "install", "--hook-type", "pre-merge-commit"], one)
        #expect(install.status == 0, "\(install.stderr)")
        // A good commit goes through; a broken one is refused by bikecheck's check.
        try one.write("bikes/grail.yaml", Self.bike.replacingOccurrences(of: "every: 8 h", with: "every: 7 h"))
        let good = try run(["git", "commit", "-am", "good"], one)
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        try one.write("bikes/grail.yaml", Self.bike.replacingOccurrences(of: "every: 8 h", with: "every: 7 hrs"))
        let broken = try run(["git", "commit", "-am", "broken"], one)
        #expect(broken.status != 0 && (broken.stdout + broken.stderr).contains("unknown unit 'hrs'"), "\(broken.stdout)\(broken.stderr)")
        #expect(!(broken.stdout + broken.stderr).contains("migration mode"))
    }

    /// The `repo: local` hook from docs/git.md, as written there.
    static func documentedLocalHook() throws -> String {
        let page = try String(decoding: Data(contentsOf: repositoryRoot.appendingPathComponent("docs/git.md")), as: UTF8.self)
        let start = try #require(page.range(of: "```yaml\nrepos:\n"))
        let end = try #require(page.range(of: "```", range: start.upperBound..<page.endIndex))
        return String(page[start.upperBound..<end.lowerBound])
    }

    @Test func thePublishedHookNamesTheCommandItRuns() throws {
        let published = try String(decoding: Data(contentsOf: repositoryRoot.appendingPathComponent(".pre-commit-hooks.yaml")), as: UTF8.self)
        #expect(published.contains("- id: bikecheck\n") && published.contains("entry: bikecheck git check-staged\n"))
        #expect(published.contains("pass_filenames: false\n") && published.contains("language: system\n"))
        #expect(try Self.documentedLocalHook().contains("entry: bikecheck git check-staged\n"))
    }

    // MARK: - The binary as the rider runs it

    @Test func anUpgradeBehindASymlinkKeepsMergingAndABikecheckThatCannotRunFallsBackToGitsLineMerge() throws {
        let (club, one, _) = try club()
        let fm = FileManager.default
        let bin = club.folder.url.appendingPathComponent("bin")
        let versions = club.folder.url.appendingPathComponent("versions")
        try fm.createDirectory(at: bin, withIntermediateDirectories: true)
        for v in ["1.0", "1.1"] { try fm.createDirectory(at: versions.appendingPathComponent(v), withIntermediateDirectories: true) }
        let link = bin.appendingPathComponent("bikecheck")
        try copyExecutable(bikecheckBinary, to: versions.appendingPathComponent("1.0/bikecheck"))
        try fm.createSymbolicLink(at: link, withDestinationURL: versions.appendingPathComponent("1.0/bikecheck"))
        var env = gitAuthor
        env["PATH"] = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        env["NO_COLOR"] = "1"
        func run(_ arguments: [String], _ clone: Clone) throws -> CommandResult {
            try runProcess(URL(fileURLWithPath: "/usr/bin/env"), arguments, in: clone.url, environment: env)
        }
        let two = try club.clone("three")
        #expect(try run(["bikecheck", "git", "setup"], two).status == 0)
        // The upgrade: the link moves to the new version, the old one is removed.
        try copyExecutable(bikecheckBinary, to: versions.appendingPathComponent("1.1/bikecheck"))
        try fm.removeItem(at: link)
        try fm.createSymbolicLink(at: link, withDestinationURL: versions.appendingPathComponent("1.1/bikecheck"))
        try fm.removeItem(at: versions.appendingPathComponent("1.0"))
        #expect(try club.run(["done", "grail", "chain-lube", "--date", "2025-10-01", "--commit"], in: one).status == 0)
        try git(["push", "--quiet", "origin", "HEAD"], in: one.url)
        let sealant = try run(["bikecheck", "done", "grail", "sealant", "--date", "2025-10-02", "--commit"], two)
        #expect(sealant.status == 0, "\(sealant.stderr)")
        let pull = try run(["git", "pull", "--no-rebase", "--quiet", "origin", "HEAD"], two)
        #expect(pull.status == 0, "\(pull.stdout)\(pull.stderr)")
        let merged = try two.read("bikes/grail.yaml")
        #expect(merged.contains("  - date: 2025-10-01\n    done: [chain-lube]\n  - date: 2025-10-02\n    done: [sealant]\n"), "\(merged)")
        // bikecheck gone altogether: git's line merge, with markers and both sides, never ours alone.
        #expect(try club.run(["done", "grail", "chain-lube", "--date", "2025-10-05", "--commit"], in: one).status == 0)
        try git(["push", "--quiet", "origin", "HEAD"], in: one.url)
        try fm.removeItem(at: link)
        try two.write("bikes/grail.yaml", merged + "  - date: 2025-10-06\n    done: [sealant]\n")
        #expect(try run(["git", "commit", "--no-verify", "--quiet", "-am", "sealant"], two).status == 0)
        let lost = try run(["git", "pull", "--no-rebase", "origin", "HEAD"], two)
        #expect(lost.status != 0)
        #expect(lost.stderr.contains("git's line merge instead"), "\(lost.stderr)")
        let left = try two.read("bikes/grail.yaml")
        #expect(left.contains("<<<<<<< ours") && left.contains("2025-10-05") && left.contains("2025-10-06"), "\(left)")
    }

    // MARK: - Two garages in one repository

    @Test func everyGarageOfARepositoryIsCheckedAndASecondSetupKeepsTheFirstsCheck() throws {
        let folder = try TemporaryFolder([
            "road/garage.yaml": "units: metric\n", "road/bikes/tarmac.yaml": "name: Tarmac\n",
            "gravel/garage.yaml": "units: metric\n", "gravel/bikes/grail.yaml": Self.bike,
        ])
        try git(["init", "--quiet"], in: folder.url)
        for garage in ["road", "gravel"] {
            let r = try runBikecheck(["git", "setup"], in: folder.url.appendingPathComponent(garage), environment: gitAuthor)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let again = try runBikecheck(["git", "setup"], in: folder.url.appendingPathComponent("road"), environment: gitAuthor)
        #expect(again.stdout == "git setup: everything was in place already\n", "\(again.stdout)")
        try git(["add", "-A"], in: folder.url)
        try git(["commit", "--quiet", "-m", "two garages"], in: folder.url)
        // A broken file in the first garage set up is refused, and named from the top.
        try Data("name: Tarmac\nintervals:\n  chain:\n    task: Lube\n    every: 10 hrs\n".utf8).write(
            to: folder.url.appendingPathComponent("road/bikes/tarmac.yaml"))
        let refused = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["git", "commit", "-am", "broken"], in: folder.url, environment: gitAuthor)
        #expect(refused.status != 0 && refused.stderr.contains("road/bikes/tarmac.yaml:5:12: error: unknown unit 'hrs'"), "\(refused.stderr)")
    }

    // MARK: - What validate says after a merge

    @Test func conflictMarkersAreAnUnresolvedMergeAndOneServiceLoggedTwiceWithTwoCostsIsAPossibleDuplicate() throws {
        let (club, one, two) = try club()
        // The same key changed differently: the file is left with git's markers.
        try one.write("bikes/grail.yaml", Self.bike.replacingOccurrences(of: "every: 8 h", with: "every: 6 h"))
        try commitAndPush(one, "6 h")
        try two.write("bikes/grail.yaml", Self.bike.replacingOccurrences(of: "every: 8 h", with: "every: 12 h"))
        try git(["commit", "--quiet", "-am", "12 h"], in: two.url)
        #expect(try gitResult(["pull", "--no-rebase", "origin", "HEAD"], in: two).status != 0)
        let line =
            try #require(try two.read("bikes/grail.yaml").split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix("<<<<<<<") }) + 1
        let markers = try club.run(["validate"], in: two)
        #expect(markers.status == 1)
        #expect(markers.stderr.contains("bikes/grail.yaml:\(line):1: error: 'bikes/grail.yaml' holds git's conflict markers"), "\(markers.stderr)")
        #expect(markers.stderr.contains("[unresolved-merge]") && !markers.stderr.contains("[yaml-syntax]"), "\(markers.stderr)")
        try git(["merge", "--abort"], in: two.url)
        // Both riders log the chain's lube on one day, each with a cost: the merge keeps both.
        try git(["reset", "--quiet", "--hard", "origin/HEAD"], in: two.url)
        #expect(try club.run(["done", "grail", "chain-lube", "--date", "2025-10-04", "--cost", "12.50", "--commit"], in: one).status == 0)
        try git(["push", "--quiet", "origin", "HEAD"], in: one.url)
        #expect(try club.run(["done", "grail", "chain-lube", "--date", "2025-10-04", "--cost", "9.90", "--commit"], in: two).status == 0)
        let pull = try gitResult(["pull", "--no-rebase", "--quiet", "origin", "HEAD"], in: two)
        #expect(pull.status == 0, "\(pull.stderr)")
        let duplicate = try club.run(["validate"], in: two)
        #expect(
            duplicate.stderr.contains("'chain-lube' is logged twice on 2025-10-04, with different costs")
                && duplicate.stderr.contains("[possible-duplicate-service]"), "\(duplicate.stderr)")
    }

    // MARK: - The garage as it stood on a day

    @Test func revAtADayReadsTheLastCommitOnOrBeforeItAndGitsReflogWarningIsShown() throws {
        let (club, one, _) = try club()
        var env = gitAuthor
        func commit(_ day: String, _ text: String, _ message: String) throws {
            try one.write("bikes/grail.yaml", text)
            env["GIT_COMMITTER_DATE"] = "\(day)T12:00:00+00:00"
            let r = try runProcess(
                URL(fileURLWithPath: "/usr/bin/env"), ["git", "commit", "--quiet", "--no-verify", "-am", message], in: one.url, environment: env)
            #expect(r.status == 0, "\(r.stderr)")
        }
        try commit("2030-03-05", Self.bike.replacingOccurrences(of: "every: 8 h", with: "every: 8 hrs"), "broken")
        try commit("2030-03-07", Self.bike.replacingOccurrences(of: "every: 8 h", with: "every: 9 h"), "fixed")
        let broken = try club.run(["validate", "--rev", "@2030-03-06"], in: one)
        #expect(broken.status == 1 && broken.stderr.contains("unknown unit 'hrs'"), "\(broken.stderr)")
        let fixed = try club.run(["status", "--rev", "@2030-03-07", "--format", "json"], in: one)
        #expect(fixed.status == 0 && fixed.stdout.contains("\"as_of\" : \"2030-03-07\""), "\(fixed.stderr)")
        let before = try club.run(["validate", "--rev", "@2001-01-01"], in: one)
        #expect(before.status == 2 && before.stderr.contains("there is no commit on or before 2001-01-01"), "\(before.stderr)")
        // git's reflog syntax, in a fresh clone: git's own warning and what to write instead.
        let reflog = try club.run(["validate", "--rev", "@{2001-01-01}"], in: one)
        #expect(reflog.stderr.contains("warning: --rev @{2001-01-01}: '@{2001-01-01}' is git's reflog"), "\(reflog.stderr)")
        #expect(reflog.stderr.contains(" only goes back to "), "\(reflog.stderr)")
    }
}
