@testable import BikeCheckKit
import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import StravaStandIn
import TestSupport
import Testing

/// A stand-in Strava on 127.0.0.1, a temp config folder for tokens, and a temp garage.
final class StravaWorld: @unchecked Sendable {
    let server = StravaStandIn()
    let config: URL
    let garage: TemporaryFolder

    init(garageFiles: [String: String] = [:]) async throws {
        config = FileManager.default.temporaryDirectory.appendingPathComponent("bikecheck-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        var files = ["garage.yaml": "name: Test garage\n"]
        for (k, v) in garageFiles { files[k] = v }
        garage = try TemporaryFolder(files)
        try await server.start()
    }

    deinit { try? FileManager.default.removeItem(at: config) }

    func stop() async { await server.stop() }

    var environment: [String: String] {
        get async {
            [
                "BIKECHECK_STRAVA_URL": await server.baseURL,
                "XDG_CONFIG_HOME": config.path,
                "STRAVA_CLIENT_ID": await server.clientID,
                "STRAVA_CLIENT_SECRET": await server.clientSecret,
                "BIKECHECK_RETRY_BASE_MS": "1",
                // A proxy in the environment must not capture loopback traffic.
                "no_proxy": "127.0.0.1,localhost", "NO_PROXY": "127.0.0.1,localhost",
            ]
        }
    }

    var tokenPath: String { config.path + "/bikecheck/strava-token.json" }

    /// Runs the real binary off the cooperative pool, so the in-process server keeps serving.
    func run(_ arguments: [String], extra: [String: String] = [:]) async throws -> CommandResult {
        var env = await environment
        for (k, v) in extra { env[k] = v }
        let root = garage.root
        let finalEnv = env
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<CommandResult, Error>, Never>) in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { try runBikecheck(arguments, in: root, environment: finalEnv) })
            }
        }
        let r = try result.get()
        try await expectNoSecrets(in: r)
        // Tokens travel only in the Authorization header (and the bodies of oauth/token and oauth/revoke).
        let violations = await server.tokenViolations
        #expect(violations.isEmpty, "\(violations)")
        return r
    }

    /// No token or client secret ever reaches the terminal.
    func expectNoSecrets(in r: CommandResult) async throws {
        var secrets = await server.issuedAccessTokens + [await server.clientSecret]
        if let refresh = await server.currentRefreshToken { secrets.append(refresh) }
        if let saved = FileManager.default.contents(atPath: tokenPath),
            let object = try? JSONSerialization.jsonObject(with: saved) as? [String: Any]
        {
            secrets += [object["access_token"], object["refresh_token"]].compactMap { $0 as? String }
        }
        for s in secrets {
            #expect(!r.stdout.contains(s) && !r.stderr.contains(s), "a secret was printed")
        }
    }

    func savedToken() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: tokenPath))
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    /// Logs in through the stand-in with a pasted address.
    func login() async throws {
        await server.authorize(code: "code-\(UUID().uuidString)")
        let code = "login-code"
        await server.authorize(code: code)
        let r = try await pasteLogin(code: code)
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// The state `login --manual` put in the page it printed (and saved for the pasted address).
    func manualLoginState() async throws -> String {
        let manual = try await run(["login", "--manual"])
        #expect(manual.status == 0, "\(manual.stderr)")
        let line = manual.stderr.split(separator: "\n").first { $0.contains("/oauth/authorize?") } ?? ""
        let items = URLComponents(string: line.trimmingCharacters(in: .whitespaces))?.queryItems ?? []
        return items.first { $0.name == "state" }?.value ?? ""
    }

    /// `login --manual`, then `login --code` with the address the browser would end on:
    /// `query` (`code=…&scope=…`, or `error=…`) after the manual login's state.
    func pasteLogin(query: String) async throws -> CommandResult {
        let state = try await manualLoginState()
        return try await run(["login", "--code", "http://localhost/exchange_token?state=\(state)&\(query)"])
    }

    func pasteLogin(code: String) async throws -> CommandResult {
        try await pasteLogin(query: "code=\(code)&scope=read,profile:read_all,activity:read_all")
    }

    /// A `bikecheck login` waiting on 127.0.0.1, and the authorize address it printed, read as
    /// the rider would.
    struct BrowserLogin {
        let process: Process
        let errFile: URL
        let query: [URLQueryItem]

        func item(_ name: String) -> String? { query.first { $0.name == name }?.value }

        /// Plays the browser coming back from Strava with `query` (the state is added unless
        /// `state` is given), and returns the HTTP status and the page the tab showed.
        func returnFromStrava(_ query: String, state: String? = nil) async throws -> (status: Int, page: String) {
            let redirect = try #require(item("redirect_uri"))
            let sent = try state ?? #require(item("state"))
            return try await fetch(URL(string: redirect + "?state=\(sent)&\(query)")!)
        }

        /// Waits for the login to end: its exit status and what it printed on stderr.
        func finish() async -> (status: Int32, stderr: String) {
            await withCheckedContinuation { c in
                DispatchQueue.global().async {
                    process.waitUntilExit()
                    c.resume()
                }
            }
            return (process.terminationStatus, (try? String(contentsOf: errFile, encoding: .utf8)) ?? "")
        }
    }

    func startBrowserLogin() async throws -> BrowserLogin {
        let env = await environment
        let process = Process()
        process.executableURL = bikecheckBinary
        process.arguments = ["login", "--timeout", "20"]
        process.currentDirectoryURL = garage.root
        process.environment = ProcessInfo.processInfo.environment.merging(env) { _, new in new }
        let errFile = config.appendingPathComponent("login-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errFile)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var authorize: URLComponents?
        for _ in 0..<400 where authorize == nil {
            try await Task.sleep(nanoseconds: 25_000_000)
            let text = (try? String(contentsOf: errFile, encoding: .utf8)) ?? ""
            if text.contains("Waiting for"), let line = text.split(separator: "\n").first(where: { $0.contains("/oauth/authorize?") }) {
                authorize = URLComponents(string: line.trimmingCharacters(in: .whitespaces))
            }
        }
        return BrowserLogin(process: process, errFile: errFile, query: try #require(authorize?.queryItems))
    }

    func cachedActivities() -> [Activity] {
        let loaded = ActivityCacheLoader.load(root: garage.path)
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics)")
        return loaded.activities
    }
}

func fileMode(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return ((attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1) & 0o777
}

@Suite(.serialized) struct StravaEndToEndTests {
    static let bikes = [
        StandInGear(id: "b1001", name: "Canyon Grail", nickname: "Grail", distance: 1_234_567, brandName: "Canyon", frameType: 3),
        StandInGear(id: "b1002", name: "Stumpjumper", distance: 2_000_000, brandName: "Specialized", frameType: 1),
    ]
    static let retired = StandInGear(id: "b1003", name: "Old Allez", retired: true, distance: 9_000_000, brandName: "Specialized", frameType: 3)
    static let grailFile = """
        # yaml-language-server: $schema=../schemas/bike.schema.json
        name: Canyon Grail   # hand-written comment
        strava: b1001
        """ + "\n"

    @Test func loginWithAPastedCodeKeepsTokensPrivateAndOutsideTheGarage() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.authorize(code: "pasted-code-1")
        let r = try await world.pasteLogin(code: "pasted-code-1")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Logged in to Strava as Dana Rider (athlete 12342176)"))
        #expect(try fileMode(world.tokenPath) == 0o600)
        #expect(try fileMode(world.config.path + "/bikecheck/strava-credentials.json") == 0o600)
        let token = try world.savedToken()
        let access = try #require(token["access_token"] as? String)
        #expect(await world.server.isValid(accessToken: access))
        #expect(token["refresh_token"] as? String == (await world.server.currentRefreshToken))
        // Nothing secret landed in the garage.
        let garageFiles = FileManager.default.enumerator(atPath: world.garage.path)?.allObjects as? [String] ?? []
        for f in garageFiles {
            let text = (try? world.garage.read(f)) ?? ""
            #expect(!text.contains(access), "token in garage file \(f)")
        }

        // Codes work once.
        let again = try await world.pasteLogin(code: "pasted-code-1")
        #expect(again.status == 1)
        #expect(again.stderr.contains("did not accept the authorisation code"), "\(again.stderr)")

        // whoami uses the saved token; logout revokes it and deletes the file.
        await world.server.setBikes(athlete: Self.bikes, all: Self.bikes)
        let who = try await world.run(["whoami"])
        #expect(who.status == 0, "\(who.stderr)")
        #expect(who.stdout.contains("Dana Rider (Strava athlete 12342176)"))
        #expect(who.stdout.contains("bike b1001: Grail"))
        let out = try await world.run(["logout"])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(!FileManager.default.fileExists(atPath: world.tokenPath))
        #expect(!(await world.server.isValid(accessToken: access)))
        let whoAfter = try await world.run(["whoami"])
        #expect(whoAfter.status == 1)
        #expect(whoAfter.stderr.contains("not logged in"))
    }

    @Test func manualLoginPrintsThePageToOpenAndHowToFinish() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        let r = try await world.run(["login", "--manual", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stderr.contains(
                "/oauth/authorize?client_id=424242&redirect_uri=http://localhost/exchange_token&response_type=code&approval_prompt=force&scope=read,profile:read_all,activity:read_all&state="
            ), "\(r.stderr)")
        #expect(r.stderr.contains("bikecheck login --code"))
        #expect(!FileManager.default.fileExists(atPath: world.tokenPath))
        // Without a client id there is nothing to log in to.
        let none = try await world.run(["login", "--manual"], extra: ["STRAVA_CLIENT_ID": ""])
        #expect(none.status == 1)
        #expect(none.stderr.contains("no Strava client id"))
    }

    @Test func aPastedRedirectWithUntickedScopesSaysWhatIsMissing() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.authorize(code: "c0de")
        let r = try await world.pasteLogin(query: "code=c0de&scope=read,activity:read")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("profile:read_all"))
        #expect(r.stderr.contains("activity:read_all"))
        #expect(r.stderr.contains("bikecheck login --force"))
        let denied = try await world.pasteLogin(query: "error=access_denied")
        #expect(denied.status == 1)
        #expect(denied.stderr.contains("access was denied"))
    }

    @Test(arguments: [true, false])
    func theLoopbackLoginExchangesTheCodeOnlyWithTheRightState(rightState: Bool) async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.authorize(code: "browser-code")
        // Read the printed authorize URL, as the rider would.
        let login = try await world.startBrowserLogin()
        let item = login.item
        #expect(item("scope") == "read,profile:read_all,activity:read_all")
        #expect(item("response_type") == "code")
        #expect(item("client_id") == (await world.server.clientID))
        let redirect = try #require(item("redirect_uri"))
        #expect(redirect.hasPrefix("http://127.0.0.1:"))
        let state = try #require(item("state"))
        #expect(state.count >= 16)
        // Play the browser: Strava redirects with code, scope and the state.
        let (code, page) = try await login.returnFromStrava(
            "code=browser-code&scope=read,profile:read_all,activity:read_all", state: rightState ? state : "forged")
        #expect(code == 200)
        #expect(page.contains(rightState ? "authorised" : "not authorised"))
        let (status, stderr) = await login.finish()
        if rightState {
            #expect(status == 0, "\(stderr)")
            #expect(FileManager.default.fileExists(atPath: world.tokenPath))
        } else {
            #expect(status == 1)
            #expect(stderr.contains("state does not match"))
            #expect(!FileManager.default.fileExists(atPath: world.tokenPath))
            #expect(await world.server.requests(to: "/oauth/token") == 0)
        }
    }

    @Test func anExpiredTokenIsRefreshedAndTheRotatedRefreshTokenSavedFirst() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.setBikes(athlete: Self.bikes, all: Self.bikes)
        await world.server.seedTokens(access: "old-access", refresh: "old-refresh", expiresAt: Int64(Date().timeIntervalSince1970) - 10)
        try FileManager.default.createDirectory(atPath: world.config.path + "/bikecheck", withIntermediateDirectories: true)
        try Data(#"{"access_token":"old-access","refresh_token":"old-refresh","expires_at":1000,"athlete_id":12342176}"#.utf8)
            .write(to: URL(fileURLWithPath: world.tokenPath))
        let r = try await world.run(["whoami"])
        #expect(r.status == 0, "\(r.stderr)")
        let token = try world.savedToken()
        let refresh = try #require(token["refresh_token"] as? String)
        #expect(refresh != "old-refresh")
        #expect(refresh == (await world.server.currentRefreshToken))
        #expect((token["expires_at"] as? Int ?? 0) > Int(Date().timeIntervalSince1970))
        #expect(try fileMode(world.tokenPath) == 0o600)
        #expect(await world.server.requests(to: "/oauth/token") == 1)
        // The new access token is used as is: no second refresh.
        let again = try await world.run(["whoami"])
        #expect(again.status == 0)
        #expect(await world.server.requests(to: "/oauth/token") == 1)
    }

    @Test func aTokenStravaNoLongerAcceptsAsksToLogInAgain() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        let future = Int64(Date().timeIntervalSince1970) + 20_000
        try FileManager.default.createDirectory(atPath: world.config.path + "/bikecheck", withIntermediateDirectories: true)
        try Data(#"{"access_token":"revoked-access","refresh_token":"revoked-refresh","expires_at":\#(future)}"#.utf8)
            .write(to: URL(fileURLWithPath: world.tokenPath))
        let r = try await world.run(["sync"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("run 'bikecheck login' again"), "\(r.stderr)")
        // One API call, one refresh attempt, no loop.
        #expect(await world.server.requests(to: "/api/v3/athlete") == 1)
        #expect(await world.server.requests(to: "/oauth/token") == 1)
    }

    @Test func aThousandActivitySyncSurvivesA5xxThenResyncsIdempotentlyAndIncrementally() async throws {
        let world = try await StravaWorld(garageFiles: ["bikes/grail.yaml": Self.grailFile])
        defer { Task { await world.stop() } }
        let activities = StandInActivity.generate(count: 1_234, bikes: ["b1001", "b1002"])
        await world.server.setActivities(activities)
        await world.server.setBikes(athlete: Self.bikes, all: Self.bikes)
        try await world.login()
        await world.server.inject(status: 503, onRequest: 3, to: "/api/v3/athlete/activities")
        await world.server.resetCounts()

        let first = try await world.run(["sync"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("1234 new, 0 changed, 0 deleted"), "\(first.stdout)")
        #expect(first.stdout.contains("grail: "))
        // 7 pages (each after the first starts at the second the one before ended, so 1,234 take
        // 200 + 6 × 199 + 40; the short 7th ends the listing), and one retry of the page that got a 503.
        #expect(await world.server.requests(to: "/api/v3/athlete/activities") == 8)
        let cursors = await world.server.log.filter { $0.path == "/api/v3/athlete/activities" }.map(\.query)
        #expect(cursors.allSatisfy { $0["page"] == nil }, "a time cursor, not page numbers")
        #expect(cursors.first?["before"] == nil && cursors.dropFirst().allSatisfy { $0["before"] != nil })
        let cached = world.cachedActivities()
        #expect(cached.count == 1_234)
        #expect(Set(cached.map(\.id)) == Set(activities.map(\.id)))
        #expect(cached.contains { $0.sportType == "Sandboarding" }, "unknown sport types are kept")
        #expect(first.stdout.contains("b1002 'Stumpjumper' has no bike file"))
        #expect(first.stdout.contains("bikecheck bike add stumpjumper --name Stumpjumper --strava b1002"))
        #expect(try world.garage.read("bikes/grail.yaml") == Self.grailFile)

        // Commit, then sync again: nothing changes on disk, and one list request suffices.
        try git(["init", "-q"], in: world.garage.root)
        try git(["add", "-A"], in: world.garage.root)
        try git(["commit", "-qm", "garage"], in: world.garage.root)
        await world.server.resetCounts()
        let idle = try await world.run(["sync"])
        #expect(idle.status == 0, "\(idle.stderr)")
        #expect(idle.stdout.contains("0 new, 0 changed, 0 deleted"), "\(idle.stdout)")
        #expect(await world.server.requests(to: "/api/v3/athlete/activities") == 1)
        #expect(await world.server.requests(to: "/api/v3/gear/b1001") == 0)
        #expect(try git(["status", "--porcelain"], in: world.garage.root).isEmpty)

        // Incremental: three new rides and a late gear change inside the overlap.
        let newest = activities.map(\.start).max() ?? 0
        let extra = (1...3).map { i in
            StandInActivity(
                id: 9_900_000_000 + Int64(i), name: "New \(i)", sportType: "Ride", start: newest + Int64(i) * 3600,
                movingTime: 3600, elapsedTime: 3700, distance: 30_000, gearID: "b1001")
        }
        let lastID = activities.max { $0.start < $1.start }?.id
        await world.server.update { list in
            list += extra
            if let i = list.firstIndex(where: { $0.id == lastID }) { list[i].gearID = list[i].gearID == "b1001" ? "b1002" : "b1001" }
        }
        await world.server.resetCounts()
        let incremental = try await world.run(["sync"])
        #expect(incremental.status == 0, "\(incremental.stderr)")
        #expect(incremental.stdout.contains("3 new, 1 changed, 0 deleted"), "\(incremental.stdout)")
        let log = await world.server.log.filter { $0.path == "/api/v3/athlete/activities" }
        #expect(log.count == 1)
        #expect(log.first?.query["after"] == String(newest - 7 * 86_400))
        #expect(log.first?.query["before"] != nil, "Strava lists newest first only with both bounds")
        #expect(log.first?.query["per_page"] == "200")
        #expect(world.cachedActivities().count == 1_237)

        // --full reconciles an old deletion and an old gear change that the overlap cannot see.
        let oldest = activities[0].id, second = activities[1].id
        await world.server.update { list in
            list.removeAll { $0.id == oldest }
            if let i = list.firstIndex(where: { $0.id == second }) { list[i].gearID = "b1001" }
        }
        await world.server.resetCounts()
        let full = try await world.run(["sync", "--full"])
        #expect(full.status == 0, "\(full.stderr)")
        #expect(full.stdout.contains("0 new, 1 changed, 1 deleted"), "\(full.stdout)")
        #expect(await world.server.detailRequests == [oldest], "the deletion confirmed by a 404 first")
        let after = world.cachedActivities()
        #expect(after.count == 1_236)
        #expect(!after.contains { $0.id == oldest })
        #expect(after.first { $0.id == second }?.gearID == "b1001")
    }

    @Test func a429StopsCleanlyAndTheNextSyncResumesLosingNothing() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        let activities = StandInActivity.generate(count: 1_000)
        await world.server.setActivities(activities)
        try await world.login()
        await world.server.inject(status: 429, onRequest: 4, to: "/api/v3/athlete/activities")
        await world.server.resetCounts()

        // --max-wait 0: stop at the 15-minute window rather than wait for it.
        let stopped = try await world.run(["sync", "--max-wait", "0"])
        #expect(stopped.status == 1)
        #expect(stopped.stderr.contains("rate limit"), "\(stopped.stderr)")
        #expect(stopped.stderr.contains("run 'bikecheck sync' again after"), "\(stopped.stderr)")
        #expect(!stopped.stderr.contains("retrying"), "a 429 is not retried")
        #expect(await world.server.requests(to: "/api/v3/athlete/activities") == 4)
        // The three pages fetched before the stop are in the cache (200 + 199 + 199: each page
        // after the first repeats the second the one before ended with).
        #expect(world.cachedActivities().count == 598)
        let stoppedAt = await world.server.log.filter { $0.path == "/api/v3/athlete/activities" }.last?.query["before"]
        // A sync that stopped is not noted as one: status goes on measuring staleness by the last complete one.
        let noted = world.garage.root.appendingPathComponent(".bikecheck/last-sync.json").path
        #expect(!FileManager.default.fileExists(atPath: noted))

        await world.server.resetCounts()
        let resumed = try await world.run(["sync"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(world.cachedActivities().count == 1_000)
        #expect(Set(world.cachedActivities().map(\.id)) == Set(activities.map(\.id)))
        // Resumes at the saved cursor rather than starting over: the page that got the 429, then two more.
        let resumedAt = await world.server.log.filter { $0.path == "/api/v3/athlete/activities" }.map { $0.query["before"] }
        #expect(resumedAt.count == 3)
        #expect(resumedAt.first == stoppedAt)
        let record = try String(decoding: Data(contentsOf: URL(fileURLWithPath: noted)), as: UTF8.self)
        #expect(record.hasPrefix("{\"finished\":\"") && record.hasSuffix("Z\"}\n"), "\(record)")
    }

    @Test func progressShowsPagesActivitiesAndTheRateLimitBudget() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.setActivities(StandInActivity.generate(count: 250))
        try await world.login()
        await world.server.setRateLimit(limit: (200, 2000), readLimit: (100, 1000), usage: (10, 300), readUsage: (9, 299))
        let (env, root) = (await world.environment, world.garage.root)
        let r = try await withCheckedThrowingContinuation { c in
            DispatchQueue.global().async {
                c.resume(with: Result { try ProgressEndToEndTests.onTerminal(["sync"], in: root, environment: env, marker: "sync: ") })
            }
        }
        #expect(r.status == 0, "\(r.output)")
        #expect(r.output.contains("\r\u{1B}[Ksync: page 1: 200 activities, 200 new; rate limit 11/100 (15 min), 301/1000 (day)"), "\(r.output)")
        #expect(r.output.contains("\r\u{1B}[Ksync: page 2: 250 activities, 250 new"))
        // Without a terminal standard error stays quiet.
        let quiet = try await world.run(["sync"])
        #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
    }

    @Test func syncStopsBeforeCrossingTheRateLimitTheHeadersAnnounce() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.setActivities(StandInActivity.generate(count: 1_000))
        try await world.login()
        await world.server.setRateLimit(limit: (200, 2000), readLimit: (100, 1000), usage: (40, 500), readUsage: (97, 500))
        await world.server.resetCounts()
        let r = try await world.run(["sync", "--max-wait", "0"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("15-minute rate limit"), "\(r.stderr)")
        // /athlete (98), page 1 (99), page 2 (100): then it stops without asking for a 429.
        #expect(await world.server.totalRequests == 3)
        #expect(world.cachedActivities().count == 399)
    }

    @Test func syncWaitsForTheFifteenMinuteWindowSayingUntilWhenAndFinishes() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        let activities = StandInActivity.generate(count: 1_000)
        await world.server.setActivities(activities)
        try await world.login()
        // /athlete (98), page 1 (99), page 2 (100): the window is full; then it resets after 2 s quiet.
        await world.server.setRateLimit(limit: (200, 2000), readLimit: (100, 1000), usage: (40, 500), readUsage: (97, 500))
        await world.server.setShortWindowReset(afterQuiet: 2)
        await world.server.resetCounts()
        // The wait sleeps 3 s here, whatever the real window's end it names.
        var env = await world.environment
        env["BIKECHECK_RATE_LIMIT_WAIT_MS"] = "3000"
        let root = world.garage.root
        let finalEnv = env
        let r = try await withCheckedThrowingContinuation { c in
            DispatchQueue.global().async {
                c.resume(with: Result { try ProgressEndToEndTests.onTerminal(["sync"], in: root, environment: finalEnv, marker: "sync: ") })
            }
        }
        #expect(r.status == 0, "\(r.output)")
        #expect(world.cachedActivities().count == 1_000)
        // Said once as a note (it stays in a log), and on the progress line while it lasts, with
        // the end: a few seconds past the next quarter hour, in UTC.
        let note = #/note: reached Strava's 15-minute rate limit; waiting until \d{4}-\d\d-\d\d \d\d:(00|15|30|45):05 UTC, when it resets/#
        #expect(r.output.contains(note), "\(r.output)")
        #expect(
            r.output.contains(#/\r\u{1B}\[Ksync: waiting for Strava's 15-minute rate limit until \d{4}-\d\d-\d\d \d\d:(00|15|30|45):05 UTC/#), "\(r.output)")
        #expect(r.output.contains("synced 1000 activities from Strava: 1000 new"), "\(r.output)")
        // The pages before the wait are not fetched again: six pages (each after the first repeats
        // the second the one before ended with), /athlete once.
        #expect(await world.server.requests(to: "/api/v3/athlete/activities") == 6)
        #expect(await world.server.requests(to: "/api/v3/athlete") == 1)
    }

    @Test func aSecondRateLimitRightAfterAWaitStopsTheSyncInsteadOfWaitingAgain() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.setActivities(StandInActivity.generate(count: 1_000))
        try await world.login()
        // The window never resets here: one wait, then a clean stop that says when to run again.
        await world.server.setRateLimit(limit: (200, 2000), readLimit: (100, 1000), usage: (40, 500), readUsage: (97, 500))
        let r = try await world.run(["sync"], extra: ["BIKECHECK_RATE_LIMIT_WAIT_MS": "10"])
        #expect(r.status == 1)
        #expect(r.stderr.components(separatedBy: "waiting until").count == 2, "one wait: \(r.stderr)")
        #expect(r.stderr.contains("stopped at Strava's 15-minute rate limit; nothing is lost: run 'bikecheck sync' again after"), "\(r.stderr)")
        #expect(world.cachedActivities().count == 399)
    }

    @Test func theDailyLimitStopsTheSyncWithoutWaiting() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.setActivities(StandInActivity.generate(count: 1_000))
        try await world.login()
        await world.server.setRateLimit(limit: (200, 2000), readLimit: (100, 1000), usage: (0, 500), readUsage: (0, 998))
        let r = try await world.run(["sync"], extra: ["BIKECHECK_RATE_LIMIT_WAIT_MS": "10"])
        #expect(r.status == 1)
        #expect(!r.stderr.contains("waiting"), "\(r.stderr)")
        #expect(r.stderr.contains("stopped at Strava's daily rate limit"), "\(r.stderr)")
    }

    @Test func retiredBikesAreLookedUpOnceAndNewBikesGetASuggestedCommand() async throws {
        let world = try await StravaWorld(garageFiles: ["bikes/grail.yaml": Self.grailFile])
        defer { Task { await world.stop() } }
        var activities = StandInActivity.generate(count: 30, bikes: ["b1001"])
        activities[0].gearID = "b1003"
        activities[1].gearID = "b9999"
        await world.server.setActivities(activities)
        await world.server.setBikes(athlete: [Self.bikes[0]], all: [Self.bikes[0], Self.retired])
        try await world.login()
        let r = try await world.run(["sync"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Strava bike b1003 'Old Allez' (retired) has no bike file"), "\(r.stdout)")
        #expect(r.stdout.contains("bikecheck bike add old-allez --name 'Old Allez' --strava b1003"))
        #expect(!r.stdout.contains("b1001'"), "the bike with a file is not suggested")
        #expect(await world.server.requests(to: "/api/v3/gear/b1003") == 1)
        #expect(await world.server.requests(to: "/api/v3/gear/b9999") == 1)
        #expect(await world.server.requests(to: "/api/v3/gear/b1001") == 0)
        let again = try await world.run(["sync"])
        #expect(again.status == 0)
        #expect(await world.server.requests(to: "/api/v3/gear/b1003") == 1, "gear is remembered in .bikecheck/")
        // A failing gear lookup does not undo a sync.
        activities[29].gearID = "b1004"
        await world.server.setActivities(activities)
        for n in 1...4 { await world.server.inject(status: 500, onRequest: n, to: "/api/v3/gear/b1004") }
        let gearDown = try await world.run(["sync"])
        #expect(gearDown.status == 0, "\(gearDown.stderr)")
        #expect(gearDown.stderr.contains("warning: could not look up Strava gear b1004"), "\(gearDown.stderr)")
        #expect(world.cachedActivities().first { $0.id == activities[29].id }?.gearID == "b1004")
        activities[29].gearID = "b1001"
        await world.server.setActivities(activities)
        let json = try await world.run(["sync", "--format", "json"])
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((object["total"] as? [String: Int]) == ["new": 0, "changed": 1, "deleted": 0])
        #expect((object["unclaimed_bikes"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["b1003"])
        #expect(object["skipped"] as? Int == 0)
        #expect(json.stdout.hasPrefix("{\n  \""), "printed through JSONOutput, as every other --format json")
        #expect(try world.garage.read("bikes/grail.yaml") == Self.grailFile)
    }

    @Test func aDamagedMonthFileIsLeftAloneUntilTheRiderMovesItAndAFullSyncRecreatesIt() async throws {
        let world = try await StravaWorld(garageFiles: [
            "activities/2025-11.json": "[\n{\"id\": oops}\n]\n",
            "activities/notes.json": "my own notes\n",
        ])
        defer { Task { await world.stop() } }
        let activities = StandInActivity.generate(count: 40, end: 1_764_000_000)
        await world.server.setActivities(activities)
        try await world.login()
        for arguments in [["sync"], ["sync", "--full"]] {
            let r = try await world.run(arguments)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("left alone activities/2025-11.json (it could not be read whole), holding back"), "\(r.stdout)")
            #expect(try world.garage.read("activities/2025-11.json") == "[\n{\"id\": oops}\n]\n")
            #expect(try world.garage.read("activities/notes.json") == "my own notes\n", "not a month file: not bikecheck's")
        }
        try FileManager.default.removeItem(atPath: world.garage.path + "/activities/2025-11.json")
        let full = try await world.run(["sync", "--full"])
        #expect(full.status == 0, "\(full.stderr)")
        #expect(!full.stdout.contains("left alone"), "\(full.stdout)")
        try FileManager.default.removeItem(atPath: world.garage.path + "/activities/notes.json")
        #expect(Set(world.cachedActivities().map(\.id)) == Set(activities.map(\.id)))
    }

    @Test func aSecondSyncWhileOneRunsIsRefused() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        try await world.login()
        try FileManager.default.createDirectory(atPath: world.garage.path + "/.bikecheck", withIntermediateDirectories: true)
        let fd = open(world.garage.path + "/.bikecheck/sync.lock", O_RDWR | O_CREAT, 0o644)
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        let r = try await world.run(["sync"])
        flock(fd, LOCK_UN)
        close(fd)
        #expect(r.status == 1)
        #expect(r.stderr.contains("another sync is running"), "\(r.stderr)")
        #expect(await world.server.requests(to: "/api/v3/athlete") == 0)
    }

    @Test func logoutDeletesTheTokensEvenWhenStravaCannotBeReached() async throws {
        let world = try await StravaWorld()
        try await world.login()
        await world.stop()
        let r = try await world.run(["logout"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Strava did not confirm the revocation"))
        #expect(!FileManager.default.fileExists(atPath: world.tokenPath))
    }

    @Test func tokensInsideTheGarageAreRefused() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.authorize(code: "c")
        let r = try await world.run(
            ["login", "--code", "c", "--garage", world.garage.path],
            extra: ["XDG_CONFIG_HOME": world.garage.path + "/config"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("refusing to keep Strava tokens inside the garage"))
        #expect(!FileManager.default.fileExists(atPath: world.garage.path + "/config/bikecheck/strava-token.json"))
    }

    /// A first sync lists 200 a page and an idle re-sync asks for one list page. Every run syncs
    /// 1,000 activities; the figures for the report come from 10,000:
    /// `BIKECHECK_MEASURE=1 swift test --filter firstSyncAndIdle` (`=warm` renders the stand-in's
    /// JSON beforehand; `BIKECHECK_BIN` may point at a release build).
    @Test func firstSyncAndIdleReSyncMakeTheFewestRequests() async throws {
        let measure = ProcessInfo.processInfo.environment["BIKECHECK_MEASURE"]
        let count = measure == nil ? 1_000 : 10_000
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.setActivities(StandInActivity.generate(count: count))
        await world.server.setBikes(athlete: Self.bikes, all: Self.bikes)
        try await world.login()
        await world.server.setRateLimit(limit: (200, 2000), readLimit: (100, 1000), usage: (0, 0), readUsage: (0, 0))
        if measure == "warm" { await world.server.prerender() }
        await world.server.resetCounts()
        let start = Date()
        let r = try await world.run(["sync"])
        let seconds = Date().timeIntervalSince(start)
        #expect(r.status == 0, "\(r.stderr)")
        let total = await world.server.totalRequests
        let serverSeconds = await world.server.handlerSeconds
        let lists = await world.server.requests(to: "/api/v3/athlete/activities")
        await world.server.resetCounts()
        let idleStart = Date()
        let idle = try await world.run(["sync"])
        let idleSeconds = Date().timeIntervalSince(idleStart)
        let idleTotal = await world.server.totalRequests
        let idleLists = await world.server.requests(to: "/api/v3/athlete/activities")
        #expect(idle.status == 0, "\(idle.stderr)")
        // count / 200 full pages and the short (empty) one that ends the listing.
        #expect(lists == count / 200 + 1, "\(lists) list requests for \(count) activities")
        #expect(idleLists == 1, "an idle re-sync made \(idleLists) list requests")
        #expect(world.cachedActivities().count == count)
        guard measure != nil else { return }
        print(
            "MEASURE full: \(String(format: "%.2f", seconds)) s (stand-in handlers \(String(format: "%.2f", serverSeconds)) s), \(total) requests (\(lists) list); idle re-sync: \(String(format: "%.2f", idleSeconds)) s, \(idleTotal) requests; \(r.stdout)\(idle.stdout)"
        )
    }

    // MARK: - A sync with nothing new

    /// Every file in `activities/`: its bytes and inode (a rewrite renames a new file in).
    static func cacheFiles(_ world: StravaWorld) throws -> [String: (Data, UInt64)] {
        var out: [String: (Data, UInt64)] = [:]
        let folder = world.garage.path + "/activities"
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            let inode = (try FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
            out[name] = (try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)), inode)
        }
        return out
    }

    @Test func aSyncWithNothingNewRewritesNoCacheFileAndSaysWhatTheWholeReadSays() async throws {
        let world = try await StravaWorld(garageFiles: ["bikes/grail.yaml": Self.grailFile])
        defer { Task { await world.stop() } }
        await world.server.setActivities(StandInActivity.generate(count: 1_234, bikes: ["b1001", "b1002"]))
        await world.server.setBikes(athlete: Self.bikes, all: Self.bikes)
        try await world.login()
        let first = try await world.run(["sync"])
        #expect(first.status == 0, "\(first.stderr)")
        try git(["init", "-q"], in: world.garage.root)
        try git(["add", "-A"], in: world.garage.root)
        try git(["commit", "-qm", "garage"], in: world.garage.root)
        let before = try Self.cacheFiles(world)
        #expect(before.count > 40, "a cache of many months")
        // Cold (the index is made), warm (read from it), and bypassing it: the same answer.
        var outputs: [String] = []
        for environment in [[:], [:], ["BIKECHECK_NO_CACHE": "1"]] {
            let idle = try await world.run(["sync"], extra: environment)
            #expect(idle.status == 0, "\(idle.stderr)")
            outputs.append(idle.stdout)
            let after = try Self.cacheFiles(world)
            #expect(Set(after.keys) == Set(before.keys))
            for (name, (bytes, inode)) in before {
                #expect(after[name]?.0 == bytes && after[name]?.1 == inode, "\(name) was rewritten")
            }
            #expect(try git(["status", "--porcelain"], in: world.garage.root).isEmpty)
        }
        #expect(outputs[0].contains(" activities from Strava: 0 new, 0 changed, 0 deleted in 2 requests"), "\(outputs[0])")
        #expect(outputs[0].contains("b1002 'Stumpjumper' has no bike file"), "gear known from the index: \(outputs[0])")
        #expect(outputs[1] == outputs[0] && outputs[2] == outputs[0], "\(outputs)")
    }

    @Test func aSyncWithNothingNewDoesNotParseTheMonthsItDoesNotList() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.setActivities(StandInActivity.generate(count: 400))
        try await world.login()
        #expect(try await world.run(["sync"]).status == 0)
        try await Task.sleep(nanoseconds: 100_000_000)  // the index takes only settled files
        #expect(try await world.run(["validate"]).status == 0, "makes the activity index")
        let folder = world.garage.path + "/activities"
        let oldest = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.sorted().first)
        let path = folder + "/" + oldest
        // The oldest month turns unreadable, and its index entry is made to match the damaged
        // file: only a reader that parses the JSON can tell.
        let index = ActivityIndex(root: world.garage.path)
        let key = try #require(ActivityIndex.key(path))
        let entry = try #require(index.entry(oldest, key: key), "validate indexed \(oldest)")
        let damaged = "[\n{\"id\": oops}\n]\n"
        try world.garage.write("activities/" + oldest, damaged)
        let damagedKey = try #require(ActivityIndex.key(path))
        index.store(entry, name: oldest, key: damagedKey)

        let idle = try await world.run(["sync"])
        #expect(idle.status == 0, "\(idle.stderr)")
        #expect(!idle.stdout.contains("left alone"), "the no-op sync parsed \(oldest): \(idle.stdout)")
        #expect(try world.garage.read("activities/" + oldest) == damaged)
        // Reading every month, as a full sync or the bypass does, finds it.
        for (arguments, environment) in [(["sync"], ["BIKECHECK_NO_CACHE": "1"]), (["sync", "--full"], [:])] {
            let whole = try await world.run(arguments, extra: environment)
            #expect(whole.status == 0, "\(whole.stderr)")
            #expect(whole.stdout.contains("left alone activities/\(oldest) (it could not be read whole)"), "\(whole.stdout)")
            #expect(try world.garage.read("activities/" + oldest) == damaged)
        }
    }
}

/// A plain GET, for playing the browser.
func fetch(_ url: URL) async throws -> (Int, String) {
    let (data, response) = try await URLSession.shared.data(from: url)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
}
