import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// Every command answers "which rides count" by one engine: a garage with a retired bike whose
/// Strava gear goes on being used, a part left on it, a part that moved to a two-month-old bike,
/// rides before that bike was bought, and a part and a bike sharing an interval id. Each figure
/// is computed by hand below from the rides written here, and each command must give it.
@Suite struct OneAnswerEndToEndTests {
    static let asOf = "2026-06-30"

    /// One Strava activity as the cache writes it.
    static func ride(_ id: Int, gear: String, km: Double, hours: Double, day: String, sport: String = "Ride", trainer: Bool = false) -> String {
        #"{"distance":\#(km * 1000),"gear_id":"\#(gear)","id":\#(id),"moving_time":\#(Int(hours * 3600)),"sport_type":"\#(sport)","start_date":"\#(day)T08:00:00Z","trainer":\#(trainer)}"#
    }

    static func garage() throws -> TemporaryFolder {
        try TemporaryFolder([
            "garage.yaml": """
            units: metric
            currency: EUR
            counts: [Ride]
            notify:
              ntfy: {url: http://127.0.0.1:9, topic: bikes}
              bands: [overdue, due-soon, 900d]

            """,
            // Retired on 2026-03-31; its gear stays on Strava and two later rides land on it.
            "bikes/old.yaml": """
            name: Old
            strava: b1
            bought: 2025-01-01
            retired: 2026-03-31
            intervals:
              chain:
                every: 1000 km
            log:
              - date: 2025-03-01
                done: [chain]
                cost: 30

            """,
            // Two months old on the as-of day; one ride on its gear before it was bought.
            "bikes/young.yaml": """
            name: Young
            strava: b2
            bought: 2026-05-01
            intervals:
              tyres:
                every: 3000 km
              service:
                every: 100 h

            """,
            // Moved from old to young; shares the interval id `service` with young.
            "parts/wheels.yaml": """
            name: Wheels
            bought: 2025-01-01
            intervals:
              service:
                every: 1000 km
            mounts:
              - {bike: old, from: 2025-01-01, to: 2025-12-31}
              - {bike: young, from: 2026-05-01}

            """,
            // Left on old when it was retired.
            "parts/lights.yaml": """
            name: Lights
            intervals:
              battery:
                every: 10 h
            mounts:
              - {bike: old, from: 2025-06-01}

            """,
            "activities/2025-06.json": "[\n\(ride(1, gear: "b1", km: 50, hours: 2, day: "2025-06-10"))\n]\n",
            "activities/2026-02.json": "[\n\(ride(2, gear: "b1", km: 40, hours: 1.5, day: "2026-02-10"))\n]\n",
            "activities/2026-04.json":
                "[\n\(ride(3, gear: "b1", km: 60, hours: 2, day: "2026-04-15")),\n\(ride(4, gear: "b2", km: 20, hours: 1, day: "2026-04-20"))\n]\n",
            "activities/2026-05.json": "[\n\(ride(5, gear: "b2", km: 100, hours: 4, day: "2026-05-10"))\n]\n",
            "activities/2026-06.json":
                "[\n\(ride(6, gear: "b1", km: 30, hours: 1, day: "2026-06-01")),\n\(ride(7, gear: "b2", km: 100, hours: 4, day: "2026-06-20"))\n]\n",
        ])
    }

    // By hand. Old counts the rides of its days (2025-06-10, 2026-02-10), not those after it was
    // retired (2026-04-15, 2026-06-01); young those from its bought day (not 2026-04-20).
    static let old = (metres: 90_000.0, seconds: 12_600.0, rides: 2)
    static let young = (metres: 200_000.0, seconds: 28_800.0, rides: 2)
    // Wheels: old's 2025-06-10 ride while on it, then young's two.
    static let wheels = (metres: 250_000.0, seconds: 36_000.0, rides: 3)
    // Lights: old's rides from 2025-06-01 until old was retired; its clock stops with the bike.
    static let lights = (metres: 90_000.0, seconds: 12_600.0, rides: 2, days: 303)

    /// The forecast day of young's tyres, by the documented rule: a daily pace weighted by half
    /// every 30 days back, over the 61 days young existed (2026-05-01 through 2026-06-30).
    static var tyresDue: String {
        let asOf = Day(Self.asOf)!
        let decay = log(2.0) / 30
        let lived = asOf.ordinal - Day("2026-05-01")!.ordinal + 1
        let weights = (0..<lived).reduce(0.0) { $0 + exp(-decay * Double($1)) }
        let ridden = [("2026-05-10", 100_000.0), ("2026-06-20", 100_000.0)].reduce(0.0) { sum, r in
            sum + exp(-decay * Double(asOf.ordinal - Day(r.0)!.ordinal)) * r.1
        }
        let days = ((3_000_000 - young.metres) / (ridden / weights)).rounded(.up)
        return asOf.adding(days: Int(days)).description
    }

    func json(_ garage: TemporaryFolder, _ arguments: [String]) throws -> [String: Any] {
        let r = try garage.run(arguments + ["--format", "json", "--as-of", Self.asOf])
        #expect(r.status == 0, "\(arguments): \(r.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(arguments): \(r.stdout)")
    }

    @Test func everyCommandCountsTheSameRidesForRetiredBoughtAndMovedSubjects() throws {
        let garage = try Self.garage()

        // status: each interval's usage, and the shared id kept apart (bike's and part's).
        let status = try json(garage, ["status", "old", "young", "wheels", "lights"])
        let bikes = try #require(status["bikes"] as? [[String: Any]])
        func interval(_ bike: String, _ id: String, part: String? = nil) -> [String: Any]? {
            let b = bikes.first { $0["id"] as? String == bike }
            return (b?["intervals"] as? [[String: Any]])?.first { $0["id"] as? String == id && $0["part"] as? String == part }
        }
        func usage(_ i: [String: Any]?) -> (Double, Double, Int)? {
            guard let u = i?["usage"] as? [String: Any], let d = u["distance"] as? Double, let t = u["moving_time"] as? Double,
                let n = u["rides"] as? Int
            else { return nil }
            return (d, t, n)
        }
        #expect(usage(interval("old", "chain"))! == (Self.old.metres, Self.old.seconds, Self.old.rides))
        #expect(usage(interval("young", "tyres"))! == (Self.young.metres, Self.young.seconds, Self.young.rides))
        #expect(usage(interval("young", "service"))! == (Self.young.metres, Self.young.seconds, Self.young.rides))
        #expect(usage(interval("young", "service", part: "wheels"))! == (Self.wheels.metres, Self.wheels.seconds, Self.wheels.rides))
        #expect(usage(interval("old", "battery", part: "lights"))! == (Self.lights.metres, Self.lights.seconds, Self.lights.rides))
        #expect((interval("old", "battery", part: "lights")?["usage"] as? [String: Any])?["days"] as? Int == Self.lights.days)
        #expect(interval("young", "tyres")?["due"] as? String == Self.tyresDue)

        // part list and part show: the same lives.
        let lives = try #require(try json(garage, ["part", "list"])["parts"] as? [[String: Any]])
        let wanted: [(String, (Double, Double, Int))] = [
            ("wheels", (Self.wheels.metres, Self.wheels.seconds, Self.wheels.rides)), ("lights", (Self.lights.metres, Self.lights.seconds, Self.lights.rides)),
        ]
        for (id, want) in wanted {
            let life = try #require(lives.first { $0["id"] as? String == id })
            #expect(life["distance"] as? Double == want.0 && life["moving_time"] as? Double == want.1 && life["rides"] as? Int == want.2, "\(id)")
        }
        let shown = try json(garage, ["part", "show", "lights"])
        #expect((shown["parts"] as? [[String: Any]])?.first?["distance"] as? Double == Self.lights.metres)

        // usage: the rows of each subject add up to the same totals.
        let rows = try #require(try json(garage, ["usage"])["rows"] as? [[String: Any]])
        func total(_ id: String) -> (Double, Double, Int) {
            rows.filter { ($0["subject"] as? [String: Any])?["id"] as? String == id }.reduce((0.0, 0.0, 0)) {
                ($0.0 + ($1["distance"] as? Double ?? 0), $0.1 + ($1["moving_time"] as? Double ?? 0), $0.2 + ($1["rides"] as? Int ?? 0))
            }
        }
        #expect(total("old") == (Self.old.metres, Self.old.seconds, Self.old.rides))
        #expect(total("young") == (Self.young.metres, Self.young.seconds, Self.young.rides))
        #expect(total("wheels") == (Self.wheels.metres, Self.wheels.seconds, Self.wheels.rides))
        #expect(total("lights") == (Self.lights.metres, Self.lights.seconds, Self.lights.rides))
        #expect(!rows.contains { $0["period"] as? String == "2026-04" }, "no counted ride in April: old was retired, young not yet bought")

        // costs: the cost per 1000 km spreads over the counted kilometres.
        let costs = try #require(try json(garage, ["costs"])["rows"] as? [[String: Any]])
        let oldCosts = try #require(costs.first { ($0["subject"] as? [String: Any])?["id"] as? String == "old" })
        #expect(oldCosts["distance"] as? Double == Self.old.metres)
        #expect(oldCosts["per_1000_km"] as? String == "333.33")

        // rides: every ride of the gear, the ones outside the bike's days not counted, and why.
        for (bike, want, verdicts) in [
            ("old", Self.old, ["counted", "counted", "after-retired", "after-retired"]), ("young", Self.young, ["before-bought", "counted", "counted"]),
        ] {
            let rides = try json(garage, ["rides", bike])
            #expect((rides["rides"] as? [[String: Any]])?.map { $0["verdict"] as? String ?? "" } == verdicts)
            let totals = try #require((rides["totals"] as? [[String: Any]])?.first)
            #expect(totals["distance"] as? Double == want.metres && totals["counted"] as? Int == want.rides)
        }
        let behind = try #require((try json(garage, ["rides", "young", "--interval", "tyres"])["totals"] as? [[String: Any]])?.first)
        #expect(behind["distance"] as? Double == Self.young.metres)

        // calendar, notify and the report read the same forecast.
        let calendar = try garage.run(["calendar", "--as-of", Self.asOf])
        #expect(calendar.stdout.contains("DTSTART;VALUE=DATE:\(Self.tyresDue.replacingOccurrences(of: "-", with: ""))"), "\(calendar.stdout)")
        let notify = try garage.run(["notify", "--dry-run", "--as-of", Self.asOf])
        // 200 of 3000 km is 6.67 %: 7 % rounded half up (docs/due.md).
        #expect(notify.stdout.contains("young: tyres  due within 900 days (~\(Self.tyresDue), 7%)"), "\(notify.stdout)")
        let report = try garage.run(["report", "--as-of", Self.asOf])
        #expect(report.status == 0)
        #expect(report.stdout.contains("250 of 1000 km") && report.stdout.contains("200 of 3000 km"))
        #expect(report.stdout.contains(Self.tyresDue))
    }

    @Test func anImperialCopyCountsTheSameRidesAndReadsThemInMiles() throws {
        let metric = try Self.garage()
        let imperial = try Self.garage()
        try imperial.write("garage.yaml", try imperial.read("garage.yaml").replacingOccurrences(of: "units: metric", with: "units: imperial"))
        for command in [["status", "old", "young", "wheels", "lights"], ["part", "list"], ["usage"], ["costs"], ["history"], ["rides", "old"]] {
            let args = command + ["--format", "json", "--as-of", Self.asOf]
            let m = try metric.run(args).stdout, i = try imperial.run(args).stdout
            #expect(!m.isEmpty)
            // The same SI figures; only the setting that says how to show them differs.
            #expect(i.replacingOccurrences(of: "\"display_units\" : \"imperial\"", with: "\"display_units\" : \"metric\"") == m, "\(command)")
        }
        // Young's 200 km are 124.3 mi; its tyres' 3000 km limit reads 1864 mi (3000 km).
        let status = try imperial.run(["status", "young", "--as-of", Self.asOf]).stdout
        #expect(status.contains("124 / 1864 mi (3000 km)"), "\(status)")
        let usage = try imperial.run(["usage", "young", "--as-of", Self.asOf]).stdout
        #expect(usage.contains("young: 2 rides, 8.0 h, 124.3 mi"), "\(usage)")
    }

    @Test func theRidesBehindAnIntervalAddUpToItsStatusFigureWithThePriorUsageOnALineOfItsOwn() throws {
        // The demo's stumpy fork came second-hand with 40 h; status counts them until it is
        // first serviced.
        let args = ["--garage", exampleGarage.path, "--as-of", "2026-11-15"]
        let status = try runBikecheck(["status", "stumpy", "--format", "json"] + args, in: repositoryRoot)
        let bike = try #require((try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?["bikes"] as? [[String: Any]])
        let fork = try #require((bike.first?["intervals"] as? [[String: Any]])?.first { $0["id"] as? String == "fork-full" })
        let used = try #require(fork["usage"] as? [String: Any])
        let rides = try runBikecheck(["rides", "stumpy", "--interval", "fork-full", "--format", "json"] + args, in: repositoryRoot)
        let total = try #require(((try JSONSerialization.jsonObject(with: Data(rides.stdout.utf8)) as? [String: Any])?["totals"] as? [[String: Any]])?.first)
        let prior = try #require(total["prior"] as? [String: Any], "\(total)")
        let priorSeconds = try #require(prior["moving_time"] as? Double)
        #expect(priorSeconds == 144_000, "40 h before tracking")
        let sum = (total["moving_time"] as? Double ?? 0) + (prior["moving_time"] as? Double ?? 0)
        #expect(abs(sum - (used["moving_time"] as? Double ?? -1)) < 0.1, "rides \(sum) s, status \(used)")
        let text = try runBikecheck(["rides", "stumpy", "--interval", "fork-full"] + args, in: repositoryRoot).stdout
        let hours = String(format: "%.1f", (used["moving_time"] as? Double ?? 0) / 3600)
        #expect(text.contains("  + usage before tracking: 40.0 h") && text.contains("= \(hours) h"), "\(text)")
    }

    @Test func validateWarnsOfAPartLeftOnARetiredBikeWithTheCommandThatTakesItOff() throws {
        let garage = try Self.garage()
        let r = try garage.run(["validate"])
        #expect(r.stderr.contains("warning: part 'lights' is still on bike 'old', retired 2026-03-31"), "\(r.stderr)")
        #expect(r.stderr.contains("bikecheck part unmount lights --date 2026-04-01"))
        let fixed = try garage.run(["part", "unmount", "lights", "--date", "2026-04-01"])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(!(try garage.run(["validate"])).stderr.contains("part-on-retired-bike"))
    }

    @Test func theNextUpOfTheReportIsStatusByUrgencyOrder() throws {
        // Two due-soon intervals: the one further along (slow, 74 %) is forecast later (09-01)
        // than the other (fast, 60 %, ~08-02). Status by urgency and
        // the report's Next up list them in one order: the sooner forecast first.
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\ncounts: [Ride]\ndue_soon: 50%\n",
            "bikes/a.yaml": "name: A\nstrava: b1\nbought: 2026-01-01\nintervals:\n  slow:\n    every: 8 months\n  fast:\n    every: 1000 km\n",
            "activities/2026-06.json": "[\n\(Self.ride(1, gear: "b1", km: 600, hours: 20, day: "2026-06-25"))\n]\n",
        ])
        let status = try garage.run(["status", "--by", "urgency", "--as-of", Self.asOf])
        let report = try garage.run(["report", "--as-of", Self.asOf])
        let statusOrder = status.stdout.components(separatedBy: "\n").compactMap { line in ["slow", "fast"].first { line.contains(" \($0) ") } }
        let section = report.stdout.components(separatedBy: "id=\"next-up\"").last?.components(separatedBy: "</section>").first ?? ""
        let reportOrder = ["slow", "fast"].sorted {
            (section.range(of: "scope=\"row\">\($0)<")?.lowerBound ?? section.endIndex)
                < (section.range(of: "scope=\"row\">\($1)<")?.lowerBound ?? section.endIndex)
        }
        #expect(statusOrder == ["fast", "slow"], "\(status.stdout)")
        #expect(statusOrder == reportOrder, "status: \(status.stdout)\nreport next up: \(section)")
    }

    @Test func theDemoTarmacsTyresCountNoZwiftRideAndItsChainCountsThem() throws {
        // The demo's tarmac counts [Ride, VirtualRide]; its chain says `trainer: true`, its tyres
        // nothing. One rule: a VirtualRide is a trainer ride, so only the chain counts them.
        var outdoors = 0.0, all = 0.0
        let folder = exampleGarage.appendingPathComponent("activities")
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".json") {
            let list = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(file))) as? [[String: Any]])
            for a in list where a["gear_id"] as? String == "b1000002" {
                let day = String(((a["start_date_local"] ?? a["start_date"]) as? String ?? "").prefix(10))
                let sport = a["sport_type"] as? String ?? ""
                guard day >= "2025-06-01", day <= "2026-11-15", ["Ride", "VirtualRide"].contains(sport) else { continue }
                let metres = a["distance"] as? Double ?? 0
                all += metres
                if sport == "Ride" && a["trainer"] as? Bool != true { outdoors += metres }
            }
        }
        #expect(all > outdoors, "the demo has Zwift rides on the tarmac")
        let r = try runBikecheck(["status", "tarmac", "--garage", exampleGarage.path, "--as-of", "2026-11-15", "--format", "json"], in: repositoryRoot)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let intervals = try #require((json["bikes"] as? [[String: Any]])?.first?["intervals"] as? [[String: Any]])
        let tyres = try #require(intervals.first { $0["id"] as? String == "tyres" })
        let used = try #require((tyres["usage"] as? [String: Any])?["distance"] as? Double)
        #expect(abs(used - outdoors) < 0.01, "tyres: \(used) m, outdoor rides since their install: \(outdoors) m")
    }

    @Test func aTrainerOnlyIntervalSaysItsOutdoorRidesAreNotOnATrainer() throws {
        // A trainer tyre (`trainer: only`) counts the trainer ride and the Zwift ride; the outdoor
        // ride and the hand-entered one are left out because they were not on a trainer.
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\ncounts: [Ride, VirtualRide]\n",
            "bikes/a.yaml": "name: A\nstrava: b1\nbought: 2026-01-01\ntrainer: true\nintervals:\n  trainer-tyre:\n    every: 50 h\n    trainer: only\n",
            "rides.yaml": "rides:\n  - date: 2026-06-03\n    bike: a\n    time: 1 h\n",
            "activities/2026-06.json": "[\n"
                + [
                    Self.ride(1, gear: "b1", km: 30, hours: 1, day: "2026-06-01"),
                    Self.ride(2, gear: "b1", km: 20, hours: 1, day: "2026-06-02", trainer: true),
                    Self.ride(3, gear: "b1", km: 25, hours: 1, day: "2026-06-04", sport: "VirtualRide"),
                ].joined(separator: ",\n") + "\n]\n",
        ])
        let r = try garage.run(["rides", "a", "--interval", "trainer-tyre", "--as-of", Self.asOf])
        let lines = r.stdout.components(separatedBy: "\n")
        func verdict(_ day: String) -> String? { lines.first { $0.contains(" \(day) ") }.map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(verdict("2026-06-01")?.hasSuffix("no: not on a trainer") == true, "\(r.stdout)")
        #expect(verdict("2026-06-03")?.hasSuffix("no: not on a trainer") == true, "\(r.stdout)")
        #expect(verdict("2026-06-02")?.hasSuffix("yes") == true, "\(r.stdout)")
        #expect(verdict("2026-06-04")?.hasSuffix("yes") == true, "\(r.stdout)")
        #expect(!r.stdout.contains("no: on a trainer"), "\(r.stdout)")
    }
}
