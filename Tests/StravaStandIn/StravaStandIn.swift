import FlyingFox
import Foundation

/// A stand-in for Strava's API on 127.0.0.1, behaving as the documentation and recorded
/// responses say Strava does: OAuth code exchange, refresh with rotation (the old refresh token
/// dies at once), deauthorization, `/athlete`, `/gear/{id}`, `/athlete/activities` with
/// after/before/page/per_page (newest first, at most 200 a page; `after` and `before` exclusive),
/// `/activities/{id}` (404 once deleted), rate-limit headers in
/// HTTP/1.1 casing, 401, 404, 429 and injectable 5xx. It counts requests per path. One
/// application serves several athletes (`addAthlete`): each token is one athlete's, and
/// `/athlete` and the listing answer with that athlete's profile, bikes and activities.
public actor StravaStandIn {
    public let clientID = "424242"
    public let clientSecret = "stand-in-client-secret-9f8e7d"
    public let athleteID: Int64 = 12342176
    /// The athlete's names in the token reply and `/athlete`.
    public var athleteFirstName = "Dana"
    public var athleteLastName = "Rider"
    public func setAthleteName(first: String, last: String) { (athleteFirstName, athleteLastName) = (first, last) }

    public var activities: [StandInActivity] = [] { didSet { sortedActivities = nil } }
    private var sortedActivities: [StandInActivity]?
    private var rendered: [Int64: (StandInActivity, [UInt8])] = [:]
    /// Gear listed in `/athlete` (unretired bikes).
    public var athleteBikes: [StandInGear] = []
    /// Every gear `/gear/{id}` knows, retired too.
    public var gear: [String: StandInGear] = [:]
    /// Seconds a new access token lives.
    public var tokenLifetime: Int64 = 21_600

    /// `(15-minute, daily)` limits and usage, for all requests and for reads.
    public var limit = (200, 2000)
    public var readLimit = (100, 1000)
    public var usage = (0, 0)
    public var readUsage = (0, 0)
    /// A full 15-minute window resets here when no API request came for this many seconds
    /// after it filled (nil: never by itself), so a client's wait for it can be tested in
    /// seconds. Only a full window resets: a slow start on a busy machine must not empty it.
    public var shortWindowResetsAfterQuiet: Double?
    private var lastAPIRequest = Date()
    public func setShortWindowReset(afterQuiet seconds: Double?) { shortWindowResetsAfterQuiet = seconds }

    /// Other athletes of the application, by id: their names and the bikes `/athlete` lists.
    public private(set) var otherAthletes: [Int64: (first: String, last: String, bikes: [StandInGear])] = [:]
    /// Adds an athlete who can authorise the same application (Strava allows up to 10).
    public func addAthlete(id: Int64, first: String, last: String, bikes: [StandInGear] = []) {
        otherAthletes[id] = (first, last, bikes)
        for b in bikes where gear[b.id] == nil { gear[b.id] = b }
    }

    /// Authorisation code → (scope, athlete).
    private var codes: [String: (scope: String, athlete: Int64)] = [:]
    private var accessTokens: [String: Int64] = [:]
    /// Whose each access token is (the stand-in's own athlete when absent).
    private var accessOwners: [String: Int64] = [:]
    /// Each athlete's current refresh token.
    private var refreshTokens: [Int64: String] = [:]
    /// The stand-in's own athlete's refresh token.
    private var refreshToken: String? {
        get { refreshTokens[athleteID] }
        set { refreshTokens[athleteID] = newValue }
    }
    private func owner(ofAccess token: String) -> Int64 { accessOwners[token] ?? athleteID }
    /// Forgets every token of `athlete` (deauthorize, revoke: both tokens of that login).
    private func revokeAll(of athlete: Int64) {
        accessTokens = accessTokens.filter { owner(ofAccess: $0.key) != athlete }
        refreshTokens[athlete] = nil
    }
    private var tokenSerial = 0
    /// Every token issued or seeded, revoked ones too: never to be seen outside a header.
    private var everIssued: Set<String> = []
    private var faults: [String: [Int: Int]] = [:]
    /// The listing's faults and the activity detail's answers (StandInSyncFaults.swift).
    var syncFaults = SyncFaults()
    private var counts: [String: Int] = [:]
    /// Every request: method, path and query, in order.
    public private(set) var log: [(method: String, path: String, query: [String: String])] = []

    /// Faults of the HTTP layer (redirects, stalls, endless bodies…): HostileFaults.swift.
    public nonisolated let hostile = HostileFaults()

    /// Whether `POST /oauth/revoke` exists (Strava's since 2026-06-01); false: 404, as before.
    public var revokeAvailable = true
    /// Every call answers 403 `Application Status Inactive` (an owner without a subscription).
    public var applicationInactive = false
    /// Every call answers a plain 403 (some other refusal).
    public var forbidden = false
    /// Whether the new API host serves the API; false: 404 for everything, as before it opened.
    public var newHostServing = true
    /// Every form POST: its path, its Authorization header and its fields.
    public private(set) var posts: [(path: String, authorization: String?, form: [String: String])] = []
    /// Requests that carried a token outside the Authorization header (in a query, or in a form
    /// other than `oauth/token`'s and `oauth/revoke`'s): each answered 400. Tests expect none.
    public private(set) var tokenViolations: [String] = []
    /// API requests by host: "old" (`/api/v3` on the OAuth host) and "new" (the API's own host).
    public private(set) var apiRequestsByHost: [String: Int] = [:]

    private var loopback: LoopbackServer?
    private var newHost: LoopbackServer?
    public var port: UInt16 { loopback?.port ?? 0 }

    public init() {}

    /// `http://127.0.0.1:PORT`, for BIKECHECK_STRAVA_URL: the OAuth host and the old API base.
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// `http://127.0.0.1:PORT2`, for BIKECHECK_STRAVA_API_URL: the new API host, no `/api/v3`.
    public var apiBaseURL: String { "http://127.0.0.1:\(newHost?.port ?? 0)" }

    public func setRevokeAvailable(_ on: Bool) { revokeAvailable = on }
    public func setApplicationInactive(_ on: Bool) { applicationInactive = on }
    public func setForbidden(_ on: Bool) { forbidden = on }
    public func setNewHostServing(_ on: Bool) { newHostServing = on }

    public func start() async throws {
        loopback = try await LoopbackServer.start(timeout: 30) { server in
            await server.appendRoute("*") { [hostile] in try await hostile.respond(to: $0) { await self.answer($0) } }
            await server.appendRoute("POST /oauth/token") { await self.handleToken($0) }
            await server.appendRoute("POST /oauth/deauthorize") { await self.handleDeauthorize($0) }
            await server.appendRoute("POST /oauth/revoke") { await self.handleRevoke($0) }
            await server.appendRoute("GET /api/v3/athlete") { await self.handleAPI($0) }
            await server.appendRoute("GET /api/v3/athlete/activities") { await self.handleAPI($0) }
            await server.appendRoute("GET /api/v3/gear/*") { await self.handleAPI($0) }
            await server.appendRoute("GET /api/v3/activities/*") { await self.handleAPI($0) }
            await server.appendRoute("*") { await self.handleUnknown($0) }
        }
        newHost = try await LoopbackServer.start(timeout: 30) { server in
            await server.appendRoute("*") { await self.handleNewHost($0) }
        }
    }

    public func stop() async {
        await loopback?.stop()
        await newHost?.stop()
    }

    /// The new host: the API's paths without `/api/v3`, answered as the old base answers them.
    private func handleNewHost(_ request: HTTPRequest) async -> HTTPResponse {
        guard newHostServing, request.method == .GET else {
            apiRequestsByHost["new", default: 0] += 1
            return await handleUnknown(request)
        }
        var moved = request
        moved.path = "/api/v3" + request.path
        return await handleAPI(moved, host: "new")
    }

    // MARK: - Test controls

    /// Makes `code` a valid one-time authorisation code, as if the rider had pressed Authorize.
    public func authorize(code: String, athlete: Int64? = nil) { codes[code] = ("read,profile:read_all,activity:read_all", athlete ?? athleteID) }

    /// Installs tokens as if the rider had logged in earlier; the access token expires at `expiresAt`.
    public func seedTokens(access: String, refresh: String, expiresAt: Int64) {
        accessTokens[access] = expiresAt
        refreshToken = refresh
        everIssued.formUnion([access, refresh])
    }

    /// Invalidates an access token before its expiry (as deauthorization elsewhere would).
    public func revoke(accessToken: String) { accessTokens[accessToken] = nil }

    /// The refresh token the stand-in accepts now.
    public var currentRefreshToken: String? { refreshToken }
    public func isValid(accessToken: String) -> Bool { (accessTokens[accessToken] ?? 0) > now() }
    /// Every access token ever issued and still known.
    public var issuedAccessTokens: [String] { Array(accessTokens.keys) }

    /// The `n`th request (1-based, counted since the last `resetCounts`) to `path` gets HTTP `status`, once.
    public func inject(status: Int, onRequest n: Int, to path: String) { faults[path, default: [:]][n] = status }

    /// Forgets the injected statuses that have not fired yet.
    public func clearInjectedFaults() { faults = [:] }

    /// Requests so far to `path` (e.g. `/api/v3/athlete/activities`).
    public func requests(to path: String) -> Int { counts[path] ?? 0 }
    public var totalRequests: Int { counts.values.reduce(0, +) }
    public func resetCounts() { counts = [:]; log = []; posts = []; apiRequestsByHost = [:]; handlerSeconds = 0; syncFaults.detailRequests = [] }

    public func setActivities(_ list: [StandInActivity]) { activities = list }
    public func setBikes(athlete: [StandInGear], all: [StandInGear]) {
        athleteBikes = athlete
        gear = Dictionary(all.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }
    public func setRateLimit(limit: (Int, Int), readLimit: (Int, Int), usage: (Int, Int), readUsage: (Int, Int)) {
        self.limit = limit
        self.readLimit = readLimit
        self.usage = usage
        self.readUsage = readUsage
    }
    public func update(_ body: (inout [StandInActivity]) -> Void) { body(&activities) }

    // MARK: - Handlers

    /// The usual answer to any request, for hostile faults that hold it back (HostileFaults.swift).
    func answer(_ request: HTTPRequest) async -> HTTPResponse {
        switch (request.method, request.path) {
        case (.POST, "/oauth/token"): return await handleToken(request)
        case (.POST, "/oauth/deauthorize"): return await handleDeauthorize(request)
        case (.POST, "/oauth/revoke"): return await handleRevoke(request)
        case (.GET, let path) where path.hasPrefix("/api/v3/"): return await handleAPI(request)
        default: return await handleUnknown(request)
        }
    }

    private func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    private func record(_ request: HTTPRequest) -> Int? {
        counts[request.path, default: 0] += 1
        var q: [String: String] = [:]
        for item in request.query { q[item.name] = item.value }
        log.append((request.method.rawValue, request.path, q))
        checkTokens(request, form: [:])
        // A fault fires once.
        return faults[request.path]?.removeValue(forKey: counts[request.path] ?? 0)
    }

    private func json(_ status: Int, _ object: Any, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = headers
        headers[HTTPHeader("Content-Type")] = "application/json; charset=utf-8"
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [])) ?? Data()
        return HTTPResponse(statusCode: HTTPStatusCode(status, phrase: Self.phrase(status)), headers: headers, body: body)
    }

    static func phrase(_ status: Int) -> String {
        [
            200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 429: "Too Many Requests",
            500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
        ][status] ?? "Status"
    }

    private func fault(_ resource: String, _ field: String, _ code: String, message: String) -> [String: Any] {
        ["message": message, "errors": [["resource": resource, "field": field, "code": code]]]
    }

    /// Records (in `tokenViolations`) a token in the query, or in a form other than the ones
    /// Strava takes tokens in; returns whether there was one.
    @discardableResult
    private func checkTokens(_ request: HTTPRequest, form: [String: String]) -> Bool {
        let known = Set(accessTokens.keys).union(refreshTokens.values).union(everIssued)
        let names: Set<String> = ["access_token", "refresh_token", "token"]
        var found: [String] = []
        for item in request.query where names.contains(item.name) || known.contains(item.value) {
            found.append("\(request.method.rawValue) \(request.path): a token in the query ('\(item.name)')")
        }
        let formAllowed = request.path == "/oauth/token" || request.path == "/oauth/revoke"
        if !formAllowed {
            for (name, value) in form.sorted(by: { $0.key < $1.key }) where names.contains(name) || known.contains(value) {
                found.append("\(request.method.rawValue) \(request.path): a token in a form field ('\(name)')")
            }
        }
        tokenViolations += found
        return !found.isEmpty
    }

    private func form(_ request: HTTPRequest) async -> [String: String] {
        let body = (try? await request.bodyData) ?? Data()
        var out: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0) }
            if kv.count == 2 { out[kv[0]] = kv[1] }
        }
        for item in request.query where out[item.name] == nil { out[item.name] = item.value }
        posts.append((request.path, request.headers[HTTPHeader("Authorization")], out))
        checkTokens(request, form: out)
        return out
    }

    private func issueTokens(for athlete: Int64) -> (access: String, refresh: String, expiresAt: Int64) {
        tokenSerial += 1
        let access = "standin-access-\(tokenSerial)-\(UUID().uuidString.prefix(8))"
        let refresh = "standin-refresh-\(tokenSerial)-\(UUID().uuidString.prefix(8))"
        let expiresAt = now() + tokenLifetime
        accessTokens[access] = expiresAt
        accessOwners[access] = athlete
        refreshTokens[athlete] = refresh
        everIssued.formUnion([access, refresh])
        return (access, refresh, expiresAt)
    }

    /// The 403 of an inactive application, or of some other refusal, when one is set.
    private func refusal() -> HTTPResponse? {
        if applicationInactive { return json(403, fault("Application", "Status", "Inactive", message: "Forbidden")) }
        if forbidden { return json(403, fault("Athlete", "access", "forbidden", message: "Forbidden")) }
        return nil
    }

    private func handleToken(_ request: HTTPRequest) async -> HTTPResponse {
        if let status = record(request) { return json(status, ["message": "Server Error"]) }
        let f = await form(request)
        if let refused = refusal() { return refused }
        guard f["client_id"] == clientID else {
            return json(400, fault("Application", "client_id", "invalid", message: "Bad Request"))
        }
        guard f["client_secret"] == clientSecret else {
            return json(401, fault("Application", "", "invalid", message: "Authorization Error"))
        }
        switch f["grant_type"] {
        case "authorization_code":
            guard let code = f["code"], let granted = codes.removeValue(forKey: code) else {
                return json(400, fault("AuthorizationCode", "code", "invalid", message: "Bad Request"))
            }
            let t = issueTokens(for: granted.athlete)
            let (first, last) = names(of: granted.athlete)
            return json(
                200,
                [
                    "token_type": "Bearer", "expires_at": t.expiresAt, "expires_in": tokenLifetime,
                    "refresh_token": t.refresh, "access_token": t.access,
                    "athlete": [
                        "id": granted.athlete, "username": "standin", "resource_state": 2, "firstname": first,
                        "lastname": last, "city": "Berlin", "state": "", "country": "Germany", "sex": "F",
                        "premium": false, "summit": false, "created_at": "2017-11-28T19:05:35Z",
                        "updated_at": "2025-11-19T01:44:15Z", "badge_type_id": 0, "profile_medium": "avatar/athlete/medium.png",
                        "profile": "avatar/athlete/large.png", "friend": NSNull(), "follower": NSNull(),
                    ],
                ])
        case "refresh_token":
            guard let given = f["refresh_token"], let athlete = refreshTokens.first(where: { $0.value == given })?.key else {
                return json(400, fault("RefreshToken", "refresh_token", "invalid", message: "Bad Request"))
            }
            let t = issueTokens(for: athlete)
            return json(
                200,
                [
                    "token_type": "Bearer", "access_token": t.access, "expires_at": t.expiresAt,
                    "expires_in": tokenLifetime, "refresh_token": t.refresh,
                ])
        default:
            return json(400, fault("Application", "grant_type", "invalid", message: "Bad Request"))
        }
    }

    private func handleDeauthorize(_ request: HTTPRequest) async -> HTTPResponse {
        let seen = tokenViolations.count
        if let status = record(request) { return json(status, ["message": "Server Error"]) }
        _ = await form(request)
        if tokenViolations.count > seen {
            return json(400, fault("Application", "access_token", "not in a header", message: "Bad Request"))
        }
        guard let token = bearer(request), isValid(accessToken: token) else {
            return json(401, fault("Athlete", "access_token", "invalid", message: "Authorization Error"))
        }
        revokeAll(of: owner(ofAccess: token))
        return json(200, ["access_token": token])
    }

    /// `POST /oauth/revoke`: HTTP Basic `client_id:client_secret`, `token=` an access or refresh
    /// token; revoking either revokes both.
    private func handleRevoke(_ request: HTTPRequest) async -> HTTPResponse {
        guard revokeAvailable else {
            _ = await form(request)
            return await handleUnknown(request)
        }
        if let status = record(request) { return json(status, ["message": "Server Error"]) }
        let f = await form(request)
        let expected = "Basic " + Data("\(clientID):\(clientSecret)".utf8).base64EncodedString()
        guard request.headers[HTTPHeader("Authorization")] == expected else {
            return json(401, fault("Application", "", "invalid", message: "Authorization Error"))
        }
        if let refused = refusal() { return refused }
        guard let token = f["token"] else { return json(400, fault("Token", "token", "invalid", message: "Bad Request")) }
        if let athlete = refreshTokens.first(where: { $0.value == token })?.key {
            revokeAll(of: athlete)
        } else if isValid(accessToken: token) {
            revokeAll(of: owner(ofAccess: token))
        } else {
            return json(400, fault("Token", "token", "invalid", message: "Bad Request"))
        }
        return json(200, [:])
    }

    /// An athlete's first and last name.
    private func names(of athlete: Int64) -> (String, String) {
        if let other = otherAthletes[athlete] { return (other.first, other.last) }
        return (athleteFirstName, athleteLastName)
    }

    /// Whether `a` is `athlete`'s activity.
    private func belongs(_ a: StandInActivity, to athlete: Int64) -> Bool { (a.athlete ?? athleteID) == athlete }

    private func bearer(_ request: HTTPRequest) -> String? {
        guard let h = request.headers[HTTPHeader("Authorization")], h.hasPrefix("Bearer ") else { return nil }
        return String(h.dropFirst(7))
    }

    private func rateHeaders() -> HTTPHeaders {
        var h = HTTPHeaders()
        h[HTTPHeader("X-Ratelimit-Limit")] = "\(limit.0),\(limit.1)"
        h[HTTPHeader("X-Ratelimit-Usage")] = "\(usage.0),\(usage.1)"
        h[HTTPHeader("X-Readratelimit-Limit")] = "\(readLimit.0),\(readLimit.1)"
        h[HTTPHeader("X-Readratelimit-Usage")] = "\(readUsage.0),\(readUsage.1)"
        return h
    }

    /// Renders every activity's JSON now, so timing a sync measures the client, not this debug-built server.
    public func prerender() {
        for a in activities where rendered[a.id]?.0 != a { rendered[a.id] = (a, a.jsonBytes(athleteID: a.athlete ?? athleteID)) }
    }

    /// Seconds spent inside the API handlers (for separating the stand-in's cost from the client's).
    public private(set) var handlerSeconds = 0.0

    private func handleAPI(_ request: HTTPRequest) async -> HTTPResponse { await handleAPI(request, host: "old") }

    private func handleAPI(_ request: HTTPRequest, host: String) async -> HTTPResponse {
        let started = Date()
        defer { handlerSeconds += Date().timeIntervalSince(started) }
        let seen = tokenViolations.count
        let injected = record(request)
        apiRequestsByHost[host, default: 0] += 1
        if let quiet = shortWindowResetsAfterQuiet, usage.0 >= limit.0 || readUsage.0 >= readLimit.0,
            Date().timeIntervalSince(lastAPIRequest) >= quiet
        {
            (usage.0, readUsage.0) = (0, 0)
        }
        lastAPIRequest = Date()
        // Strava counts every request, those over the limit too.
        usage.0 += 1; usage.1 += 1
        readUsage.0 += 1; readUsage.1 += 1
        let headers = rateHeaders()
        if injected == 429 || usage.0 > limit.0 || usage.1 > limit.1 || readUsage.0 > readLimit.0 || readUsage.1 > readLimit.1 {
            return json(429, fault("Application", "rate limit", "exceeded", message: "Rate Limit Exceeded"), headers: headers)
        }
        if let injected { return json(injected, ["message": "Server Error", "errors": []], headers: headers) }
        if let refused = refusal() { return refused }
        if tokenViolations.count > seen {
            return json(400, fault("Application", "access_token", "not in a header", message: "Bad Request"), headers: headers)
        }
        guard let token = bearer(request), isValid(accessToken: token) else {
            return json(401, fault("Athlete", "access_token", "invalid", message: "Authorization Error"), headers: headers)
        }
        if let response = syncFaultResponse(request, headers: headers) { return response }
        let who = owner(ofAccess: token)
        if request.path == "/api/v3/athlete" {
            let (first, last) = names(of: who)
            return json(
                200,
                [
                    "id": who, "username": "standin", "resource_state": 3, "firstname": first, "lastname": last,
                    "bio": "", "city": "Berlin", "state": "", "country": "Germany", "sex": "F", "premium": false, "summit": false,
                    "created_at": "2017-11-28T19:05:35Z", "updated_at": "2025-11-19T01:44:15Z", "badge_type_id": 0,
                    "weight": 61.0, "profile_medium": "avatar/athlete/medium.png", "profile": "avatar/athlete/large.png",
                    "friend": NSNull(), "follower": NSNull(), "blocked": false, "can_follow": true, "follower_count": 3,
                    "friend_count": 4, "mutual_friend_count": 0, "athlete_type": 0, "date_preference": "%m/%d/%Y",
                    "measurement_preference": "meters", "clubs": [], "postable_clubs_count": 0, "ftp": NSNull(),
                    "bikes": (otherAthletes[who]?.bikes ?? athleteBikes).map { $0.summaryJSON() },
                    "shoes": [
                        [
                            "id": "g2001", "primary": true, "name": "Trail shoes", "nickname": "", "resource_state": 2,
                            "retired": false, "distance": 452834, "converted_distance": 452.8,
                        ]
                    ],
                ], headers: headers)
        }
        if request.path.hasPrefix("/api/v3/gear/") {
            let id = String(request.path.dropFirst("/api/v3/gear/".count))
            guard let g = gear[id] else {
                return HTTPResponse(statusCode: HTTPStatusCode(404, phrase: "Not Found"), headers: headers, body: Data())
            }
            return json(200, g.detailJSON(), headers: headers)
        }
        // /athlete/activities
        let q = request.query
        func int(_ name: String) -> Int64? { q[name].flatMap { Int64($0) } }
        if let after = int("after"), after > now() + 86_400 * 365 {
            return json(400, fault("Application", "after", "future", message: "Bad Request"), headers: headers)
        }
        let page = max(1, Int(int("page") ?? 1))
        let perPage = min(200, max(1, Int(int("per_page") ?? 30)))
        // Newest first, as the recordings show; clients must not rely on it.
        if sortedActivities == nil {
            sortedActivities = activities.sorted { $0.start != $1.start ? $0.start > $1.start : $0.id > $1.id }
        }
        var list = sortedActivities ?? []
        if !otherAthletes.isEmpty { list = list.filter { belongs($0, to: who) } }
        if let after = int("after") { list = list.filter { $0.start > after } }
        if let before = int("before") { list = list.filter { $0.start < before } }
        let from = (page - 1) * perPage
        let slice = from < list.count ? Array(list[from..<min(list.count, from + perPage)]) : []
        var body: [UInt8] = [UInt8(ascii: "[")]
        for (i, a) in slice.enumerated() {
            if i > 0 { body.append(UInt8(ascii: ",")) }
            if let cached = rendered[a.id], cached.0 == a {
                body += cached.1
            } else {
                let bytes = a.jsonBytes(athleteID: a.athlete ?? athleteID)
                rendered[a.id] = (a, bytes)
                body += bytes
            }
        }
        body.append(UInt8(ascii: "]"))
        var h = headers
        h[HTTPHeader("Content-Type")] = "application/json; charset=utf-8"
        return HTTPResponse(statusCode: .ok, headers: h, body: Data(body))
    }

    private func handleUnknown(_ request: HTTPRequest) async -> HTTPResponse {
        _ = record(request)
        return json(404, ["message": "Record Not Found", "errors": [["resource": "resource", "field": "path", "code": "invalid"]]])
    }
}
