import Foundation
import TestSupport
import Testing

/// `bikecheck diff REV1 [REV2]` (issue 29): real git commits in a temporary garage, the real
/// binary; what changed as a rider reads it, not the files' text.
@Suite struct GarageDiffEndToEndTests {
    static let grail = """
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
            done: [chain-lube]

        """
    static let wheels = "name: Race wheels\nmounts:\n  - bike: grail\n    from: 2025-01-01\n"

    /// A garage with one commit (tagged `one`), then a second commit: a service with a cost
    /// logged, an interval's `every` changed and one removed, a bike added and retired, the
    /// wheels moved from the Grail to it.
    func twoCommits() throws -> TemporaryFolder {
        let garage = try TemporaryFolder()
        try garage.write("garage.yaml", "units: metric\ncurrency: EUR\n")
        try garage.write("bikes/grail.yaml", Self.grail)
        try garage.write("parts/wheels.yaml", Self.wheels)
        try git(["init", "--quiet"], in: garage.url)
        try git(["add", "-A"], in: garage.url)
        // Committed on a day of its own, for `@YYYY-MM-DD`.
        let first = try runProcess(
            URL(fileURLWithPath: "/usr/bin/env"), ["git", "commit", "--quiet", "-m", "garage"], in: garage.url,
            environment: gitAuthor.merging(["GIT_COMMITTER_DATE": "2025-09-20T12:00:00"]) { a, _ in a })
        #expect(first.status == 0, "\(first.stderr)")
        try git(["tag", "one"], in: garage.url)
        let grail = Self.grail.replacingOccurrences(of: "every: 10 h", with: "every: 15 h")
            .replacingOccurrences(of: "  sealant:\n    task: Top up sealant\n    every: 3 months\n", with: "")
        try garage.write("bikes/grail.yaml", grail + "  - date: 2025-10-01\n    done: [chain-lube]\n    cost: 12.50\n    note: wet ride\n")
        try garage.write("bikes/road.yaml", "name: Road\nretired: 2025-11-01\n")
        try garage.write("parts/wheels.yaml", Self.wheels + "    to: 2025-10-05\n  - bike: road\n    from: 2025-10-06\n")
        try git(["add", "-A"], in: garage.url)
        try git(["commit", "--quiet", "-m", "autumn"], in: garage.url)
        return garage
    }

    @Test func diffBetweenTwoCommitsListsWhatARiderChanged() throws {
        let garage = try twoCommits()
        let text = try runBikecheck(["diff", "one", "HEAD"], in: garage.url)
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(
            lines == [
                "CHANGE BIKE PART DATE WHAT COST CUR",
                "service logged grail 2025-10-01 chain-lube — wet ride 12.50 EUR",
                "interval removed grail sealant: was every 3 months",
                "interval changed grail chain-lube: every 10 h → 15 h",
                "bike added road Road",
                "bike retired road 2025-11-01 Road",
                "part mounted road wheels 2025-10-06 on road",
                "part unmounted grail wheels 2025-10-05 off grail",
            ], "\(text.stdout)")
        // The other way round, the service is taken out and the bike removed.
        let back = try runBikecheck(["diff", "HEAD", "one", "--format", "csv"], in: garage.url)
        let csv = back.stdout.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(csv.contains("service removed,grail,,2025-10-01,chain-lube — wet ride,12.50,EUR\n"), "\(csv)")
        #expect(csv.contains("part mounted,grail,wheels,2025-01-01,on grail,,\n"), "\(csv)")
        #expect(csv.contains("bike removed,road,,,Road,,\n") && csv.contains("mount removed,road,wheels,2025-10-06,no longer on road,,\n"))
        // The JSON names both commits and holds to its schema.
        let json = try runBikecheck(["diff", "one", "HEAD", "--format", "json"], in: garage.url)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let head = try git(["rev-parse", "HEAD"], in: garage.url).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(object["to_commit"] as? String == head && object["from"] as? String == "one")
        #expect((object["changes"] as? [[String: Any]])?.first?["cost"] as? String == "12.50")
        try json.stdout.write(to: garage.url.appendingPathComponent("diff.json"), atomically: true, encoding: .utf8)
        let schema = repositoryRoot.appendingPathComponent("schemas/diff.schema.json").path
        if let checked = try checkJSONSchema(["--schemafile", schema, "diff.json"], in: garage.url) {
            #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        }
        let markdown = try runBikecheck(["diff", "one", "HEAD", "--format", "markdown"], in: garage.url)
        #expect(markdown.stdout.hasPrefix("| CHANGE | BIKE | PART | DATE | WHAT | COST | CUR |\n"), "\(markdown.stdout)")
    }

    /// An interval given another repeat rule or a wear limit is a change, as another `every`
    /// is; a reading logged is an entry of the log like a service.
    @Test func aRepeatRuleAWearLimitAndAReadingAreChanges() throws {
        let garage = try twoCommits()
        let grail = try garage.read("bikes/grail.yaml")
            .replacingOccurrences(of: "every: 15 h\n", with: "every: 15 h\n    repeat: fixed\n    wear_limit: 0.75 %\n")
        try garage.write("bikes/grail.yaml", grail + "  - date: 2025-10-02\n    readings: {chain-lube: 0.3 %}\n")
        let r = try runBikecheck(["diff", "HEAD"], in: garage.url)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(
            lines == [
                "CHANGE BIKE DATE WHAT COST CUR",
                "service logged grail 2025-10-02 measured chain-lube 0.3 %",
                "interval changed grail chain-lube: every 15 h → 15 h, repeat: fixed, wear_limit: 0.75 %",
            ], "\(r.stdout)")
        // Back to the default rule: a change again.
        try garage.write("bikes/grail.yaml", grail.replacingOccurrences(of: "    repeat: fixed\n", with: ""))
        try git(["add", "-A"], in: garage.url)
        try git(["commit", "--quiet", "-m", "fixed"], in: garage.url)
        try garage.write("bikes/grail.yaml", grail.replacingOccurrences(of: "    repeat: fixed\n", with: "    repeat: catch-up\n"))
        let back = try runBikecheck(["diff", "HEAD"], in: garage.url)
        #expect(back.stdout.contains("chain-lube: every 15 h, wear_limit: 0.75 % → 15 h, repeat: catch-up, wear_limit: 0.75 %"), "\(back.stdout)")
    }

    @Test func withOneRevisionTheWorkTreeIsComparedAndCommentsAreNoChange() throws {
        let garage = try twoCommits()
        // A comment and a re-indented note: the text changed, the garage did not.
        let grail = try String(contentsOf: garage.url.appendingPathComponent("bikes/grail.yaml"), encoding: .utf8)
        try garage.write("bikes/grail.yaml", grail.replacingOccurrences(of: "# the gravel bike", with: "# the gravel bike, bought used"))
        let none = try runBikecheck(["diff", "HEAD"], in: garage.url)
        #expect(none.status == 0, "\(none.stderr)")
        #expect(none.stdout.contains("No changes to bikes, parts, intervals or the logs."), "\(none.stdout)")
        // A service logged with `done`, not committed: the work tree has it.
        let done = try runBikecheck(["done", "grail", "chain-lube", "--date", "2025-11-02"], in: garage.url)
        #expect(done.status == 0, "\(done.stderr)")
        let json = try runBikecheck(["diff", "HEAD", "--format", "json"], in: garage.url)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["to_commit"] == nil && object["to"] == nil)
        let changes = try #require(object["changes"] as? [[String: Any]])
        #expect(changes.count == 1 && changes[0]["change"] as? String == "service-logged" && changes[0]["date"] as? String == "2025-11-02")
        // @YYYY-MM-DD: the last commit on or before the day (the first commit).
        let byDay = try runBikecheck(["diff", "@2025-09-30", "HEAD"], in: garage.url)
        #expect(byDay.status == 0 && byDay.stdout.contains("service logged"), "\(byDay.stderr)")
    }

    @Test func aRevisionThatLooksLikeAnOptionIsNoOptionOfGits() throws {
        let garage = try twoCommits()
        let r = try runBikecheck(["diff", "--", "--output=written", "HEAD"], in: garage.url)
        #expect(r.status == 2)
        #expect(r.stderr.contains("'--output=written' is not a commit of this repository"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: garage.url.appendingPathComponent("written").path))
        #expect(try git(["status", "--porcelain"], in: garage.url).isEmpty)
    }
}
