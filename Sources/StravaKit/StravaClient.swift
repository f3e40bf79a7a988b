import BikeCheckKit
import Foundation

/// Talks to Strava's API: bearer tokens refreshed before expiry (one process at a time, saving
/// each rotated refresh token before the new access token is used), bounded retries with backoff
/// for 5xx and network errors (never for a request whose outcome is unknown and must not be
/// repeated), one refresh on 401, a wait for the 15-minute rate-limit window when allowed
/// (`rateLimitWait`), else a clean stop before a rate limit is crossed or on 429, and no
/// redirect followed. Text from the server reaches messages only with every secret removed.
package final class StravaClient {
    package private(set) var settings: StravaSettings
    let transport: HTTPTransport
    private(set) var tokens: TokenStore
    let now: () -> Date
    /// Called with one line per notable event (a retry, a refresh); never with secrets.
    package var log: (String) -> Void = { _ in }

    package private(set) var budget = RateLimitBudget()
    /// Requests sent, by path (`/api/v3/athlete/activities`, `/oauth/token`), retries included.
    package private(set) var requestCounts: [String: Int] = [:]
    package var requestCount: Int { requestCounts.values.reduce(0, +) }
    var token: StravaToken?
    /// Every secret sent or received (client secret, codes, tokens): removed from server text.
    var secrets: Set<String> = []
    /// A renewal failed in this run while the access token still worked: not tried again.
    var renewalFailed = false
    /// The longest this run waits for Strava's 15-minute rate-limit window to reset (`sync
    /// --max-wait`); 0: it stops at the limit instead. The daily window always stops it.
    package var rateLimitWait: TimeInterval = 0
    /// Told when a wait for a rate-limit window starts: the window and when the wait ends.
    package var onRateLimitWait: (_ window: String, _ until: Date) -> Void = { _, _ in }
    /// A wait ended and no request has been answered since: a second wait in a row stops instead.
    private var waitedWithoutAnswer = false

    /// The transport defaults to libcurl with `settings.requestTimeoutMilliseconds` as its bound.
    package init(settings: StravaSettings, transport: HTTPTransport? = nil, now: @escaping () -> Date = Date.init) {
        self.settings = settings
        self.transport = transport ?? CurlTransport(limits: .init(totalMilliseconds: settings.requestTimeoutMilliseconds))
        self.tokens = TokenStore(path: settings.tokenPath)
        self.now = now
        if let secret = settings.clientSecret { secrets.insert(secret) }
    }

    /// Goes on as `rider`'s login (a household's `sync`): their token from now on, while the
    /// rate-limit budget (the application's, shared by every athlete), the API base in use and
    /// the request counts carry over.
    package func switchRider(to rider: String?) {
        settings = settings.forRider(rider)
        tokens = TokenStore(path: settings.tokenPath)
        token = nil
        renewalFailed = false
    }

    // MARK: - API

    /// `GET /api/v3/athlete`.
    package func athlete() throws -> StravaAthlete {
        try decode(StravaAthlete.self, try get("athlete"), what: "the athlete")
    }

    /// `GET /api/v3/gear/{id}`; nil when Strava does not know it (404).
    package func gear(_ id: String) throws -> StravaGear? {
        let reply = try get("gear/" + id, allowNotFound: true)
        if reply.status == 404 { return nil }
        return try decode(StravaGear.self, reply, what: "gear \(id)")
    }

    /// One page of `/api/v3/athlete/activities` (`after` and `before` in epoch seconds, both
    /// exclusive as Strava applies them), every element as read (see `PageItem`).
    package func activities(after: Int64?, before: Int64?, perPage: Int) throws -> ActivityPage {
        var query = [("per_page", String(perPage))]
        if let before { query.insert(("before", String(before)), at: 0) }
        if let after { query.insert(("after", String(after)), at: 0) }
        let reply = try get("athlete/activities", query: query)
        guard let items = try? JSONDecoder().decode([PageItem].self, from: reply.body) else {
            throw StravaError.badResponse("a page of activities is not a JSON array")
        }
        return ActivityPage(items: items)
    }

    /// Whether `GET /api/v3/activities/{id}` finds the activity: false only on a 404; any other
    /// failure throws.
    package func activityExists(_ id: Int64) throws -> Bool {
        try get("activities/\(id)", allowNotFound: true).status != 404
    }

    func decode<T: Decodable>(_ type: T.Type, _ reply: HTTPReply, what: String) throws -> T {
        do { return try JSONDecoder().decode(T.self, from: reply.body) } catch {
            throw StravaError.badResponse("\(what) could not be read")
        }
    }

    /// The API bases of this run, the one in use first (`StravaSettings.apiBases`).
    private lazy var apiBases: [URL] = settings.apiBases(at: now())
    /// The base in use answered (anything but a failure to connect or a 404 at its base): it stays.
    private var apiBaseConfirmed = false

    /// The API base requests go to now.
    package var apiBase: URL { apiBases[0] }

    /// Why the API base tried first cannot be used in this run.
    struct APIBaseUnavailable: Error { var why: String }

    /// Moves to the next API base for the rest of the run, and says so once.
    private func fallBack(_ why: String) {
        let from = apiBases.removeFirst()
        log("the Strava API host '\(Self.shown(from))' does not answer (\(why)); using '\(Self.shown(apiBases[0]))' for this run")
    }

    static func shown(_ url: URL) -> String {
        let text = url.absoluteString
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    /// An authorised GET: refreshes a token that expires within `renewalMargin`, and once more on
    /// 401. While the first of several API bases has not answered, a refused connection, a name
    /// that does not resolve or a 404 at its base moves the run to the next base.
    func get(_ path: String, query: [(String, String)] = [], allowNotFound: Bool = false) throws -> HTTPReply {
        guard var current = try token ?? tokens.read() else { throw StravaError.notLoggedIn }
        token = current
        remember(current)
        current = try renewIfExpiring(current)
        var refreshed = false
        while true {
            var c = URLComponents(url: apiBase.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
            if !query.isEmpty { c.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) } }
            guard let url = c.url else { throw StravaError.badResponse("bad URL for \(path)") }
            let probing = apiBases.count > 1 && !apiBaseConfirmed
            let reply: HTTPReply
            do {
                reply = try send(authorizedGET(url, current), reading: true, countedAs: "/api/v3/" + path, probing: probing)
                // `athlete` and its activities always exist: a 404 there is the base missing.
                if probing, reply.status == 404, try !allowNotFound || baseMissing(current) {
                    throw APIBaseUnavailable(why: "HTTP 404 at its base")
                }
            } catch let unavailable as APIBaseUnavailable {
                fallBack(unavailable.why)
                continue
            }
            if probing { apiBaseConfirmed = true }
            switch reply.status {
            case 200..<300: return reply
            case 401 where !refreshed:
                refreshed = true
                try refresh(.rejected(accessToken: current.accessToken))
                current = token ?? current
            case 401: throw StravaError.loginExpired("HTTP 401: \(serverText(reply.body))")
            case 404 where allowNotFound: return reply
            default: throw failure(reply, at: url)
            }
        }
    }

    func authorizedGET(_ url: URL, _ token: StravaToken) -> HTTPRequestSpec {
        HTTPRequestSpec(method: "GET", url: url, headers: ["Authorization": "Bearer " + token.accessToken])
    }

    /// Whether the API base in use answers 404 for `athlete`, which always exists.
    func baseMissing(_ token: StravaToken) throws -> Bool {
        let probe = authorizedGET(apiBase.appendingPathComponent("athlete"), token)
        return try send(probe, reading: true, countedAs: "/api/v3/athlete", probing: true).status == 404
    }

    /// A form POST to `path` on the OAuth host. Tokens travel only in `authorization` and in the
    /// bodies of `oauth/token` and `oauth/revoke`, never in a query.
    func send(form: [String: String], to path: String, authorization: String? = nil) throws -> HTTPReply {
        for key in ["client_secret", "code", "refresh_token", "access_token", "token"] { if let v = form[key] { secrets.insert(v) } }
        let body = form.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.formEscape($0.value))" }.joined(separator: "&")
        var headers = ["Content-Type": "application/x-www-form-urlencoded"]
        if let authorization { headers["Authorization"] = authorization }
        return try send(
            HTTPRequestSpec(
                method: "POST", url: settings.baseURL.appendingPathComponent(path),
                headers: headers, body: Data(body.utf8)), reading: false)
    }

    static func formEscape(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }

    func remember(_ t: StravaToken) { secrets.formUnion([t.accessToken, t.refreshToken]) }

    /// Strava's words about a failure, with every secret this client knows removed.
    func serverText(_ body: Data) -> String { Redaction.redact(Fault.summary(body), secrets: secrets) }

    /// The error for a reply that is neither a success nor handled otherwise. A redirect is an
    /// error: following it could carry the bearer token to another origin.
    func failure(_ reply: HTTPReply, at url: URL? = nil) -> StravaError {
        let asked = url ?? settings.baseURL
        if (300..<400).contains(reply.status) {
            let target = reply.headers["location"].flatMap { URL(string: $0, relativeTo: asked) }.map(Self.origin) ?? "somewhere"
            let variable = Self.origin(asked) == Self.origin(settings.baseURL) ? "BIKECHECK_STRAVA_URL" : "BIKECHECK_STRAVA_API_URL"
            return .http(
                status: reply.status,
                message:
                    "a redirect to '\(Redaction.redact(target, secrets: secrets))', not followed: bikecheck talks only to '\(Self.origin(asked))' (check \(variable), or try again later)"
            )
        }
        if reply.status == 403, Fault.isApplicationInactive(reply.body) { return .applicationInactive }
        return .http(status: reply.status, message: serverText(reply.body))
    }

    static func origin(_ url: URL) -> String {
        let u = url.absoluteURL
        return "\(u.scheme ?? "?")://\(u.host ?? "?")\(u.port.map { ":\($0)" } ?? "")"
    }

    /// Sends with the rate-limit check and bounded retries; returns any non-5xx reply. A
    /// network failure is retried only when repeating the request is safe and can help: never
    /// after a name that does not resolve (no network: retrying wastes seconds), never for an
    /// answer over the size bound or an address that is not http(s), and never for a POST that may have reached Strava (a refresh token or an
    /// authorisation code works once: its outcome is unknown, not failed).
    /// `countedAs` names the request in `requestCounts` (the API's paths as on the old base);
    /// `probing`: a refused connection or a name that does not resolve is `APIBaseUnavailable`, at once.
    func send(_ request: HTTPRequestSpec, reading: Bool, countedAs: String? = nil, probing: Bool = false) throws -> HTTPReply {
        var attempt = 0
        while true {
            if let window = budget.exhausted(reading: reading) {
                try waitForRateLimit(window)
                continue
            }
            attempt += 1
            requestCounts[countedAs ?? request.url.path, default: 0] += 1
            let outcome: Result<HTTPReply, HTTPTransportError>
            do { outcome = .success(try transport.send(request)) } catch let e as HTTPTransportError {
                outcome = .failure(e)
            } catch {
                outcome = .failure(HTTPTransportError(kind: .other, requestSent: true, description: "\(error)"))
            }
            switch outcome {
            case .success(let reply):
                budget.update(from: reply.headers)
                if reply.status == 429 {
                    // Which window? The headers say; a 429 without them is the short window.
                    let window = budget.exhausted(reading: reading) ?? "15-minute"
                    try waitForRateLimit(window)
                    // The request was refused, not taken: it is sent again, not counted as a try.
                    attempt -= 1
                    continue
                }
                waitedWithoutAnswer = false
                if reply.status >= 500, attempt < settings.maxAttempts {
                    log("Strava answered HTTP \(reply.status); retrying (\(attempt)/\(settings.maxAttempts - 1))")
                    backoff(attempt)
                    continue
                }
                if reply.status >= 500 {
                    throw StravaError.http(status: reply.status, message: "still failing after \(attempt) attempts")
                }
                return reply
            case .failure(let failure):
                if probing, failure.kind == .unresolved || failure.kind == .unreachable {
                    throw APIBaseUnavailable(why: failure.description)
                }
                let error: StravaError = failure.kind == .tooLarge ? .badResponse(failure.description) : .network(failure.description)
                let repeatable = request.method == "GET" || !failure.requestSent
                let hopeless: Set<HTTPTransportError.Kind> = [.unresolved, .tooLarge, .unsupported]
                guard !hopeless.contains(failure.kind), repeatable, attempt < settings.maxAttempts else {
                    if !repeatable { log("the answer to \(request.url.path) was lost; not repeating a request that may have taken effect") }
                    throw error
                }
                log("\(error); retrying (\(attempt)/\(settings.maxAttempts - 1))")
                backoff(attempt)
            }
        }
    }

    /// Waits for the 15-minute window to reset when this run may (`rateLimitWait` covers it, and
    /// the last wait was followed by an answer), saying so; else stops with when to try again.
    func waitForRateLimit(_ window: String) throws {
        let resetsAt = RateLimitBudget.reset(of: window, after: now())
        // A few seconds past the quarter hour: Strava's clock and this one may differ a little.
        let until = resetsAt.addingTimeInterval(Self.rateLimitMargin)
        guard window == "15-minute", !waitedWithoutAnswer, until.timeIntervalSince(now()) <= rateLimitWait else {
            throw StravaError.rateLimited(window: window, resetsAt: resetsAt)
        }
        onRateLimitWait(window, until)
        log(
            "reached Strava's 15-minute rate limit; waiting until \(StravaError.format(until, seconds: true)), when it resets (nothing is lost if this is stopped)"
        )
        let seconds = settings.rateLimitSleepMilliseconds.map { Double($0) / 1000 } ?? until.timeIntervalSince(now())
        if seconds > 0 { Thread.sleep(forTimeInterval: seconds) }
        // What the window holds now is unknown until the next answer's headers.
        budget = RateLimitBudget()
        waitedWithoutAnswer = true
    }

    /// Seconds waited past a window's end.
    static let rateLimitMargin: TimeInterval = 5

    func backoff(_ attempt: Int) {
        let ms = settings.retryBaseMilliseconds << (attempt - 1)
        if ms > 0 { Thread.sleep(forTimeInterval: Double(ms) / 1000) }
    }
}

/// Removes secrets from text that came from a server before it reaches a message: every known
/// secret (as sent, and percent-encoded), the value of any `client_secret`, `refresh_token`,
/// `access_token` or `code` field in form or JSON syntax, and bearer tokens.
enum Redaction {
    static let mask = "[redacted]"

    static func redact(_ text: String, secrets: Set<String>) -> String {
        var out = text
        for secret in secrets.sorted(by: { $0.count > $1.count }) where secret.count >= 4 {
            out = out.replacingOccurrences(of: secret, with: mask)
            let escaped = StravaClient.formEscape(secret)
            if escaped != secret { out = out.replacingOccurrences(of: escaped, with: mask, options: .caseInsensitive) }
        }
        out = out.replacing(fields) { $0.output.1 + mask }
        out = out.replacing(bearer) { $0.output.1 + mask }
        return out
    }

    // Regex literals: checked when bikecheck is built, so no pattern can fail at run time.
    nonisolated(unsafe) static let fields =
        #/(?i)(\b(?:client_secret|refresh_token|access_token|code)\\?["']?\s*[=:]\s*\\?["']?)(?!\[redacted\])[^&\s"'\\,;}\]]+/#
    nonisolated(unsafe) static let bearer = #/(?i)(\bbearer\s+)(?!\[redacted\])[^\s"'\\,;}\]]+/#
}
