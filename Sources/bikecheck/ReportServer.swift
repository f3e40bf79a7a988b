import BikeCheckKit
import Diagnostics
import Dispatch
import FlyingFox
import Foundation

/// `bikecheck report --serve`: the report's pages over HTTP (FlyingFox), read-only. Every request
/// loads the garage again (the garage cache and the activity index make that a check of the
/// files' stamps when nothing changed), so a page asked for after an edit shows the edit; a
/// garage with errors is served as `validate`'s diagnostics, with status 200, until it is fixed.
///
/// `/` is the report (`--bike` and `--rider` choose as `report --html` does), `/bike/ID` one
/// bike's service record, `/changed?page=PATH&since=TOKEN` whether that page changed (the pages
/// ask every five seconds and reload themselves, as Fava's do). Anything else is 404; any method
/// but GET and HEAD is 405.
struct ReportServer: HTTPHandler {
    let root: String
    /// `--bike`: the bikes of `/` (none: every bike not retired).
    let bikes: [String]
    let rider: String?
    /// `--as-of`; nil: today, on each request (a server left running shows the new day).
    let asOf: Day?
    /// `--address`: besides 127.0.0.1, localhost and ::1, the one name a request may be for.
    let address: String?
    /// Loads run one at a time, off the server's own threads.
    let queue = DispatchQueue(label: "bikecheck.report-serve")

    /// A page of the server.
    enum Page: Equatable {
        case report
        case bike(String)

        /// The page at `path` (as FlyingFox decoded it, dot segments removed), or nil.
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
            let text = (error as? UsageError).map { ErrorStyle.render($0).string } ?? "error: \(error)\n"
            return .errors(text, garage: URL(fileURLWithPath: root).lastPathComponent, count: 1)
        }
        if case .bike = page, chosen.bikes.isEmpty { return nil }
        var report = GarageReport.build(chosen.garage.garage, summaries: chosen.garage.activitySummaries, only: chosen.bikes, asOf: day)
        report.git = GarageCommit.of(garage: root)
        return .report(renderer, report)
    }

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard request.method == .GET || request.method == .HEAD else {
            return Self.response(.methodNotAllowed, "text/plain", "report --serve is read-only: GET and HEAD only\n", request, extra: ["Allow": "GET, HEAD"])
        }
        // A page elsewhere whose name was made to resolve to 127.0.0.1 (DNS rebinding) names
        // itself in Host: only this machine's own names are served.
        guard isOwnName(request.headers[.host]) else {
            return Self.response(.misdirectedRequest, "text/plain", "this server answers for 127.0.0.1 and localhost only\n", request)
        }
        if request.path == "/changed" {
            guard let page = request.query["page"].flatMap(Page.init(path:)) else {
                return Self.response(.notFound, "text/plain", "no such page\n", request)
            }
            let since = request.query["since"] ?? ""
            guard let now = await onQueue({ render(page).map { LivePage.token($0.html()) } }) else {
                return Self.response(.notFound, "text/plain", "no such page\n", request)
            }
            return Self.response(.ok, "application/json", LivePage.changed(since: since, now: now), request)
        }
        guard let page = Page(path: request.path), let shown = await onQueue({ render(page) }) else {
            return Self.response(.notFound, "text/plain", "no such page: / is the report, /bike/ID a bike's\n", request)
        }
        // The page with the script that asks whether it changed since it was made.
        let token = LivePage.token(shown.html())
        return Self.response(.ok, "text/html; charset=utf-8", shown.html(script: LivePage.script(token: token, path: page.path)).string, request)
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

    private func onQueue<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in queue.async { continuation.resume(returning: work()) } }
    }

    /// A response that is never cached and whose page may run only its own inline script and
    /// ask only this server (`connect-src 'self'`); HEAD gets the headers alone.
    static func response(_ status: HTTPStatusCode, _ type: String, _ body: String, _ request: HTTPRequest, extra: [String: String] = [:]) -> HTTPResponse {
        var headers: HTTPHeaders = [
            .contentType: type, .cacheControl: "no-store",
            HTTPHeader("Content-Security-Policy"):
                "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src data:",
            HTTPHeader("X-Content-Type-Options"): "nosniff", HTTPHeader("Referrer-Policy"): "no-referrer",
        ]
        for (name, value) in extra { headers[HTTPHeader(name)] = value }
        return HTTPResponse(statusCode: status, headers: headers, body: request.method == .HEAD ? Data() : Data(body.utf8))
    }
}
