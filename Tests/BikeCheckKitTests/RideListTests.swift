@testable import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// `CountedRides.BikeRides` keeps each bike's rides as the numbers of their records and
/// hand-entered rides (`RideList`) rather than as entries: read back, they are the entries the
/// engine made, field for field, counted or not, cached or entered by hand.
@Suite struct RideListTests {
    static func shown(_ e: CountedRides.Entry) -> String {
        "\(e.day) \(e.record) \(e.hand) \(e.verdict) \(e.movingTime) \(e.distance) \(e.elevation) \(e.bike) \(e.activity) \(e.sport)"
    }

    @Test func aKeptListReadsBackTheEntriesTheEngineMade() throws {
        let folder = try TemporaryFolder()
        try folder.write("garage.yaml", "units: metric\n")
        try folder.write("bikes/a.yaml", "name: Bike A\nstrava: b1\nbought: 2025-01-03\ncounts: [Ride]\n")
        try folder.write(
            "rides.yaml",
            "rides:\n  - {date: 2025-01-05, bike: a, time: 47 min, distance: 17.1 km}\n  - {date: 2025-01-02, bike: a, time: 30 min, distance: 9 km}\n")
        let loaded = GarageLoader.load(at: folder.url.path, options: .init(activities: .skip, today: Day("2025-06-01")))
        func ride(_ id: Int64, _ day: String, sport: String = "Ride", gear: String? = "b1", trainer: Bool = false) -> Activity {
            Activity(
                id: id, name: "ride \(id)", sportType: sport, startDate: day + "T08:00:00Z", startDateLocal: day + "T09:00:00Z",
                movingTime: 3600 + Int(id), elapsedTime: 3700, distance: Double(id) * 1000, totalElevationGain: Double(id), gearID: gear,
                trainer: trainer)
        }
        let activities = [
            ride(1, "2025-01-01"), ride(2, "2025-01-05"), ride(3, "2025-01-06", sport: "Run"), ride(4, "2025-01-07", trainer: true),
            ride(5, "2025-01-08", gear: nil), ride(6, "2025-01-09"),
        ]
        let index = CountedRides.Index(ActivitySummaries(activities))
        let garage = loaded.garage
        let bike = try #require(garage.bikes.first)
        for countedOnly in [false, true] {
            var rides = CountedRides.BikeRides(garage: garage, index: index, through: Day("2025-06-01")!, countedOnly: countedOnly)
            let made = CountedRides.entries(
                of: bike, filter: bike.filter, index: index, handEntered: garage.rides, through: Day("2025-06-01"), countedOnly: countedOnly)
            let kept = rides.rides(bike: 0, filter: bike.filter)
            #expect(kept.map(Self.shown) == made.map(Self.shown))
            #expect(kept.indices.map { kept.day(at: $0) } == made.map(\.day))
            #expect(made.count == (countedOnly ? 3 : 8), "a ride before bought, a run, a trainer ride and one without gear only when all are listed")
        }
    }

    @Test func aSportTypeNamedTwiceInTheStringsCountsThroughEitherNumber() throws {
        let folder = try TemporaryFolder()
        try folder.write("garage.yaml", "units: metric\n")
        try folder.write("bikes/a.yaml", "name: Bike A\nstrava: b1\ncounts: [Ride]\n")
        let loaded = GarageLoader.load(at: folder.url.path, options: .init(activities: .skip, today: Day("2025-06-01")))
        let bike = try #require(loaded.garage.bikes.first)
        // The strings as a list of summaries may hold them: "Ride" at 1 and again at 3.
        let day = Int32(Day("2025-01-05")!.ordinal)
        func record(_ id: Int64, sport: Int32) -> ActivitySummary {
            ActivitySummary(id: id, day: day + Int32(id), gear: 0, sport: sport, movingTime: 3600, distance: 1000, tags: -1)
        }
        var records = [record(1, sport: 1), record(2, sport: 3), record(3, sport: 4), record(4, sport: 2)]
        let summaries = ActivitySummaries(
            placing: &records, runs: [.init(records: 0..<4, duplicates: [], renumber: [0, 1, 2, 3, 4])], strings: ["b1", "Ride", "b2", "Ride", "Run"])
        let index = CountedRides.Index(summaries)
        #expect(index.indices(of: "Ride") == [1, 3])
        #expect(index.indices(of: "Run") == [4])
        #expect(index.indices(of: "Hike") == [])
        let entries = CountedRides.entries(of: bike, index: index, handEntered: [], through: Day("2025-06-01"))
        #expect(entries.map(\.record) == [0, 1, 2, 3])
        #expect(entries.map(\.verdict) == [.counted, .counted, .sportType, .sportType], "a Ride by either number counts; a Run and a gear id do not")
    }

    /// A ledger, and a kept list of counted rides, are made straight from the records when they
    /// come in the entries' order, else from the entries: either way the same days and the same
    /// sums, added in the same order, and the same rides (cache order out of day order, two
    /// rides of a day out of id order, hand-entered rides that count, one of them on a day with
    /// an activity, a bike with none of these).
    @Test func aLedgerOrAListMadeFromTheRecordsHoldsWhatTheEntriesHold() throws {
        let folder = try TemporaryFolder()
        try folder.write("garage.yaml", "units: metric\n")
        for b in ["a", "b", "c", "d"] { try folder.write("bikes/\(b).yaml", "name: Bike \(b)\nstrava: g\(b)\ncounts: [Ride]\n") }
        try folder.write(
            "rides.yaml",
            "rides:\n  - {date: 2025-01-06, bike: c, time: 20 min, distance: 5 km}\n  - {date: 2025-01-05, bike: c, time: 47 min, distance: 17.1 km}\n")
        let loaded = GarageLoader.load(at: folder.url.path, options: .init(activities: .skip, today: Day("2025-06-01")))
        func ride(_ id: Int64, _ day: String, gear: String, km: Double) -> Activity {
            Activity(
                id: id, name: "ride \(id)", sportType: "Ride", startDate: day + "T08:00:00Z", startDateLocal: day + "T09:00:00Z",
                movingTime: 3000 + Int(id) * 7, elapsedTime: 3700, distance: km * 1000, gearID: gear)
        }
        let activities = [
            // a: in order; b: a day earlier after a later one; c: in order, with a counted hand-entered ride;
            // d: two rides of one day, the larger id first.
            ride(1, "2025-01-01", gear: "ga", km: 0.1), ride(2, "2025-01-02", gear: "ga", km: 0.2), ride(3, "2025-01-04", gear: "gb", km: 0.3),
            ride(4, "2025-01-03", gear: "gb", km: 1e9), ride(5, "2025-01-06", gear: "gb", km: 0.7), ride(6, "2025-01-04", gear: "gc", km: 0.3),
            ride(7, "2025-01-06", gear: "gc", km: 0.6), ride(9, "2025-01-07", gear: "gd", km: 1e9), ride(8, "2025-01-07", gear: "gd", km: 0.1),
            ride(10, "2025-01-08", gear: "gd", km: 0.2),
        ]
        let index = CountedRides.Index(ActivitySummaries(activities))
        let garage = loaded.garage
        #expect(garage.bikes.count == 4)
        for bike in garage.bikes {
            let through = Day("2025-06-01")!
            let made = CountedRides.ledger(of: bike, filter: bike.filter, index: index, handEntered: garage.rides, through: through)
            let entries = CountedRides.entries(
                of: bike, filter: bike.filter, index: index, handEntered: garage.rides, through: through, countedOnly: true)
            let expected = RideLedger(entries)
            #expect(Array(made.days) == Array(expected.days), "\(bike.bike.id)")
            #expect(made.time == expected.time, "\(bike.bike.id)")
            #expect(made.distance == expected.distance, "\(bike.bike.id)")
            #expect(made.days.count == ["a": 2, "b": 3, "c": 4, "d": 3][bike.bike.id.rawValue])
            var rides = CountedRides.BikeRides(garage: garage, index: index, through: through, countedOnly: true)
            let kept = rides.rides(of: bike.bike.id)
            #expect(kept.map(Self.shown) == entries.map(Self.shown), "\(bike.bike.id)")
        }
    }

    /// A bike's records are read a block of 256 at a time (`CountedRides.forEachRecord`): over
    /// several blocks, with another bike's records between its own, a hand-entered ride, and
    /// (for one bike) two rides out of order in its third block, each ledger holds the bike's
    /// rides in day order, then activity id, a hand-entered ride after the activities of its
    /// day, summed in that order; the entries are those rides.
    @Test func aLedgerOverManyBlocksOfRecordsHoldsEveryRideInOrder() throws {
        let folder = try TemporaryFolder()
        try folder.write("garage.yaml", "units: metric\n")
        for b in ["a", "b"] { try folder.write("bikes/\(b).yaml", "name: Bike \(b)\nstrava: g\(b)\ncounts: [Ride]\n") }
        let start = Day("2020-01-01")!
        try folder.write("rides.yaml", "rides:\n  - {date: \(start.adding(days: 300)), bike: a, time: 20 min, distance: 5 km}\n")
        let loaded = GarageLoader.load(at: folder.url.path, options: .init(activities: .skip, today: Day("2026-01-01")))
        // 1,500 rides, two days apart in threes: a, a, b, a, a, b, …; b's rides 600 and 601
        // (records 1,800 and 1,803) change days.
        var activities: [Activity] = [], days: [Int] = []
        for k in 0..<1500 {
            let b = k % 3 == 2
            var day = start.adding(days: k / 2)
            if b && k / 3 == 600 { day = day.adding(days: 1) }
            if b && k / 3 == 601 { day = day.adding(days: -1) }
            days.append(day.ordinal)
            activities.append(
                Activity(
                    id: Int64(10_000 - k), name: "ride \(k)", sportType: "Ride", startDate: "\(day)T08:00:00Z",
                    startDateLocal: "\(day)T09:00:00Z", movingTime: 600 + k, elapsedTime: 4000, distance: Double(k) * 10.25 + 0.1,
                    gearID: b ? "gb" : "ga"))
        }
        let garage = loaded.garage
        let index = CountedRides.Index(ActivitySummaries(activities))
        let through = Day("2026-01-01")!
        var rides = CountedRides.BikeRides(garage: garage, index: index, through: through, countedOnly: true)
        let ledgers = rides.ledgers(garage.bikes.map { ($0.bike.id, $0.filter) })
        for bike in garage.bikes {
            let gear = "g" + bike.bike.id.rawValue
            // The rides by hand: (day, activity id, time, distance), sorted, the hand-entered one last of its day.
            var expected: [(day: Int, id: Int64, time: Double, distance: Double)] = zip(activities, days).filter { $0.0.gearID == gear }.map {
                ($0.1, $0.0.id, Double($0.0.movingTime), $0.0.distance)
            }
            if bike.bike.id.rawValue == "a" { expected.append((start.adding(days: 300).ordinal, Int64.max, 1200, 5000)) }
            expected.sort { ($0.day, $0.id) < ($1.day, $1.id) }
            let ledger = try #require(ledgers[.init(bike: bike.bike.id, filter: bike.filter)])
            #expect(Array(ledger.days) == expected.map(\.day), "\(bike.bike.id)")
            var time = [0.0], distance = [0.0]
            for e in expected {
                time.append(time.last! + e.time)
                distance.append(distance.last! + e.distance)
            }
            #expect(ledger.time == time, "\(bike.bike.id)")
            #expect(ledger.distance == distance, "\(bike.bike.id)")
            let entries = CountedRides.entries(of: bike, index: index, handEntered: garage.rides, through: through, countedOnly: true)
            #expect(entries.map(\.activity) == expected.map(\.id), "\(bike.bike.id)")
            #expect(expected.count == (bike.bike.id.rawValue == "a" ? 1001 : 500))
        }
    }
}
