import BikeCheckKit
import Foundation

/// Talks to Strava's API: bearer tokens refreshed before expiry (saving each rotated refresh
/// token before the new access token is used), bounded retries with backoff for 5xx and network
/// errors, one refresh on 401, and a clean stop before a rate limit is crossed or on 429.
public final class StravaClient {
    public let settings: StravaSettings
    let transport: HTTPTransport
    let tokens: TokenStore
    let now: () -> Date
    /// Called with one line per notable event (a retry, a refresh); never with secrets.
    public var log: (String) -> Void = { _ in }

    public private(set) var budget = RateLimitBudget()
    /// Requests sent, by path (`/api/v3/athlete/activities`, `/oauth/token`), retries included.
    public private(set) var requestCounts: [String: Int] = [:]
    public var requestCount: Int { requestCounts.values.reduce(0, +) }
    private var token: StravaToken?

    public init(settings: StravaSettings, transport: HTTPTransport = URLSessionTransport(), now: @escaping () -> Date = Date.init) {
        self.settings = settings
        self.transport = transport
        self.tokens = TokenStore(path: settings.tokenPath)
        self.now = now
    }

    // MARK: - OAuth

    /// The scopes bikecheck asks for: bikes need `profile:read_all`, private rides `activity:read_all`.
    public static let scopes = ["read", "profile:read_all", "activity:read_all"]

    /// The page the rider opens to authorise bikecheck.
    public func authorizeURL(redirectURI: String, state: String, force: Bool) throws -> URL {
        guard let id = settings.clientID else { throw StravaError.missingClientID }
        var c = URLComponents(url: settings.baseURL.appendingPathComponent("oauth/authorize"), resolvingAgainstBaseURL: false)!
        c.queryItems = [
            URLQueryItem(name: "client_id", value: id),
            URLQueryItem(name: "redirect_uri", value: redirectURI),
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "approval_prompt", value: force ? "force" : "auto"),
            URLQueryItem(name: "scope", value: Self.scopes.joined(separator: ",")),
            URLQueryItem(name: "state", value: state),
        ]
        return c.url!
    }

    /// Exchanges an authorisation code for tokens and saves them (and the app's credentials).
    @discardableResult
    public func exchange(code: String, grantedScope: String?) throws -> StravaToken {
        let app = try appCredentials()
        let reply = try send(form: ["client_id": app.clientID, "client_secret": app.clientSecret,
                                    "code": code, "grant_type": "authorization_code"], to: "oauth/token")
        guard reply.status == 200 else {
            if reply.status == 400 || reply.status == 401 { throw StravaError.badCode(Fault.summary(reply.body)) }
            throw StravaError.http(status: reply.status, message: Fault.summary(reply.body))
        }
        guard let r = try? JSONDecoder().decode(TokenResponse.self, from: reply.body) else {
            throw StravaError.badResponse("the token response could not be read")
        }
        let saved = StravaToken(accessToken: r.accessToken, refreshToken: r.refreshToken, expiresAt: r.expiresAt,
                                scope: grantedScope, athleteID: r.athlete?.id, athleteName: r.athlete?.displayName)
        try app.save(directory: settings.configDirectory)
        try tokens.save(saved)
        token = saved
        return saved
    }

    /// Revokes bikecheck's access on Strava, then deletes the local tokens whatever Strava said.
    /// Returns whether Strava confirmed.
    public func deauthorize() throws -> Bool {
        guard var current = tokens.load() else { throw StravaError.notLoggedIn }
        defer { tokens.delete() }
        token = current
        // Strava revokes by access token; an expired one would be refused.
        if current.expiresAt - Int64(now().timeIntervalSince1970) < 60, (try? refresh()) != nil { current = token ?? current }
        let reply = try? send(form: ["access_token": current.accessToken], to: "oauth/deauthorize",
                              bearer: current.accessToken)
        return reply?.status == 200
    }

    /// The saved token, if any (without contacting Strava).
    public var savedToken: StravaToken? { tokens.load() }

    func appCredentials() throws -> AppCredentials {
        guard let id = settings.clientID else { throw StravaError.missingClientID }
        guard let secret = settings.clientSecret else { throw StravaError.missingClientSecret }
        return AppCredentials(clientID: id, clientSecret: secret)
    }

    /// Trades the refresh token for new tokens. The new refresh token replaces the old one on
    /// disk before the new access token is used: Strava invalidates the old one at once.
    func refresh() throws {
        guard let current = token ?? tokens.load() else { throw StravaError.notLoggedIn }
        let app = try appCredentials()
        log("refreshing the Strava access token")
        let reply = try send(form: ["client_id": app.clientID, "client_secret": app.clientSecret,
                                    "grant_type": "refresh_token", "refresh_token": current.refreshToken], to: "oauth/token")
        guard reply.status == 200 else {
            if reply.status == 400 || reply.status == 401 {
                throw StravaError.loginExpired("refresh refused: \(Fault.summary(reply.body))")
            }
            throw StravaError.http(status: reply.status, message: Fault.summary(reply.body))
        }
        guard let r = try? JSONDecoder().decode(TokenResponse.self, from: reply.body) else {
            throw StravaError.badResponse("the refresh response could not be read")
        }
        var next = current
        next.accessToken = r.accessToken
        next.refreshToken = r.refreshToken
        next.expiresAt = r.expiresAt
        try tokens.save(next)
        token = next
    }

    // MARK: - API

    /// `GET /api/v3/athlete`.
    public func athlete() throws -> StravaAthlete {
        try decode(StravaAthlete.self, try get("athlete"), what: "the athlete")
    }

    /// `GET /api/v3/gear/{id}`; nil when Strava does not know it (404).
    public func gear(_ id: String) throws -> StravaGear? {
        let reply = try get("gear/" + id, allowNotFound: true)
        if reply.status == 404 { return nil }
        return try decode(StravaGear.self, reply, what: "gear \(id)")
    }

    /// One page of `/api/v3/athlete/activities` (`after` and `before` in epoch seconds, both
    /// exclusive as Strava applies them), every element as read (see `PageItem`).
    public func activities(after: Int64?, before: Int64?, perPage: Int) throws -> ActivityPage {
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
    public func activityExists(_ id: Int64) throws -> Bool {
        try get("activities/\(id)", allowNotFound: true).status != 404
    }

    func decode<T: Decodable>(_ type: T.Type, _ reply: HTTPReply, what: String) throws -> T {
        do { return try JSONDecoder().decode(T.self, from: reply.body) } catch {
            throw StravaError.badResponse("\(what) could not be read")
        }
    }

    /// An authorised GET: refreshes a token that expires within 5 minutes, and once more on 401.
    func get(_ path: String, query: [(String, String)] = [], allowNotFound: Bool = false) throws -> HTTPReply {
        guard var current = token ?? tokens.load() else { throw StravaError.notLoggedIn }
        token = current
        if current.expiresAt - Int64(now().timeIntervalSince1970) < 300 {
            try refresh()
            current = token ?? current
        }
        var c = URLComponents(url: settings.baseURL.appendingPathComponent("api/v3/" + path), resolvingAgainstBaseURL: false)!
        if !query.isEmpty { c.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) } }
        guard let url = c.url else { throw StravaError.badResponse("bad URL for \(path)") }
        var refreshed = false
        while true {
            let reply = try send(HTTPRequestSpec(method: "GET", url: url, headers: ["Authorization": "Bearer " + current.accessToken]),
                                 reading: true)
            switch reply.status {
            case 200..<300: return reply
            case 401 where !refreshed:
                refreshed = true
                try refresh()
                current = token ?? current
            case 401: throw StravaError.loginExpired("HTTP 401: \(Fault.summary(reply.body))")
            case 404 where allowNotFound: return reply
            default: throw StravaError.http(status: reply.status, message: Fault.summary(reply.body))
            }
        }
    }

    func send(form: [String: String], to path: String, bearer: String? = nil) throws -> HTTPReply {
        let body = form.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.formEscape($0.value))" }.joined(separator: "&")
        var headers = ["Content-Type": "application/x-www-form-urlencoded"]
        if let bearer { headers["Authorization"] = "Bearer " + bearer }
        return try send(HTTPRequestSpec(method: "POST", url: settings.baseURL.appendingPathComponent(path),
                                        headers: headers, body: Data(body.utf8)), reading: false)
    }

    static func formEscape(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }

    /// Sends with the rate-limit check and bounded retries; returns any non-5xx reply.
    func send(_ request: HTTPRequestSpec, reading: Bool) throws -> HTTPReply {
        var attempt = 0
        while true {
            if let window = budget.exhausted(reading: reading) {
                throw StravaError.rateLimited(window: window, resetsAt: RateLimitBudget.reset(of: window, after: now()))
            }
            attempt += 1
            requestCounts[request.url.path, default: 0] += 1
            let outcome: Result<HTTPReply, StravaError>
            do { outcome = .success(try transport.send(request)) } catch let e as StravaError {
                outcome = .failure(e)
            } catch {
                outcome = .failure(.network("\(error)"))
            }
            switch outcome {
            case .success(let reply):
                budget.update(from: reply.headers)
                if reply.status == 429 {
                    // Which window? The headers say; a 429 without them is the short window.
                    let window = budget.exhausted(reading: reading) ?? "15-minute"
                    throw StravaError.rateLimited(window: window, resetsAt: RateLimitBudget.reset(of: window, after: now()))
                }
                if reply.status >= 500, attempt < settings.maxAttempts {
                    log("Strava answered HTTP \(reply.status); retrying (\(attempt)/\(settings.maxAttempts - 1))")
                    backoff(attempt)
                    continue
                }
                if reply.status >= 500 {
                    throw StravaError.http(status: reply.status, message: "still failing after \(attempt) attempts")
                }
                return reply
            case .failure(let error):
                guard case .network = error, attempt < settings.maxAttempts else { throw error }
                log("\(error); retrying (\(attempt)/\(settings.maxAttempts - 1))")
                backoff(attempt)
            }
        }
    }

    func backoff(_ attempt: Int) {
        let ms = settings.retryBaseMilliseconds << (attempt - 1)
        if ms > 0 { Thread.sleep(forTimeInterval: Double(ms) / 1000) }
    }
}
