import Foundation
import TestSupport
import Testing

/// `bikecheck report` on example-garage, as of a fixed day, against golden pages.
/// Re-record with `BIKECHECK_RECORD=1 swift test --filter ReportHTMLGoldenTests` (the run fails, as every recording run does), then read the diff.
@Suite struct ReportHTMLGoldenTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/Reports")

    @Test(arguments: [("report.html", [String]()), ("report-grail.html", ["--bike", "grail"]), ("report-imperial.html", [])])
    func thePageMatchesItsGoldenFile(_ name: String, _ arguments: [String]) throws {
        // A copy, outside git (example-garage sits in this repository, whose commit moves):
        // the page names no commit. `-imperial`: copied with `units: imperial`, in miles throughout.
        let copy = try TemporaryFolder(copying: true)
        if name.contains("-imperial") {
            try copy.write("garage.yaml", try copy.read("garage.yaml").replacingOccurrences(of: "\nunits: metric\n", with: "\nunits: imperial\n"))
        }
        let garage = copy.root
        let r = try runBikecheck(["report", "--garage", garage.path, "--as-of", "2026-11-15"] + arguments, in: repositoryRoot)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        expectGolden(r.stdout, file: Self.folder.appendingPathComponent(name))
    }

    @Test func htmlFormatAndOutputFileGiveTheSameBytesAsStandardOutput() throws {
        let garage = try TemporaryFolder(copying: true)
        let plain = try garage.run(["report", "--as-of", "2026-11-15"])
        let flagged = try garage.run(["report", "--html", "--format", "html", "--as-of", "2026-11-15", "--output", "out/garage.html"])
        #expect(plain.status == 0 && flagged.status == 0, "\(plain.stderr) \(flagged.stderr)")
        #expect(flagged.stdout.isEmpty && flagged.stderr.isEmpty)
        #expect(try garage.read("out/garage.html") == plain.stdout)
        #expect(plain.stdout.hasPrefix("<!DOCTYPE html>") && plain.stdout.contains("As of <time datetime=\"2026-11-15\">"))
    }

    @Test func nextUpListsTheToDosDueWithinAWeekOrPastTheirDay() throws {
        let garage = try TemporaryFolder(copying: true)
        func nextUp(_ asOf: String) throws -> String {
            let r = try garage.run(["report", "--as-of", asOf])
            #expect(r.status == 0, "\(r.stderr)")
            guard let start = r.stdout.range(of: "<section id=\"next-up\""), let end = r.stdout[start.upperBound...].range(of: "</section>") else {
                Issue.record("no next-up section")
                return ""
            }
            return String(r.stdout[start.lowerBound..<end.upperBound])
        }
        // grail's "fit mudguards for the winter" is due 2026-11-30; the hanger has no day.
        #expect(try !nextUp("2026-11-15").contains("mudguards"), "15 days ahead: not yet")
        let soon = try nextUp("2026-11-25")
        #expect(soon.contains("<th scope=\"row\">fit mudguards for the winter</th><td>Due soon</td>"), "\(soon)")
        let late = try nextUp("2026-12-02")
        #expect(late.contains("<th scope=\"row\">fit mudguards for the winter</th><td><strong>Overdue</strong></td>"), "\(late)")
        #expect(!late.contains("hanger"))
    }

    @Test func anUnknownBikeIsAUsageErrorAndAnUnwritableFileAnError() throws {
        let garage = try TemporaryFolder(copying: true)
        let unknown = try garage.run(["report", "--bike", "grial"])
        #expect(unknown.status == 2 && unknown.stdout.isEmpty)
        #expect(unknown.stderr.hasPrefix("error: no bike or part 'grial'; did you mean 'grail'?\n"), "\(unknown.stderr)")
        let part = try garage.run(["report", "--bike", "race-wheels"])
        #expect(part.status == 2 && part.stdout.isEmpty)
        #expect(part.stderr.hasPrefix("error: 'race-wheels' is a part; report --bike takes bikes\n"), "\(part.stderr)")
        try garage.write("blocker", "a file, not a folder\n")
        let unwritable = try garage.run(["report", "--output", "blocker/report.html", "--as-of", "2026-11-15"])
        #expect(unwritable.status == 1 && unwritable.stdout.isEmpty)
        #expect(unwritable.stderr.hasPrefix("error: cannot write '"), "\(unwritable.stderr)")
    }
}

/// Headless chromium (Debian's `chromium`, which scripts/bootstrap installs), run on a page with
/// a fresh profile, no GPU, and no name resolution for anything but 127.0.0.1, so nothing it
/// does leaves the machine.
enum Browser {
    static let executable: URL? = {
        let candidates = [ProcessInfo.processInfo.environment["BIKECHECK_CHROMIUM"], "/usr/bin/chromium", "/usr/bin/chromium-browser"]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }.map(URL.init(fileURLWithPath:))
    }()

    static let missing = "headless chromium is not installed: scripts/bootstrap installs Debian's 'chromium' (or set BIKECHECK_CHROMIUM)"

    /// Runs chromium on `page` with `arguments` (`--dump-dom`, `--screenshot=…`), killed after 60 s.
    static func run(_ arguments: [String], page: URL, in folder: URL) throws -> CommandResult {
        let profile = folder.appendingPathComponent("profile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: profile) }
        var flags = [
            "--headless", "--disable-gpu", "--user-data-dir=\(profile.path)", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-extensions", "--disable-default-apps",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        ]
        // Chromium's sandbox refuses to start as root.
        if getuid() == 0 { flags.append("--no-sandbox") }
        return try runProcess(try #require(executable), flags + arguments + [page.absoluteString], in: folder, timeout: 60)
    }

    /// The URLs of the requests a page made (its subresources), from chromium's own network log:
    /// requests on behalf of a file:// page carry a `file://` network isolation key; the
    /// browser's own (update checks) do not.
    static func pageRequests(inNetLog url: URL) throws -> [String] {
        let log = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let constants = try #require(log["constants"] as? [String: Any])
        let types = try #require(constants["logEventTypes"] as? [String: Int])
        let start = try #require(types["URL_REQUEST_START_JOB"])
        let events = try #require(log["events"] as? [[String: Any]])
        return events.compactMap { event in
            guard event["type"] as? Int == start, let params = event["params"] as? [String: Any],
                (params["network_isolation_key"] as? String)?.contains("file://") == true
            else { return nil }
            return params["url"] as? String
        }
    }
}

/// The report in a real browser: what a rider sees, prints and saves.
@Suite(.enabled(if: Browser.executable != nil, "\(Browser.missing)"))
struct ReportHTMLBrowserTests {
    /// The example garage's report written to a temporary folder, and the folder.
    static func report(_ arguments: [String] = [], garage: TemporaryFolder? = nil) throws -> (TemporaryFolder, URL) {
        let garage = try garage ?? TemporaryFolder(copying: true)
        let page = garage.root.appendingPathComponent("report-\(UUID().uuidString).html")
        let r = try garage.run(["report", "--as-of", "2026-11-15", "--output", page.path] + arguments)
        #expect(r.status == 0, "\(r.stderr)")
        return (garage, page)
    }

    /// Text as chromium serialises it in the DOM.
    static func serialised(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    @Test func theRenderedPageHasEveryBikeAndIntervalOfTheExampleGarage() throws {
        let (garage, page) = try Self.report()
        let dom = try Browser.run(["--dump-dom"], page: page, in: garage.root)
        #expect(dom.status == 0, "\(dom.stderr)")
        let status = try garage.run(["status", "--format", "json", "--as-of", "2026-11-15"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        let bikes = try #require(json["bikes"] as? [[String: Any]])
        // The four bikes and the running shoes (gear).
        #expect(bikes.count == 5)
        var intervals = 0
        for bike in bikes {
            let id = try #require(bike["id"] as? String), name = try #require(bike["name"] as? String)
            // The bike's own section, up to the next.
            let start = try #require(dom.stdout.range(of: "<section class=\"bike\" id=\"bike-\(id)\""), "no section for \(id)")
            let section = dom.stdout[start.lowerBound...].prefix { _ in true }
            let end = section.dropFirst().range(of: "<section")?.lowerBound ?? section.endIndex
            let own = String(section[..<end])
            #expect(own.contains("<h2 id=\"h-bike-\(id)\">\(Self.serialised(name)) "), "\(id)")
            for interval in try #require(bike["intervals"] as? [[String: Any]]) {
                let task = try #require(interval["task"] as? String), state = try #require(interval["state"] as? String)
                #expect(own.contains("<tr class=\"\(state)\"><th scope=\"row\">\(Self.serialised(task)) "), "\(id): \(task)")
                intervals += 1
            }
        }
        #expect(intervals == 30)
        // Every interval row has its bar, and says its state in words.
        #expect(dom.stdout.components(separatedBy: "<svg class=\"bar\"").count - 1 >= intervals)
        for word in ["Overdue", "Due soon", "OK"] { #expect(dom.stdout.contains(word)) }
    }

    @Test func theChartsHaveABarPathForEachMonth() throws {
        let (garage, page) = try Self.report()
        let dom = try Browser.run(["--dump-dom"], page: page, in: garage.root)
        #expect(dom.status == 0, "\(dom.stderr)")
        let groups = dom.stdout.components(separatedBy: "<g class=\"bars\">").dropFirst().map { $0.components(separatedBy: "</g>")[0] }
        #expect(groups.count == 5)
        let path = try Regex(#"<path d="([^"]+)">"#)
        for group in groups {
            let ds = group.matches(of: path).map { String($0.output[1].substring ?? "") }
            #expect(ds.count == 12)
            #expect(ds.allSatisfy { $0.hasPrefix("M") && $0.hasSuffix("z") })
            // Months with riding have a bar of some height.
            #expect(ds.contains { !$0.contains("v0h") })
        }
        #expect(dom.stdout.contains("<title id=\"chart-grail-t\">Canyon Grail CF SL 7: distance per month, Dec 2025 to Nov 2026</title>"))
    }

    @Test(arguments: ["<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>"])
    func hostileNamesRenderAsTextNotAsElements(_ name: String) throws {
        let yaml = "'" + name.replacingOccurrences(of: "'", with: "''") + "'"
        let garage = try TemporaryFolder([
            "garage.yaml": "name: \(yaml)\n",
            "bikes/evil.yaml": """
            name: \(yaml)
            bought: 2025-01-10
            intervals:
              chain-lube:
                task: \(yaml)
                every: 2 months
            log:
              - date: 2025-03-01
                done: [chain-lube]
                note: \(yaml)

            """,
        ])
        let (_, page) = try Self.report(garage: garage)
        let dom = try Browser.run(["--dump-dom"], page: page, in: garage.root)
        #expect(dom.status == 0, "\(dom.stderr)")
        // No element came from the name: the DOM has no script or img at all.
        #expect(!dom.stdout.contains("<script"))
        #expect(!dom.stdout.contains("<img"))
        #expect(!dom.stdout.contains("onerror=\"alert"))
        // The name is there as text, in the title, the heading, the task and the note.
        #expect(dom.stdout.components(separatedBy: Self.serialised(name)).count - 1 >= 4, "\(dom.stdout)")
    }

    @Test func theReportRequestsNothingFromTheNetwork() throws {
        let (garage, page) = try Self.report()
        let log = garage.root.appendingPathComponent("report.netlog")
        let r = try Browser.run(["--dump-dom", "--log-net-log=\(log.path)"], page: page, in: garage.root)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Browser.pageRequests(inNetLog: log) == [])
        // The same check sees a page that does load something (on loopback, where nothing listens).
        let control = garage.root.appendingPathComponent("control.html")
        try Data("<!DOCTYPE html><p>x</p><img src=\"http://127.0.0.1:9/x.png\">".utf8).write(to: control)
        let controlLog = garage.root.appendingPathComponent("control.netlog")
        let c = try Browser.run(["--dump-dom", "--log-net-log=\(controlLog.path)"], page: control, in: garage.root)
        #expect(c.status == 0, "\(c.stderr)")
        #expect(try Browser.pageRequests(inNetLog: controlLog) == ["http://127.0.0.1:9/x.png"])
    }

    @Test func aScreenshotIsMade() throws {
        let (garage, page) = try Self.report()
        let png = garage.root.appendingPathComponent("report.png")
        let shot = try Browser.run(["--hide-scrollbars", "--window-size=1200,1600", "--screenshot=\(png.path)"], page: page, in: garage.root)
        #expect(shot.status == 0, "\(shot.stderr)")
        let image = try Data(contentsOf: png)
        #expect(image.count > 10_000 && image.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    @Test func printedEachBikeStartsAPageAndOneBikeIsItsServiceRecord() throws {
        let (garage, page) = try Self.report()
        func printed(_ page: URL) throws -> (bytes: Data, pages: Int) {
            let pdf = page.deletingPathExtension().appendingPathExtension("pdf")
            let r = try Browser.run(["--no-pdf-header-footer", "--print-to-pdf=\(pdf.path)"], page: page, in: garage.root)
            #expect(r.status == 0, "\(r.stderr)")
            let bytes = try Data(contentsOf: pdf)
            let text = String(decoding: bytes, as: UTF8.self)
            return (bytes, text.components(separatedBy: "/Type /Page\n").count - 1)
        }
        let whole = try printed(page)
        let (_, grailPage) = try Self.report(["--bike", "grail"], garage: garage)
        let grail = try printed(grailPage)
        for pdf in [whole, grail] { #expect(pdf.bytes.starts(with: Array("%PDF-".utf8)) && pdf.bytes.count > 10_000) }
        // Each bike starts a page: the garage's four bikes print on more pages than grail's record.
        #expect(grail.pages >= 1 && whole.pages >= grail.pages + 4, "\(whole.pages) \(grail.pages)")
    }
}
