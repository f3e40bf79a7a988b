import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// Status numbers against answers worked out by hand. Every answer is computed twice, from whole
/// activities and from the compact summaries the binary reads, and the two must agree.
@Suite struct StatusPlannerTests {
    /// Writes a garage, loads it with the real pipeline and plans status as of `asOf`, through
    /// both ways of reading the cache.
    func status(
        files: [String: String], activities: [Activity] = [], asOf: String, only: [String] = [], parts: [String] = []
    ) throws -> StatusReport {
        let folder = try TemporaryFolder()
        try folder.write("garage.yaml", files["garage.yaml"] ?? "units: metric\n")
        for (path, text) in files where path != "garage.yaml" { try folder.write(path, text) }
        for (month, items) in Dictionary(grouping: activities, by: \.monthKey) {
            try folder.write("activities/\(month).json", ActivityCacheFormat.encode(items))
        }
        // Settled files can be indexed (see ActivityIndex.settleTime).
        Thread.sleep(forTimeInterval: 0.07)
        let loaded = GarageLoader.load(at: folder.url.path)
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics.map(\.message))")
        let day = try #require(Day(asOf))
        let viaActivities = StatusPlanner(asOf: day).plan(
            loaded.garage, summaries: ActivitySummaries(loaded.wholeActivities), only: only.map(BikeID.init),
            parts: parts.map(PartID.init))
        // What `bikecheck status` runs: the summaries, from the cache files with the activity index
        // cold (made by this run), then warm (read instead of the files).
        var viaSummaries: StatusReport?
        for pass in ["cold", "warm"] {
            let summarised = GarageLoader.load(at: folder.url.path, options: .init(activities: .summaries))
            let planned = StatusPlanner(asOf: day).plan(
                summarised.garage, summaries: summarised.activitySummaries, only: only.map(BikeID.init),
                parts: parts.map(PartID.init))
            #expect(planned == viaActivities, "the summary path (index \(pass)) and the full path disagree")
            viaSummaries = planned
        }
        let months = Set(activities.map(\.monthKey)).count
        #expect(ActivityCacheLoader.loadSummaries(root: folder.url.path).indexed == months, "the warm pass read the index")
        return viaSummaries!
    }

    func ride(_ id: Int64, _ date: String, hours: Double, km: Double, gear: String? = "b1", sport: String = "Ride", trainer: Bool = false) -> Activity {
        Activity(
            id: id, name: "ride \(id)", sportType: sport, startDate: date + "T08:00:00Z", startDateLocal: date + "T09:00:00Z",
            movingTime: Int(hours * 3600), elapsedTime: Int(hours * 3600), distance: km * 1000, gearID: gear, trainer: trainer)
    }

    @Test func ridesOnATrainerCountOnlyWhereTheGarageOrTheBikeSaysSo() throws {
        let activities = [ride(1, "2026-02-01", hours: 2, km: 60), ride(2, "2026-02-02", hours: 1, km: 30, trainer: true)]
        let bike = "name: A\nstrava: b1\nbought: 2026-01-01\nintervals:\n  tyres:\n    task: Check the tyres\n    every: 10 h\n"
        let outdoors = try status(files: ["bikes/a.yaml": bike], activities: activities, asOf: "2026-03-01")
        #expect(try interval(outdoors, "a", "tyres").usage == Usage(movingTime: 2 * 3600, distance: 60_000, days: 59, rides: 1))

        let garageWide = try status(files: ["garage.yaml": "trainer: true\n", "bikes/a.yaml": bike], activities: activities, asOf: "2026-03-01")
        #expect(try interval(garageWide, "a", "tyres").usage.rides == 2)

        // The bike's own setting wins over the garage's, both ways.
        let bikeOnly = try status(files: ["bikes/a.yaml": bike + "trainer: true\n"], activities: activities, asOf: "2026-03-01")
        #expect(try interval(bikeOnly, "a", "tyres").usage.movingTime == 3 * 3600)
        let bikeOff = try status(
            files: ["garage.yaml": "trainer: true\n", "bikes/a.yaml": bike + "trainer: false\n"],
            activities: activities, asOf: "2026-03-01")
        #expect(try interval(bikeOff, "a", "tyres").usage.movingTime == 2 * 3600)

        // A VirtualRide is a trainer ride, flag or not: listed in counts, it counts only where
        // trainer rides do.
        let zwift = ride(3, "2026-02-03", hours: 1.5, km: 45, sport: "VirtualRide")
        let listed = try status(files: ["bikes/a.yaml": bike + "counts: [Ride, VirtualRide]\n"], activities: activities + [zwift], asOf: "2026-03-01")
        #expect(try interval(listed, "a", "tyres").usage.movingTime == 2 * 3600)
        let indoors = try status(
            files: ["bikes/a.yaml": bike + "counts: [Ride, VirtualRide]\ntrainer: true\n"], activities: activities + [zwift], asOf: "2026-03-01")
        #expect(try interval(indoors, "a", "tyres").usage.movingTime == 4.5 * 3600)
    }

    /// Unwrapped rows of ASCII are written as bytes, any other row the TerminalText way: one
    /// table, aligned alike, painted alike (what main's renderer printed for this garage before).
    @Test func rowsOfAsciiAndRowsBeyondItAlignAndPaintAlike() throws {
        let bike = """
            name: Grävel
            bought: 2026-01-01
            intervals:
              tyres: {task: Check the tyres, every: 6 months}
              chain: {task: "Kette ölen ✓", every: 2 months}
              wash: {task: Wash, every: 1 month}

            """
        let report = try status(files: ["bikes/a.yaml": bike], asOf: "2026-03-01")
        let rows = """
              overdue  wash   190%  1.9 / 1 month  Wash  since 2026-01-01
              overdue  chain  100%   2 / 2 months  Kette ölen ✓  since 2026-01-01
              ok       tyres   33%   2 / 6 months  Check the tyres  since 2026-01-01, due ~2026-07-01

            """
        #expect(StatusTextRenderer().render(report).string == "As of 2026-03-01: 2 overdue, 0 due soon, 1 ok\n\na · Grävel\n" + rows)
        let painted = """
              \u{1B}[1;31moverdue\u{1B}[0m  wash   190%  1.9 / 1 month  Wash  since 2026-01-01
              \u{1B}[1;31moverdue\u{1B}[0m  chain  100%   2 / 2 months  Kette ölen ✓  since 2026-01-01
              \u{1B}[32mok     \u{1B}[0m  tyres   33%   2 / 6 months  Check the tyres  since 2026-01-01, due ~2026-07-01

            """
        #expect(StatusTextRenderer(colored: true).render(report).string.hasSuffix("\u{1B}[1ma · Grävel\u{1B}[0m\n" + painted))
    }

    @Test func aRetiredBikesCalendarStopsOnTheDayItWasRetired() throws {
        let bike = "name: A\nstrava: b1\nbought: 2026-01-01\nretired: 2026-03-01\nintervals:\n  service:\n    task: Service\n    every: [100 h, 6 months]\n"
        let report = try status(
            files: ["bikes/a.yaml": bike], activities: [ride(1, "2026-02-01", hours: 10, km: 300)],
            asOf: "2026-12-01", only: ["a"])
        let s = try interval(report, "a", "service")
        // 59 days from 1 January to 1 March of the 181 until 1 July, not 334 days (overdue).
        #expect(s.usage.days == 59)
        #expect(abs(s.limits[1].progress - 0.3260) < 1e-4)
        #expect(s.state == .ok)
        #expect(s.due == nil && s.limits.allSatisfy { $0.due == nil }, "nothing is forecast for a retired bike")
    }

    func interval(_ report: StatusReport, _ bike: String, _ id: String) throws -> IntervalStatus {
        let b = try #require(report.bikes.first { $0.id == bike })
        return try #require(b.intervals.first { $0.id == id })
    }

    @Test func whicheverComesFirstTakesTheLargestFraction() throws {
        let report = try status(
            files: ["bikes/a.yaml": "name: A\nstrava: b1\nbought: 2026-01-01\nintervals:\n  service:\n    every: [10 h, 100 km]\n"],
            activities: [ride(1, "2026-02-01", hours: 2, km: 30), ride(2, "2026-02-02", hours: 2, km: 30), ride(3, "2026-02-03", hours: 2, km: 30)],
            asOf: "2026-03-01")
        let s = try interval(report, "a", "service")
        #expect(s.usage == Usage(movingTime: 6 * 3600, distance: 90_000, days: 59, rides: 3))
        #expect(abs(s.limits[0].progress - 0.6) < 1e-9)
        #expect(abs(s.limits[1].progress - 0.9) < 1e-9)
        #expect(abs(s.progress - 0.9) < 1e-9)
        #expect(s.state == .dueSoon)
        #expect(s.anchor == .bought)
        #expect(s.since == Day("2026-01-01"))
    }

    @Test func onlyTheBikesGearAndCountedSportTypesCount() throws {
        let activities = [
            ride(1, "2026-02-01", hours: 2, km: 30),
            ride(2, "2026-02-02", hours: 10, km: 100, sport: "Run"),
            ride(3, "2026-02-03", hours: 1, km: 30, sport: "VirtualRide"),
            ride(4, "2026-02-04", hours: 5, km: 150, gear: "b2"),
            ride(5, "2026-02-05", hours: 5, km: 150, gear: nil),
        ]
        let files = [
            "bikes/a.yaml": "name: A\nstrava: b1\nbought: 2026-01-01\nintervals:\n  service:\n    every: 10 h\n",
            "bikes/b.yaml": "name: B\nstrava: b2\nbought: 2026-01-01\ncounts: [VirtualRide]\nintervals:\n  service:\n    every: 10 h\n",
        ]
        let report = try status(files: files, activities: activities, asOf: "2026-03-01")
        #expect(try interval(report, "a", "service").usage.movingTime == 2 * 3600)
        // Bike b counts only VirtualRide, and its one activity is a Ride.
        #expect(try interval(report, "b", "service").usage.rides == 0)

        var virtual = files
        virtual["bikes/a.yaml"] = "name: A\nstrava: b1\nbought: 2026-01-01\ncounts: [Ride, VirtualRide]\nintervals:\n  service:\n    every: 10 h\n"
        // Listing VirtualRide is not enough: it is a trainer ride, and A does not count those.
        let listed = try status(files: virtual, activities: activities, asOf: "2026-03-01")
        #expect(try interval(listed, "a", "service").usage.movingTime == 2 * 3600)
        virtual["bikes/a.yaml"]! += "trainer: true\n"
        let withTrainer = try status(files: virtual, activities: activities, asOf: "2026-03-01")
        #expect(try interval(withTrainer, "a", "service").usage.movingTime == 3 * 3600)
    }

    @Test func aBikeOverridesItsTemplateByIntervalId() throws {
        let report = try status(
            files: [
                "templates/road.yaml":
                    "name: Road\nintervals:\n  chain-lube:\n    task: Lube the chain\n    component: chain\n    every: 10 h\n  full:\n    every: [100 h, 12 months]\n",
                "bikes/a.yaml":
                    "name: A\nstrava: b1\nbought: 2026-01-01\ntemplates: [road]\ncomponents:\n  chain:\n    installed: 2026-01-01\nintervals:\n  chain-lube:\n    every: 8 h\n",
            ],
            activities: [ride(1, "2026-01-10", hours: 4, km: 100)],
            asOf: "2026-01-31")
        let lube = try interval(report, "a", "chain-lube")
        #expect(lube.task == "Lube the chain")
        #expect(lube.limits.map(\.every) == ["8 h"])
        #expect(abs(lube.progress - 0.5) < 1e-9)
        #expect(lube.template == "road")
        let full = try interval(report, "a", "full")
        #expect(full.limits.map(\.every) == ["100 h", "12 months"])
    }

    @Test func theLatestServiceOnOrBeforeAsOfIsTheAnchorAndItsDayCounts() throws {
        let files = [
            "bikes/a.yaml": """
            name: A
            strava: b1
            bought: 2026-01-01
            intervals:
              service:
                every: 10 h
            log:
              - date: 2026-02-02
                done: [service]
              - date: 2026-02-20
                done: service
            """
        ]
        let activities = [
            ride(1, "2026-02-01", hours: 1, km: 20), ride(2, "2026-02-02", hours: 2, km: 30),
            ride(3, "2026-02-03", hours: 2, km: 30), ride(4, "2026-02-15", hours: 3, km: 30),
        ]
        let early = try interval(try status(files: files, activities: activities, asOf: "2026-02-10"), "a", "service")
        #expect(early.since == Day("2026-02-02"))
        #expect(early.anchor == .done)
        #expect(early.usage == Usage(movingTime: 4 * 3600, distance: 60_000, days: 8, rides: 2))

        let late = try interval(try status(files: files, activities: activities, asOf: "2026-02-25"), "a", "service")
        #expect(late.since == Day("2026-02-20"))
        #expect(late.usage.rides == 0)
    }

    /// A bike with few intervals finds a log entry's ids by comparing them, one with many by
    /// hashing (`StatusPlanner.Services`): the same anchors either way.
    @Test(arguments: [3, 20]) func aServiceAnchorsItsIntervalAmongFewOrManyIntervals(count: Int) throws {
        let intervals = (1...count).map { "  task-\($0):\n    every: 10 h\n" }.joined()
        let bike = """
            name: A
            strava: b1
            bought: 2026-01-01
            intervals:
            \(intervals)log:
              - date: 2026-02-02
                done: [task-\(count), task-1]
              - date: 2026-02-05
                done: [task-1]

            """
        let report = try status(files: ["bikes/a.yaml": bike], activities: [ride(1, "2026-02-03", hours: 1, km: 20)], asOf: "2026-02-10")
        let first = try interval(report, "a", "task-1"), last = try interval(report, "a", "task-\(count)")
        #expect(first.anchor == .done)
        #expect(first.since == Day("2026-02-05"))
        #expect(last.anchor == .done)
        #expect(last.since == Day("2026-02-02"))
        #expect(last.usage.rides == 1)
        let untouched = try interval(report, "a", "task-2")
        #expect(untouched.anchor == .bought)
    }

    @Test func installDatesPriorUsageAndReplacementsMoveTheAnchor() throws {
        let files = [
            "bikes/a.yaml": """
            name: A
            strava: b1
            bought: 2025-12-01
            components:
              chain:
                installed: 2026-01-15
              fork:
                installed: 2026-01-01
                hours: 40
            intervals:
              chain-lube:
                component: chain
                every: 10 h
              chain-replace:
                component: chain
                replaces: chain
                every: 3000 km
              fork-service:
                component: fork
                every: 50 h
            log:
              - date: 2026-02-01
                done: [chain-replace]
            """
        ]
        let activities = [ride(1, "2026-01-10", hours: 2, km: 40), ride(2, "2026-01-20", hours: 2, km: 40), ride(3, "2026-02-10", hours: 2, km: 40)]
        let report = try status(files: files, activities: activities, asOf: "2026-02-15")

        let lube = try interval(report, "a", "chain-lube")
        #expect(lube.anchor == .replaced)
        #expect(lube.since == Day("2026-02-01"))
        #expect(abs(lube.progress - 0.2) < 1e-9)

        let replace = try interval(report, "a", "chain-replace")
        #expect(replace.since == Day("2026-02-01"))
        #expect(replace.usage.distance == 40_000)

        let fork = try interval(report, "a", "fork-service")
        #expect(fork.anchor == .installed)
        #expect(fork.usage.movingTime == 46 * 3600)
        #expect(abs(fork.progress - 0.92) < 1e-9)
        #expect(fork.state == .dueSoon)
    }

    @Test func aServiceOnTheInstallDayStartsThePartFresh() throws {
        let files = [
            "bikes/a.yaml": """
            name: A
            strava: b1
            components:
              fork:
                installed: 2025-02-01
                hours: 40
            intervals:
              fork-service:
                component: fork
                every: 50 h
            log:
              - date: 2025-02-01
                done: [fork-service]
            """
        ]
        let fork = try interval(try status(files: files, activities: [ride(1, "2025-02-03", hours: 2, km: 30)], asOf: "2025-02-10"), "a", "fork-service")
        #expect(fork.anchor == .done)
        #expect(fork.usage.movingTime == 2 * 3600, "the 40 h it came with are serviced away")
    }

    @Test func aComponentWithoutAnInstallDateCountsFromTheDayTheBikeWasBought() throws {
        let files = [
            "bikes/a.yaml": """
            name: A
            strava: b1
            bought: 2025-01-01
            components:
              fork:
                hours: 40
            intervals:
              fork-service:
                component: fork
                every: 50 h
            """
        ]
        let fork = try interval(try status(files: files, activities: [ride(1, "2025-02-03", hours: 2, km: 30)], asOf: "2025-02-10"), "a", "fork-service")
        #expect(fork.anchor == .installed)
        #expect(fork.since == Day("2025-01-01"))
        #expect(fork.usage.movingTime == 42 * 3600)
    }

    @Test func aBikeRetiredAfterTheAsOfDayIsStillShownAsOfThen() throws {
        let files = ["bikes/old.yaml": "name: Old\nbought: 2020-01-01\nretired: 2026-01-01\nintervals:\n  x:\n    every: 1 year\n"]
        #expect(try status(files: files, asOf: "2025-06-01").bikes.map(\.id) == ["old"])
        #expect(try status(files: files, asOf: "2026-01-01").bikes.isEmpty)
    }

    @Test func monthsAreCalendarMonths() throws {
        let files = [
            "bikes/a.yaml": """
            name: A
            intervals:
              sealant:
                every: 3 months
            log:
              - date: 2026-01-31
                done: [sealant]
            """
        ]
        // 31 Jan + 3 months is 30 Apr: 89 days; 15 Mar is 43 days in.
        let mid = try interval(try status(files: files, asOf: "2026-03-15"), "a", "sealant")
        #expect(abs(mid.progress - 43.0 / 89.0) < 1e-4)
        #expect(mid.due == Day("2026-04-30"))
        #expect(mid.state == .ok)
        let end = try interval(try status(files: files, asOf: "2026-04-30"), "a", "sealant")
        #expect(end.state == .overdue)
        #expect(abs(end.progress - 1) < 1e-9)
    }

    @Test func handEnteredRidesCountForTheirBikeFilteredBySport() throws {
        let report = try status(
            files: [
                "bikes/c.yaml": "name: C\nbought: 2026-01-01\nintervals:\n  lube:\n    every: [2 h, 100 km]\n",
                "rides.yaml": """
                rides:
                  - {date: 2026-01-05, bike: c, time: 1h30, distance: 20 km}
                  - {date: 2026-01-06, bike: c, time: 45 min, distance: 10 km}
                  - {date: 2026-01-07, bike: c, time: 3 h, distance: 10 km, sport: Run}
                """,
            ],
            asOf: "2026-01-10")
        let lube = try interval(report, "c", "lube")
        #expect(lube.usage.movingTime == 2.25 * 3600)
        #expect(lube.usage.distance == 30_000)
        #expect(abs(lube.progress - 1.125) < 1e-9)
        #expect(lube.state == .overdue)
        #expect(report.hasOverdue)
    }

    @Test func aSteadyPaceForecastsTheDueDay() throws {
        let asOf = try #require(Day("2026-06-30"))
        let activities = (0..<365).map { age in
            ride(Int64(age + 1), asOf.adding(days: -age).description, hours: 1, km: 25)
        }
        let files = ["bikes/a.yaml": "name: A\nstrava: b1\nintervals:\n  lube:\n    every: 10 h\nlog:\n  - date: \(asOf.adding(days: -3))\n    done: [lube]\n"]
        let lube = try interval(try status(files: files, activities: activities, asOf: asOf.description), "a", "lube")
        #expect(lube.usage.movingTime == 4 * 3600)
        // One hour a day, every day: 6 h to go is 6 days.
        #expect(lube.due == asOf.adding(days: 6))
    }

    @Test func retiredBikesAreLeftOutUnlessNamed() throws {
        let files = [
            "bikes/old.yaml": "name: Old\nretired: 2025-01-01\nbought: 2020-01-01\nintervals:\n  x:\n    every: 1 year\n",
            "bikes/new.yaml": "name: New\nbought: 2026-01-01\nintervals:\n  x:\n    every: 1 year\n",
        ]
        #expect(try status(files: files, asOf: "2026-02-01").bikes.map(\.id) == ["new"])
        #expect(try status(files: files, asOf: "2026-02-01", only: ["old"]).bikes.map(\.id) == ["old"])
    }

    @Test func withNothingToCountFromProgressIsZero() throws {
        let s = try interval(try status(files: ["bikes/a.yaml": "name: A\nintervals:\n  x:\n    every: 10 h\n"], asOf: "2026-02-01"), "a", "x")
        #expect(s.anchor == AnchorKind.none)
        #expect(s.progress == 0)
        #expect(s.state == .ok)
    }

    @Test func intervalsAreSortedMostUrgentFirst() throws {
        let report = try status(
            files: ["bikes/a.yaml": "name: A\nbought: 2026-01-01\nintervals:\n  a:\n    every: 1 year\n  b:\n    every: 10 days\n  c:\n    every: 2 months\n"],
            asOf: "2026-01-21")
        #expect(report.bikes[0].intervals.map(\.id) == ["b", "c", "a"])
    }
}
