import Foundation
import TestSupport
import Testing

/// `repeat:` (docs/due.md, "Repeat rules"): `from-done`, `fixed` and `catch-up`, each on a
/// minimal garage with the due days and progress worked out by hand, late and early services,
/// month ends and a leap day among them.
@Suite struct RepeatRuleEndToEndTests {
    /// The first interval's first limit of the first bike (or, with `part`, of the first part
    /// on the shelf), from `status --format json`.
    static func limit(_ garage: TemporaryFolder, asOf: String, part: Bool = false) throws -> (state: String, limit: [String: Any]) {
        let r = try garage.run(["status", "--as-of", asOf, "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let owner = try #require((json[part ? "parts" : "bikes"] as? [[String: Any]])?.first)
        let interval = try #require((owner["intervals"] as? [[String: Any]])?.first)
        return (try #require(interval["state"] as? String), try #require((interval["limits"] as? [[String: Any]])?.first))
    }

    /// The first interval's `since` (where its count runs from) in `status --format json`, and
    /// in the text.
    static func since(_ garage: TemporaryFolder, asOf: String) throws -> String? {
        let r = try garage.run(["status", "--as-of", asOf, "--format", "json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let bike = try #require((json["bikes"] as? [[String: Any]])?.first)
        let since = try #require((bike["intervals"] as? [[String: Any]])?.first)["since"] as? String
        let text = try garage.run(["status", "--as-of", asOf]).stdout
        #expect(since.map { text.contains("since \($0)") } ?? true, "\(text)")
        return since
    }

    static func bike(bought: String, every: String, rule: String, done: [String]) -> String {
        """
        name: B
        bought: \(bought)
        intervals:
          service: {every: \(every), repeat: \(rule)}
        log:
        \(done.map { "  - {date: \($0), done: [service]}" }.joined(separator: "\n"))

        """
    }

    /// docs/due.md's table: bought 2024-03-01, every 12 months, first due 2025-03-01, done once,
    /// late, on 2026-04-10. The count runs from the service (from-done), or from the start of the
    /// current window: point 1, 2025-03-01 (fixed), point 2, 2026-03-01 (catch-up).
    @Test(arguments: [
        ("from-done", "ok", "2027-04-10", "2026-04-10"),
        ("fixed", "overdue", nil, "2025-03-01"),
        ("catch-up", "ok", "2027-03-01", "2026-03-01"),
    ])
    func theDocumentedExampleGivesTheDocumentedDueDays(rule: String, state: String, due: String?, since: String) throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "bikes/b.yaml": Self.bike(bought: "2024-03-01", every: "12 months", rule: rule, done: ["2026-04-10"]),
        ])
        let (s, limit) = try Self.limit(garage, asOf: "2026-04-15")
        #expect(s == state)
        #expect(limit["due"] as? String == due)
        #expect(try Self.since(garage, asOf: "2026-04-15") == since)
        if rule == "fixed" {
            // The window 2025-03-01 to 2026-03-01 (365 days), 410 days in: 410 × 12 / 365.
            #expect(limit["used"] as? Double == 13.4795)
        }
    }

    /// A leap day base: the due points are 2025-02-28, 2026-02-28, 2027-02-28, 2028-02-29 (each
    /// counted from 2024-02-29, so the 28th of a common year does not stick). One service, late
    /// past the second point.
    @Test(arguments: [
        ("from-done", "ok", "2027-03-10"),
        ("fixed", "overdue", nil),
        ("catch-up", "ok", "2027-02-28"),
    ])
    func aLeapDayBaseAndAServiceLatePastTwoDuePoints(rule: String, state: String, due: String?) throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "bikes/b.yaml": Self.bike(bought: "2024-02-29", every: "12 months", rule: rule, done: ["2026-03-10"]),
        ])
        let (s, limit) = try Self.limit(garage, asOf: "2026-03-15")
        #expect(s == state)
        #expect(limit["due"] as? String == due)
        if rule == "fixed" {
            // Still in the window of point 2 (2025-02-28 to 2026-02-28, 365 days), 380 days in.
            #expect(limit["used"] as? Double == 12.4932)
        }
        // Four years on, the points come back to the 29th: with fixed and three services after
        // the base, the next is point 4, 2028-02-29.
        if rule == "fixed" {
            try garage.write("bikes/b.yaml", Self.bike(bought: "2024-02-29", every: "12 months", rule: rule, done: ["2025-03-01", "2026-03-01", "2027-03-01"]))
            #expect(try Self.limit(garage, asOf: "2027-06-01").limit["due"] as? String == "2028-02-29")
        }
    }

    /// A base on the 31st, every month: points 2025-02-28, 2025-03-31, 2025-04-30, 2025-05-31
    /// (each from the base, not from the one before: no drift to the 28th). An early service
    /// (2025-02-20, before point 1), then a late one (2025-05-02, past point 3). fixed: two
    /// services, so point 3, passed: overdue. catch-up: the first moves on to point 2; the second
    /// to point 3, which is not past the service, so to point 4. from-done: a month after.
    @Test(arguments: [
        ("from-done", "ok", "2025-06-02"),
        ("fixed", "overdue", nil),
        ("catch-up", "ok", "2025-05-31"),
    ])
    func monthEndsAndAnEarlyThenALateService(rule: String, state: String, due: String?) throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "bikes/b.yaml": Self.bike(bought: "2025-01-31", every: "1 months", rule: rule, done: ["2025-02-20", "2025-05-02"]),
        ])
        let (s, limit) = try Self.limit(garage, asOf: "2025-05-03")
        #expect(s == state)
        #expect(limit["due"] as? String == due)
    }

    /// `every: 100 km` on the odometer: 30 km a day from 2026-01-02; serviced once, on
    /// 2026-01-09, when the rides before it made 210 km. As of 2026-01-10 the odometer is 270 km.
    /// fixed: next is point 2 (200 km), window 100–200 km: 170 km used, overdue; the window
    /// began on the 5th, when the odometer reached 120 km. catch-up: past 210 km, so point 3
    /// (300 km), window 200–300: 70 km, from the 8th (210 km). from-done: the rides of the 9th
    /// and 10th, 60 km.
    @Test(arguments: [
        ("from-done", "ok", 60_000.0, "2026-01-09"),
        ("fixed", "overdue", 170_000.0, "2026-01-05"),
        ("catch-up", "ok", 70_000.0, "2026-01-08"),
    ])
    func theOdometerKeepsItsOwnDuePoints(rule: String, state: String, used: Double, since: String) throws {
        let rides = (2...11).map { day in
            let d = String(format: "2026-01-%02d", day)
            return
                #"{"distance":30000,"id":\#(day),"moving_time":3600,"sport_type":"Ride","gear_id":"b1","start_date":"\#(d)T08:00:00Z","start_date_local":"\#(d)T09:00:00Z","trainer":false}"#
        }
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "bikes/b.yaml": "strava: b1\n" + Self.bike(bought: "2026-01-01", every: "100 km", rule: rule, done: ["2026-01-09"]),
            "activities/2026-01.json": "[\n" + rides.joined(separator: ",\n") + "\n]\n",
        ])
        let (s, limit) = try Self.limit(garage, asOf: "2026-01-10")
        #expect(s == state)
        #expect(limit["used"] as? Double == used)
        #expect(try Self.since(garage, asOf: "2026-01-10") == since)
    }

    /// An early service on a yearly schedule: bought 2024-03-01, every 12 months, first due
    /// 2025-03-01, done early on 2025-01-15. from-done: 12 months after the service, 2026-01-15;
    /// as of 2025-02-01, 17 of its 365 days: 17 × 12 / 365 = 0.5589 months; as of 2025-03-10, 54
    /// days: 1.7753. fixed: the service counts for point 1, so the next is point 2, 2026-03-01,
    /// and the window runs from point 1: as of 2025-02-01 nothing is used yet; as of 2025-03-10,
    /// 9 days of the window's 365 (2025-03-01 to 2026-03-01): 9 × 12 / 365 = 0.2959. catch-up:
    /// point 2 is already past the service, so the same as fixed.
    @Test(arguments: [
        ("from-done", "2026-01-15", 0.5589, 1.7753),
        ("fixed", "2026-03-01", 0.0, 0.2959),
        ("catch-up", "2026-03-01", 0.0, 0.2959),
    ])
    func anEarlyServiceOnAYearlySchedule(rule: String, due: String, usedFebruary: Double, usedMarch: Double) throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "bikes/b.yaml": Self.bike(bought: "2024-03-01", every: "12 months", rule: rule, done: ["2025-01-15"]),
        ])
        let (s, limit) = try Self.limit(garage, asOf: "2025-02-01")
        #expect(s == "ok")
        #expect(limit["due"] as? String == due)
        #expect(limit["used"] as? Double == usedFebruary)
        #expect(try Self.limit(garage, asOf: "2025-03-10").limit["used"] as? Double == usedMarch)
    }

    /// Month ends in a leap year: a base of 2024-01-31, every month, gives the points
    /// 2024-02-29, 2024-03-31, 2024-04-30, 2024-05-31. Before any service every rule is first due
    /// on the leap day. Then an early service (2024-02-20, before point 1) and a late one
    /// (2024-05-02, past point 3). fixed: two services, so point 3, 2024-04-30, passed: overdue.
    /// catch-up: point 2 after the first; after the second point 3 is not past it, so point 4,
    /// 2024-05-31. from-done: a month after 2024-05-02, 2024-06-02.
    @Test(arguments: [
        ("from-done", "ok", "2024-06-02"),
        ("fixed", "overdue", nil),
        ("catch-up", "ok", "2024-05-31"),
    ])
    func monthEndsInALeapYear(rule: String, state: String, due: String?) throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "bikes/b.yaml": Self.bike(bought: "2024-01-31", every: "1 months", rule: rule, done: []),
        ])
        #expect(try Self.limit(garage, asOf: "2024-02-10").limit["due"] as? String == "2024-02-29")
        try garage.write("bikes/b.yaml", Self.bike(bought: "2024-01-31", every: "1 months", rule: rule, done: ["2024-02-20", "2024-05-02"]))
        let (s, limit) = try Self.limit(garage, asOf: "2024-05-03")
        #expect(s == state)
        #expect(limit["due"] as? String == due)
        // from-done from a leap day: 12 months after 2024-02-29 is 2025-02-28.
        try garage.write("bikes/b.yaml", Self.bike(bought: "2024-01-31", every: "12 months", rule: "from-done", done: ["2024-02-29"]))
        #expect(try Self.limit(garage, asOf: "2024-03-01").limit["due"] as? String == "2025-02-28")
    }

    /// An early service on the odometer: `every: 100 km`, 30 km a day from 2026-01-02, serviced
    /// on 2026-01-03 when the rides before it made 30 km (before point 1, 100 km). As of
    /// 2026-01-07 the odometer is 180 km. fixed and catch-up: the service counts for point 1, the
    /// next is point 2 (200 km), window 100–200 km: 80 km used, due soon at 80 %. from-done: the
    /// rides of the 3rd to the 7th, 150 km: overdue.
    @Test(arguments: [
        ("from-done", "overdue", 150_000.0),
        ("fixed", "due-soon", 80_000.0),
        ("catch-up", "due-soon", 80_000.0),
    ])
    func anEarlyServiceOnTheOdometer(rule: String, state: String, used: Double) throws {
        let rides = (2...11).map { day in
            let d = String(format: "2026-01-%02d", day)
            return
                #"{"distance":30000,"id":\#(day),"moving_time":3600,"sport_type":"Ride","gear_id":"b1","start_date":"\#(d)T08:00:00Z","start_date_local":"\#(d)T09:00:00Z","trainer":false}"#
        }
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "bikes/b.yaml": "strava: b1\n" + Self.bike(bought: "2026-01-01", every: "100 km", rule: rule, done: ["2026-01-03"]),
            "activities/2026-01.json": "[\n" + rides.joined(separator: ",\n") + "\n]\n",
        ])
        let (s, limit) = try Self.limit(garage, asOf: "2026-01-07")
        #expect(s == state)
        #expect(limit["used"] as? Double == used)
    }

    /// A part's interval follows its rule too, from the part's purchase; a bike's override by id
    /// sets a template's rule, as any other key.
    @Test func aPartAndATemplateOverrideFollowTheirRules() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "parts/shock.yaml": """
            name: Shock
            bought: 2024-03-01
            intervals:
              service: {every: 12 months, repeat: fixed}
            log:
              - {date: 2026-04-10, done: [service]}

            """,
            "templates/t.yaml": "name: T\nintervals:\n  service: {every: 12 months, repeat: fixed}\n",
            "bikes/b.yaml": """
            name: B
            bought: 2024-03-01
            templates: [t]
            intervals:
              service: {repeat: catch-up}
            log:
              - {date: 2026-04-10, done: [service]}

            """,
        ])
        let (partState, _) = try Self.limit(garage, asOf: "2026-04-15", part: true)
        #expect(partState == "overdue")
        let (bikeState, bikeLimit) = try Self.limit(garage, asOf: "2026-04-15")
        #expect(bikeState == "ok")
        #expect(bikeLimit["due"] as? String == "2027-03-01")
    }

    @Test func aRuleThatIsNoneIsALocatedError() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "bikes/b.yaml": "name: B\nintervals:\n  a: {every: 10 h, repeat: fixd}\n  b: {every: 10 h, repeat: [fixed]}\n",
        ])
        let r = try garage.run(["validate"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("bikes/b.yaml:3:28: error: repeat should be from-done, fixed or catch-up, found 'fixd' [bad-value]"), "\(r.stderr)")
        #expect(r.stderr.contains("bikes/b.yaml:4:28: error: repeat should be from-done, fixed or catch-up, found a list [wrong-type]"), "\(r.stderr)")
    }
}
