import Foundation
import TestSupport
import Testing

/// Measured wear (docs/due.md, "Measured wear"): `readings:` in the log against an interval's
/// `wear_limit:`, the rate and the day the limit is reached worked out by hand. Every garage
/// here rides 20 km (1 h) every day from 2026-01-01, the day the bike was bought, so the recent
/// pace is 20 km a day.
@Suite struct MeasuredWearEndToEndTests {
    static let rides: String = {
        var lines = ["rides:"]
        for (month, days) in [31, 28, 31, 30, 31, 30].enumerated() {
            for day in 1...days { lines.append(String(format: "  - {date: 2026-%02d-%02d, bike: b, time: 1 h, distance: 20 km}", month + 1, day)) }
        }
        return lines.joined(separator: "\n") + "\n"
    }()

    static func garage(log: [String], extra: [String: String] = [:]) throws -> TemporaryFolder {
        let bike = """
            name: B
            bought: 2026-01-01
            components:
              chain: {installed: 2026-01-01}
            intervals:
              chain-replace: {every: 5000 km, replaces: chain, wear_limit: 0.75 %}
              brake-pads: {every: 3000 km, wear_limit: 1 mm}
            log:
            \(log.map { "  - " + $0 }.joined(separator: "\n"))

            """
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/b.yaml": bike, "rides.yaml": rides].merging(extra) { $1 })
        try git(["init", "--quiet"], in: garage.root)
        try git(["add", "."], in: garage.root)
        try git(["commit", "--quiet", "-m", "start"], in: garage.root)
        return garage
    }

    /// The named interval of the first bike, from `status --format json`.
    static func interval(_ garage: TemporaryFolder, _ id: String, asOf: String) throws -> [String: Any] {
        let r = try garage.run(["status", "--as-of", asOf, "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let bike = try #require((json["bikes"] as? [[String: Any]])?.first)
        return try #require((bike["intervals"] as? [[String: Any]])?.first { $0["id"] as? String == id })
    }

    /// A new chain (replaced on 2026-03-01) measured three times. Rides on the day of a reading
    /// count after it, as after a service, so the usage from the anchor to each reading is:
    /// 2026-03-21: 20 days (03-01 … 03-20) × 20 km = 400 km; 2026-04-10: 40 days = 800 km;
    /// 2026-04-30: 60 days = 1200 km. The chain was new, so the anchor is a reading of zero:
    /// the points (km, %) are (0, 0), (400, 0.1), (800, 0.3), (1200, 0.4).
    /// Least squares: mean x = 600, mean y = 0.2; Σdx·dy = (−600)(−0.2) + (−200)(−0.1) + 200·0.1
    /// + 600·0.2 = 280; Σdx² = 360000 + 40000 + 40000 + 360000 = 800000; rate = 280 / 800000 =
    /// 0.00035 % per km = 3.5e-7 per metre. From the latest reading, 0.4 %, the limit 0.75 % is
    /// (0.75 − 0.4) / 0.00035 = 1000 km on; as of 2026-05-10, 11 days (04-30 … 05-10) = 220 km
    /// of it are ridden, 780 km remain: 39 days at 20 km a day, 2026-06-18. Progress 0.4 / 0.75.
    @Test func threeChainReadingsGiveTheRateAndTheDayWorkedOutByHand() throws {
        let garage = try Self.garage(log: [
            "{date: 2026-03-01, done: [chain-replace]}",
            "{date: 2026-03-21, readings: {chain-replace: 0.1 %}}",
            "{date: 2026-04-10, readings: {chain-replace: 0.3 %}}",
            "{date: 2026-04-30, readings: {chain-replace: 0.4 %}}",
        ])
        let chain = try Self.interval(garage, "chain-replace", asOf: "2026-05-10")
        let wear = try #require(chain["wear"] as? [String: Any])
        #expect(wear["direction"] as? String == "maximum")
        #expect(wear["from_zero"] as? Bool == true)
        #expect(wear["measure"] as? String == "distance")
        let rate = try #require(wear["rate"] as? Double)
        #expect(abs(rate - 0.35 / 1000 / 1000) < 1e-12)
        #expect(wear["due"] as? String == "2026-06-18")
        #expect(wear["progress"] as? Double == 0.5333)
        let used = (wear["readings"] as? [[String: Any]])?.compactMap { $0["used"] as? Double }
        #expect(used == [400_000, 800_000, 1_200_000])
        // The distance limit is further: 5000 km − 71 days × 20 km = 3580 km, 179 days on.
        #expect(chain["due"] as? String == "2026-06-18")
        #expect(chain["state"] as? String == "ok")

        let text = try garage.run(["status", "--as-of", "2026-05-10"])
        #expect(text.stdout.contains("measured 0.4 / 0.75 %, due ~2026-06-18 by measurement"), "\(text.stdout)")
    }

    /// A pad wears down to its limit, a minimum: the first reading, 4 mm, is above the 1 mm
    /// limit. New pads are not 0 mm thick, so the anchor adds no point: (400 km, 4 mm) and
    /// (1200 km, 3 mm) give a rate of −1 mm per 800 km. From 3 mm, 1 mm is left: 1600 km on,
    /// 220 km of it ridden by 2026-05-10, 1380 km remain: 69 days, 2026-07-18 (the 3000 km limit,
    /// with 1580 km left, is 79 days on). Progress is the limit over the reading: 1 / 3.
    @Test func aPadWearsDownToAMinimum() throws {
        let garage = try Self.garage(log: [
            "{date: 2026-03-01, done: [brake-pads]}",
            "{date: 2026-03-21, readings: {brake-pads: 4 mm}}",
            "{date: 2026-04-30, readings: {brake-pads: 3 mm}}",
        ])
        let pads = try Self.interval(garage, "brake-pads", asOf: "2026-05-10")
        let wear = try #require(pads["wear"] as? [String: Any])
        #expect(wear["direction"] as? String == "minimum")
        #expect(wear["from_zero"] as? Bool == false)
        #expect(abs(try #require(wear["rate"] as? Double) + 1.0 / 800_000) < 1e-12)
        #expect(wear["due"] as? String == "2026-07-18")
        #expect(wear["progress"] as? Double == 0.3333)
        #expect(pads["due"] as? String == "2026-07-18")

        // One reading of a pad is not enough for an estimate (how thick was it new?).
        let one = try Self.garage(log: ["{date: 2026-03-01, done: [brake-pads]}", "{date: 2026-04-30, readings: {brake-pads: 3 mm}}"])
        let single = try #require(try Self.interval(one, "brake-pads", asOf: "2026-05-10")["wear"] as? [String: Any])
        #expect(single["rate"] == nil)
        #expect(single["due"] == nil)

        // At or below the limit it is overdue, whatever the distance says: 1 / 0.9.
        let worn = try Self.garage(log: [
            "{date: 2026-03-01, done: [brake-pads]}", "{date: 2026-03-21, readings: {brake-pads: 1.5 mm}}",
            "{date: 2026-04-30, readings: {brake-pads: 0.9 mm}}",
        ])
        let overdue = try Self.interval(worn, "brake-pads", asOf: "2026-05-10")
        #expect(overdue["state"] as? String == "overdue")
        #expect((overdue["wear"] as? [String: Any])?["progress"] as? Double == 1.1111)
        // A reminder says it is due by the measurement.
        try worn.write("garage.yaml", "units: metric\nnotify: {ntfy: {topic: bikes}}\n")
        let reminders = try worn.run(["notify", "--dry-run", "--as-of", "2026-05-10"])
        #expect(reminders.stdout.contains("b: brake-pads  overdue (111%, measured 0.9 / 1 mm)"), "\(reminders.stdout)\(reminders.stderr)")
    }

    /// A replacement starts over: the readings before it, and one written in the replacement's
    /// own entry (the old chain, measured before it came off), no longer count. After it, one
    /// reading of the new chain and the anchor's zero give the rate: 0.1 % after 8 days
    /// (05-01 … 05-08) × 20 km = 160 km, 0.000625 % per km; 0.65 % more is 1040 km on, 40 km
    /// ridden by 2026-05-10 (05-09, 05-10), 1000 km left: 50 days, 2026-06-29.
    @Test func aReplacementStartsOver() throws {
        let garage = try Self.garage(log: [
            "{date: 2026-03-01, done: [chain-replace]}",
            "{date: 2026-04-30, readings: {chain-replace: 0.4 %}}",
        ])
        let r = try garage.run(["done", "b", "chain-replace", "--reading", "chain-replace=0.7%", "--date", "2026-05-01"], environment: gitAuthor)
        #expect(r.status == 0, "\(r.stderr)")
        let after = try Self.interval(garage, "chain-replace", asOf: "2026-05-10")
        #expect(after["since"] as? String == "2026-05-01")
        #expect(after["wear"] == nil)
        #expect(try !garage.run(["status", "--as-of", "2026-05-10"]).stdout.contains("measured"))

        let m = try garage.run(["done", "b", "--reading", "chain-replace=0.1%", "--date", "2026-05-09"], environment: gitAuthor)
        #expect(m.status == 0, "\(m.stderr)")
        #expect(m.stdout.contains("logged reading chain-replace 0.1 % on 2026-05-09"), "\(m.stdout)")
        // A measurement is not a service: the entry has readings and no done.
        let file = try garage.read("bikes/b.yaml")
        #expect(file.hasSuffix("  - {date: 2026-05-09, readings: {chain-replace: 0.1 %}}\n"), "\(file)")
        let wear = try #require(try Self.interval(garage, "chain-replace", asOf: "2026-05-10")["wear"] as? [String: Any])
        #expect(wear["from_zero"] as? Bool == true)
        #expect(abs(try #require(wear["rate"] as? Double) - 0.1 / 160_000) < 1e-12)
        #expect(wear["due"] as? String == "2026-06-29")
        // The same reading again is nothing to do.
        let again = try garage.run(["done", "b", "--reading", "chain-replace=0.1%", "--date", "2026-05-09"], environment: gitAuthor)
        #expect(again.status == 0)
        #expect(try garage.read("bikes/b.yaml") == file)
        // A reading in another unit than the limit's is refused before anything is written.
        let wrong = try garage.run(["done", "b", "--reading", "chain-replace=0.1mm"], environment: gitAuthor)
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("is in mm, but its wear_limit is 0.75 %"), "\(wrong.stderr)")
        // History shows the measurement as an entry of its own.
        let history = try garage.run(["history", "--as-of", "2026-05-10"])
        #expect(history.stdout.contains("measured chain-replace 0.1 %"), "\(history.stdout)")
    }

    /// A part's interval is measured as a bike's, its usage what counted for the bikes it was on:
    /// a wheelset on b since 2026-01-01 (bought then). Rim wear read 1.5 mm on 2026-03-21 (after
    /// 79 days, 1580 km) and 1.3 mm on 2026-04-30 (119 days, 2380 km): −0.2 mm per 800 km. From
    /// 1.3 mm to the 0.5 mm limit is 0.8 × 4000 = 3200 km, 220 km of it ridden by 2026-05-10:
    /// 2980 km at 20 km a day is 149 days, 2026-10-06.
    @Test func aPartsIntervalIsMeasuredAcrossItsMounts() throws {
        let garage = try Self.garage(
            log: [],
            extra: [
                "parts/wheels.yaml": """
                name: Wheels
                bought: 2026-01-01
                intervals:
                  rim: {every: 10000 km, wear_limit: 0.5 mm}
                mounts:
                  - {bike: b, from: 2026-01-01}
                log:
                  - {date: 2026-03-21, readings: {rim: 1.5 mm}}
                  - {date: 2026-04-30, readings: {rim: 1.3 mm}}

                """
            ])
        let rim = try Self.interval(garage, "rim", asOf: "2026-05-10")
        #expect(rim["part"] as? String == "wheels")
        let wear = try #require(rim["wear"] as? [String: Any])
        #expect(wear["direction"] as? String == "minimum")
        #expect((wear["readings"] as? [[String: Any]])?.compactMap { $0["used"] as? Double } == [1_580_000, 2_380_000])
        #expect(abs(try #require(wear["rate"] as? Double) + 0.2 / 800_000) < 1e-12)
        #expect(wear["due"] as? String == "2026-10-06")
        #expect(rim["due"] as? String == "2026-10-06")
    }

    /// Each reading problem is a located error of `validate`.
    @Test func readingsThatCannotBeMeasuredAreLocatedErrors() throws {
        let garage = try Self.garage(log: [
            "{date: 2026-03-01, readings: {chain-replase: 0.5 %}}",
            "{date: 2026-03-02, readings: {chain-replace: 0.5 mm}}",
            "{date: 2026-03-03, readings: {chain-replace: half}}",
            "{date: 2026-03-04, readings: {brake-pads: 2 mm}}",
        ])
        try garage.write(
            "bikes/b.yaml",
            try garage.read("bikes/b.yaml").replacingOccurrences(of: "brake-pads: {every: 3000 km, wear_limit: 1 mm}", with: "brake-pads: {every: 3000 km}"))
        let r = try garage.run(["validate"])
        #expect(r.status == 1)
        let lines = (r.stdout + r.stderr).split(separator: "\n").filter { $0.hasPrefix("bikes/") && $0.contains(": error: ") }.map(String.init)
        #expect(
            lines.sorted()
                == [
                    "bikes/b.yaml:9:35: error: reading of unknown interval 'chain-replase' for bike 'b'; did you mean 'chain-replace'? [unknown-interval]",
                    "bikes/b.yaml:10:50: error: reading '0.5 mm' of interval 'chain-replace' is in mm, but its wear_limit is in % [reading-unit-mismatch]",
                    "bikes/b.yaml:11:50: error: a reading 'half' does not start with a number [bad-quantity]",
                    "bikes/b.yaml:12:47: error: reading of interval 'brake-pads', which has no wear_limit [reading-without-limit]",
                ].sorted(), "\(r.stdout)")
    }
}
