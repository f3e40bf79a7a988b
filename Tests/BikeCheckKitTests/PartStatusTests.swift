import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// Parts that move between bikes, against answers worked out by hand, through both ways of
/// reading the cache (the helper of `StatusPlannerTests` compares them).
extension StatusPlannerTests {
    static let grail = "name: Grail\nstrava: b1\nbought: 2025-01-01\n"
    static let tarmac = "name: Tarmac\nstrava: b2\nbought: 2025-01-01\n"
    static let wheels = """
        name: Race wheels
        bought: 2025-03-01
        distance: 800 km
        hours: 30
        rides: 12
        intervals:
          true-wheels: {task: True the wheels, every: 3000 km}
        mounts:
          - {bike: grail, from: 2025-03-01, to: 2025-03-10}
          - {bike: tarmac, from: 2025-03-11}

        """

    /// Rides on both bikes, on the days around the swap: only those of the bike the wheels were
    /// on that day count for them.
    var swapRides: [Activity] {
        [
            ride(1, "2025-02-28", hours: 1, km: 10, gear: "b1"),  // grail, before the wheels were bought
            ride(2, "2025-03-01", hours: 2, km: 20, gear: "b1"),  // grail, first day (inclusive)
            ride(3, "2025-03-10", hours: 3, km: 30, gear: "b1"),  // grail, last day (inclusive)
            ride(4, "2025-03-10", hours: 4, km: 40, gear: "b2"),  // tarmac, the day before they came
            ride(5, "2025-03-11", hours: 5, km: 50, gear: "b2"),  // tarmac, first day
            ride(6, "2025-03-12", hours: 6, km: 60, gear: "b1"),  // grail, after they left
            ride(7, "2025-03-20", hours: 7, km: 70, gear: "b2"),
        ]  // tarmac
    }

    @Test func aPartCountsTheRidesOfEachBikeOnTheDaysItWasThereWithItsPriorUsage() throws {
        let report = try status(
            files: ["bikes/grail.yaml": Self.grail, "bikes/tarmac.yaml": Self.tarmac, "parts/wheels.yaml": Self.wheels],
            activities: swapRides, asOf: "2025-03-31")
        let s = try interval(report, "tarmac", "true-wheels")
        #expect(s.part == "wheels")
        // Rides 2, 3, 5, 7: 17 h and 170 km, plus 30 h, 800 km and 12 rides before tracking.
        #expect(s.usage == Usage(movingTime: (17 + 30) * 3600, distance: 970_000, days: 30, rides: 16))
        #expect(s.since == Day("2025-03-01") && s.anchor == .bought)
        #expect(abs(s.progress - 970.0 / 3000) < 1e-4)
        #expect(try #require(report.bikes.first { $0.id == "grail" }).intervals.isEmpty, "the wheels are no longer on the grail")
        #expect(report.parts.isEmpty, "no part is on the shelf")
    }

    @Test func aPartsIntervalsShowUnderTheBikeItIsOnAsOfTheReportDay() throws {
        let files = ["bikes/grail.yaml": Self.grail, "bikes/tarmac.yaml": Self.tarmac, "parts/wheels.yaml": Self.wheels]
        let before = try status(files: files, activities: swapRides, asOf: "2025-03-10")
        let s = try interval(before, "grail", "true-wheels")
        // Rides 2 and 3 on the grail, and nothing of the tarmac's ride 4 that day.
        #expect(s.usage == Usage(movingTime: (5 + 30) * 3600, distance: 850_000, days: 9, rides: 14))
        #expect(try #require(before.bikes.first { $0.id == "tarmac" }).intervals.isEmpty)
    }

    @Test func aServiceInThePartsLogRestartsItsCountWithoutThePriorUsage() throws {
        let files = [
            "bikes/grail.yaml": Self.grail, "bikes/tarmac.yaml": Self.tarmac,
            "parts/wheels.yaml": Self.wheels + "log:\n  - {date: 2025-03-10, done: [true-wheels]}\n",
        ]
        let report = try status(files: files, activities: swapRides, asOf: "2025-03-31")
        let s = try interval(report, "tarmac", "true-wheels")
        // From 10 March (inclusive): ride 3 on the grail, 5 and 7 on the tarmac.
        #expect(s.usage == Usage(movingTime: 15 * 3600, distance: 150_000, days: 21, rides: 3))
        #expect(s.anchor == .done && s.since == Day("2025-03-10"))
    }

    @Test func aPartOnTheShelfIsReportedOnItsOwnAndANamedPartSaysWhereItIs() throws {
        let shelved = Self.wheels.replacingOccurrences(of: "{bike: tarmac, from: 2025-03-11}", with: "{bike: tarmac, from: 2025-03-11, to: 2025-03-15}")
        let files = ["bikes/grail.yaml": Self.grail, "bikes/tarmac.yaml": Self.tarmac, "parts/wheels.yaml": shelved]
        let report = try status(files: files, activities: swapRides, asOf: "2025-03-31")
        let part = try #require(report.parts.first)
        #expect(report.parts.count == 1 && part.id == "wheels" && part.bike == nil)
        // Rides 2, 3 and 5: ride 7 came after the wheels went back on the shelf. No pace, no forecast by distance.
        #expect(part.intervals.first?.usage == Usage(movingTime: (10 + 30) * 3600, distance: 900_000, days: 30, rides: 15))
        #expect(part.intervals.first?.due == nil)
        #expect(report.bikes.allSatisfy { $0.intervals.isEmpty })

        // `status wheels`: the part alone, with the bike it is on.
        let named = try status(
            files: ["bikes/grail.yaml": Self.grail, "bikes/tarmac.yaml": Self.tarmac, "parts/wheels.yaml": Self.wheels],
            activities: swapRides, asOf: "2025-03-31", parts: ["wheels"])
        #expect(named.bikes.isEmpty)
        #expect(named.parts.map(\.id) == ["wheels"] && named.parts.first?.bike == "tarmac")
        #expect(named.parts.first?.intervals.first?.usage.distance == 970_000)
    }

    @Test func aPartCountsTheRidesOfARetiredBikeItWasOnAndOnlyWhatCountedForThatBike() throws {
        // The grail is retired and left out of the report, but the wheels' days on it still count;
        // the grail counts only GravelRide, so its Ride on 1 March does not wear the wheels.
        let files = [
            "bikes/grail.yaml": Self.grail + "retired: 2025-03-10\ncounts: [GravelRide]\n", "bikes/tarmac.yaml": Self.tarmac,
            "parts/wheels.yaml": Self.wheels,
        ]
        var rides = swapRides
        rides[2] = ride(3, "2025-03-10", hours: 3, km: 30, gear: "b1", sport: "GravelRide")
        let report = try status(files: files, activities: rides, asOf: "2025-03-31")
        #expect(report.bikes.map(\.id) == ["tarmac"])
        let s = try interval(report, "tarmac", "true-wheels")
        // Rides 3, 5 and 7.
        #expect(s.usage == Usage(movingTime: (15 + 30) * 3600, distance: 950_000, days: 30, rides: 15))
    }
}

/// Lifetime totals (`part list`, `part show`), by hand, through both ways of reading the cache.
extension StatusPlannerTests {
    func lives(files: [String: String], activities: [Activity], asOf: String, parts: [String] = []) throws -> PartLifeReport {
        let folder = try TemporaryFolder()
        try folder.write("garage.yaml", files["garage.yaml"] ?? "units: metric\n")
        for (path, text) in files where path != "garage.yaml" { try folder.write(path, text) }
        for (month, items) in Dictionary(grouping: activities, by: \.monthKey) {
            try folder.write("activities/\(month).json", ActivityCacheFormat.encode(items))
        }
        let day = try #require(Day(asOf))
        let full = GarageLoader.load(at: folder.url.path)
        #expect(full.diagnostics.isEmpty, "\(full.diagnostics.map(\.message))")
        let viaActivities = StatusPlanner(asOf: day).lives(full.garage, summaries: ActivitySummaries(full.wholeActivities), only: parts.map(PartID.init))
        let summarised = GarageLoader.load(at: folder.url.path, options: .init(activities: .summaries))
        let viaSummaries = StatusPlanner(asOf: day).lives(summarised.garage, summaries: summarised.activitySummaries, only: parts.map(PartID.init))
        #expect(viaSummaries == viaActivities, "the summary path and the full path disagree")
        return viaSummaries
    }

    @Test func aPartsLifeIsTheSumOfItsMountsAndItsPriorUsage() throws {
        let files = ["bikes/grail.yaml": Self.grail, "bikes/tarmac.yaml": Self.tarmac, "parts/wheels.yaml": Self.wheels]
        let report = try lives(files: files, activities: swapRides, asOf: "2025-03-31", parts: ["wheels"])
        let life = try #require(report.parts.first)
        #expect(report.parts.count == 1 && life.kind == .part && life.bike == "tarmac")
        let mounts = try #require(life.mounts)
        #expect(mounts.map(\.bike) == ["grail", "tarmac"])
        // Rides 2 and 3 on the grail; 5 and 7 on the tarmac.
        #expect(mounts[0].usage == LifeUsage(distance: 50_000, movingTime: 5 * 3600, rides: 2, firstUse: Day("2025-03-01"), lastUse: Day("2025-03-10")))
        #expect(mounts[1].usage == LifeUsage(distance: 120_000, movingTime: 12 * 3600, rides: 2, firstUse: Day("2025-03-11"), lastUse: Day("2025-03-20")))
        #expect(life.usage == LifeUsage(distance: 970_000, movingTime: 47 * 3600, rides: 16, firstUse: Day("2025-03-01"), lastUse: Day("2025-03-20")))
    }

    @Test func aComponentsLifeIsTheCurrentOnesAndItsSlotCountsEveryOneThatFilledIt() throws {
        let bike = """
            name: Grail
            strava: b1
            bought: 2025-01-01
            components:
              chain: {installed: 2025-02-01, distance: 100 km}
            intervals:
              chain-replace: {task: Replace the chain, replaces: chain, every: 3000 km}
            log:
              - {date: 2025-03-10, done: [chain-replace]}

            """
        let report = try lives(files: ["bikes/grail.yaml": bike], activities: swapRides, asOf: "2025-03-31")
        let chain = try #require(report.parts.first { $0.id == "chain" })
        #expect(chain.kind == .component && chain.bike == "grail" && chain.since == Day("2025-03-10"))
        // Replaced on 10 March: rides 3 and 6, and no usage before tracking (that was the old chain's).
        #expect(chain.usage == LifeUsage(distance: 90_000, movingTime: 9 * 3600, rides: 2, firstUse: Day("2025-03-10"), lastUse: Day("2025-03-12")))
        // The slot: every ride through the chain's filter (120 km, 12 h, 4 rides), whichever chain,
        // plus the 100 km before tracking written for it (the first chain's life had them).
        #expect(chain.slot == LifeUsage(distance: 220_000, movingTime: 12 * 3600, rides: 4, firstUse: Day("2025-02-28"), lastUse: Day("2025-03-12")))
    }
}

/// Ride filters (`counts`, `trainer`) on intervals, components and parts, by hand, through both
/// ways of reading the cache.
extension StatusPlannerTests {
    /// An outdoor ride, a ride on a trainer, a VirtualRide and a gravel ride.
    var mixedRides: [Activity] {
        [
            ride(1, "2026-02-01", hours: 2, km: 60),
            ride(2, "2026-02-02", hours: 1, km: 30, trainer: true),
            ride(3, "2026-02-03", hours: 1.5, km: 45, sport: "VirtualRide", trainer: true),
            ride(4, "2026-02-04", hours: 3, km: 50, sport: "GravelRide"),
        ]
    }

    @Test func anIntervalOrItsComponentSaysWhichRidesCountAndTheIntervalWins() throws {
        let bike = """
            name: A
            strava: b1
            bought: 2026-01-01
            counts: [Ride, GravelRide]
            components:
              chain: {trainer: true}
              tyres: {}
            intervals:
              chain-lube: {task: Lube, component: chain, every: 10 h}
              chain-check: {task: Check, component: chain, trainer: false, every: 10 h}
              tyres: {task: Tyres, component: tyres, every: 10 h}
              zwift-only: {task: Trainer tyre, trainer: only, counts: [Ride, VirtualRide], every: 10 h}
              road-only: {task: Road, counts: Ride, every: 10 h}

            """
        let report = try status(files: ["bikes/a.yaml": bike], activities: mixedRides, asOf: "2026-03-01")
        // The chain wears on the trainer (rides 1, 2, 4); the bike's VirtualRide is not in its counts.
        #expect(try interval(report, "a", "chain-lube").usage.movingTime == 6 * 3600)
        // The interval's own `trainer: false` wins over its component's.
        #expect(try interval(report, "a", "chain-check").usage.movingTime == 5 * 3600)
        // Tyres: the bike's filter, outdoors only (rides 1 and 4).
        #expect(try interval(report, "a", "tyres").usage.movingTime == 5 * 3600)
        // Indoors only, of Ride and VirtualRide: rides 2 and 3.
        #expect(try interval(report, "a", "zwift-only").usage == Usage(movingTime: 2.5 * 3600, distance: 75_000, days: 59, rides: 2))
        // Ride only, outdoors: ride 1.
        #expect(try interval(report, "a", "road-only").usage.rides == 1)
    }

    @Test func aTemplatesIntervalFilterStaysWhenABikeOverridesOtherKeys() throws {
        let template = "name: T\nintervals:\n  chain-lube:\n    every: 10 h\n    trainer: true\n"
        let bike = "name: A\nstrava: b1\nbought: 2026-01-01\ntemplates: [t]\nintervals:\n  chain-lube:\n    every: 8 h\n"
        let report = try status(files: ["templates/t.yaml": template, "bikes/a.yaml": bike], activities: mixedRides, asOf: "2026-03-01")
        // The template's `trainer: true` stays: rides 1, 2 (on a trainer) and 4; VirtualRide is not in the garage's default counts.
        #expect(try interval(report, "a", "chain-lube").usage.movingTime == 6 * 3600)
    }

    @Test func aPartsFilterAppliesToTheRidesOfEachBikeItIsOn() throws {
        let a = "name: A\nstrava: b1\nbought: 2026-01-01\ntrainer: true\n"
        let b = "name: B\nstrava: b2\nbought: 2026-01-01\n"
        // Wheels that never go on a trainer, on a bike whose own rides include trainer rides.
        let wheels = """
            name: Wheels
            trainer: false
            intervals:
              true-wheels: {task: True, every: 3000 km}
              hub: {task: Hub, trainer: true, every: 100 h}
            mounts:
              - {bike: a, from: 2026-02-01, to: 2026-02-02}
              - {bike: b, from: 2026-02-03}

            """
        let rides = [
            ride(1, "2026-02-01", hours: 2, km: 60, gear: "b1"),
            ride(2, "2026-02-02", hours: 1, km: 30, gear: "b1", trainer: true),
            ride(3, "2026-02-03", hours: 1, km: 30, gear: "b2", trainer: true),
            ride(4, "2026-02-04", hours: 3, km: 90, gear: "b2"),
        ]
        let report = try status(files: ["bikes/a.yaml": a, "bikes/b.yaml": b, "parts/wheels.yaml": wheels], activities: rides, asOf: "2026-03-01")
        // Outdoors only, on both bikes: rides 1 and 4.
        #expect(try interval(report, "b", "true-wheels").usage.distance == 150_000)
        // The hub interval lets trainer rides in: rides 1, 2, 3 and 4.
        #expect(try interval(report, "b", "hub").usage.movingTime == 7 * 3600)
        // Lifetime totals use the part's filter too.
        let life = try #require(
            try lives(
                files: ["bikes/a.yaml": a, "bikes/b.yaml": b, "parts/wheels.yaml": wheels], activities: rides,
                asOf: "2026-03-01", parts: ["wheels"]
            ).parts.first)
        #expect(life.usage.distance == 150_000 && life.usage.rides == 2)
    }
}
