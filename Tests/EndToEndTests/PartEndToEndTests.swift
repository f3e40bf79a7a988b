import Foundation
import TestSupport
import Testing

@Suite struct PartEndToEndTests {
    @Test func statusShowsAMountedPartsIntervalsUnderItsBikeAndAShelvedPartOnItsOwn() throws {
        let r = try runBikecheck(["status", "--garage", exampleGarage.path, "--as-of", "2026-11-15"], in: repositoryRoot)
        #expect(r.status == 0, "\(r.stderr)")
        let tarmac = try #require(r.stdout.components(separatedBy: "\n\n").first { $0.hasPrefix("tarmac · ") })
        #expect(tarmac.contains("race-wheels: hub-service"), "\(r.stdout)")
        #expect(r.stdout.contains("\nspare-chain · KMC X11 spare chain (part, on the shelf)\n"), "\(r.stdout)")
    }

    @Test func statusNamesAPartAndSuggestsOneForATypo() throws {
        let r = try runBikecheck(["status", "race-wheels", "--garage", exampleGarage.path, "--as-of", "2026-11-15"], in: repositoryRoot)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\nrace-wheels · DT Swiss ARC 1100 wheelset (part, on tarmac)\n"), "\(r.stdout)")
        #expect(!r.stdout.contains("tarmac · "), "only the part is shown")
        let typo = try runBikecheck(["status", "race-wheel", "--garage", exampleGarage.path], in: repositoryRoot)
        #expect(typo.status == 2)
        #expect(typo.stderr.contains("no bike or part 'race-wheel'; did you mean 'race-wheels'?"), "\(typo.stderr)")
    }

    @Test func partListAndShowGiveEachPartsLifeAndItsMounts() throws {
        let list = try runBikecheck(["part", "list", "--garage", exampleGarage.path, "--as-of", "2026-11-15"], in: repositoryRoot)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("\n  race-wheels  on tarmac "), "\(list.stdout)")
        #expect(list.stdout.contains("\n  spare-chain  on the shelf  0 km "), "\(list.stdout)")
        #expect(list.stdout.contains("\n  grail/chain "), "\(list.stdout)")
        let show = try runBikecheck(["part", "show", "race-wheels", "--garage", exampleGarage.path, "--as-of", "2026-11-15"], in: repositoryRoot)
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("\n    grail   2025-11-01 – 2026-04-30 "), "\(show.stdout)")
        #expect(show.stdout.contains("\n    tarmac  2026-05-01 – now "), "\(show.stdout)")
        let typo = try runBikecheck(["part", "show", "race-weels", "--garage", exampleGarage.path], in: repositoryRoot)
        #expect(typo.status == 2)
        #expect(typo.stderr.contains("no part 'race-weels'; did you mean 'race-wheels'?"), "\(typo.stderr)")
    }
}

@Suite struct PartWritesEndToEndTests {
    @Test func swapsCommittedOneByOneReadAsThePartsHistoryInGitLog() throws {
        let garage = try TemporaryFolder(copying: true)
        try git(["init", "--quiet"], in: garage.root)
        try git(["add", "-A"], in: garage.root)
        try git(["commit", "--quiet", "-m", "garage"], in: garage.root)

        let dry = try garage.run(["part", "mount", "race-wheels", "grail", "--date", "2026-11-10", "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("+  - {bike: tarmac, from: 2026-05-01, to: 2026-11-09}   # race season\n"), "\(dry.stdout)")
        #expect(try git(["status", "--porcelain"], in: garage.root).isEmpty, "a dry run writes nothing")

        for (arguments, message) in [
            (["part", "mount", "race-wheels", "grail", "--date", "2026-11-10"], "race-wheels: moved from tarmac to grail 2026-11-10"),
            (["done", "race-wheels", "hub-service", "--date", "2026-11-12", "--cost", "35"], "race-wheels: hub-service done 2026-11-12"),
            (["part", "unmount", "race-wheels", "--date", "2026-11-14"], "race-wheels: off grail 2026-11-14, on the shelf"),
            (["part", "mount", "spare-chain", "stumpy", "--date", "2026-11-14"], "spare-chain: mounted on stumpy 2026-11-14"),
            (["part", "retire", "race-wheels", "--date", "2026-11-15"], "race-wheels: retired 2026-11-15"),
        ] {
            let r = try garage.run(arguments + ["--commit"], environment: gitAuthor)
            #expect(r.status == 0, "\(arguments): \(r.stderr)")
            #expect(r.stdout.contains(": \(message)\n"), "\(r.stdout)")
        }
        let log = try git(["log", "--format=%s", "--", "parts/race-wheels.yaml"], in: garage.root)
        #expect(
            log == """
                race-wheels: retired 2026-11-15
                race-wheels: off grail 2026-11-14, on the shelf
                race-wheels: hub-service done 2026-11-12
                race-wheels: moved from tarmac to grail 2026-11-10
                garage

                """)
        #expect(try git(["status", "--porcelain"], in: garage.root).isEmpty)
        let validate = try garage.run(["validate"])
        #expect(validate.status == 0, "\(validate.stderr)")
    }

    @Test func refusedMountsChangeNothing() throws {
        let garage = try TemporaryFolder(copying: true)
        let before = try garage.read("parts/race-wheels.yaml")
        // Before the wheels went on the tarmac, on a bike that does not exist, a part that does not exist.
        for (arguments, status, text) in [
            (["part", "mount", "race-wheels", "grail", "--date", "2026-05-01"], Int32(1), "it cannot move on or before that day"),
            (["part", "mount", "race-wheels", "grial"], 2, "no bike 'grial'; did you mean 'grail'?"),
            (["part", "mount", "race-weels", "grail"], 2, "no part 'race-weels'; did you mean 'race-wheels'?"),
            (["part", "unmount", "spare-chain"], 1, "part 'spare-chain' is on no bike"),
            (["done", "race-wheels", "hub-servce"], 2, "part 'race-wheels' has no interval 'hub-servce'; did you mean 'hub-service'?"),
        ] {
            let r = try garage.run(arguments)
            #expect(r.status == status, "\(arguments): \(r.stdout)\(r.stderr)")
            #expect(r.stderr.contains(text), "\(arguments): \(r.stderr)")
        }
        #expect(try garage.read("parts/race-wheels.yaml") == before)
    }

    @Test func aPartAddedIsOnTheShelfUntilMounted() throws {
        let garage = try TemporaryFolder(copying: true)
        let add = try garage.run(["part", "add", "rain-wheels", "--name", "Hunt 4 Season", "--bought", "2026-10-01", "--template", "wheelset"])
        #expect(add.status == 0, "\(add.stderr)")
        #expect(try garage.read("parts/rain-wheels.yaml").hasSuffix("name: Hunt 4 Season\nbought: 2026-10-01\ntemplates: [wheelset]\n"))
        let status = try garage.run(["status", "--as-of", "2026-11-15"])
        #expect(status.stdout.contains("\nrain-wheels · Hunt 4 Season (part, on the shelf)\n"), "\(status.stdout)")
        let again = try garage.run(["part", "add", "rain-wheels", "--name", "Other"])
        #expect(again.status == 1 && again.stderr.contains("there is already a part 'rain-wheels'"), "\(again.stderr)")
    }
}
