import Foundation
import StravaStandIn
import TestSupport
import Testing

/// A household on one garage (docs/household.md): `riders:` in garage.yaml, `rider:` on bikes
/// and parts, and `status --rider`.
@Suite struct HouseholdEndToEndTests {
    static let asOf = ["--as-of", "2026-11-15"]
    static let notifyDay = "2026-11-15"

    /// The example garage shared by alex (grail, tarmac) and sam (stumpy, the spare chain);
    /// charger is nobody's.
    static func household() throws -> TemporaryFolder {
        let garage = try TemporaryFolder(copying: true)
        try garage.write(
            "garage.yaml", try garage.read("garage.yaml") + "riders:\n  alex:\n  sam:\n    notify:\n      ntfy: {topic: sam-bikes}\n")
        for (file, rider) in [("bikes/grail.yaml", "alex"), ("bikes/tarmac.yaml", "alex"), ("bikes/stumpy.yaml", "sam"), ("parts/spare-chain.yaml", "sam")] {
            try garage.write(file, try garage.read(file).replacingOccurrences(of: "\nname: ", with: "\nrider: \(rider)\nname: "))
        }
        return garage
    }

    @Test func ridersAndTheirBikesValidate() throws {
        let garage = try Self.household()
        let r = try garage.run(["validate"])
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test func aBikeOfAnUnknownRiderIsALocatedErrorWithTheNearestName() throws {
        let garage = try Self.household()
        try garage.write("bikes/stumpy.yaml", try garage.read("bikes/stumpy.yaml").replacingOccurrences(of: "rider: sam", with: "rider: sma"))
        let r = try garage.run(["validate"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("bikes/stumpy.yaml:2:8: error: unknown rider 'sma'; did you mean 'sam'? [unknown-rider]"), "\(r.stderr)")
    }

    @Test func statusForOneRiderShowsOnlyTheirBikesAndParts() throws {
        let garage = try Self.household()
        let everyone = try garage.run(["status"] + Self.asOf)
        #expect(everyone.status == 0, "\(everyone.stderr)")
        for bike in ["charger", "grail", "stumpy", "tarmac"] { #expect(everyone.stdout.contains("\n\(bike) · "), "\(everyone.stdout)") }

        let sam = try garage.run(["status", "--rider", "sam"] + Self.asOf)
        #expect(sam.status == 0, "\(sam.stderr)")
        #expect(sam.stdout.contains("\nstumpy · "), "\(sam.stdout)")
        #expect(sam.stdout.contains("spare-chain"), "\(sam.stdout)")
        for bike in ["charger", "grail", "tarmac"] { #expect(!sam.stdout.contains("\(bike) · "), "\(sam.stdout)") }

        // The race wheels are nobody's, and show under alex's tarmac, where they are mounted.
        let alex = try garage.run(["status", "--rider", "alex", "--format", "json"] + Self.asOf)
        #expect(alex.status == 0, "\(alex.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(alex.stdout.utf8)) as? [String: Any])
        let ids = (json["bikes"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(ids == ["grail", "tarmac"] || ids == ["tarmac", "grail"], "\(ids)")
        #expect(alex.stdout.contains("race-wheels"))
        #expect(!alex.stdout.contains("spare-chain"))

        // Naming bikes with --rider keeps only the rider's among them.
        let named = try garage.run(["status", "--rider", "sam", "stumpy", "grail"] + Self.asOf)
        #expect(named.stdout.contains("\nstumpy · ") && !named.stdout.contains("grail · "), "\(named.stdout)")
    }

    @Test func aHouseholdsStatusIsGroupedByRiderWithTheSharedBikesLast() throws {
        let garage = try Self.household()
        let r = try garage.run(["status"] + Self.asOf)
        #expect(r.status == 0, "\(r.stderr)")
        let titles = r.stdout.split(separator: "\n").filter { $0.contains(" · ") && !$0.hasPrefix(" ") }.map { String($0) }
        #expect(
            titles.prefix(4).map { String($0.prefix { $0 != " " }) } == ["grail", "tarmac", "stumpy", "charger"]
                || titles.prefix(4).map { String($0.prefix { $0 != " " }) } == ["tarmac", "grail", "stumpy", "charger"], "\(titles)")
        #expect(titles.contains { $0.hasPrefix("stumpy · ") && $0.hasSuffix(" · rider sam") }, "\(titles)")
        #expect(titles.contains { $0.hasPrefix("charger · ") && !$0.contains("rider") }, "\(titles)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(try garage.run(["status", "--format", "json"] + Self.asOf).stdout.utf8)) as? [String: Any])
        let riders = Dictionary(uniqueKeysWithValues: (json["bikes"] as? [[String: Any]] ?? []).map { ($0["id"] as? String ?? "", $0["rider"] as? String) })
        #expect(riders == ["grail": "alex", "tarmac": "alex", "stumpy": "sam", "charger": nil, "running-shoes": nil], "\(riders)")
        // A garage of one rider prints as before: no rider anywhere.
        let single = try TemporaryFolder(copying: true)
        #expect(!(try single.run(["status", "--format", "json"] + Self.asOf).stdout.contains("\"rider\"")))
    }

    @Test func anUnknownRiderOnTheCommandLineIsAUsageErrorWithTheNearestName() throws {
        let garage = try Self.household()
        let r = try garage.run(["status", "--rider", "sma"] + Self.asOf)
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("no rider 'sma'; did you mean 'sam'?"), "\(r.stderr)")
        let single = try TemporaryFolder(copying: true)
        let none = try single.run(["status", "--rider", "sam"] + Self.asOf)
        #expect(none.status == 2)
        #expect(none.stderr.contains("this garage has no riders"), "\(none.stderr)")
    }

    @Test func aRiderWithNoBikesGetsAnEmptyStatusNotEveryonesBikes() throws {
        let garage = try Self.household()
        try garage.write("garage.yaml", try garage.read("garage.yaml") + "  kim:\n")
        let r = try garage.run(["status", "--rider", "kim"] + Self.asOf)
        #expect(r.status == 0, "\(r.stderr)")
        for bike in ["charger", "grail", "stumpy", "tarmac"] { #expect(!r.stdout.contains("\(bike) · "), "\(r.stdout)") }
    }

    @Test func theReportsCalendarAndPageForOneRiderShowOnlyTheirBikes() throws {
        let garage = try Self.household()
        for command in [["costs"], ["usage"], ["history"], ["rides"]] {
            let sam = try garage.run(command + ["--rider", "sam", "--format", "csv"] + Self.asOf)
            #expect(sam.status == 0, "\(command): \(sam.stderr)")
            let lines = sam.stdout.split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false) }
            let column = try #require(lines.first?.firstIndex(of: "bike"), "\(command): \(sam.stdout)")
            let bikes = Set(lines.dropFirst().map { String($0[column]) })
            #expect(bikes == ["stumpy"], "\(command): \(bikes)")
        }
        let calendar = try garage.run(["calendar", "--rider", "sam"] + Self.asOf)
        #expect(calendar.status == 0, "\(calendar.stderr)")
        #expect(calendar.stdout.contains("SUMMARY:Specialized Stumpjumper"), "\(calendar.stdout)")
        #expect(!calendar.stdout.contains("Canyon") && !calendar.stdout.contains("Tarmac"), "\(calendar.stdout)")
        let page = try garage.run(["report", "--rider", "alex"] + Self.asOf)
        #expect(page.status == 0, "\(page.stderr)")
        #expect(page.stdout.contains("id=\"bike-grail\"") && page.stdout.contains("id=\"bike-tarmac\""))
        #expect(!page.stdout.contains("id=\"bike-stumpy\"") && !page.stdout.contains("id=\"bike-charger\""))
        // A rider with no bikes gets an empty report, not everyone's; an unknown one a usage error.
        try garage.write("garage.yaml", try garage.read("garage.yaml") + "  kim:\n")
        let kim = try garage.run(["costs", "--rider", "kim"] + Self.asOf)
        #expect(kim.status == 0 && kim.stdout.contains("(nothing in this span)"), "\(kim.stdout)\(kim.stderr)")
        let unknown = try garage.run(["usage", "--rider", "sma"] + Self.asOf)
        #expect(unknown.status == 2 && unknown.stderr.contains("no rider 'sma'; did you mean 'sam'?"), "\(unknown.stderr)")
    }

    @Test func costsByRiderSumEachRidersBikesAndTheSharedOnesApart() throws {
        let garage = try Self.household()
        let byRider = try garage.run(["costs", "--by", "rider", "--format", "json"] + Self.asOf)
        #expect(byRider.status == 0, "\(byRider.stderr)")
        let rows = try #require((try JSONSerialization.jsonObject(with: Data(byRider.stdout.utf8)) as? [String: Any])?["rows"] as? [[String: Any]])
        #expect(rows.map { $0["group"] as? String } == ["(shared)", "alex", "sam"], "\(rows)")
        // Each rider's line is the sum of their bikes' and parts' lines, as `--rider` shows them.
        for rider in ["alex", "sam"] {
            let own = try garage.run(["costs", "--rider", rider, "--format", "json"] + Self.asOf)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(own.stdout.utf8)) as? [String: Any])
            let total = (json["totals"] as? [[String: Any]])?.first?["total"] as? String
            let line = rows.first { $0["group"] as? String == rider }?["total"] as? String
            #expect(total != nil && total == line, "\(rider): \(String(describing: total)) vs \(String(describing: line))")
        }
    }

    /// Runs bikecheck off the test's task pool, which the receiver needs to answer.
    static func run(_ garage: TemporaryFolder, _ arguments: [String]) async throws -> CommandResult {
        let root = garage.root
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<CommandResult, Error>, Never>) in
            // A generous bound, as NotifyEndToEndTests gives: on a loaded 2-core machine the
            // receiver can go unscheduled for longer than the default bound's 7 s stall limit.
            DispatchQueue.global().async {
                continuation.resume(returning: Result { try runBikecheck(arguments, in: root, environment: ["BIKECHECK_NOTIFY_TIMEOUT_MS": "60000"]) })
            }
        }
        return try result.get()
    }

    /// The bikes and parts of each request's reminders to `path`, as `bike/part`.
    static func subjects(_ requests: [NotifyReceiver.Request]) throws -> Set<String> {
        var out: Set<String> = []
        for request in requests {
            let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
            for r in json["reminders"] as? [[String: Any]] ?? [] { out.insert("\(r["bike"] as? String ?? "")/\(r["part"] as? String ?? "")") }
        }
        return out
    }

    @Test func eachRidersChannelGetsOnlyTheirBikesAndTheGaragesGetsEverything() async throws {
        let garage = try Self.household()
        let http = NotifyReceiver()
        try await http.start()
        let base = await http.baseURL
        try garage.write(
            "garage.yaml",
            try garage.read("garage.yaml").replacingOccurrences(of: "riders:\n  alex:\n  sam:\n    notify:\n      ntfy: {topic: sam-bikes}\n", with: "")
                + """
                notify:
                  webhook: {url: \(base)/hooks/household}
                riders:
                  alex:
                    notify: {webhook: {url: \(base)/hooks/alex}}
                  sam:
                    notify: {webhook: {url: \(base)/hooks/sam}}

                """)
        let first = try await Self.run(garage, ["notify", "--as-of", Self.notifyDay])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("alex/webhook: sent "), "\(first.stdout)")
        #expect(first.stdout.contains("sam/webhook: sent "), "\(first.stdout)")
        let alex = try Self.subjects(await http.requests(to: "/hooks/alex"))
        let sam = try Self.subjects(await http.requests(to: "/hooks/sam"))
        let household = try Self.subjects(await http.requests(to: "/hooks/household"))
        #expect(!alex.isEmpty && alex.allSatisfy { $0.hasPrefix("grail/") || $0.hasPrefix("tarmac/") }, "\(alex)")
        #expect(!sam.isEmpty && sam.allSatisfy { $0.hasPrefix("stumpy/") || $0.hasSuffix("/spare-chain") }, "\(sam)")
        // The household's channel has every reminder (charger, nobody's, has none due that day).
        #expect(household == alex.union(sam), "\(household)")

        // What each rider's channel took is kept apart: a second run sends nothing anywhere.
        let second = try await Self.run(garage, ["notify", "--as-of", Self.notifyDay])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout == "nothing new to send (11 reminders due, all sent)\n", "\(second.stdout)")
        #expect(await http.requests.count == 3)
        await http.stop()
    }
}
