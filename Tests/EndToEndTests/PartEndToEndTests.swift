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
