import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A running `bikecheck report --serve --port 0` on a garage, and the address it printed, read as
/// the rider would. `stop()` ends it; a test that forgets (or fails first) ends it on release.
final class ServedReport: @unchecked Sendable {
    let process: Process
    /// `http://127.0.0.1:PORT`, no slash at the end.
    let base: String
    let port: UInt16
    private let output: TemporaryFolder

    init(_ garage: TemporaryFolder, _ arguments: [String] = ["--as-of", "2026-11-15"], binary: URL = bikecheckBinary) throws {
        output = try TemporaryFolder()
        let out = output.url.appendingPathComponent("stdout"), err = output.url.appendingPathComponent("stderr")
        for file in [out, err] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
        process = Process()
        process.executableURL = binary
        process.arguments = ["report", "--serve", "--port", "0"] + arguments
        process.currentDirectoryURL = garage.root
        var env = ProcessInfo.processInfo.environment
        (env["NO_COLOR"], env["BIKECHECK_GARAGE"]) = ("1", "")
        process.environment = env
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var line: Substring?
        let deadline = Date().addingTimeInterval(60)
        while line == nil, process.isRunning, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            line = String(decoding: (try? Data(contentsOf: out)) ?? Data(), as: UTF8.self).split(separator: "\n").first
        }
        let printed = String(line ?? "")
        let stderr = String(decoding: (try? Data(contentsOf: err)) ?? Data(), as: UTF8.self)
        guard let match = printed.wholeMatch(of: #/Serving the report on http://127\.0\.0\.1:(\d+)/ \(Ctrl-C stops\)/#), let port = UInt16(match.1)
        else {
            process.terminate()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "report --serve printed \(printed.debugDescription), stderr \(stderr)"])
        }
        self.port = port
        base = "http://127.0.0.1:\(port)"
    }

    deinit { stop() }

    /// Ends the server, SIGKILL if SIGTERM did not (a test runner's children can inherit a mask
    /// that blocks it), and waits for it.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// `method` on `path`: the status, the body and the headers.
    func request(_ path: String, method: String = "GET") async throws -> (status: Int, body: String, headers: [String: String]) {
        var request = URLRequest(url: try #require(URL(string: base + path)))
        request.httpMethod = method
        request.cachePolicy = .reloadIgnoringLocalCacheData
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var headers: [String: String] = [:]
        for (k, v) in http.allHeaderFields { headers["\(k)".lowercased()] = "\(v)" }
        return (http.statusCode, String(decoding: data, as: UTF8.self), headers)
    }

    /// The body of a GET that must answer 200.
    func page(_ path: String = "/") async throws -> String {
        let r = try await request(path)
        #expect(r.status == 200, "\(path): \(r.status) \(r.body)")
        return r.body
    }
}

/// A figure of the report: one bike's distance in one month, as its chart's bar says it
/// (`<title>Nov 2026: 49.1 km</title>`), in the bike's own section. The chart rounds to whole
/// kilometres from 100 on, so figures compare to within one.
func monthFigure(_ page: String, bike: String, month: String = "Nov 2026") throws -> Double {
    let start = try #require(page.range(of: "<section class=\"bike\" id=\"bike-\(bike)\""), "no section for \(bike)")
    let rest = page[start.upperBound...]
    let section = rest[..<(rest.range(of: "</section>")?.lowerBound ?? rest.endIndex)]
    let figure = try #require(section.firstMatch(of: try Regex("<title>\(month): ([0-9.]+) km</title>")), "no \(month) bar for \(bike)")
    let digits = try #require(figure.output[1].substring)
    return try #require(Double(digits))
}

/// Text as bikecheck's `HTML` escapes it.
func htmlEscaped(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;")
}

/// A ride of exactly 1000 km on charger in November 2026: its November bar grows by 1000.
func addThousandKilometres(_ garage: TemporaryFolder) throws {
    let rides = try garage.read("rides.yaml")
    try garage.write("rides.yaml", rides + "  - {date: 2026-11-10, bike: charger, time: 30 h, distance: 1000 km}\n")
}

/// `bikecheck report --serve`: the report served on 127.0.0.1, current on every request.
@Suite struct ReportServeEndToEndTests {
    @Test func thePageIsTheReportAndShowsAnEditWithoutARestart() async throws {
        let garage = try TemporaryFolder(copying: true)
        let server = try ServedReport(garage)
        defer { server.stop() }
        let first = try await server.page()
        // The report's own bytes, with the script that asks whether it changed.
        let printed = try garage.run(["report", "--as-of", "2026-11-15"])
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(try monthFigure(first, bike: "charger") == (try monthFigure(printed.stdout, bike: "charger")))
        #expect(first.contains("<script>") && first.contains("fetch(\"/changed?page=\""))
        let unlinked = first.replacing(#/ <a class="id" href="bike\/[a-z0-9-]+">own page<\/a>/#, with: "")
        let withoutScript = unlinked.replacing(#/<script>\n[\s\S]*<\/script>\n/#, with: "")
        #expect(withoutScript == printed.stdout)
        let before = try monthFigure(first, bike: "charger")

        try addThousandKilometres(garage)
        let second = try await server.page()
        #expect(abs(try monthFigure(second, bike: "charger") - (before + 1000)) < 1)
        #expect(server.process.isRunning)
    }

    @Test func changedSaysWhetherThePageChangedSinceItsToken() async throws {
        let garage = try TemporaryFolder(copying: true)
        let server = try ServedReport(garage)
        defer { server.stop() }
        func token(_ page: String) throws -> String {
            let match = try #require(page.firstMatch(of: try Regex(#"var since = "([0-9a-f]{16})", page = "/""#)))
            return try #require(match.output[1].substring).description
        }
        func changed(_ since: String, page: String = "/") async throws -> (changed: Bool, token: String) {
            let r = try await server.request("/changed?page=\(page)&since=\(since)")
            #expect(r.status == 200 && r.headers["content-type"] == "application/json", "\(r)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.body.utf8)) as? [String: Any])
            return (try #require(json["changed"] as? Bool), try #require(json["token"] as? String))
        }
        let shown = try token(try await server.page())
        let still = try await changed(shown)
        #expect(!still.changed && still.token == shown, "nothing was edited")
        try addThousandKilometres(garage)
        let now = try await changed(shown)
        #expect(now.changed && now.token != shown)
        // The new page carries the new token: asked again, nothing changed.
        #expect(try token(try await server.page()) == now.token)
        #expect(try await changed(now.token).changed == false)
        #expect(try await server.request("/changed?page=/bike/nope&since=x").status == 404)
    }

    @Test func aBrokenFileShowsValidatesDiagnosticsUntilItIsFixed() async throws {
        let garage = try TemporaryFolder(copying: true)
        let server = try ServedReport(garage)
        defer { server.stop() }
        let good = try garage.read("bikes/grail.yaml")
        try garage.write("bikes/grail.yaml", good.replacingOccurrences(of: "date: 2026-10-25", with: "date: 2026-13-25"))
        let validate = try garage.run(["validate"])
        #expect(validate.status == 1)
        let first = try #require(validate.stderr.split(separator: "\n").first.map(String.init))
        #expect(first.wholeMatch(of: #/bikes/grail\.yaml:\d+:\d+: error: .*/#) != nil, "\(first)")

        let broken = try await server.request("/")
        #expect(broken.status == 200)
        #expect(broken.body.contains("<title>bikecheck-test-"), "the garage's folder names the page")
        #expect(broken.body.contains(" in the garage</title>"))
        // validate's text, escaped, line for line.
        #expect(broken.body.contains(htmlEscaped(validate.stderr)), "\(broken.body)")
        #expect(!broken.body.contains("<section class=\"bike\""))
        // Every page is the error page meanwhile, and it reloads itself too.
        let bike = try await server.request("/bike/stumpy")
        #expect(bike.status == 200 && bike.body.contains(htmlEscaped(first)))
        #expect(broken.body.contains("fetch(\"/changed?page=\""))

        try garage.write("bikes/grail.yaml", good)
        let fixed = try await server.page()
        #expect(fixed.contains("<section class=\"bike\" id=\"bike-grail\""))
        #expect(!fixed.contains("error:"))
    }

    @Test func eachBikeHasItsOwnPageAndEverythingElseIsNotFound() async throws {
        let garage = try TemporaryFolder(copying: true)
        let server = try ServedReport(garage)
        defer { server.stop() }
        let grail = try await server.page("/bike/grail")
        let record = try garage.run(["report", "--bike", "grail", "--as-of", "2026-11-15"])
        #expect(grail.replacing(#/<script>\n[\s\S]*<\/script>\n/#, with: "") == record.stdout)
        #expect(grail.contains("var since = \"") && grail.contains("page = \"/bike/grail\""))
        #expect(try await server.page().contains("<a class=\"id\" href=\"bike/grail\">own page</a>"))
        // A part, a bike that is not there, paths around the pages, a way out of the garage.
        for path in [
            "/bike/race-wheels", "/bike/grial", "/bike/", "/bike/grail/x", "/bikes/grail.yaml", "/garage.yaml", "/bike/..%2Fgarage.yaml",
            "/bike/%2e%2e", "/../../etc/passwd", "/index.html", "/changed",
        ] {
            let r = try await server.request(path)
            #expect(r.status == 404, "\(path): \(r.status)")
            #expect(!r.body.contains("<html"), "\(path)")
        }
    }

    @Test func aBikeNamedAtTheStartThatIsGoneIsSaidOnThePage() async throws {
        let garage = try TemporaryFolder(copying: true)
        let server = try ServedReport(garage, ["--bike", "stumpy", "--as-of", "2026-11-15"])
        defer { server.stop() }
        #expect(try await server.page().contains("<title>Service record: Specialized Stumpjumper Evo</title>"))
        try FileManager.default.removeItem(at: garage.root.appendingPathComponent("bikes/stumpy.yaml"))
        let gone = try await server.page()
        #expect(gone.contains("<pre class=\"diagnostics\">error: no bike or part &#39;stumpy&#39;"), "\(gone)")
        #expect(!gone.contains("UsageError"))
        #expect(try await server.request("/bike/stumpy").status == 404)
    }

    @Test func onlyGetAndHeadAreAnsweredAndNothingIsWritten() async throws {
        let garage = try TemporaryFolder(copying: true)
        let server = try ServedReport(garage)
        defer { server.stop() }
        let before = try garage.read("bikes/grail.yaml")
        for method in ["POST", "PUT", "DELETE", "PATCH"] {
            let r = try await server.request("/", method: method)
            #expect(r.status == 405, "\(method)")
            #expect(r.headers["allow"] == "GET, HEAD", "\(method)")
        }
        let head = try await server.request("/bike/grail", method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty && head.headers["content-type"] == "text/html; charset=utf-8")
        #expect(
            head.headers["content-security-policy"]
                == "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src data:")
        #expect(head.headers["cache-control"] == "no-store")
        #expect(try garage.read("bikes/grail.yaml") == before)
    }

    @Test func aPageForAnotherHostNameIsRefused() throws {
        // DNS rebinding: a site whose name resolves to 127.0.0.1 still sends its own name.
        let garage = try TemporaryFolder(copying: true)
        let server = try ServedReport(garage)
        defer { server.stop() }
        let curl = URL(fileURLWithPath: "/usr/bin/curl")
        func status(_ host: String) throws -> String {
            try runProcess(curl, ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Host: \(host)", server.base + "/"], in: garage.root).stdout
        }
        #expect(try status("attacker.example:\(server.port)") == "421")
        #expect(try status("localhost:\(server.port)") == "200")
        #expect(try status("127.0.0.1:\(server.port)") == "200")
    }

    /// The listening socket is bound to 127.0.0.1 (the kernel's table, /proc/net/tcp), and a
    /// connection to each non-loopback IPv4 address of this machine (getifaddrs) is refused.
    @Test func theSocketIsBoundTo127001AndANonLoopbackAddressGetsNoAnswer() throws {
        let garage = try TemporaryFolder(copying: true)
        let server = try ServedReport(garage)
        defer { server.stop() }
        let listening = try String(contentsOfFile: "/proc/net/tcp", encoding: .utf8).split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: " ")
            return fields.count > 3 && fields[3] == "0A" ? String(fields[1]) : nil
        }
        let port = String(format: "%04X", server.port)
        #expect(listening.filter { $0.hasSuffix(":" + port) } == ["0100007F:" + port], "\(listening)")
        #expect(try String(contentsOfFile: "/proc/net/tcp6", encoding: .utf8).contains(":\(port) 00000000000000000000000000000000:0000 0A") == false)

        var addresses: [in_addr] = []
        var list: UnsafeMutablePointer<ifaddrs>?
        #expect(getifaddrs(&list) == 0)
        defer { freeifaddrs(list) }
        var at = list
        while let entry = at {
            if let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) {
                let ip = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                if UInt32(bigEndian: ip.s_addr) >> 24 != 127 { addresses.append(ip) }
            }
            at = entry.pointee.ifa_next
        }
        for address in addresses {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #expect(fd >= 0)
            defer { close(fd) }
            var target = sockaddr_in()
            target.sin_family = sa_family_t(AF_INET)
            target.sin_port = server.port.bigEndian
            target.sin_addr = address
            let connected = withUnsafePointer(to: &target) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            let error = errno
            let shown = String(UInt32(bigEndian: address.s_addr), radix: 16)
            #expect(connected == -1 && error == ECONNREFUSED, "address 0x\(shown): connected \(connected), errno \(error)")
        }
        // The page itself is still there on 127.0.0.1.
        #expect(
            try runProcess(URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-o", "/dev/null", "-w", "%{http_code}", server.base + "/"], in: garage.root).stdout
                == "200")
    }

    @Test func aPortInUseIsAnErrorThatSaysSo() throws {
        let garage = try TemporaryFolder(copying: true)
        let server = try ServedReport(garage)
        defer { server.stop() }
        let second = try runBikecheck(["report", "--serve", "--port", "\(server.port)"], in: garage.root, timeout: 20)
        #expect(second.status == 1 && second.stdout.isEmpty, "\(second.status) \(second.stderr)")
        #expect(
            second.stderr
                == "error: cannot serve on 127.0.0.1 port \(server.port): address already in use\n  help: choose another with --port N, or --port 0 for a free one\n"
        )
    }

    @Test func aSymlinkedBinaryFindsTheServersLibraryAndACopyWithoutItSaysWhereItMustBe() async throws {
        let garage = try TemporaryFolder(copying: true)
        let elsewhere = try TemporaryFolder()
        // Installed as a link (~/.local/bin/bikecheck -> the build): the library is found beside
        // the binary the link resolves to.
        let link = elsewhere.url.appendingPathComponent("link/bikecheck")
        try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: bikecheckBinary)
        let server = try ServedReport(garage, binary: link)
        defer { server.stop() }
        #expect(try await server.page().contains("<section class=\"bike\" id=\"bike-grail\""))
        // The binary alone, without the library beside it: an error naming where it must be.
        let alone = elsewhere.url.appendingPathComponent("alone/bikecheck")
        try FileManager.default.createDirectory(at: alone.deletingLastPathComponent(), withIntermediateDirectories: true)
        try copyExecutable(bikecheckBinary, to: alone)
        let r = try runProcess(
            alone, ["report", "--serve", "--port", "0"], in: garage.root, environment: ["NO_COLOR": "1", "BIKECHECK_GARAGE": ""], timeout: 20)
        let folder = try #require(
            realpath(alone.deletingLastPathComponent().path, nil).map { pointer in
                defer { free(pointer) }
                return String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
            })
        #expect(r.status == 1 && r.stdout.isEmpty, "\(r.status) \(r.stderr)")
        #expect(
            r.stderr
                == "error: report --serve needs \(folder)/libBikeCheckReportHTTP.so, and it is missing\n"
                + "  help: install it beside bikecheck (scripts/install does; swift build builds it beside the binary)\n")
    }

    @Test func theServeOptionsAreCheckedBeforeAnythingListens() throws {
        let garage = try TemporaryFolder(copying: true)
        let cases: [([String], String)] = [
            (["report", "--port", "8035"], "error: --port and --address go with --serve\n"),
            (["report", "--serve", "--output", "x.html"], "error: --serve and --output do not go together\n"),
            (["report", "--serve", "--rev", "HEAD"], "error: --serve shows the garage's files as they are now, not at a commit\n"),
            (["report", "--serve", "--bike", "grial"], "error: no bike or part 'grial'; did you mean 'grail'?\n"),
            (["report", "--serve", "--address", "not-an-ip", "--port", "0"], "error: --address not-an-ip is not an IP address\n"),
        ]
        for (arguments, message) in cases {
            let r = try runBikecheck(arguments, in: garage.root, timeout: 20)
            #expect(r.status == 2 && r.stdout.isEmpty, "\(arguments): \(r.status) \(r.stderr)")
            #expect(r.stderr.hasPrefix(message), "\(arguments): \(r.stderr)")
        }
    }
}

/// The served page in headless chromium: what the rider's browser shows, before and after an edit.
@Suite(.enabled(if: Browser.executable != nil, "\(Browser.missing)"))
struct ReportServeBrowserTests {
    @Test func chromiumShowsTheServedReportAndAfterAnEditOfARideOrABikeFileTheNewFigure() async throws {
        let garage = try TemporaryFolder(copying: true)
        let server = try ServedReport(garage)
        defer { server.stop() }
        let page = try #require(URL(string: server.base + "/"))
        let before = try Browser.run(["--dump-dom"], page: page, in: garage.root)
        #expect(before.status == 0, "\(before.stderr)")
        let figure = try monthFigure(before.stdout, bike: "charger")
        #expect(before.stdout.contains("<h1>Sam's garage: maintenance report</h1>"))

        try addThousandKilometres(garage)
        let after = try Browser.run(["--dump-dom"], page: page, in: garage.root)
        #expect(after.status == 0, "\(after.stderr)")
        #expect(abs(try monthFigure(after.stdout, bike: "charger") - (figure + 1000)) < 1)

        // A bike file edited: its new name shows, without a restart.
        let bike = try garage.read("bikes/charger.yaml")
        #expect(!after.stdout.contains("Charger Renamed"))
        try garage.write(
            "bikes/charger.yaml",
            bike.replacingOccurrences(of: "name: Riese & Müller Charger4 GT vario", with: "name: Charger Renamed"))
        let renamed = try Browser.run(["--dump-dom"], page: page, in: garage.root)
        #expect(renamed.status == 0, "\(renamed.stderr)")
        #expect(renamed.stdout.contains("Charger Renamed"), "\(renamed.stdout)")
        #expect(abs(try monthFigure(renamed.stdout, bike: "charger") - (figure + 1000)) < 1)

        try garage.write("rides.yaml", try garage.read("rides.yaml") + "  - {date: 2026-11-11, bike: charger, time: 1 h, distance: twelve}\n")
        let broken = try Browser.run(["--dump-dom"], page: page, in: garage.root)
        #expect(broken.stdout.wholeMatch(of: #/[\s\S]*<pre class="diagnostics">rides\.yaml:\d+:\d+: error: [\s\S]*/#) != nil, "\(broken.stdout)")
    }

    /// The open tab itself: chromium driven over its DevTools pipe (`--remote-debugging-pipe`,
    /// Python's standard library only) loads the page once, the test edits the garage, and the
    /// page's own script reloads it: the new figure, then the error page, then the report again,
    /// with no navigation but the page's reloads.
    @Test func theOpenTabReloadsItselfAfterAnEditABreakAndAFix() async throws {
        let garage = try TemporaryFolder(copying: true)
        let server = try ServedReport(garage)
        defer { server.stop() }
        let tools = try TemporaryFolder()
        let script = tools.url.appendingPathComponent("live.py")
        try tools.write("live.py", Self.liveTab)
        let grail = try garage.read("bikes/grail.yaml")
        let edits: [[String: String]] = [
            [
                "path": garage.root.appendingPathComponent("rides.yaml").path,
                "text": try garage.read("rides.yaml") + "  - {date: 2026-11-10, bike: charger, time: 30 h, distance: 1000 km}\n",
            ],
            [
                "path": garage.root.appendingPathComponent("bikes/grail.yaml").path,
                "text": grail.replacingOccurrences(of: "date: 2026-10-25", with: "date: 2026-13-25"),
            ],
            ["path": garage.root.appendingPathComponent("bikes/grail.yaml").path, "text": grail],
        ]
        try tools.write("edits.json", Array(try JSONSerialization.data(withJSONObject: edits)))
        let run = try runProcess(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [
                script.path, try #require(Browser.executable).path, server.base + "/", tools.url.appendingPathComponent("profile").path,
                tools.url.appendingPathComponent("edits.json").path,
            ],
            in: tools.url, timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        let pages = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        try #require(pages.count == 4, "\(run.stdout.prefix(2000))")
        let dom = pages.map { $0["dom"] as? String ?? "" }, how = pages.map { $0["navigation"] as? String ?? "" }
        #expect(how == ["navigate", "reload", "reload", "reload"], "the page reloaded itself: \(how)")
        let figure = try monthFigure(dom[0], bike: "charger")
        #expect(abs(try monthFigure(dom[1], bike: "charger") - (figure + 1000)) < 1)
        #expect(dom[2].contains("<pre class=\"diagnostics\">bikes/grail.yaml:") && dom[2].contains("is not a real date"), "\(dom[2].prefix(3000))")
        #expect(abs(try monthFigure(dom[3], bike: "charger") - (figure + 1000)) < 1)
        // Each change shows within two polls.
        for page in pages.dropFirst() { #expect((page["seconds"] as? Double ?? 99) < 11, "\(page["seconds"] ?? "")") }
    }

    /// `live.py CHROMIUM URL PROFILE EDITS`: opens URL in headless chromium over its DevTools
    /// pipe, then for each edit (a file and its new text) writes it and waits until the tab shows
    /// a different page; prints each page's DOM, how it was reached (`performance`'s navigation
    /// type) and the seconds it took, as JSON.
    static let liveTab = #"""
        import json, os, subprocess, sys, time
        chromium, url, profile, edits = sys.argv[1], sys.argv[2], sys.argv[3], json.load(open(sys.argv[4]))
        r3, w3 = os.pipe()
        r4, w4 = os.pipe()
        def pipes():
            # The DevTools pipe is fds 3 (commands in) and 4 (answers out). A pipe's ends are
            # close-on-exec, and dup2 onto the same number keeps that: copy them up first.
            a, b = os.dup(r3), os.dup(w4)
            os.dup2(a, 3)
            os.dup2(b, 4)
        flags = ["--headless", "--disable-gpu", "--user-data-dir=" + profile, "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-extensions", "--disable-default-apps",
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--remote-debugging-pipe"]
        if os.getuid() == 0: flags.append("--no-sandbox")
        browser = subprocess.Popen([chromium] + flags + ["about:blank"], close_fds=False, preexec_fn=pipes,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(r3); os.close(w4)
        pending = b""; counter = 0
        def call(method, params, session=None):
            global pending, counter
            counter += 1
            message = {"id": counter, "method": method, "params": params}
            if session: message["sessionId"] = session
            os.write(w3, json.dumps(message).encode() + b"\0")
            while True:
                while b"\0" not in pending:
                    chunk = os.read(r4, 65536)
                    if not chunk: raise SystemExit("chromium closed its DevTools pipe")
                    pending += chunk
                raw, pending = pending.split(b"\0", 1)
                answer = json.loads(raw)
                if answer.get("id") == counter:
                    if "error" in answer: raise SystemExit(json.dumps(answer["error"]))
                    return answer["result"]
        try:
            target = call("Target.createTarget", {"url": url})["targetId"]
            session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            def state():
                expression = "document.readyState + '\\n' + performance.getEntriesByType('navigation')[0].type + '\\n' + document.documentElement.outerHTML"
                value = call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)["result"].get("value", "")
                return (value.split("\n", 2) + ["", "", ""])[:3]
            def shown(other, since):
                deadline = time.time() + 30
                while time.time() < deadline:
                    ready, navigation, dom = state()
                    if ready == "complete" and "</main>" in dom and dom != other:
                        return {"dom": dom, "navigation": navigation, "seconds": round(time.time() - since, 2)}
                    time.sleep(0.2)
                return {"dom": other, "navigation": "none", "seconds": 99}
            pages = [shown(None, time.time())]
            for edit in edits:
                with open(edit["path"], "w") as f: f.write(edit["text"])
                pages.append(shown(pages[-1]["dom"], time.time()))
            print(json.dumps(pages))
        finally:
            browser.kill(); browser.wait()
        """#
}
