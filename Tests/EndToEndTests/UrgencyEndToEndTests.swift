import Foundation
import TestSupport
import Testing

/// `status --by urgency`, `--within` and `--check LEVEL`, run through the real binary.
@Suite struct UrgencyEndToEndTests {
    /// Calendar limits give forecast due days without a pace: grail's sealant is due 2026-01-31,
    /// its service 2026-04-11; gravel's check 2026-01-30 and its wax 2026-01-20. Grail's lube is
    /// overdue from a ride on 2026-01-20.
    static func garage() throws -> TemporaryFolder {
        try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "bikes/grail.yaml": """
            name: Grail
            strava: b1
            bought: 2026-01-01
            intervals:
              lube: {every: 2 h}
              sealant: {every: 30 days}
              service: {every: 100 days}

            """,
            "bikes/gravel.yaml": """
            name: Gravel
            bought: 2026-01-10
            intervals:
              check: {every: 20 days}
              wax: {every: 10 days}

            """,
            "activities/2026-01.json": """
            [
            {"distance":60000,"id":1,"moving_time":9000,"sport_type":"Ride","gear_id":"b1","start_date":"2026-01-20T08:00:00Z"}
            ]

            """,
        ])
    }

    /// Each row's state and the bike and interval it names, in order: `overdue gravel: wax`.
    static func rows(_ text: String) -> [String] {
        text.split(separator: "\n").filter { $0.hasPrefix("  ") }.map { line in
            var rest = line.trimmingCharacters(in: .whitespaces)
            var state = ""
            for s in ["overdue", "due soon", "ok"] where rest.hasPrefix(s + " ") {
                state = s
                rest = String(rest.dropFirst(s.count)).trimmingCharacters(in: .whitespaces)
            }
            return ([state] + rest.split(separator: " ").prefix(2).map(String.init)).joined(separator: " ")
        }
    }

    @Test func byUrgencyListsTheWholeGarageOverdueFirstThenByForecastDueDay() throws {
        let garage = try Self.garage()
        let r = try garage.run(["status", "--by", "urgency", "--as-of", "2026-01-25"])
        #expect(r.status == 0, "\(r.stderr)")
        // gravel's wax is 150% along, grail's lube 125%; then gravel's check (due 01-30) before
        // grail's sealant (01-31), though the sealant is further along; the service last.
        #expect(
            Self.rows(r.stdout) == [
                "overdue gravel: wax", "overdue grail: lube", "ok gravel: check", "due soon grail: sealant", "ok grail: service",
            ], "\(r.stdout)")
        #expect(r.stdout.hasPrefix("As of 2026-01-25: 2 overdue, 1 due soon, 2 ok\n\n"), "\(r.stdout)")
        // The default stays a table per bike.
        let grouped = try garage.run(["status", "--as-of", "2026-01-25"])
        #expect(grouped.stdout.contains("\ngrail · Grail\n") && grouped.stdout.contains("\ngravel · Gravel\n"), "\(grouped.stdout)")
        #expect(!grouped.stdout.contains("grail: lube"))
    }

    @Test func withinShowsOnlyWhatIsOverdueOrForecastDueInTheWindow() throws {
        let garage = try Self.garage()
        let r = try garage.run(["status", "--within", "5d", "--as-of", "2026-01-25"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("As of 2026-01-25 (overdue or due within 5 days): 2 overdue, 0 due soon, 1 ok\n"), "\(r.stdout)")
        for shown in ["lube", "wax", "check"] { #expect(r.stdout.contains("  \(shown) ") || r.stdout.contains(" \(shown)  "), "\(shown) in \(r.stdout)") }
        // Sealant is due in six days, the service in 76.
        #expect(!r.stdout.contains("sealant") && !r.stdout.contains("service"), "\(r.stdout)")
        // Weeks and the garage's own spelling read the same; a week takes the sealant in.
        for window in ["1w", "7 days", "1 week"] {
            let week = try garage.run(["status", "--within", window, "--as-of", "2026-01-25"])
            #expect(week.stdout.contains("sealant") && !week.stdout.contains("service"), "\(window): \(week.stdout)")
        }
        let nothing = try garage.run(["status", "--within", "0d", "gravel", "--as-of", "2026-01-11"])
        #expect(nothing.stdout.hasSuffix("nothing is overdue or forecast due within 0 days\n"), "\(nothing.stdout)")
        let bad = try garage.run(["status", "--within", "2 months"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("error: the value '2 months' is invalid for '--within <window>'"), "\(bad.stderr)")
    }

    @Test(arguments: [
        (["--check"], "2026-01-12", Int32(0)),
        (["--check", "due-soon"], "2026-01-12", 0),
        (["--check", "within:7d"], "2026-01-12", 0),
        // gravel's wax is forecast due in 8 days.
        (["--check", "within:8d"], "2026-01-12", 1),
        (["--check=within:2w"], "2026-01-12", 1),
        (["--check"], "2026-01-25", 1),
        // On 2026-01-19, nothing is overdue; grail's sealant (18/30) is not due soon, gravel's wax (9/10) is.
        (["--check", "overdue"], "2026-01-19", 0),
        (["--check", "due-soon"], "2026-01-19", 1),
    ])
    func checkTakesALevelAndExitsOneAtOrAboveIt(check: [String], asOf: String, status: Int32) throws {
        let garage = try Self.garage()
        let r = try garage.run(["status"] + check + ["--as-of", asOf])
        #expect(r.status == status, "\(check) on \(asOf): \(r.stdout)\(r.stderr)")
    }

    @Test func aBareCheckBeforeABikeKeepsItsOldMeaning() throws {
        let garage = try Self.garage()
        // `--check grail`: grail is a bike, not a level.
        let r = try garage.run(["status", "--check", "grail", "--as-of", "2026-01-25"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stdout.contains("\ngrail · Grail\n") && !r.stdout.contains("gravel"), "\(r.stdout)")
        // With no command, status runs, levels and all.
        let bare = try runBikecheck(["--garage", garage.path, "--check", "within:8d", "--as-of", "2026-01-12"], in: garage.root)
        #expect(bare.status == 1, "\(bare.stderr)")
        let typo = try garage.run(["status", "--check", "within:8x"])
        #expect(typo.status == 2)
        #expect(typo.stderr.hasPrefix("error: 'within:8x' is not a level for --check\n  help: write overdue, due-soon, or within:N"), "\(typo.stderr)")
    }

    @Test func jsonCarriesEachIntervalsBandAndTheUrgencyOrder() throws {
        let garage = try Self.garage()
        let r = try garage.run(["status", "--format", "json", "--by", "urgency", "--as-of", "2026-01-25"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let urgency = try #require(json["urgency"] as? [[String: Any]])
        #expect(
            urgency.map { "\($0["bike"] ?? "")/\($0["interval"] ?? "")=\($0["band"] ?? "")" } == [
                "gravel/wax=overdue", "grail/lube=overdue", "gravel/check=within:7d", "grail/sealant=within:7d", "grail/service=ok",
            ])
        let bikes = try #require(json["bikes"] as? [[String: Any]])
        let bands = bikes.flatMap { b in (b["intervals"] as? [[String: Any]] ?? []).map { "\(b["id"]!)/\($0["id"]!)=\($0["band"]!)" } }
        #expect(bands.contains("grail/sealant=within:7d") && bands.contains("grail/service=ok"), "\(bands)")
        // Without --by urgency there is no urgency list; the bands are there all the same.
        let grouped = try garage.run(["status", "--format", "json", "--as-of", "2026-01-12"])
        let plain = try #require(try JSONSerialization.jsonObject(with: Data(grouped.stdout.utf8)) as? [String: Any])
        #expect(plain["urgency"] == nil)
        #expect(grouped.stdout.contains("\"band\" : \"within:30d\""), "\(grouped.stdout)")
        for output in [r.stdout, grouped.stdout] {
            let folder = try TemporaryFolder()
            try folder.write("status.json", output)
            let check = try #require(
                try checkJSONSchema(["--schemafile", repositoryRoot.appendingPathComponent("schemas/status.schema.json").path, "status.json"], in: folder.url))
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
    }

    @Test func theGaragesNotifyBandsSetStatusForecastWindows() throws {
        let garage = try Self.garage()
        try garage.write("garage.yaml", "units: metric\nnotify:\n  bands: [overdue, 10d]\n")
        let r = try garage.run(["status", "--format", "json", "--as-of", "2026-01-12"])
        #expect(r.status == 0, "\(r.stderr)")
        // Only gravel's wax (8 days away) is in a window of 10 days; nothing is in one of 30.
        #expect(r.stdout.components(separatedBy: "\"band\" : \"within:10d\"").count == 2, "\(r.stdout)")
        #expect(!r.stdout.contains("within:30d"))
    }
}
