import BikeCheckKit
import Diagnostics
import Dispatch
import Foundation

/// `bikecheck report --serve`: the report's pages over HTTP, read-only. The HTTP server is
/// libBikeCheckReportHTTP (Sources/ReportHTTP, FlyingFox), loaded only to serve
/// (`ReportHTTPLibrary`); it hands each request to `respond`, which is all the pages' logic. Every request
/// loads the garage again (the garage cache and the activity index make that a check of the
/// files' stamps when nothing changed), so a page asked for after an edit shows the edit; a
/// garage with errors is served as `validate`'s diagnostics, with status 200, until it is fixed.
///
/// `/` is the report (`--bike` and `--rider` choose as `report --html` does), `/bike/ID` one
/// bike's service record, `/changed?page=PATH&since=TOKEN` whether that page changed (the pages
/// ask every five seconds and reload themselves, as Fava's do). Anything else is 404; any method
/// but GET and HEAD is 405.
struct ReportServer: Sendable {
    let root: String
    /// `--bike`: the bikes of `/` (none: every bike not retired).
    let bikes: [String]
    let rider: String?
    /// `--as-of`; nil: today, on each request (a server left running shows the new day).
    let asOf: Day?
    /// `--address`: besides 127.0.0.1, localhost and ::1, the one name a request may be for.
    let address: String?
    /// Loads run one at a time.
    let queue = DispatchQueue(label: "bikecheck.report-serve")

    /// A page of the server.
    enum Page: Equatable {
        case report
        case bike(String)

        /// The page at `path` (decoded, dot segments removed, as the library hands it), or nil.
        init?(path: String) {
            if path == "/" {
                self = .report
                return
            }
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            // "", "bike", ID: an id is a file name's stem, never a separator or a dot segment.
            guard parts.count == 3, parts[0].isEmpty, parts[1] == "bike", !parts[2].isEmpty, !parts[2].hasPrefix(".") else { return nil }
            self = .bike(String(parts[2]))
        }

        var path: String {
            switch self {
            case .report: "/"
            case .bike(let id): "/bike/\(id)"
            }
        }
    }

    /// What a page shows now: the report, or the garage's errors.
    enum Shown: Sendable {
        case report(HTMLReportRenderer, GarageReport)
        case errors(String, garage: String, count: Int)

        /// The page, with `script` at the end of its body; without it, the bytes whose checksum
        /// is the page's token (the report's are those `report --html` prints).
        func html(script: HTML = "") -> HTML {
            switch self {
            case .report(let renderer, let report): renderer.render(report, script: script)
            case .errors(let text, let garage, let count): LivePage.errors(text, garage: garage, errors: count, script: script)
            }
        }
    }

    /// What `page` shows now, or nil when there is no such page.
    func render(_ page: Page) -> Shown? {
        let day = asOf ?? today()
        let loaded = GarageLoader.load(at: root, options: .init(activities: .summaries, today: today()))
        if loaded.hasErrors {
            let errors = loaded.diagnostics.filter { $0.severity == .error }.count
            let text = GlobalOptions.rendered(loaded.diagnostics, sources: loaded.sources, colored: false)
            return .errors(text.string, garage: URL(fileURLWithPath: root).lastPathComponent, count: errors)
        }
        var renderer = HTMLReportRenderer()
        let names: [String]
        switch page {
        case .report:
            names = bikes
            renderer.linksBikePages = true
        case .bike(let id):
            names = [id]
        }
        let chosen: (garage: LoadedGarage, bikes: [BikeID])
        do {
            let (garage, selection, _) = try ReportOutput.select(
                loaded, names: names, rider: rider, asOf: asOf,
                checkNamed: ReportOutput.bikesOnly("report --bike", help: "the report of a bike lists the parts that were on it"))
            chosen = (garage, selection.bikes)
        } catch {
            // A bike named by --bike may have gone since the server started; on its own page, a
            // name that is no bike (or not the rider's) is no page.
            guard page == .report else { return nil }
            let text = ErrorStyle.render(anyError: error).string
            return .errors(text, garage: URL(fileURLWithPath: root).lastPathComponent, count: 1)
        }
        if case .bike = page, chosen.bikes.isEmpty { return nil }
        var report = GarageReport.build(
            chosen.garage.garage, summaries: chosen.garage.activitySummaries, query: ReportQuery(bikes: chosen.bikes, asOf: day))
        report.git = GarageCommit.of(garage: root)
        return .report(renderer, report)
    }

    /// An answer: its status, headers and body.
    struct Response {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: String
    }

    /// The answer to a request: `path` decoded, `query` its decoded name and value pairs, `host`
    /// the Host header (nil: none). Runs on the library's threads, several at a time; loads run
    /// one at a time.
    func respond(method: String, path: String, query: [(name: String, value: String)], host: String?) -> Response {
        guard method == "GET" || method == "HEAD" else {
            return Self.response(405, "text/plain", "report --serve is read-only: GET and HEAD only\n", method: method, extra: [("Allow", "GET, HEAD")])
        }
        // A page elsewhere whose name was made to resolve to 127.0.0.1 (DNS rebinding) names
        // itself in Host: only this machine's own names are served.
        guard isOwnName(host) else {
            return Self.response(421, "text/plain", "this server answers for 127.0.0.1 and localhost only\n", method: method)
        }
        let value = { (name: String) in query.first { $0.name == name }?.value }
        if path == "/changed" {
            guard let page = value("page").flatMap(Page.init(path:)) else {
                return Self.response(404, "text/plain", "no such page\n", method: method)
            }
            let since = value("since") ?? ""
            guard let now = queue.sync(execute: { render(page).map { LivePage.token($0.html()) } }) else {
                return Self.response(404, "text/plain", "no such page\n", method: method)
            }
            return Self.response(200, "application/json", LivePage.changed(since: since, now: now), method: method)
        }
        guard let page = Page(path: path), let shown = queue.sync(execute: { render(page) }) else {
            return Self.response(404, "text/plain", "no such page: / is the report, /bike/ID a bike's\n", method: method)
        }
        // The page with the script that asks whether it changed since it was made.
        let token = LivePage.token(shown.html())
        return Self.response(200, "text/html; charset=utf-8", shown.html(script: LivePage.script(token: token, path: page.path)).string, method: method)
    }

    /// Whether `host` (a Host header: name, then `:port`) names this machine, or `--address`.
    func isOwnName(_ host: String?) -> Bool {
        guard let host else { return true }  // HTTP/1.0 has no Host; the connection is local.
        var name = Substring(host)
        if name.hasPrefix("["), let close = name.firstIndex(of: "]") {
            name = name[name.index(after: name.startIndex)..<close]
        } else if let colon = name.lastIndex(of: ":") {
            name = name[..<colon]
        }
        let own = ["127.0.0.1", "localhost", "::1"] + (address.map { [$0] } ?? [])
        return own.contains(name.lowercased())
    }

    /// A response that is never cached and whose page may run only its own inline script and
    /// ask only this server (`connect-src 'self'`); HEAD gets the headers alone.
    static func response(_ status: Int, _ type: String, _ body: String, method: String, extra: [(String, String)] = []) -> Response {
        let headers: [(name: String, value: String)] =
            [
                ("Content-Type", type), ("Cache-Control", "no-store"),
                (
                    "Content-Security-Policy",
                    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src data:"
                ),
                ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
            ] + extra.map { (name: $0.0, value: $0.1) }
        return Response(status: status, headers: headers, body: method == "HEAD" ? "" : body)
    }
}

/// libBikeCheckReportHTTP, `report --serve`'s HTTP server: a `CompanionLibrary`, loaded with
/// dlopen only to serve, so no other command loads FlyingFox, FoundationNetworking and libcurl. Its C interface is described
/// in Sources/ReportHTTP/ReportHTTP.swift; these types must match it.
enum ReportHTTPLibrary {
    typealias Respond = @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<UInt8>?, Int) -> Void
    typealias Handler =
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Respond?,
            UnsafeMutableRawPointer?
        ) -> Void
    typealias Listening = @convention(c) (UnsafeMutableRawPointer?, UInt16) -> Void
    typealias Serve =
        @convention(c) (
            UnsafePointer<CChar>, UInt16, Handler, Listening, UnsafeMutableRawPointer?, UnsafeMutablePointer<CChar>?, Int
        ) -> Int32

    #if canImport(Darwin)
        static let fileName = "libBikeCheckReportHTTP.dylib"
    #else
        static let fileName = "libBikeCheckReportHTTP.so"
    #endif

    /// The library's serve function, or why it cannot be had (`CompanionLibrary` finds it).
    static func load() -> Result<Serve, CompanionLibrary.LoadFailure> {
        CompanionLibrary.symbol("bikecheck_report_http_serve", in: fileName).map { unsafeBitCast($0, to: Serve.self) }
    }

    /// What the C callbacks reach through their context pointer.
    final class Context: Sendable {
        let server: ReportServer
        let host: String
        init(server: ReportServer, host: String) {
            self.server = server
            self.host = host
        }
    }

    /// Hands a request to the context's server and its answer back to the library.
    static let handler: Handler = { context, method, path, query, host, respond, responder in
        guard let context, let method, let path, let respond else { return }
        let served = Unmanaged<Context>.fromOpaque(context).takeUnretainedValue()
        let pairs = query.map { String(cString: $0) }.map(decodedQuery) ?? []
        let response = served.server.respond(
            method: String(cString: method), path: String(cString: path), query: pairs, host: host.map { String(cString: $0) })
        let headers = response.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
        let body = Array(response.body.utf8)
        headers.withCString { headers in
            body.withUnsafeBufferPointer { body in respond(responder, Int32(response.status), headers, body.baseAddress, body.count) }
        }
    }

    /// Prints the address once the server listens.
    static let listening: Listening = { context, port in
        guard let context else { return }
        let host = Unmanaged<Context>.fromOpaque(context).takeUnretainedValue().host
        let shown = host.contains(":") ? "[\(host)]" : host
        Terminal.standardOutput.write("Serving the report on http://\(shown):\(port == 0 ? "?" : String(port))/ (Ctrl-C stops)\n")
    }

    /// The name and value pairs of a query the library encoded ("a=b&c=d", each percent-encoded).
    static func decodedQuery(_ query: String) -> [(name: String, value: String)] {
        query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in String(part).removingPercentEncoding ?? String(part) }
            return (name: decode(parts[0]), value: parts.count > 1 ? decode(parts[1]) : "")
        }
    }
}
