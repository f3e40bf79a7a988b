@testable import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// The summaries' runs (one per cache file, with its days) answer the questions about days that
/// used to read every record: the newest ride on or before a day (stale-data warnings) and
/// whether a gear has a ride on a day (rides also on Strava). A run is skipped by its days, or
/// searched by day when in day order; these tests hold every answer to a pass over all records,
/// on caches where the days do not follow the files: local days past the month's end, a rider
/// changing time zones within a month, an unsorted file.
@Suite struct ActivityRunsTests {
    /// One line of a cache file, in the cache's layout (written by hand so that a file can be unsorted).
    static func line(_ id: Int64, utc: String, local: String, gear: String?) -> String {
        "{\"distance\":20000,\"gear_id\":\(gear.map { "\"\($0)\"" } ?? "null"),\"id\":\(id),\"moving_time\":3600,"
            + "\"sport_type\":\"Ride\",\"start_date\":\"\(utc)\",\"start_date_local\":\"\(local)\"}"
    }

    static func file(_ lines: [String]) -> String { "[\n" + lines.joined(separator: ",\n") + "\n]\n" }

    static func stamp(_ day: Day, hour: Int) -> String { "\(day)T\(hour < 10 ? "0" : "")\(hour):30:00Z" }

    /// A random cache over four months: per file, activities in start order; the last of each
    /// month starts at 23:30 UTC and is ridden, locally, on the next month's first day; from 10
    /// November the rider is at UTC-10, so local days go back a day; December is unsorted.
    static func randomCache(seed: UInt64) -> [String: String] {
        var rng = SeededGenerator(seed: seed)
        var files: [String: String] = [:]
        var id: Int64 = 1
        let gears: [String?] = ["b1", "b2", "b3", nil, "g7"]
        for (m, month) in ["2025-09", "2025-10", "2025-11", "2025-12"].enumerated() {
            let first = Day(month + "-01")!
            let days = Day.daysIn(month: 9 + m, year: 2025)
            // (day, hour UTC, gear), sorted by start.
            var starts: [(day: Day, hour: Int, gear: String?)] = []
            for d in 0..<days {
                for _ in 0..<rng.next(3) { starts.append((first.adding(days: d), 6 + rng.next(17), gears[rng.next(gears.count)])) }
            }
            starts.append((first.adding(days: days - 1), 23, "b1"))
            if month == "2025-11" { starts += [(Day("2025-11-09")!, 22, "b2"), (Day("2025-11-10")!, 7, "b3")] }
            starts.sort { ($0.day, $0.hour) < ($1.day, $1.hour) }
            var lines: [String] = []
            for s in starts {
                let westward = month == "2025-11" && s.day >= Day("2025-11-10")!
                let localHour = westward ? s.hour - 10 : s.hour + 2
                let local = localHour >= 24 ? s.day.adding(days: 1) : localHour < 0 ? s.day.adding(days: -1) : s.day
                lines.append(line(id, utc: stamp(s.day, hour: s.hour), local: stamp(local, hour: (localHour + 24) % 24), gear: s.gear))
                id += 1
            }
            if month == "2025-12" { lines.shuffle(using: &rng) }
            files["activities/\(month).json"] = file(lines)
        }
        return files
    }

    static func garage(_ files: [String: String]) throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try folder.write("garage.yaml", "units: metric\n")
        for (path, text) in files { try folder.write(path, text) }
        Thread.sleep(forTimeInterval: ActivityIndex.settleTime + 0.02)
        return folder
    }

    @Test func newestDaysAndGearDaysAreWhatAPassOverEveryRecordFinds() throws {
        for seed: UInt64 in [1, 2, 3] {
            let folder = try Self.garage(Self.randomCache(seed: seed))
            // From JSON, then cold and warm through the activity index: the runs are the same.
            let fromJSON = ActivityCacheLoader.loadSummaries(root: folder.url.path, index: false)
            let cold = ActivityCacheLoader.loadSummaries(root: folder.url.path)
            let warm = ActivityCacheLoader.loadSummaries(root: folder.url.path)
            #expect(warm.indexed == 4)
            #expect(cold.summaries.runs == fromJSON.summaries.runs && warm.summaries.runs == fromJSON.summaries.runs)
            let s = warm.summaries
            #expect(s.runs.count == 4 && s.runs.last?.records.upperBound == s.records.count)
            // The cache is what it should be: a month's days spill into the next, November
            // goes back a day, December is unsorted.
            #expect(s.runs.map(\.inDayOrder) == [true, true, false, false], "\(s.runs.map(\.inDayOrder))")
            #expect(fromJSON.diagnostics.map(\.message) == ["2025-12.json is not sorted by start date and id"])
            #expect(s.runs[0].lastDay == Int32(Day("2025-10-01")!.ordinal))

            let first = Int32(Day("2025-08-25")!.ordinal), last = Int32(Day("2026-01-05")!.ordinal)
            for limit in first...last {
                var any = Int32.min
                var byGear = [Int32](repeating: Int32.min, count: s.strings.count)
                for r in s.records where r.day <= limit {
                    any = max(any, r.day)
                    if r.gear >= 0 { byGear[Int(r.gear)] = max(byGear[Int(r.gear)], r.day) }
                }
                let answer = s.newestDays(onOrBefore: limit)
                #expect(answer.any == any && answer.byGear == byGear, "seed \(seed), on or before \(Day(ordinal: Int(limit)))")
            }

            var wanted: [(gear: Int32, day: Int32)] = []
            for gear in s.strings.indices { for day in first...last { wanted.append((Int32(gear), day)) } }
            let has = Set(s.records.filter { $0.gear >= 0 }.map { [$0.gear, $0.day] })
            // Asked in any order, some twice.
            var rng = SeededGenerator(seed: seed)
            var asked = wanted + wanted.prefix(40)
            asked.shuffle(using: &rng)
            let found = s.contains(gearDays: asked)
            #expect(found.count == asked.count)
            for (k, w) in asked.enumerated() {
                #expect(found[k] == has.contains([w.gear, w.day]), "seed \(seed): gear \(s.strings[Int(w.gear)]) on \(Day(ordinal: Int(w.day)))")
            }
        }
    }

    /// The warnings `ride-also-on-strava` gives, as `line: day`, from a garage loaded with summaries
    /// (as status loads it) and with whole activities (as sync and import do).
    static func alsoOnStrava(_ folder: TemporaryFolder) -> [[String]] {
        [GarageLoader.ActivityData.summaries, .full].map { mode in
            GarageLoader.load(at: folder.url.path, options: .init(activities: mode, environment: [:])).diagnostics
                .filter { $0.id == "ride-also-on-strava" }.map { "\($0.location.range?.start.line ?? 0): \($0.message)" }
        }
    }

    @Test func aHandEnteredRideIsFoundOnItsLocalDayAcrossAMonthsEndAndInAnUnsortedFile() throws {
        let folder = try Self.garage([
            "bikes/grail.yaml": "name: Grail\nstrava: b1\n",
            "bikes/other.yaml": "name: Other\nstrava: b2\n",
            "rides.yaml": """
            rides:
              - {date: 2025-11-01, bike: grail, time: 1h, distance: 20 km}
              - {date: 2025-12-05, bike: grail, time: 1h, distance: 20 km}
              - {date: 2025-12-06, bike: grail, time: 1h, distance: 20 km}
              - {date: 2025-10-31, bike: grail, time: 1h, distance: 20 km}
              - {date: 2025-12-20, bike: other, time: 1h, distance: 20 km}

            """,
            // Ridden at 23:30 UTC on 31 October: on 1 November, locally.
            "activities/2025-10.json": Self.file([Self.line(1, utc: "2025-10-31T23:30:00Z", local: "2025-11-01T00:30:00Z", gear: "b1")]),
            "activities/2025-11.json": Self.file([Self.line(2, utc: "2025-11-02T08:00:00Z", local: "2025-11-02T09:00:00Z", gear: "b2")]),
            // Unsorted: 20 December before 5 and 6 December.
            "activities/2025-12.json": Self.file([
                Self.line(5, utc: "2025-12-20T08:00:00Z", local: "2025-12-20T09:00:00Z", gear: "b1"),
                Self.line(3, utc: "2025-12-05T08:00:00Z", local: "2025-12-05T09:00:00Z", gear: "b1"),
                Self.line(4, utc: "2025-12-06T08:00:00Z", local: "2025-12-06T09:00:00Z", gear: "b2"),
            ]),
        ])
        let expected = [
            "2: bike 'grail' also has a Strava ride on 2025-11-01; this one counts on top of it",
            "3: bike 'grail' also has a Strava ride on 2025-12-05; this one counts on top of it",
        ]
        #expect(Self.alsoOnStrava(folder) == [expected, expected])
    }

    /// Days before 1970 are negative: the lookup keys each by its gear too, where a pass that
    /// packed gear and day into one number had let a negative day stand for any gear.
    @Test func aHandEnteredRideBefore1970IsNotTakenForAnotherBikesStravaRideThatDay() throws {
        let folder = try Self.garage([
            "bikes/grail.yaml": "name: Grail\nstrava: b1\n",
            "bikes/other.yaml": "name: Other\nstrava: b2\n",
            "rides.yaml":
                "rides:\n  - {date: 1969-07-20, bike: grail, time: 1h, distance: 20 km}\n  - {date: 1969-07-21, bike: other, time: 1h, distance: 20 km}\n",
            "activities/1969-07.json": Self.file([
                Self.line(1, utc: "1969-07-20T08:00:00Z", local: "1969-07-20T09:00:00Z", gear: "b2"),
                Self.line(2, utc: "1969-07-21T08:00:00Z", local: "1969-07-21T09:00:00Z", gear: "b2"),
                Self.line(3, utc: "1969-07-25T08:00:00Z", local: "1969-07-25T09:00:00Z", gear: "b1"),
            ]),
        ])
        let expected = ["3: bike 'other' also has a Strava ride on 1969-07-21; this one counts on top of it"]
        #expect(Self.alsoOnStrava(folder) == [expected, expected])
    }
}
