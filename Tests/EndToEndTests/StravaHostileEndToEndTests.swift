import BikeCheckKit
import Foundation
import StravaStandIn
import TestSupport
import Testing

/// The real binary against a hostile or failing Strava: redirects, bombs and stalls on the HTTP
/// layer, and the login kept safe on disk and across processes (HostileFaults.swift).
@Suite(.serialized) struct StravaHostileEndToEndTests {
    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    /// A login whose access token expires in two minutes (so every command renews it first).
    static func seedNearExpiry(_ world: StravaWorld) async throws -> Int64 {
        let expires = now() + 120
        await world.server.seedTokens(access: "near-access", refresh: "near-refresh", expiresAt: expires)
        try FileManager.default.createDirectory(atPath: world.config.path + "/bikecheck", withIntermediateDirectories: true)
        try Data(#"{"access_token":"near-access","refresh_token":"near-refresh","expires_at":\#(expires),"athlete_id":12342176}"#.utf8)
            .write(to: URL(fileURLWithPath: world.tokenPath))
        return expires
    }

    // MARK: - The HTTP layer

    @Test func aRedirectNeverCarriesTheTokenToAnotherOrigin() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        try await world.login()
        let other = LoopbackRecorder()
        try await other.start()
        defer { Task { await other.stop() } }
        for path in ["/api/v3/athlete", "/api/v3/athlete/activities"] {
            world.server.hostile.arm(.redirect(to: await other.baseURL + path), on: path, times: 4)
        }
        let otherURL = await other.baseURL, ownURL = await world.server.baseURL
        for command in [["sync"], ["whoami"]] {
            let r = try await world.run(command)
            #expect(r.status == 1)
            #expect(
                r.stderr.contains("error: Strava answered HTTP 302: a redirect to '\(otherURL)', not followed: bikecheck talks only to '\(ownURL)'"),
                "\(r.stderr)")
        }
        let received = await other.received
        #expect(received.isEmpty, "the other origin saw \(received.map(\.path)) with \(received.map(\.authorization))")
    }

    @Test func aGzipBombStopsTheSyncAndLeavesTheCacheAsItWas() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.setActivities(StandInActivity.generate(count: 450))
        try await world.login()
        let first = try await world.run(["sync", "--full"])
        #expect(first.status == 0, "\(first.stderr)")
        world.server.hostile.arm(.gzipBomb(decodedBytes: 64 << 20), on: "/api/v3/athlete/activities")
        let bombed = try await world.run(["sync", "--full"])
        #expect(bombed.status == 1)
        #expect(bombed.stderr.contains("is larger than 16 MiB; bikecheck stops reading there"), "\(bombed.stderr)")
        #expect(world.cachedActivities().count == 450)
    }

    @Test func aStalledAnswerEndsAtTheBoundAndIsRetried() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.setActivities(StandInActivity.generate(count: 10))
        try await world.login()
        // A stall far longer than the bound: the message says the 2-s bound ended it (not the
        // 8-s timeout), and the run ends long before the stall would have, however loaded the
        // machine is.
        world.server.hostile.arm(.stall(seconds: 40), on: "/api/v3/athlete")
        let started = Date()
        let r = try await world.run(["sync"], extra: ["BIKECHECK_HTTP_TIMEOUT_MS": "8000"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("stalled (nothing for 2 s); retrying (1/3)"), "\(r.stderr)")
        #expect(!r.stderr.contains("no complete answer"), "\(r.stderr)")
        #expect(Date().timeIntervalSince(started) < 25)
        #expect(world.cachedActivities().count == 10)
    }

    // MARK: - Tokens on disk

    @Test(arguments: ["link-to-garage/not-yet", "dangling-into-garage"])
    func aConfigFolderReachedThroughASymlinkIntoTheGarageIsRefusedBeforeItExists(configHome: String) async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        let links = try TemporaryFolder()
        try FileManager.default.createSymbolicLink(atPath: links.url.path + "/link-to-garage", withDestinationPath: world.garage.path)
        try FileManager.default.createSymbolicLink(
            atPath: links.url.path + "/dangling-into-garage",
            withDestinationPath: world.garage.path + "/secrets")
        await world.server.authorize(code: "c")
        let r = try await world.run(
            ["login", "--code", "c", "--garage", world.garage.path],
            extra: ["XDG_CONFIG_HOME": links.url.path + "/" + configHome])
        #expect(r.status == 1)
        #expect(r.stderr.contains("refusing to keep Strava tokens inside the garage"), "\(r.stderr)")
        let inGarage = FileManager.default.enumerator(atPath: world.garage.path)?.allObjects as? [String] ?? []
        #expect(!inGarage.contains { $0.hasSuffix("strava-token.json") || $0.hasSuffix("strava-credentials.json") }, "\(inGarage)")
        #expect(await world.server.requests(to: "/oauth/token") == 0)
    }

    @Test func aConfigFolderAndTokenFilesOpenToOthersAreTightenedWithAWarning() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.setBikes(athlete: [], all: [])
        try await world.login()
        let folder = world.config.path + "/bikecheck"
        chmod(folder, 0o777)
        chmod(world.tokenPath, 0o644)
        chmod(folder + "/strava-credentials.json", 0o664)
        let r = try await world.run(["whoami"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("warning: '\(folder)' was open to other users (mode 0777); bikecheck set it to 0700"), "\(r.stderr)")
        #expect(r.stderr.contains("warning: '\(world.tokenPath)' was open to other users (mode 0644); bikecheck set it to 0600"))
        #expect(r.stderr.contains("strava-credentials.json' was open to other users (mode 0664)"))
        #expect(r.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }.count == 3)
        #expect(try fileMode(folder) == 0o700)
        #expect(try fileMode(world.tokenPath) == 0o600)
        #expect(try fileMode(folder + "/strava-credentials.json") == 0o600)
        let again = try await world.run(["whoami"])
        #expect(!again.stderr.contains("warning"), "\(again.stderr)")
    }

    @Test func anEchoingTokenEndpointNeverPrintsASecret() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        let code = "one-time-code-5f4e3d"
        await world.server.authorize(code: code)
        world.server.hostile.arm(.echo(status: 400), on: "/oauth/token")
        let login = try await world.pasteLogin(code: code)
        #expect(login.status == 1)
        #expect(
            login.stderr.contains(
                "did not accept the authorisation code (cannot process request: body client_id=424242&client_secret=[redacted]&code=[redacted]&grant_type=authorization_code"
            ), "\(login.stderr)")
        #expect(!login.stderr.contains(code))

        // A refresh of an expired login, echoed: neither the refresh token nor the secret shows.
        try FileManager.default.createDirectory(atPath: world.config.path + "/bikecheck", withIntermediateDirectories: true)
        try Data(#"{"access_token":"old-access-77","refresh_token":"old-refresh-88","expires_at":1000}"#.utf8)
            .write(to: URL(fileURLWithPath: world.tokenPath))
        world.server.hostile.arm(.echo(status: 400), on: "/oauth/token")
        let sync = try await world.run(["sync"])
        #expect(sync.status == 1)
        #expect(
            sync.stderr.contains(
                "refresh refused: cannot process request: body client_id=424242&client_secret=[redacted]&grant_type=refresh_token&refresh_token=[redacted]"),
            "\(sync.stderr)")
        #expect(!sync.stderr.contains("old-refresh-88"))
    }

    // MARK: - Refresh-token rotation

    @Test func twoSyncsInTwoGaragesSharingOneLoginRefreshOnceAndBothSucceed() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.setActivities(StandInActivity.generate(count: 30))
        _ = try await Self.seedNearExpiry(world)
        let second = try TemporaryFolder(["garage.yaml": "name: Second garage\n"])
        // The refresh reply takes a while, so both processes want one at the same time.
        world.server.hostile.arm(.delayReply(seconds: 0.5), on: "/oauth/token", times: 2)
        async let a = world.run(["sync"])
        async let b = world.run(["sync", "--garage", second.path])
        let (ra, rb) = try await (a, b)
        world.server.hostile.disarmAll()
        #expect(ra.status == 0, "\(ra.stderr)")
        #expect(rb.status == 0, "\(rb.stderr)")
        #expect(await world.server.requests(to: "/oauth/token") == 1)
        #expect((ra.stderr + rb.stderr).contains("using the Strava login another bikecheck renewed"), "\(ra.stderr)\(rb.stderr)")
        let saved = try world.savedToken()
        #expect(saved["refresh_token"] as? String == (await world.server.currentRefreshToken))
        #expect(world.cachedActivities().count == 30)
    }

    @Test func aTokenEndpointSlowerThanTheBoundDoesNotLoseTheLoginWhileTheAccessTokenWorks() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.setActivities(StandInActivity.generate(count: 30))
        let expires = try await Self.seedNearExpiry(world)
        // Strava rotates at once, but its answer arrives after the client gave up.
        world.server.hostile.arm(.delayReply(seconds: 2), on: "/oauth/token")
        let slow = try await world.run(["sync"], extra: ["BIKECHECK_HTTP_TIMEOUT_MS": "800"])
        #expect(slow.status == 0, "\(slow.stderr)")
        #expect(slow.stderr.contains("could not renew the Strava login (cannot reach Strava: no complete answer from '127.0.0.1:"), "\(slow.stderr)")
        #expect(slow.stderr.contains("the saved access token still works until"))
        // A refresh whose outcome is unknown is not repeated (a listing slowed past the short bound
        // by a loaded machine may be: that is not what this test is about).
        #expect(slow.stderr.contains("not repeating a request that may have taken effect"), "\(slow.stderr)")
        let refreshes = await world.server.requests(to: "/oauth/token")
        #expect(refreshes == 1, "\(slow.stderr)")
        #expect(world.cachedActivities().count == 30)
        #expect(try world.savedToken()["refresh_token"] as? String == "near-refresh")

        // The rotated refresh token never arrived: the next command says so and still works.
        let next = try await world.run(["sync"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(
            next.stderr.contains(
                "note: Strava refused to renew the login (refresh refused: Bad Request; RefreshToken refresh_token invalid); the saved access token still works until "
            ), "\(next.stderr)")
        #expect(next.stderr.contains(": run 'bikecheck login' before then"))
        #expect(await world.server.requests(to: "/oauth/token") == 2)
        _ = expires
    }

    @Test func aKillWhileTheRefreshReplyIsInFlightLeavesTheNextCommandWorking() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.setActivities(StandInActivity.generate(count: 30))
        _ = try await Self.seedNearExpiry(world)
        world.server.hostile.arm(.delayReply(seconds: 4), on: "/oauth/token")
        let process = Process()
        process.executableURL = bikecheckBinary
        process.arguments = ["sync"]
        process.currentDirectoryURL = world.garage.root
        process.environment = ProcessInfo.processInfo.environment.merging(await world.environment) { _, new in new }
            .merging(["NO_COLOR": "1", "BIKECHECK_GARAGE": ""]) { _, new in new }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Strava has the refresh request and has rotated the tokens; its reply is on its way.
        for _ in 0..<500 where await world.server.requests(to: "/oauth/token") == 0 {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(await world.server.currentRefreshToken != "near-refresh")
        kill(process.processIdentifier, SIGKILL)
        await withCheckedContinuation { c in
            DispatchQueue.global().async {
                process.waitUntilExit(); c.resume()
            }
        }
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(try world.savedToken()["refresh_token"] as? String == "near-refresh", "the token file is as it was")

        let next = try await world.run(["sync"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(next.stderr.contains("the saved access token still works until"), "\(next.stderr)")
        #expect(world.cachedActivities().count == 30)
    }
}
