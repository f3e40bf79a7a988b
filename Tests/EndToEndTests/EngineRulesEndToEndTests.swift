import Foundation
import TestSupport
import Testing

/// The counting rules of docs/due.md held across commands, each on a minimal garage with the
/// figures worked out by hand (issue 28: 1–9).
@Suite struct EngineRulesEndToEndTests {
    /// A road bike that counts Zwift for its chain only: the bike's filter is outdoor rides
    /// (`trainer: false`, the default), the chain's `trainer: true`.
    static let zwiftGarage: [String: String] = [
        "garage.yaml": "units: metric\ncounts: [Ride, VirtualRide]\n",
        "bikes/road.yaml": """
        name: Road
        strava: b1
        bought: 2026-01-01
        components:
          chain: {installed: 2026-01-01, trainer: true}
        intervals:
          lube: {task: Lube the chain, component: chain, every: 10 h}
        log:
          - {date: 2026-03-01, done: [lube]}
          - {date: 2026-03-10, done: [lube]}

        """,
        "activities/2026-03.json": """
        [
        {"distance":30000,"id":1,"moving_time":3600,"sport_type":"Ride","gear_id":"b1","start_date":"2026-03-05T08:00:00Z","start_date_local":"2026-03-05T09:00:00Z","trainer":false},
        {"distance":60000,"id":2,"moving_time":7200,"sport_type":"VirtualRide","gear_id":"b1","start_date":"2026-03-06T08:00:00Z","start_date_local":"2026-03-06T09:00:00Z","trainer":true}
        ]

        """,
    ]

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    // 1.
    @Test func historyCountsEachTaskThroughItsIntervalsFilterAsStatusAndRidesDo() throws {
        let garage = try TemporaryFolder(Self.zwiftGarage)
        // Between the lubes (2026-03-01 through 2026-03-10) the chain's filter (trainer: true)
        // counts both rides: 30 + 60 = 90 km, 3600 + 7200 s = 3.0 h. The bike's filter counts
        // only the outdoor one (30 km / 1.0 h): what history said before.
        let history = try garage.run(["history", "road", "--as-of", "2026-03-10"])
        #expect(history.status == 0, "\(history.stderr)")
        #expect(history.stdout.contains("Lube the chain (after 90.0 km / 3.0 h since 2026-03-01)"), "\(history.stdout)")
        // The same span as `rides --interval` lists on the day before the second lube.
        let rides = try garage.run(["rides", "road", "--interval", "lube", "--as-of", "2026-03-09"])
        #expect(rides.stdout.contains("road since 2026-03-01: 2 counted (3.0 h, 90.0 km)"), "\(rides.stdout)")
        let json = try Self.json(try garage.run(["history", "road", "--as-of", "2026-03-10", "--format", "json"]).stdout)
        let entries = try #require(json["entries"] as? [[String: Any]])
        let task = try #require((entries.first?["tasks"] as? [[String: Any]])?.first)
        #expect(task["distance"] as? Double == 90000)
        #expect(task["moving_time"] as? Double == 10800)
        #expect(task["rides"] as? Int == 2)
    }

    @Test func historyOfTheExampleGarageAgreesWithRidesForTheTarmacsChainLube() throws {
        let history = try runBikecheck(
            ["history", "tarmac", "--garage", exampleGarage.path, "--since", "2026-10-01", "--as-of", "2026-11-15"], in: repositoryRoot)
        // The chain counts the tarmac's Zwift rides (`trainer: true`): 3806.9 km / 130.3 h from
        // the lube of 2025-07-26 through that of 2026-11-01 (the bike's filter gave 2910.8 km).
        #expect(history.stdout.contains("Clean and lube the chain (after 3806.9 km / 130.3 h since 2025-07-26)"), "\(history.stdout)")
    }

    // 2.
    @Test func aSlotsTotalIsNeverLessThanTheComponentInIt() throws {
        let garage = try TemporaryFolder(Self.zwiftGarage)
        // The chain counts both rides (90 km, 3.0 h); the slot counts through the chain's filter
        // too, so it is 90 km as well (through the bike's, it said 30 km: less than the chain).
        let r = try garage.run(["part", "list", "--as-of", "2026-03-10"])
        #expect(r.stdout.contains("road/chain  since 2026-01-01  90 km  3.0 h  2 rides  2026-03-05 – 2026-03-06  slot 90 km, 3.0 h"), "\(r.stdout)")
    }

    @Test func aTrainerOnlyBikesOutdoorTyreSlotCountsTheTyresRides() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "bikes/trainer.yaml": """
            name: Trainer bike
            bought: 2026-01-01
            trainer: only
            components:
              tyre: {installed: 2026-01-01, trainer: false, distance: 5 km}

            """,
            "rides.yaml": "rides:\n  - {date: 2026-02-01, bike: trainer, time: 1h30, distance: 35 km}\n",
        ])
        // A hand-entered ride is outdoors: not the bike's (trainer: only), the tyre's (false).
        // Tyre: 35 km + 5 km before tracking = 40 km; slot: the same 35 + 5 = 40 km (was 0 km).
        let r = try garage.run(["part", "list", "--as-of", "2026-02-10", "--format", "json"])
        let parts = try #require(try Self.json(r.stdout)["parts"] as? [[String: Any]])
        let tyre = try #require(parts.first { $0["id"] as? String == "tyre" })
        #expect(tyre["distance"] as? Double == 40000)
        let slot = try #require(tyre["slot"] as? [String: Any])
        #expect(slot["distance"] as? Double == 40000)
        #expect(slot["moving_time"] as? Double == 5400)
    }

    // 3.
    @Test func aPartsUsageBeforeTrackingCountsBeforeItIsBoughtOrMounted() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "parts/used-chain.yaml": "name: Used chain\ndistance: 316 km\nintervals:\n  replace: {task: Replace, every: 200 km}\n",
        ])
        // No bought:, no mount, never done: its 316 km before tracking are all it has used,
        // 316 / 200 = 158 % (status said 0 / 200 km).
        let text = try garage.run(["status", "--as-of", "2026-03-10"])
        #expect(text.stdout.contains("overdue  replace  158%  316 / 200 km  Replace  never done"), "\(text.stdout)")
        let json = try Self.json(try garage.run(["status", "used-chain", "--as-of", "2026-03-10", "--format", "json"]).stdout)
        let part = try #require((json["parts"] as? [[String: Any]])?.first)
        let interval = try #require((part["intervals"] as? [[String: Any]])?.first)
        #expect((interval["usage"] as? [String: Any])?["distance"] as? Double == 316000)
        #expect((interval["limits"] as? [[String: Any]])?.first?["used"] as? Double == 316000)
        // The same figure as part list.
        let lives = try garage.run(["part", "list", "--as-of", "2026-03-10"])
        #expect(lives.stdout.contains("used-chain  on the shelf  316 km"), "\(lives.stdout)")
    }

    static let retiredGarage: [String: String] = [
        "garage.yaml": "units: metric\n",
        "bikes/old.yaml": """
        name: Old
        bought: 2026-01-01
        retired: 2026-03-10
        intervals:
          wash: {task: Wash, every: 100 days}
          chain: {task: Chain, every: 1000 km}

        """,
        "bikes/new.yaml": "name: New\nbought: 2026-02-14\nintervals:\n  wash: {task: Wash, every: 10 days}\n",
        "rides.yaml": "rides:\n  - {date: 2026-02-01, bike: old, time: 2h, distance: 50 km}\n",
    ]

    // 4.
    @Test func aBikeRetiredOnTheAsOfDayHasNoForecastAnywhere() throws {
        let garage = try TemporaryFolder(Self.retiredGarage)
        // Retired on the as-of day: left out of plain status and the calendar...
        let plain = try garage.run(["status", "--as-of", "2026-03-10"])
        #expect(!plain.stdout.contains("old ·"), "\(plain.stdout)")
        // ...and, named, counted up to that day with nothing forecast: 68 of 100 days (from
        // 2026-01-01), 50 of 1000 km, neither with a `due` (before: ~2026-04-10 and a pace's day).
        let named = try garage.run(["status", "old", "--as-of", "2026-03-10"])
        #expect(named.stdout.contains("ok  wash   68%  68 / 100 days  Wash  since 2026-01-01\n"), "\(named.stdout)")
        #expect(!named.stdout.contains("due ~"), "\(named.stdout)")
        let json = try Self.json(try garage.run(["status", "old", "--as-of", "2026-03-10", "--format", "json"]).stdout)
        let intervals = try #require((json["bikes"] as? [[String: Any]])?.first?["intervals"] as? [[String: Any]])
        #expect(intervals.count == 2)
        #expect(intervals.allSatisfy { $0["due"] == nil })
        let calendar = try garage.run(["calendar", "old", "--as-of", "2026-03-10"])
        #expect(!calendar.stdout.contains("BEGIN:VEVENT"), "\(calendar.stdout)")
        #expect(!(try garage.run(["calendar", "--as-of", "2026-03-10"]).stdout.contains("Old:")))
    }

    // 5.
    @Test func percentagesRoundHalfUpFromTheDecimalEverywhere() throws {
        let garage = try TemporaryFolder(
            Self.retiredGarage.merging(["garage.yaml": "units: metric\nnotify:\n  webhook: {url: \"http://127.0.0.1:9/hook\"}\n"]) { _, b in b })
        // New was bought 2026-02-14: on 2026-03-09, 23 days of 10, progress 2.3 = 230 % (the
        // floor of the binary 2.3 * 100 = 229.99999999999997 printed 229 %).
        let status = try garage.run(["status", "new", "--as-of", "2026-03-09"])
        #expect(status.stdout.contains("overdue  wash  230%  23 / 10 days"), "\(status.stdout)")
        let calendar = try garage.run(["calendar", "new", "--as-of", "2026-03-09"])
        #expect(calendar.stdout.contains("10 days: 230 %"), "\(calendar.stdout)")
        let notify = try garage.run(["notify", "--dry-run", "--as-of", "2026-03-09"])
        #expect(notify.stdout.contains("new: wash  overdue (230%)"), "\(notify.stdout)\(notify.stderr)")
        let html = try garage.run(["report", "--html", "--as-of", "2026-03-09"])
        #expect(html.stdout.contains("</svg> 230 %"), "\(html.stdout.prefix(400))")
        #expect(!html.stdout.contains("229 %"))
    }

    // 6.
    @Test func aComponentInstalledAfterItsBikeWasRetiredIsReportedAndCountedAlikeEverywhere() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "bikes/old.yaml": """
            name: Old
            bought: 2026-01-01
            retired: 2026-03-10
            components:
              chain: {installed: 2026-04-01, distance: 100 km}
              tyres: {installed: 2026-01-01}
            intervals:
              chain: {task: Chain, component: chain, every: 1000 km}
              tyres: {task: Tyres, replaces: tyres, every: 1000 km}
            log:
              - {date: 2026-04-02, done: [tyres]}

            """,
            "rides.yaml": "rides:\n  - {date: 2026-02-01, bike: old, time: 2h, distance: 50 km}\n",
        ])
        let validate = try garage.run(["validate"])
        #expect(
            validate.stderr.contains(
                "bikes/old.yaml:5:22: warning: component 'chain' is installed on 2026-04-01, after bike 'old' was retired (2026-03-10); it counts as if no install date were written [component-after-retired]"
            ), "\(validate.stderr)")
        #expect(validate.stderr.contains("[log-after-retired]"), "\(validate.stderr)")
        // The clock stopped on 2026-03-10: the install and the replacement after it count as not
        // written. Chain: since bought (2026-01-01), 50 km ridden + 100 km before tracking = 150 km.
        // Tyres: since 2026-01-01, 50 km (part list said 0 km since 2026-04-02).
        let status = try garage.run(["status", "old", "--as-of", "2026-04-15"])
        #expect(status.stdout.contains("ok  chain  15%  150 / 1000 km  Chain  since 2026-01-01"), "\(status.stdout)")
        #expect(status.stdout.contains("ok  tyres   5%   50 / 1000 km  Tyres  since 2026-01-01"), "\(status.stdout)")
        let lives = try garage.run(["part", "list", "--as-of", "2026-04-15"])
        #expect(lives.stdout.contains("old/chain  since 2026-01-01  150 km"), "\(lives.stdout)")
        #expect(lives.stdout.contains("old/tyres  since 2026-01-01  50 km"), "\(lives.stdout)")
    }

    // 7.
    @Test func importingAFolderAgainKeepsTheBikeAnEarlierImportGaveARide() throws {
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/road.yaml": "name: Road\nbought: 2026-01-01\n"])
        try garage.write("in/ride.gpx", Self.gpx)
        let first = try garage.run(["import", "files", "in", "--bike", "road"])
        #expect(first.stdout.contains("1 new, 0 changed, 0 already imported"), "\(first.stdout)\(first.stderr)")
        let cache = try garage.read("activities/2026-06.json")
        // The cron line: the same folder, no --bike. Nothing added, nothing changed.
        let again = try garage.run(["import", "files", "in"])
        #expect(again.status == 0)
        #expect(again.stdout.contains("0 new, 0 changed, 1 already imported"), "\(again.stdout)")
        #expect(!again.stderr.contains("no bike"), "\(again.stderr)")
        #expect(try garage.read("activities/2026-06.json") == cache)
        let rides = try garage.run(["rides", "road", "--as-of", "2026-06-30"])
        #expect(rides.stdout.contains("road: 1 counted"), "\(rides.stdout)")
        #expect(rides.stdout.contains(" file "), "\(rides.stdout)")
    }

    /// A GPX ride written in the rider's clock (`+02:00`): 01:30 local on 2 June is 23:30 UTC
    /// on 1 June.
    static let gpx = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
        <trk><type>cycling</type><trkseg>
        <trkpt lat="47.0000" lon="8.0000"><time>2026-06-02T01:30:00+02:00</time></trkpt>
        <trkpt lat="47.0100" lon="8.0000"><time>2026-06-02T01:32:00+02:00</time></trkpt>
        <trkpt lat="47.0200" lon="8.0000"><time>2026-06-02T01:34:00+02:00</time></trkpt>
        </trkseg></trk></gpx>

        """

    @Test func aGPXRideCountsOnTheDayOfTheOffsetItsTimesAreWrittenIn() throws {
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/road.yaml": "name: Road\nbought: 2026-01-01\n"])
        try garage.write("in/ride.gpx", Self.gpx)
        _ = try garage.run(["import", "files", "in", "--bike", "road"], environment: ["TZ": "UTC"])
        let cache = try garage.read("activities/2026-06.json")
        #expect(cache.contains("\"start_date\":\"2026-06-01T23:30:00Z\""), "\(cache)")
        #expect(cache.contains("\"start_date_local\":\"2026-06-02T01:30:00Z\""), "\(cache)")
        // 2 June, the rider's day, whatever the importing machine's zone (UTC here).
        let rides = try garage.run(["rides", "road", "--as-of", "2026-06-30"])
        #expect(rides.stdout.contains("road  2026-06-02  file"), "\(rides.stdout)")
    }

    // 8.
    @Test func aTwoLimitIntervalNamesTheLimitItsForecastComesFrom() throws {
        // Bought 2025-06-01; on 2026-11-15 the 2 years are 532 / 730 days = 72.88 % (shown);
        // 28 rides of 100 km in October are 2800 / 4000 km = 70 %, at a pace that reaches
        // 4000 km long before 2027-06-01, the day the 2 years give.
        var rides = "rides:\n"
        for k in 0..<28 { rides += "  - {date: 2026-10-\(String(format: "%02d", k + 1)), bike: road, time: 3h, distance: 100 km}\n" }
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "bikes/road.yaml": "name: Road\nbought: 2025-06-01\nintervals:\n  tyres: {task: Replace tyres, every: [4000 km, 2 years]}\n",
            "rides.yaml": rides,
        ])
        let json = try Self.json(try garage.run(["status", "--as-of", "2026-11-15", "--format", "json"]).stdout)
        let interval = try #require((json["bikes"] as? [[String: Any]])?.first?["intervals"] as? [[String: Any]]).first
        let limits = try #require(interval?["limits"] as? [[String: Any]])
        let due = try #require(interval?["due"] as? String)
        // 2800 / 4000 = 0.7; 532 / 730 = 0.7288: the years are shown, the kilometres give the day.
        #expect(limits[0]["progress"] as? Double == 0.7)
        #expect(limits[1]["progress"] as? Double == 0.7288)
        #expect(limits[0]["due"] as? String == due)
        #expect(limits[1]["due"] as? String == "2027-06-01")
        #expect(due < "2027-06-01")
        let text = try garage.run(["status", "--as-of", "2026-11-15"])
        #expect(text.stdout.contains("73%  1.5 / 2 years  Replace tyres  since 2025-06-01, due ~\(due) by 4000 km"), "\(text.stdout)")
        let html = try garage.run(["report", "--html", "--as-of", "2026-11-15"])
        #expect(html.stdout.contains("<time datetime=\"\(due)\">\(due)</time> by 4000 km"), "\(html.stdout.prefix(300))")
    }

    // 9.
    @Test func rideAddWarnsBeforeTheBikeWasBoughtAndKeepsTheRidesInDateOrder() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "bikes/road.yaml": "name: Road\nbought: 2026-01-01\n",
            "rides.yaml":
                "rides:\n  - {date: 2026-02-01, bike: road, time: 1h, distance: 20 km}\n  - {date: 2026-03-01, bike: road, time: 1h, distance: 20 km}\n",
        ])
        let early = try garage.run(["ride", "add", "road", "--date", "2025-12-20", "--time", "1h", "--distance", "10km"])
        #expect(early.status == 0)
        #expect(
            early.stderr.hasPrefix(
                "warning: road: ride 2025-12-20 is before bike 'road' was bought (2026-01-01); it does not count [ride-before-bought]\n  help: "),
            "\(early.stderr)")
        let between = try garage.run(["ride", "add", "road", "--date", "2026-02-15", "--time", "30min"])
        #expect(between.status == 0)
        #expect(!(between.stdout + between.stderr).contains("warning"))
        #expect(
            try garage.read("rides.yaml") == """
                rides:
                  - {date: 2025-12-20, bike: road, time: 1h, distance: 10 km}
                  - {date: 2026-02-01, bike: road, time: 1h, distance: 20 km}
                  - {date: 2026-02-15, bike: road, time: 30min}
                  - {date: 2026-03-01, bike: road, time: 1h, distance: 20 km}

                """)
    }

    // Also found.
    @Test func theReportsPartsTableSaysAPartsFiguresAreItsWholeLife() throws {
        let html = try runBikecheck(["report", "--html", "--garage", exampleGarage.path, "--as-of", "2026-11-15"], in: repositoryRoot)
        // race-wheels: on the grail from 2025-11-01, on the tarmac since 2026-05-01; its 4424 km
        // are both mounts' (not "on since 2026-05-01").
        #expect(html.stdout.contains("<td>part</td><td>whole life, from 2025-11-01; on this bike since 2026-05-01</td>"), "\(html.stdout.prefix(200))")
        #expect(!html.stdout.contains("on since 2026-05-01"))
    }

    @Test func templateImportWritesTheSchemaModelineAsInitDoes() throws {
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n"])
        try garage.write("club/fox-36.yaml", "name: Fox 36\nintervals:\n  lowers: {task: Service the lowers, every: 50 h}\n")
        let r = try garage.run(["template", "import", "club/fox-36.yaml"])
        #expect(r.status == 0, "\(r.stderr)")
        let text = try garage.read("templates/fox-36.yaml")
        #expect(text.hasPrefix("# yaml-language-server: $schema=../.schemas/template.schema.json\nname: Fox 36\n"), "\(text)")
    }

    @Test func todoListShowsEachOwnersToDosMostUrgentFirst() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "bikes/grail.yaml": """
            name: Grail
            todo:
              - replace rear derailleur hanger
              - {task: fit mudguards, due: 2026-11-30, id: mudguards}

            """,
            "parts/wheels.yaml": "name: Wheels\ntodo:\n  - {task: true the rear wheel, due: 2026-11-01}\n",
        ])
        // As of 2026-11-25: the mudguards are due in 5 days (due-soon, within 7), the wheel
        // 24 days late (overdue); the hanger has no date.
        let r = try garage.run(["todo", "list", "--as-of", "2026-11-25"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stdout == """
                grail   due-soon  2026-11-30  fit mudguards                   (mudguards)
                grail   ok        no date     replace rear derailleur hanger
                wheels  overdue   2026-11-01  true the rear wheel

                """, "\(r.stdout)")
        let one = try garage.run(["todo", "list", "wheels", "--as-of", "2026-11-25"])
        #expect(one.stdout == "wheels  overdue  2026-11-01  true the rear wheel\n", "\(one.stdout)")
        let unknown = try garage.run(["todo", "list", "grial"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("did you mean 'grail'"), "\(unknown.stderr)")
    }

    @Test func snoozeTakesAsOfAsItsToday() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n", "bikes/grail.yaml": "name: Grail\nintervals:\n  lube: {task: Lube, every: 10 h}\n",
        ])
        // 2026-06-01 is before today: refused without --as-of, written as of 2026-05-01.
        let refused = try garage.run(["snooze", "grail", "lube", "--until", "2026-06-01"])
        #expect(refused.status == 2, "\(refused.stdout)")
        let written = try garage.run(["snooze", "grail", "lube", "--until", "2026-06-01", "--as-of", "2026-05-01"])
        #expect(written.status == 0, "\(written.stderr)")
        let bike = try garage.read("bikes/grail.yaml")
        #expect(bike.hasSuffix("snooze:\n  lube: 2026-06-01\n"), "\(bike)")
        let tooEarly = try garage.run(["snooze", "grail", "lube", "--until", "2026-05-01", "--as-of", "2026-05-01"])
        #expect(tooEarly.stderr.contains("is not after today (2026-05-01)"), "\(tooEarly.stderr)")
    }
}
