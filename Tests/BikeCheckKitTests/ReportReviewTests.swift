import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// Reports with parts where they are easy to get wrong: a part that moved between bikes, a
/// retired bike, a part on the shelf, ids that look alike, an empty garage.
@Suite struct ReportReviewTests {
    static let asOf = Day("2025-06-01")!

    /// `PartReportTests`' garage (wheels on `a` in January, then on `b`) and a retired bike `c`
    /// with a service cost, and a part `spare` on the shelf with a price.
    static func garage() throws -> (TemporaryFolder, LoadedGarage, [Activity]) {
        let (folder, _, activities) = try PartReportTests.garage()
        try folder.write(
            "bikes/c.yaml",
            """
            name: Bike C
            strava: b3
            counts: [Ride]
            bought: 2024-01-01
            retired: 2025-03-01
            intervals:
              brakes:
                every: 1 year
            log:
              - date: 2025-02-01
                done: brakes
                cost: 40
                category: labour

            """)
        try folder.write("parts/spare.yaml", "name: Spare tyre\nbought: 2025-01-10\nprice: 30\n")
        let loaded = GarageLoader.load(at: folder.url.path, options: .init(activities: .skip, today: asOf))
        return (folder, loaded, activities)
    }

    static func describe(_ report: CostReport) -> [String] {
        report.rows.map { "\($0.group) \($0.currency ?? "-") \($0.services) \($0.purchases) \($0.total)" }
            + report.totals.map { "total \($0.currency ?? "-") \($0.services) \($0.purchases) \($0.total) \($0.entries)" }
    }

    @Test func theHTMLReportsCostsPerYearAreCostsByYear() throws {
        let (_, loaded, activities) = try Self.garage()
        #expect(loaded.diagnostics.allSatisfy { $0.severity != .error }, "\(loaded.diagnostics.map(\.message))")
        let html = GarageReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Self.asOf)).costsByYear
        let costs = CostReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Self.asOf), by: .year)
        // a 5 + c 40 + wheels 500 + 10 + 20.20 + spare 30: every cost once, the retired bike's too.
        #expect(Self.describe(costs) == ["2025 EUR 75.20 530.00 605.20", "total EUR 75.20 530.00 605.20 4"])
        #expect(Self.describe(html) == Self.describe(costs))
    }

    /// Every `id="…"` on a page.
    static func ids(_ page: String) -> [String] {
        page.components(separatedBy: " id=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    @Test func bikeIdsThatExtendEachOtherNeverGiveTwoElementsOneId() throws {
        let folder = try TemporaryFolder()
        try folder.write("garage.yaml", "currency: EUR\n")
        // `x`'s heading and `x-h`'s section, `x`'s chart title and `x-t`'s chart.
        for id in ["x", "x-h", "x-t", "x-d", "h-x"] { try folder.write("bikes/\(id).yaml", "name: Bike \(id)\n") }
        let loaded = GarageLoader.load(at: folder.url.path, options: .init(activities: .skip, today: Self.asOf))
        #expect(loaded.diagnostics.allSatisfy { $0.severity != .error }, "\(loaded.diagnostics.map(\.message))")
        let page = HTMLReportRenderer().render(GarageReport.build(loaded.garage, summaries: ActivitySummaries([]), query: ReportQuery(asOf: Self.asOf))).string
        let ids = Self.ids(page)
        #expect(ids.count > 10)
        #expect(Set(ids).count == ids.count, "\(Dictionary(grouping: ids, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted())")
        // Every link and every aria reference names an element of the page.
        let known = Set(ids)
        let targets = page.components(separatedBy: "href=\"#").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        let labels = page.components(separatedBy: "aria-labelledby=\"").dropFirst().flatMap {
            $0.prefix { $0 != "\"" }.split(separator: " ").map(String.init)
        }
        #expect(!targets.isEmpty && !labels.isEmpty)
        #expect((targets + labels).filter { !known.contains($0) }.isEmpty)
    }

    @Test func anEmptyGarageGivesAWholePage() throws {
        let folder = try TemporaryFolder()
        try folder.write("garage.yaml", "currency: EUR\n")
        let loaded = GarageLoader.load(at: folder.url.path, options: .init(activities: .skip, today: Self.asOf))
        let page = HTMLReportRenderer().render(GarageReport.build(loaded.garage, summaries: ActivitySummaries([]), query: ReportQuery(asOf: Self.asOf))).string
        #expect(page.hasPrefix("<!DOCTYPE html>\n") && page.hasSuffix("</html>\n"))
        #expect(page.contains("0 bikes") && page.contains("No costs in the logs or prices yet."))
    }

    @Test func aBikeWithoutRidesHasAChartOfFiniteNumbers() throws {
        let (_, loaded, _) = try Self.garage()
        let page = HTMLReportRenderer().render(GarageReport.build(loaded.garage, summaries: ActivitySummaries([]), query: ReportQuery(asOf: Self.asOf))).string
        // Every number in the charts' paths and positions is a plain decimal.
        let charts = page.components(separatedBy: "<svg viewBox=\"0 0 640 220\"").dropFirst().map { $0.components(separatedBy: "</svg>")[0] }
        #expect(charts.count == 2)
        for chart in charts {
            let drawn =
                chart.components(separatedBy: " d=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
                + chart.components(separatedBy: " y=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
            #expect(!drawn.isEmpty)
            #expect(drawn.allSatisfy { $0.allSatisfy { "0123456789.-MHVvhz ".contains($0) } }, "\(drawn)")
        }
    }

    @Test func theRecordOfARetiredBikeIsItsWholeRecord() throws {
        let (_, loaded, activities) = try Self.garage()
        let report = GarageReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(bikes: [BikeID("c")], asOf: Self.asOf))
        #expect(report.bikes.map(\.id) == ["c"] && report.bikes.first?.retired == Day("2025-03-01"))
        let page = HTMLReportRenderer().render(report).string
        #expect(page.contains("<title>Service record: Bike C</title>") && page.contains("<dt>Retired</dt><dd>2025-03-01</dd>"))
        #expect(page.contains("<tr><td>2025-02-01<td>"))
    }

    @Test func aPartOnTheShelfOrRetiredHasNoRidesAndNoUsage() throws {
        let (folder, _, activities) = try Self.garage()
        // The wheels retired on 2025-01-25: ride 1 counts, ride 3 (that day) too, nothing after.
        let wheels = try String(contentsOf: folder.url.appendingPathComponent("parts/wheels.yaml"), encoding: .utf8)
        try folder.write("parts/wheels.yaml", wheels.replacingOccurrences(of: "price: 500\n", with: "price: 500\nretired: 2025-01-25\n"))
        let loaded = GarageLoader.load(at: folder.url.path, options: .init(activities: .skip, today: Self.asOf))
        #expect(loaded.diagnostics.allSatisfy { $0.severity != .error }, "\(loaded.diagnostics.map(\.message))")
        let parts = [PartID("spare"), PartID("wheels")]
        let rides = try RidesReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(parts: parts, asOf: Self.asOf))
        #expect(rides.rides.map { "\($0.subject.id) \($0.activity ?? 0)" } == ["wheels 1", "wheels 3"])
        let usage = UsageReport.build(
            loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(parts: parts, asOf: Self.asOf), period: .month)
        #expect(usage.rows.map { "\($0.subject.id) \($0.period) \($0.rides)" } == ["wheels 2025-01 2"])
        let history = HistoryReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(parts: parts, asOf: Self.asOf))
        #expect(history.entries.map { "\($0.subject.id) \($0.date) \($0.bike ?? "-")" } == ["wheels 2025-02-20 b", "wheels 2025-01-20 a"])
        let costs = CostReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(parts: parts, asOf: Self.asOf), by: .bike)
        #expect(costs.rows.map { "\($0.group) \($0.total) \($0.distance)" } == ["spare 30.00 0.0", "wheels 530.20 90000.0"])
    }

    @Test func thePagesAllYearsRowsAreCostsByYearsTotals() throws {
        let (_, loaded, activities) = try Self.garage()
        let page = HTMLReportRenderer().render(GarageReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Self.asOf)))
            .string
        let costs = CostReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Self.asOf), by: .year)
        let rows = page.components(separatedBy: "<tr><th scope=\"row\">All years</th>").dropFirst().map { String($0.prefix { $0 != "\n" }) }
        #expect(
            rows
                == costs.totals.map {
                    "<td>\($0.currency ?? "")</td><td class=\"n\">\($0.services)</td><td class=\"n\">\($0.purchases)</td><td class=\"n\">\($0.total)</td><td></td><td></td></tr>"
                })
        #expect(rows.first?.contains("605.20") == true)
    }

    @Test func markupEndingsAndSchemesInNamesAndNotesStayText() throws {
        let (folder, _, activities) = try Self.garage()
        let hostile = "</style><!-- --> ]]> <![CDATA[ javascript:alert(1)"
        try folder.write(
            "parts/spare.yaml",
            """
            name: '\(hostile)'
            bought: 2025-01-10
            price: 30
            mounts:
              - {bike: b, from: 2025-03-01}
            intervals:
              check:
                task: '\(hostile)'
                every: 1 year
            log:
              - date: 2025-04-01
                done: check
                cost: 2
                category: '\(hostile)'
                note: '\(hostile)'

            """)
        let loaded = GarageLoader.load(at: folder.url.path, options: .init(activities: .skip, today: Self.asOf))
        #expect(loaded.diagnostics.allSatisfy { $0.severity != .error }, "\(loaded.diagnostics.map(\.message))")
        let page = HTMLReportRenderer().render(GarageReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Self.asOf)))
            .string
        #expect(page.components(separatedBy: "</style>").count == 2, "one style sheet, closed once")
        for raw in ["<!--", "-->", "]]>", "<![CDATA["] { #expect(!page.contains(raw), "\(raw)") }
        #expect(page.contains("&lt;/style&gt;&lt;!-- --&gt; ]]&gt; &lt;![CDATA[ javascript:alert(1)"))
        // The scheme is only ever text: every link is to a place on the page.
        #expect(page.components(separatedBy: "href=\"").dropFirst().allSatisfy { $0.hasPrefix("#") })
        #expect(!page.contains("=\"javascript:"))
    }

    @Test func aPartsCostsPerYearMonthOrCategoryAreSpreadOverItsRiding() throws {
        let (_, loaded, activities) = try PartReportTests.garage()
        let wheels = [PartID("wheels")]
        // The wheels alone: rides 1 and 3 on a, 5 and 7 on b, 140 km in 4 h; 530.20 in all.
        for by in [CostReport.Grouping.year, .category] {
            let report = CostReport.build(
                loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(parts: wheels, asOf: PartReportTests.asOf), by: by)
            #expect(report.rows.allSatisfy { $0.distance == 140_000 && $0.movingTime == 14_400 }, "\(by)")
        }
        let year = CostReport.build(
            loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(parts: wheels, asOf: PartReportTests.asOf), by: .year)
        #expect(year.rows.map { "\($0.group) \($0.total) \($0.per1000km?.description ?? "-")" } == ["2025 530.20 3787.14"])
        // By month, each month's riding: January on a (90 km), February on b (30 km; the run does not count).
        let month = CostReport.build(
            loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(parts: wheels, asOf: PartReportTests.asOf), by: .month)
        #expect(month.rows.map { "\($0.group) \($0.total) \($0.distance)" } == ["2025-01 510.00 90000.0", "2025-02 20.20 30000.0"])
        // Bike a and the wheels: a's rides (1, 3, 4) and the wheels' on b (5, 7), each ride once.
        let both = CostReport.build(
            loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(bikes: [BikeID("a")], parts: wheels, asOf: PartReportTests.asOf),
            by: .year)
        #expect(both.rows.map { "\($0.group) \($0.total) \($0.distance)" } == ["2025 535.20 210000.0"])
        // Everything: every bike's rides (the wheels' are among them), the 6 rides that count.
        let all = CostReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: PartReportTests.asOf), by: .year)
        #expect(all.rows.map { "\($0.group) \($0.total) \($0.distance)" } == ["2025 535.20 270000.0"])
    }

    @Test func aPartMovedMidMonthHasOneMonthOfBothBikesRidesAndHistorySpansTheMove() throws {
        let folder = try TemporaryFolder()
        try folder.write("garage.yaml", "currency: EUR\n")
        try folder.write("bikes/a.yaml", "name: Bike A\nstrava: b1\ncounts: [Ride]\n")
        try folder.write("bikes/b.yaml", "name: Bike B\nstrava: b2\ncounts: [Ride]\n")
        try folder.write(
            "parts/wheels.yaml",
            """
            name: Wheels
            intervals:
              hub-service:
                every: 1000 km
            mounts:
              - {bike: a, from: 2025-01-01, to: 2025-01-14}
              - {bike: b, from: 2025-01-15}
            log:
              - {date: 2025-01-05, done: hub-service}
              - {date: 2025-02-10, done: hub-service}

            """)
        let loaded = GarageLoader.load(at: folder.url.path, options: .init(activities: .skip, today: Self.asOf))
        #expect(loaded.diagnostics.allSatisfy { $0.severity != .error }, "\(loaded.diagnostics.map(\.message))")
        func ride(_ id: Int64, _ day: String, km: Double, gear: String) -> Activity {
            Activity(
                id: id, name: "ride \(id)", sportType: "Ride", startDate: day + "T08:00:00Z", startDateLocal: day + "T09:00:00Z",
                movingTime: 3600, elapsedTime: 3600, distance: km * 1000, totalElevationGain: 0, gearID: gear)
        }
        let activities = [
            ride(1, "2025-01-10", km: 10, gear: "b1"),  // a, wheels on
            ride(2, "2025-01-12", km: 20, gear: "b2"),  // b, wheels not yet there
            ride(3, "2025-01-18", km: 30, gear: "b2"),  // b, wheels on
            ride(4, "2025-01-20", km: 40, gear: "b1"),  // a, wheels gone
            ride(5, "2025-02-03", km: 50, gear: "b2"),  // b, wheels on
        ]
        let wheels = [PartID("wheels")]
        let usage = UsageReport.build(
            loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(parts: wheels, asOf: Self.asOf), period: .month)
        #expect(usage.rows.map { "\($0.period) \($0.rides) \($0.distance) \($0.odometer)" } == ["2025-01 2 40000.0 40000.0", "2025-02 1 50000.0 90000.0"])
        let history = HistoryReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(parts: wheels, asOf: Self.asOf))
        let task = try #require(history.entries.first?.tasks.first)
        #expect(history.entries.first?.bike == "b")
        #expect(task.previous == Day("2025-01-05") && task.rides == 3 && task.distance == 90_000)
        #expect(history.table.allRows.first?.contains { $0.contains("after 90.0 km / 3.0 h since 2025-01-05") } == true, "\(history.table.allRows)")
        let rides = try RidesReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(parts: wheels, asOf: Self.asOf))
        #expect(rides.rides.map { "\($0.activity ?? 0) \($0.bike ?? "-")" } == ["1 a", "3 b", "5 b"])
    }

    @Test func aPartWithABikesIdIsWarnedAboutAndNeverMergedWithTheBike() throws {
        let (folder, _, activities) = try PartReportTests.garage()
        let wheels = try String(contentsOf: folder.url.appendingPathComponent("parts/wheels.yaml"), encoding: .utf8)
        try folder.write("parts/a.yaml", wheels)
        try FileManager.default.removeItem(at: folder.url.appendingPathComponent("parts/wheels.yaml"))
        let loaded = GarageLoader.load(at: folder.url.path, options: .init(activities: .skip, today: Self.asOf))
        #expect(loaded.diagnostics.map(\.id) == ["part-id-is-bike-id"])
        // The name is the bike, as status and done take it.
        let (selection, notes) = try loaded.garage.subjects(named: ["a"])
        #expect(selection.bikes == [BikeID("a")] && selection.parts.isEmpty)
        #expect(notes == ["'a' is the bike; part 'a' has the same id: rename parts/a.yaml to name the part"])
        // With nothing named, a line each.
        let costs = CostReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Self.asOf), by: .bike)
        #expect(costs.rows.map { "\($0.subject?.kind.rawValue ?? "-") \($0.group) \($0.total)" } == ["bike a 5.00", "part a 530.20"])
        let usage = UsageReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Self.asOf), period: .year)
        #expect(usage.totals.map { "\($0.subject.kind) \($0.subject.id) \($0.rides)" } == ["bike a 3", "bike b 3", "part a 4"])
    }

    @Test func aServiceRecordSaysWhichCostsInItsHistoryAreThePartsNotTheBikes() throws {
        let (_, loaded, activities) = try PartReportTests.garage()
        // b's record: the wheels' 20.20 service on b is in its history, not in b's costs (b has none).
        let b = HTMLReportRenderer().render(
            GarageReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(bikes: [BikeID("b")], asOf: PartReportTests.asOf))
        )
        .string
        #expect(b.contains("<td>part wheels: hub-service<td>"))
        #expect(
            b.contains(
                "<p>No costs in the log, and no price.</p>\n<p>Not counted here: 20.20 EUR of parts' services in the history below (the parts' own costs).</p>\n"
            ))
        // a's record: its own 5.00, and the wheels' 10.00 service while on a.
        let a = HTMLReportRenderer().render(
            GarageReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(bikes: [BikeID("a")], asOf: PartReportTests.asOf))
        )
        .string
        #expect(
            a.contains("</table>\n<p>Not counted here: 10.00 EUR of parts' services in the history below (the parts' own costs).</p>\n<h3>Service history</h3>")
        )
    }

    @Test func aPartsToDoEntryIsNamedInTheExportsLikeABikes() throws {
        let (folder, _, _) = try PartReportTests.garage()
        try folder.write(
            "parts/spare.yaml",
            """
            name: Spare wheel
            todo:
              - replace the valve
            log:
              - {date: 2025-03-01, todo: new rim tape, cost: 12}

            """)
        let loaded = GarageLoader.load(at: folder.url.path, options: .init(activities: .skip, today: Self.asOf))
        #expect(loaded.diagnostics.allSatisfy { $0.severity != .error }, "\(loaded.diagnostics.map(\.message))")
        let ledger = LedgerExport.build(loaded.garage, query: ReportQuery(asOf: Self.asOf), dialect: .ledger).text
        #expect(ledger.contains("\n2025-03-01 Spare wheel | to-do: new rim tape\n    Expenses:Bikes:Uncategorised  12.00 EUR\n"), "\(ledger)")
        let beancount = LedgerExport.build(loaded.garage, query: ReportQuery(asOf: Self.asOf), dialect: .beancount).text
        #expect(beancount.contains("\n2025-03-01 * \"Spare wheel\" \"to-do: new rim tape\"\n"), "\(beancount)")
    }
}
