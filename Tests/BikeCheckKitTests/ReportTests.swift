import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// Reports on a small garage whose totals are computed by hand, and held to status's counting.
@Suite struct ReportTests {
    static func garage() throws -> (TemporaryFolder, LoadedGarage, [Activity]) {
        let folder = try TemporaryFolder()
        try folder.write("garage.yaml", "currency: EUR\n")
        try folder.write(
            "bikes/grail.yaml",
            """
            name: Grail
            strava: b1
            bought: 2025-01-10
            price: 1999.99
            counts: [Ride]
            intervals:
              chain-lube:
                every: 10 h
            log:
              - date: 2025-03-01
                done: chain-lube
                cost: 0.10
                category: consumables
              - date: 2025-03-02
                done: chain-lube
                cost: 0.20
                category: consumables
              - date: 2025-04-01
                done: chain-lube
                cost: 45 USD
                category: parts
              - date: 2026-02-01
                done: chain-lube
                cost: 12.34
                category: parts

            """)
        let loaded = GarageLoader.load(at: folder.url.path, options: .init(activities: .skip, today: Day("2026-06-01")))
        func ride(_ id: Int64, _ day: String, sport: String = "Ride", trainer: Bool = false, gear: String = "b1") -> Activity {
            Activity(
                id: id, name: "ride \(id)", sportType: sport, startDate: day + "T08:00:00Z", startDateLocal: day + "T09:00:00Z",
                movingTime: 3600, elapsedTime: 4000, distance: 50_000, totalElevationGain: 300, gearID: gear, trainer: trainer)
        }
        let activities = [
            ride(1, "2025-03-05"), ride(2, "2025-03-20"),
            ride(3, "2025-03-21", sport: "Run"),  // not a counted sport type
            ride(4, "2025-03-22", trainer: true),  // indoors: the bike does not count trainer rides
            ride(5, "2025-03-23", gear: "b2"),  // another bike's
            ride(6, "2026-02-10"),
        ]
        return (folder, loaded, activities)
    }

    @Test func costsByCategoryAreExactAndKeepCurrenciesApart() throws {
        let (_, loaded, activities) = try Self.garage()
        #expect(loaded.diagnostics.map(\.id) == ["foreign-currency"])
        let report = CostReport.build(loaded.garage, activities: activities, asOf: Day("2026-06-01")!, by: .category)
        let rows = report.rows.map { "\($0.group) \($0.currency ?? "-") \($0.total) \($0.entries)" }
        #expect(rows == ["consumables EUR 0.30 2", "parts EUR 12.34 1", "parts USD 45.00 1", "purchase EUR 1999.99 0"])
        // 0.10 + 0.20 + 12.34 + 1999.99, and 45 USD on its own.
        #expect(
            report.totals.map { "\($0.currency ?? "-") \($0.total) \($0.services) \($0.purchases)" } == ["EUR 2012.63 12.64 1999.99", "USD 45.00 45.00 0.00"])
        // Three counted rides of 50 km and 1 h: 0.30 over 150 km is 2.00 per 1,000 km, 0.10 per hour.
        let consumables = try #require(report.rows.first)
        #expect(consumables.distance == 150_000 && consumables.movingTime == 10_800)
        #expect(consumables.per1000km?.description == "2.00" && consumables.perHour?.description == "0.10")
    }

    @Test func costsByYearCountThePriceInTheYearTheBikeWasBought() throws {
        let (_, loaded, activities) = try Self.garage()
        let report = CostReport.build(loaded.garage, activities: activities, asOf: Day("2026-06-01")!, by: .year)
        #expect(
            report.rows.map { "\($0.group) \($0.currency ?? "-") \($0.services) \($0.purchases) \($0.per1000km?.description ?? "-")" } == [
                "2025 EUR 0.30 1999.99 20002.90", "2025 USD 45.00 0.00 450.00", "2026 EUR 12.34 0.00 246.80",
            ])
        let since = CostReport.build(loaded.garage, activities: activities, asOf: Day("2026-06-01")!, since: Day("2026-01-01"), by: .bike)
        #expect(since.rows.map { "\($0.group) \($0.total)" } == ["grail 12.34"])
    }

    @Test func ridesSayWhyTheyDoNotCount() throws {
        let (_, loaded, activities) = try Self.garage()
        let rides = CountedRides.rides(of: try #require(loaded.garage.bike(BikeID("grail"))), activities: activities, handEntered: [])
        #expect(rides.map { "\($0.activity ?? 0) \($0.verdict.rawValue)" } == ["1 counted", "2 counted", "3 sport-type", "4 indoor", "6 counted"])
    }

    @Test func usageSumsCountedRidesPerMonthWithTheOdometer() throws {
        let (_, loaded, activities) = try Self.garage()
        let report = UsageReport.build(loaded.garage, activities: activities, asOf: Day("2026-06-01")!, since: Day("2025-03-10"), period: .month)
        #expect(report.rows.map { "\($0.period) \($0.rides) \($0.distance) \($0.odometer)" } == ["2025-03 1 50000.0 100000.0", "2026-02 1 50000.0 150000.0"])
        #expect(report.totals.map { "\($0.rides) \($0.movingTime) \($0.elevation) \($0.odometer)" } == ["2 7200.0 600.0 150000.0"])
    }

    @Test func historySaysTheRidingSinceATaskWasLastDoneNewestFirst() throws {
        let (_, loaded, activities) = try Self.garage()
        let report = HistoryReport.build(loaded.garage, activities: activities, asOf: Day("2026-06-01")!)
        #expect(report.entries.map(\.date.description) == ["2026-02-01", "2025-04-01", "2025-03-02", "2025-03-01"])
        // From 2025-03-02 through 2025-04-01: rides 1 and 2 (the run, the trainer ride and the other bike's do not count).
        let april = try #require(report.entries[1].tasks.first)
        #expect(april.previous == Day("2025-03-02") && april.rides == 2 && april.distance == 100_000 && april.movingTime == 7200)
        #expect(report.entries[0].tasks.first?.rides == 0)
        #expect(report.entries[3].tasks.first?.previous == nil)
        #expect(report.entries.map { $0.cost?.description ?? "-" } == ["12.34", "45.00", "0.20", "0.10"])
        let filtered = HistoryReport.build(loaded.garage, activities: activities, asOf: Day("2026-06-01")!, since: Day("2025-03-02"), until: Day("2025-12-31"))
        #expect(filtered.entries.map(\.date.description) == ["2025-04-01", "2025-03-02"])
    }

    @Test func ridesForAnIntervalStartAtItsAnchorAndSayWhyOthersDoNotCount() throws {
        let (_, loaded, activities) = try Self.garage()
        let report = try RidesReport.build(loaded.garage, activities: activities, asOf: Day("2025-03-31")!, interval: IntervalID("chain-lube"))
        #expect(report.totals.first?.since == Day("2025-03-02"))
        #expect(report.rides.map { "\($0.activity ?? 0) \($0.verdict.rawValue)" } == ["1 counted", "2 counted", "3 sport-type", "4 indoor"])
        #expect(report.totals.first.map { "\($0.counted) \($0.notCounted) \($0.distance)" } == "2 2 100000.0")
        #expect(throws: RidesReport.Problem.unknownInterval("chian-lube", known: ["chain-lube"])) {
            try RidesReport.build(loaded.garage, activities: activities, asOf: Day("2025-03-31")!, interval: IntervalID("chian-lube"))
        }
    }

    /// `usage` counts exactly what `status` counts: over each interval's span since its anchor,
    /// the totals are status's usage, on the example garage's real files.
    @Test func usageTotalsEqualStatusUsageForTheSameSpan() throws {
        let asOf = Day("2026-11-15")!
        let loaded = GarageLoader.load(at: exampleGarage.path, options: .init(activities: .full, today: asOf))
        #expect(!loaded.hasErrors)
        let status = StatusPlanner(asOf: asOf).plan(loaded.garage, activities: loaded.activities)
        var compared = 0
        for bike in status.bikes {
            for interval in bike.intervals {
                guard let since = interval.since else { continue }
                let usage = UsageReport.build(loaded.garage, activities: loaded.activities, only: [BikeID(bike.id)], asOf: asOf, since: since, period: .year)
                let total = try #require(usage.totals.first)
                // Status adds a second-hand part's usage before tracking to its install anchor.
                var prior = (time: 0.0, distance: 0.0, rides: 0)
                if interval.anchor == .installed, let part = interval.component,
                    let c = loaded.garage.bike(BikeID(bike.id))?.bike.component(ComponentID(part))
                {
                    prior = (c.priorHours * 3600, c.priorDistance, Int(c.priorRides))
                }
                #expect(total.rides + prior.rides == interval.usage.rides, "\(bike.id) \(interval.id)")
                #expect(abs(total.movingTime + prior.time - interval.usage.movingTime) < 0.1, "\(bike.id) \(interval.id)")
                #expect(abs(total.distance + prior.distance - interval.usage.distance) < 0.1, "\(bike.id) \(interval.id)")
                compared += 1
            }
        }
        #expect(compared >= 20)
    }
}
