import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// The HTML report's escaping by construction, and what its page holds, from the same builders
/// as the text reports.
@Suite struct HTMLReportTests {
    static let hostileNames = [
        "<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "' onmouseover='alert(1)", "Tom & Jerry's <b>bike</b>",
    ]

    @Test(arguments: hostileNames)
    func interpolatedTextIsEscapedInTextAndAttributes(_ name: String) {
        let html: HTML = "<p title=\"\(name)\">\(name)</p>"
        let inner = html.string.dropFirst("<p title=\"".count).dropLast("</p>".count)
        #expect(!inner.contains("<"), "\(html)")
        #expect(!inner.contains(">\"") && inner.filter { $0 == "\"" }.count == 1, "only the attribute's own closing quote: \(html)")
        #expect(!inner.contains("'"), "\(html)")
        #expect(html.string.hasPrefix("<p title=\"") && html.string.hasSuffix("</p>"))
    }

    @Test func eachSpecialCharacterHasItsReference() {
        let html: HTML = "\("& < > \" '")"
        #expect(html.string == "&amp; &lt; &gt; &quot; &#39;")
        #expect(HTML.escape("plain text, ü and ✓") == "plain text, ü and ✓")
    }

    @Test func markupBuiltTheSameWayIsSplicedNotEscapedTwice() {
        let cell: HTML = "<td>\("a < b")</td>"
        let row: HTML = "<tr>\(cell)</tr>"
        #expect(row.string == "<tr><td>a &lt; b</td></tr>")
        let list: [HTML] = ["<li>\("x&y")</li>", "<li>z</li>"]
        let ul: HTML = "<ul>\(list)</ul>"
        #expect(ul.string == "<ul><li>x&amp;y</li><li>z</li></ul>")
        #expect(list.joined(separator: ", ").string == "<li>x&amp;y</li>, <li>z</li>")
    }

    @Test func controlAndBidiCharactersAreShownNotPassedOn() {
        let html: HTML = "<p>\("evil\u{1B}[2J\u{202E}txt.exe\nnext")</p>"
        #expect(html.string == "<p>evil\\u{1B}[2J\\u{202E}txt.exe\\u{A}next</p>")
    }

    /// A garage whose every name, task, note and category is hostile.
    static func hostileGarage() throws -> (TemporaryFolder, LoadedGarage) {
        let folder = try TemporaryFolder()
        try folder.write("garage.yaml", "name: '<script>alert(\"garage\")</script>'\ncurrency: EUR\n")
        try folder.write(
            "bikes/evil.yaml",
            """
            name: "<script>alert(1)</script>"
            bought: 2025-01-10
            components:
              chain:
                name: '"><img src=x onerror=alert(2)>'
                installed: 2025-01-10
            intervals:
              chain-lube:
                task: "<img src=x onerror=alert(3)>"
                component: chain
                every: 2 months
            log:
              - date: 2025-03-01
                done: [chain-lube]
                cost: 5
                category: "</td><script>alert(4)</script>"
                note: "'><svg onload=alert(5)>"

            """)
        try folder.write("bikes/other.yaml", "name: '\"><img src=x onerror=alert(6)>'\n")
        let loaded = GarageLoader.load(at: folder.url.path, options: .init(activities: .skip, today: Day("2026-06-01")))
        return (folder, loaded)
    }

    @Test func hostileNamesInTheGarageNeverBecomeMarkup() throws {
        let (_, loaded) = try Self.hostileGarage()
        #expect(!loaded.hasErrors, "\(loaded.diagnostics.map(\.message))")
        let report = GarageReport.build(loaded.garage, summaries: ActivitySummaries([]), query: ReportQuery(asOf: Day("2026-06-01")!))
        let page = HTMLReportRenderer().render(report).string
        for tag in ["<script", "<img", "<svg onload", "</td><script"] {
            #expect(!page.contains(tag), "\(tag) reached the page as markup")
        }
        #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(page.contains("&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"))
        #expect(page.contains("&lt;img src=x onerror=alert(3)&gt;"))
        #expect(page.contains("&#39;&gt;&lt;svg onload=alert(5)&gt;"))
        #expect(page.contains("<title>&lt;script&gt;alert(&quot;garage&quot;)&lt;/script&gt;: maintenance report</title>"))
    }

    @Test func thePageLoadsNothingAndRunsNothing() throws {
        let page = HTMLReportRenderer().render(
            GarageReport.build(try ReportTests.garage().1.garage, summaries: ActivitySummaries([]), query: ReportQuery(asOf: Day("2026-06-01")!))
        )
        .string
        #expect(page.hasPrefix("<!DOCTYPE html>\n"))
        for forbidden in ["<script", "src=", "url(", "@import", "http:", "https:", "<link", "<img", "<iframe", "<object"] {
            #expect(!page.contains(forbidden), "\(forbidden)")
        }
        // The only links go to places on the page.
        let hrefs = page.components(separatedBy: "href=\"").dropFirst()
        #expect(!hrefs.isEmpty)
        #expect(hrefs.allSatisfy { $0.hasPrefix("#") })
    }

    @Test func theReportShowsWhatStatusAndTheReportBuildersSay() throws {
        let (_, loaded, activities) = try ReportTests.garage()
        let day = Day("2026-06-01")!
        let report = GarageReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: day))
        let status = StatusPlanner(asOf: day).plan(loaded.garage, summaries: ActivitySummaries(activities))
        #expect(report.status == status)
        #expect(report.months.first == "2025-07" && report.months.last == "2026-06" && report.months.count == 12)
        // The 12 months' usage is usage's, from the first of the month eleven months back.
        let usage = UsageReport.build(
            loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: day, since: Day("2025-07-01")), period: .month)
        #expect(report.usage.rows.map(\.period) == usage.rows.map(\.period))
        #expect(report.usage.rows.map(\.distance) == [50_000])
        // The odometer at each service: the counted rides through its day (rides 1 and 2; the
        // run, the trainer ride and the other bike's ride do not count; ride 6 is after the last).
        let services = try #require(report.services["grail"])
        #expect(services.map(\.entry.date.description) == ["2026-02-01", "2025-04-01", "2025-03-02", "2025-03-01"])
        #expect(services.map(\.distance) == [100_000, 100_000, 0, 0])
        // Costs per year and category keep currencies apart and are exact.
        let lines = try #require(report.costLines["grail"])
        #expect(
            lines.map { "\($0.year) \($0.category) \($0.amount) \($0.currency ?? "-") \($0.entries)" } == [
                "2025 consumables 0.3 EUR 2", "2025 parts 45 USD 1", "2025 purchase 1999.99 EUR 0", "2026 parts 12.34 EUR 1",
            ])
    }

    @Test func theChartAxisEndsOnARoundNumber() {
        #expect(HTMLReportRenderer.axis(0) == (1, 1))
        #expect(HTMLReportRenderer.axis(143) == (150, 50))
        #expect(HTMLReportRenderer.axis(812) == (1000, 250))
        #expect(HTMLReportRenderer.axis(4.2) == (6, 2))
        #expect(HTMLReportRenderer.axis(100) == (100, 25))
    }

    @Test func nextUpListsTheToDosInTheStatusReportsOrder() throws {
        let folder = try TemporaryFolder()
        try folder.write("garage.yaml", "currency: EUR\n")
        // b's overdue to-do comes first; then the due-soon ones by day, a tie by bike; the one
        // due in a month and the undated one are not due.
        try folder.write(
            "bikes/a.yaml",
            "name: A\ntodo:\n  - {task: fit mudguards, due: 2026-06-05}\n  - {task: new tyres, due: 2026-07-01}\n  - true the wheel\n")
        try folder.write("bikes/b.yaml", "name: B\ntodo:\n  - {task: bleed the brakes, due: 2026-06-05}\n  - {task: new chain, due: 2026-05-20}\n")
        let loaded = GarageLoader.load(at: folder.url.path, options: .init(activities: .skip, today: Day("2026-06-01")))
        #expect(!loaded.hasErrors, "\(loaded.diagnostics.map(\.message))")
        let report = GarageReport.build(loaded.garage, summaries: ActivitySummaries([]), query: ReportQuery(asOf: Day("2026-06-01")!))
        let due = report.status.dueTodos().map { "\($0.bike.id) \($0.todo.task)" }
        #expect(due == ["b new chain", "a fit mudguards", "b bleed the brakes"])
        // The page lists them in that order, and nothing else of the to-dos.
        let page = HTMLReportRenderer().render(report).string
        let rest = page[try #require(page.range(of: "<section id=\"next-up\"")).lowerBound...]
        let section = String(rest[..<(try #require(rest.range(of: "</section>")).lowerBound)])
        let positions = ["new chain", "fit mudguards", "bleed the brakes"].map { section.range(of: $0)?.lowerBound }
        #expect(positions.allSatisfy { $0 != nil } && positions == positions.sorted { $0! < $1! }, "\(section)")
        #expect(!section.contains("new tyres") && !section.contains("true the wheel"))
    }

    @Test func thePageIsWrittenABikeAtATimeAndItsPiecesAreThePage() throws {
        let (_, loaded, activities) = try ReportTests.garage()
        let report = GarageReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Day("2026-06-01")!))
        var pieces: [String] = []
        HTMLReportRenderer().render(report) { pieces.append($0.string) }
        #expect(pieces.joined() == HTMLReportRenderer().render(report).string)
        // Each bike's section is a piece of its own, so the page is never held whole.
        #expect(report.bikes.allSatisfy { bike in pieces.contains { $0.hasPrefix("<section class=\"bike\" id=\"bike-\(bike.id)\"") } })
        #expect(pieces.first?.hasPrefix("<!DOCTYPE html>") == true && pieces.last?.hasSuffix("</html>\n") == true)
    }

    @Test func theSameReportGivesTheSameBytes() throws {
        let (_, loaded, activities) = try ReportTests.garage()
        let a = HTMLReportRenderer().render(
            GarageReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Day("2026-06-01")!)))
        let b = HTMLReportRenderer().render(
            GarageReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Day("2026-06-01")!)))
        #expect(a == b)
    }

    /// The eight-at-a-time plain check says what a check of each byte says: every byte value at
    /// every place of runs up to 20 bytes, and every pair of byte values side by side in a word
    /// (a borrow from one byte must not hide or invent the other).
    @Test func thePlainCheckOfBytesIsWhatEachByteSays() {
        var wrong: [String] = []
        for length in 1...20 {
            for at in 0..<length {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length + 3)
                    bytes[1 + at] = UInt8(value)
                    let said = bytes.withUnsafeBufferPointer { HTML.isPlain(UnsafeBufferPointer(rebasing: $0[1..<(1 + length)])) }
                    if said != HTML.isPlain(UInt8(value)) { wrong.append("\(value) at \(at) of \(length)") }
                }
            }
        }
        for a in 0...255 {
            for b in 0...255 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
                bytes[3] = UInt8(a)
                bytes[4] = UInt8(b)
                let said = bytes.withUnsafeBufferPointer { HTML.isPlain($0) }
                if said != (HTML.isPlain(UInt8(a)) && HTML.isPlain(UInt8(b))) { wrong.append("\(a), \(b)") }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }

    /// The page as bytes handed out in chunks is the page, whatever the chunk: each piece is at
    /// least the chunk but the last, and ends where a section ends.
    @Test func thePagesBytesInChunksAreThePage() throws {
        let (_, loaded, activities) = try ReportTests.garage()
        let report = GarageReport.build(loaded.garage, summaries: ActivitySummaries(activities), query: ReportQuery(asOf: Day("2026-06-01")!))
        let page = Array(HTMLReportRenderer().render(report).string.utf8)
        for chunk in [0, 1, 100, 1000, 4096, 1 << 20, .max] {
            var pieces: [[UInt8]] = []
            HTMLReportRenderer().render(report, chunk: chunk) { pieces.append($0) }
            #expect(Array(pieces.joined()) == page, "\(chunk)")
            #expect(pieces.dropLast().allSatisfy { $0.count >= chunk }, "\(chunk)")
            #expect(pieces.dropLast().allSatisfy { $0.last == UInt8(ascii: "\n") }, "\(chunk)")
        }
    }
}
