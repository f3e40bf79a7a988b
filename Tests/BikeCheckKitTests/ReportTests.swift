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
        let report = CostReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Day("2026-06-01")!), by: .category)
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
        let report = CostReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Day("2026-06-01")!), by: .year)
        #expect(
            report.rows.map { "\($0.group) \($0.currency ?? "-") \($0.services) \($0.purchases) \($0.per1000km?.description ?? "-")" } == [
                "2025 EUR 0.30 1999.99 20002.90", "2025 USD 45.00 0.00 450.00", "2026 EUR 12.34 0.00 246.80",
            ])
        let since = CostReport.build(
            loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Day("2026-06-01")!, since: Day("2026-01-01")), by: .bike)
        #expect(since.rows.map { "\($0.group) \($0.total)" } == ["grail 12.34"])
    }

    @Test func ridesSayWhyTheyDoNotCount() throws {
        let (_, loaded, activities) = try Self.garage()
        let rides = try RidesReport.build(
            loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(bikes: [BikeID("grail")], asOf: Day("2026-06-01")!)
        ).rides
        #expect(rides.map { "\($0.activity ?? 0) \($0.verdict.rawValue)" } == ["1 counted", "2 counted", "3 sport-type", "4 indoor", "6 counted"])
    }

    @Test func usageSumsCountedRidesPerMonthWithTheOdometer() throws {
        let (_, loaded, activities) = try Self.garage()
        let report = UsageReport.build(
            loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Day("2026-06-01")!, since: Day("2025-03-10")), period: .month)
        #expect(report.rows.map { "\($0.period) \($0.rides) \($0.distance) \($0.odometer)" } == ["2025-03 1 50000.0 100000.0", "2026-02 1 50000.0 150000.0"])
        #expect(report.totals.map { "\($0.rides) \($0.movingTime) \($0.elevation) \($0.odometer)" } == ["2 7200.0 600.0 150000.0"])
    }

    @Test func historySaysTheRidingSinceATaskWasLastDoneNewestFirst() throws {
        let (_, loaded, activities) = try Self.garage()
        let report = HistoryReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Day("2026-06-01")!))
        #expect(report.entries.map(\.date.description) == ["2026-02-01", "2025-04-01", "2025-03-02", "2025-03-01"])
        // From 2025-03-02 through 2025-04-01: rides 1 and 2 (the run, the trainer ride and the other bike's do not count).
        let april = try #require(report.entries[1].tasks.first)
        #expect(april.previous == Day("2025-03-02") && april.rides == 2 && april.distance == 100_000 && april.movingTime == 7200)
        #expect(report.entries[0].tasks.first?.rides == 0)
        #expect(report.entries[3].tasks.first?.previous == nil)
        #expect(report.entries.map { $0.cost?.description ?? "-" } == ["12.34", "45.00", "0.20", "0.10"])
        let filtered = HistoryReport.build(
            loaded.garage, summaries: ActivitySummaries(activities),
            query: ReportQuery(asOf: Day("2026-06-01")!, since: Day("2025-03-02"), until: Day("2025-12-31")))
        #expect(filtered.entries.map(\.date.description) == ["2025-04-01", "2025-03-02"])
    }

    @Test func costSumsAreDecimalsOwnSumsWrittenWithTheSameDecimals() throws {
        let amounts = try ["0.10", "0.20", "45.90", "1.10", "0.0010", "1000000000", "0.0001", "12.345", "0", "47", "2.5000", "999999999.9999"].map {
            try Money.parseAmount($0[...]).get()
        }
        // Every run of the amounts, and with one that has more decimals than a cost may (added
        // as `Decimal`s from there on).
        let tiny = try #require(Decimal(string: "0.00001"))
        for start in amounts.indices {
            for end in start..<amounts.count {
                for extra in [nil, tiny] {
                    var decimal: Decimal = 0
                    var sum = AmountSum()
                    for (k, amount) in amounts[start...end].enumerated() {
                        decimal += amount
                        sum.add(amount)
                        if k == 1, let extra {
                            decimal += extra
                            sum.add(extra)
                        }
                    }
                    #expect(sum.value == decimal && sum.value.exponent == decimal.exponent, "\(amounts[start...end]) \(String(describing: extra))")
                    #expect(ReportAmount(sum.value).description == Money.format(decimal, fractionDigits: Money.fractionDigits(of: decimal)))
                    #expect((sum + sum).value == decimal + decimal)
                }
            }
        }
        // Amounts written as digits read as `Money.format` writes them, and those it cannot write
        // (too many decimals, too large) too.
        // Read from the amount's digits: negative ones, exponents above zero, the edge of ten billion.
        for text in [
            "0", "0.5", "45.9", "0.125", "0.0001", "1000000000", "9999999999.9999", "123456789012.5", "0.00001", "1e-7", "-12.5", "-0.0001",
            "1e9", "25e2", "1e10", "99999999999999e-4", "100000000000000e-4", "18446744073709551615", "18446744073709551616e-4",
        ] {
            let amount = try #require(Decimal(string: text))
            #expect(ReportAmount(amount).description == Money.format(amount, fractionDigits: Money.fractionDigits(of: amount)), "\(text)")
        }
    }

    @Test func historysTableIsStreamedRowByRowFromItsEntries() throws {
        let (_, loaded, activities) = try Self.garage()
        let report = HistoryReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Day("2026-06-01")!))
        // No table of Strings is held: the rows are written into bytes when a renderer asks.
        let table = report.table
        #expect(table.rows.isEmpty && table.stream?.count == report.entries.count)
        let rows = table.allRows
        #expect(rows.map(\.first) == report.entries.map(\.date.description))
        #expect(rows[1][2].hasSuffix(" (after 100.0 km / 2.0 h since 2025-03-02)"), "\(rows[1])")
        #expect(rows[3][2].hasSuffix("(first logged)") && rows.map { $0[3] } == ["12.34", "45.00", "0.20", "0.10"])
    }

    @Test func historysOrderIsNewestFirstThenBySubjectThenAsWrittenHoweverFarApartTheDays() {
        let days = [10, 12, 10, 12, 11], ranks = [1, 0, 0, 1, 0]
        #expect(HistoryReport.newestFirst(days, ranks: ranks) == [1, 3, 4, 2, 0])
        // Days too far apart to pack into one number: the same order, sorted as tuples.
        #expect(HistoryReport.newestFirst(days.map { $0 * 1_000_000 }, ranks: ranks) == [1, 3, 4, 2, 0])
        #expect(HistoryReport.newestFirst([], ranks: []).isEmpty)
    }

    @Test func equalRideFiltersHashEquallyAndOthersStayApart() {
        let a = RideFilter(counts: ["Ride", "GravelRide", "VirtualRide"], trainer: .yes)
        var b = RideFilter(counts: ["VirtualRide"], trainer: .yes)
        b.counts.formUnion(["GravelRide", "Ride"])
        #expect(a == b && a.hashValue == b.hashValue)
        // The same count of sport types, or the same names' lengths, are still other filters.
        let others = [
            RideFilter(counts: ["Ride", "GravelRide", "EBikeRide"], trainer: .yes), RideFilter(counts: ["Ride", "GravelRide", "VirtualRide"], trainer: .no),
            RideFilter(counts: ["Ride", "GravelRide", "VirtualRide"], trainer: .yes, tag: "race"), RideFilter(counts: ["Ride", "GravelRide"], trainer: .yes),
        ]
        let ledgers = Dictionary(uniqueKeysWithValues: ([a] + others).enumerated().map { ($1, $0) })
        #expect(ledgers.count == 5 && ledgers[b] == 0 && others.allSatisfy { $0 != a })
    }

    @Test func ridesForAnIntervalStartAtItsAnchorAndSayWhyOthersDoNotCount() throws {
        let (_, loaded, activities) = try Self.garage()
        let report = try RidesReport.build(
            loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Day("2025-03-31")!), interval: IntervalID("chain-lube"))
        #expect(report.totals.first?.since == Day("2025-03-02"))
        #expect(report.rides.map { "\($0.activity ?? 0) \($0.verdict.rawValue)" } == ["1 counted", "2 counted", "3 sport-type", "4 indoor"])
        #expect(report.totals.first.map { "\($0.counted) \($0.notCounted) \($0.distance)" } == "2 2 100000.0")
        #expect(throws: RidesReport.Problem.unknownInterval("chian-lube", known: ["chain-lube"])) {
            try RidesReport.build(
                loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Day("2025-03-31")!), interval: IntervalID("chian-lube"))
        }
    }

    /// `usage` counts exactly what `status` counts: over each interval's span since its anchor,
    /// the totals are status's usage, on the example garage's real files.
    @Test func usageTotalsEqualStatusUsageForTheSameSpan() throws {
        let asOf = Day("2026-11-15")!
        let loaded = GarageLoader.load(at: exampleGarage.path, options: .init(activities: .full, today: asOf))
        #expect(!loaded.hasErrors)
        let status = StatusPlanner(asOf: asOf).plan(loaded.garage, summaries: ActivitySummaries(loaded.wholeActivities))
        var compared = 0
        for bike in status.bikes {
            let resolved = try #require(loaded.garage.bike(BikeID(bike.id)))
            for interval in bike.intervals {
                // Usage counts through the bike's filter: compare the intervals that count by it
                // (the tarmac's chain counts its Zwift rides, the bike does not).
                guard let since = interval.since, interval.part == nil,
                    resolved.intervals.first(where: { $0.id.rawValue == interval.id })?.rideFilter.over(resolved.filter) == resolved.filter
                else { continue }
                let usage = UsageReport.build(
                    loaded.garage, summaries: ActivitySummaries(loaded.wholeActivities), query: ReportQuery(bikes: [BikeID(bike.id)], asOf: asOf, since: since),
                    period: .year)
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
/// A part as a report subject, on a small garage whose numbers are computed by hand: a wheelset
/// on bike `a` through January 2025, then on bike `b`.
@Suite struct PartReportTests {
    static func garage() throws -> (TemporaryFolder, LoadedGarage, [Activity]) {
        let folder = try TemporaryFolder()
        try folder.write("garage.yaml", "currency: EUR\n")
        try folder.write(
            "bikes/a.yaml",
            """
            name: Bike A
            strava: b1
            counts: [Ride]
            intervals:
              chain-lube:
                every: 10 h
            log:
              - date: 2025-01-15
                done: chain-lube
                cost: 5
                category: consumables

            """)
        try folder.write("bikes/b.yaml", "name: Bike B\nstrava: b2\ncounts: [Ride]\n")
        try folder.write(
            "parts/wheels.yaml",
            """
            name: Wheels
            bought: 2025-01-01
            price: 500
            distance: 100 km
            intervals:
              hub-service:
                every: 1000 km
            mounts:
              - {bike: a, from: 2025-01-01, to: 2025-01-31}
              - {bike: b, from: 2025-02-01}
            log:
              - date: 2025-01-20
                done: hub-service
                cost: 10
                category: labour
              - date: 2025-02-20
                done: hub-service
                cost: 20.20
                category: labour
                note: new bearings

            """)
        let loaded = GarageLoader.load(at: folder.url.path, options: .init(activities: .skip, today: Day("2025-06-01")))
        func ride(_ id: Int64, _ day: String, km: Double, gear: String, sport: String = "Ride") -> Activity {
            Activity(
                id: id, name: "ride \(id)", sportType: sport, startDate: day + "T08:00:00Z", startDateLocal: day + "T09:00:00Z",
                movingTime: 3600, elapsedTime: 3600, distance: km * 1000, totalElevationGain: 100, gearID: gear)
        }
        let activities = [
            ride(1, "2025-01-05", km: 50, gear: "b1"),  // a, wheels on: counts
            ride(2, "2025-01-10", km: 60, gear: "b2"),  // b, before the wheels came: not theirs
            ride(3, "2025-01-25", km: 40, gear: "b1"),  // a, wheels on
            ride(4, "2025-02-05", km: 70, gear: "b1"),  // a, after the wheels left
            ride(5, "2025-02-10", km: 30, gear: "b2"),  // b, wheels on
            ride(6, "2025-02-15", km: 10, gear: "b2", sport: "Run"),  // b, a sport type b does not count
            ride(7, "2025-03-01", km: 20, gear: "b2"),  // b, wheels on
        ]
        return (folder, loaded, activities)
    }

    static let asOf = Day("2025-06-01")!

    @Test func aNameIsABikeWhenThereIsOneElseAPart() throws {
        let (_, loaded, _) = try Self.garage()
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics.map(\.message))")
        let (selection, notes) = try loaded.garage.subjects(named: ["wheels", "a"])
        #expect(selection.bikes == [BikeID("a")] && selection.parts == [PartID("wheels")] && notes.isEmpty)
        #expect(try loaded.garage.subject(named: "wheels") == .part(PartID("wheels")))
        // A name that is neither is a usage error naming the nearest of both.
        #expect(throws: UsageError("no bike or part 'wheel'; did you mean 'wheels'?", help: "bikes: a, b; parts: wheels")) {
            try loaded.garage.subjects(named: ["wheels", "a", "wheel"])
        }
    }

    @Test func usageOfAPartCountsTheRidesOfEachBikeWhileItWasThere() throws {
        let (_, loaded, activities) = try Self.garage()
        let report = UsageReport.build(
            loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(parts: [PartID("wheels")], asOf: Self.asOf), period: .month)
        // January on a: rides 1 and 3; February on b: ride 5 (the run does not count); March: ride 7.
        // The odometer starts from the 100 km before tracking.
        #expect(
            report.rows.map { "\($0.subject.kind) \($0.period) \($0.rides) \($0.distance) \($0.elevation) \($0.odometer)" } == [
                "part 2025-01 2 90000.0 200.0 190000.0", "part 2025-02 1 30000.0 100.0 220000.0", "part 2025-03 1 20000.0 100.0 240000.0",
            ])
        #expect(report.totals.map { "\($0.subject.id) \($0.rides) \($0.movingTime) \($0.distance)" } == ["wheels 4 14400.0 140000.0"])
        // Named alone, the part has no bike lines; with nothing named, bikes then parts.
        let all = UsageReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Self.asOf), period: .year)
        #expect(all.totals.map { "\($0.subject.kind) \($0.subject.id) \($0.rides)" } == ["bike a 3", "bike b 3", "part wheels 4"])
    }

    @Test func historyOfAPartCountsTheRidingBetweenItsEntriesAcrossBikes() throws {
        let (_, loaded, activities) = try Self.garage()
        let report = HistoryReport.build(
            loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(parts: [PartID("wheels")], asOf: Self.asOf))
        #expect(report.entries.map { "\($0.date) \($0.bike ?? "-") \($0.cost?.description ?? "-")" } == ["2025-02-20 b 20.20", "2025-01-20 a 10.00"])
        // From 2025-01-20 through 2025-02-20: ride 3 on a and ride 5 on b, not ride 4 (a, wheels gone).
        let task = try #require(report.entries.first?.tasks.first)
        #expect(task.previous == Day("2025-01-20") && task.rides == 2 && task.distance == 70_000 && task.movingTime == 7200)
        let table = report.table
        #expect(table.columns.map(\.name) == ["date", "bike", "part", "tasks", "cost", "currency", "category", "note"])
        #expect(table.allRows.first?.prefix(3) == ["2025-02-20", "b", "wheels"])
    }

    @Test func theReportsServiceHistoryIsHistorysEntriesWithoutTheirRiding() throws {
        let (_, loaded, activities) = try Self.garage()
        let query = ReportQuery(asOf: Self.asOf)
        let counted = HistoryReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: query).entries
        let uncounted = HistoryReport.uncountedEntries(loaded.garage, query: query)
        // The same entries in the same order, each with the ids of its tasks and no riding (no tasks).
        func listed(_ e: HistoryReport.Entry) -> String {
            "\(e.date) \(e.subject.kind) \(e.subject.id) \(e.bike ?? "-") \(e.cost?.description ?? "-") \(e.category ?? "-") \(e.note ?? "-")"
        }
        #expect(uncounted.map(listed) == counted.map(listed))
        #expect(uncounted.map { $0.done.map(\.value.rawValue) } == counted.map { $0.tasks.map(\.id) })
        #expect(uncounted.contains { !$0.done.isEmpty } && uncounted.allSatisfy(\.tasks.isEmpty))
        #expect(uncounted.contains { $0.subject.kind == .part } && counted.contains { $0.tasks.contains { $0.rides != nil } })
        // Each entry's subject by number is its own.
        let (entries, subjects, subjectOf) = HistoryReport.uncountedEntriesBySubject(loaded.garage, query: query)
        #expect(entries.map(listed) == uncounted.map(listed) && subjectOf.count == entries.count)
        #expect(entries.indices.allSatisfy { subjects[Int(subjectOf[$0])] == entries[$0].subject })
        #expect(Set(subjectOf).count == Set(entries.map { "\($0.subject.kind) \($0.subject.id)" }).count)
    }

    @Test func aPartsCostsAreItsOwnLineAndCountedOnceInTheTotals() throws {
        let (_, loaded, activities) = try Self.garage()
        let report = CostReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Self.asOf), by: .bike)
        // a: 5.00 in its log; wheels: 500 bought + 10 + 20.20, over the 140 km behind them.
        #expect(
            report.rows.map { "\($0.subject?.kind.rawValue ?? "-") \($0.group) \($0.services) \($0.purchases) \($0.total) \($0.distance)" } == [
                "bike a 5.00 0.00 5.00 160000.0", "part wheels 30.20 500.00 530.20 140000.0",
            ])
        #expect(report.totals.map { "\($0.total) \($0.services) \($0.purchases) \($0.entries)" } == ["535.20 35.20 500.00 3"])
        // 530.20 over 140 km: 3787.14 per 1,000 km; over 4 h: 132.55 an hour.
        #expect(report.rows.last?.per1000km?.description == "3787.14" && report.rows.last?.perHour?.description == "132.55")
        // Naming the bike leaves the part's costs out, and the export has each cost once.
        #expect(
            CostReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(bikes: [BikeID("a")], asOf: Self.asOf), by: .bike)
                .totals.first?.total
                .description == "5.00")
        let ledger = LedgerExport.build(loaded.garage, query: ReportQuery(asOf: Self.asOf), dialect: .ledger).text
        #expect(ledger.components(separatedBy: "\n2025-").count - 1 == 4)
        #expect(ledger.contains("2025-01-01 Wheels | Bought Wheels\n    Expenses:Bikes:Purchase  500.00 EUR"))
    }

    @Test func theRidesBehindAPartSayWhichBikeTheyWereOn() throws {
        let (_, loaded, activities) = try Self.garage()
        let report = try RidesReport.build(
            loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(parts: [PartID("wheels")], asOf: Self.asOf))
        #expect(
            report.rides.map { "\($0.activity ?? 0) \($0.bike ?? "-") \($0.verdict.rawValue)" } == [
                "1 a counted", "3 a counted", "5 b counted", "6 b sport-type", "7 b counted",
            ])
        #expect(report.totals.map { "\($0.subject.label) \($0.counted) \($0.notCounted) \($0.distance)" } == ["wheels (part) 4 1 140000.0"])
        let rows = report.table.allRows
        #expect(rows.first?.prefix(3) == ["a", "wheels", "2025-01-05"])
        // With --interval: from the part's last hub service.
        let since = try RidesReport.build(
            loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(parts: [PartID("wheels")], asOf: Self.asOf),
            interval: IntervalID("hub-service"))
        #expect(since.totals.first?.since == Day("2025-02-20") && since.rides.map { $0.activity ?? 0 } == [7])
    }
}
