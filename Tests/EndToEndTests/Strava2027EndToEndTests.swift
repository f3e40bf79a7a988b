import Foundation
import StravaStandIn
import TestSupport
import Testing

/// Strava's developer program changes of 2026–27 as a rider meets them, against the stand-in:
/// logout through `oauth/revoke`, an inactive application, and the API's new host.
@Suite(.serialized) struct Strava2027EndToEndTests {
    static let rides = (0..<5).map { i in
        StandInActivity(
            id: 7_100_000 + Int64(i), name: "Ride \(i)", sportType: "Ride", start: 1_780_000_000 + Int64(i) * 86_400,
            movingTime: 3600, elapsedTime: 3700, distance: 30_000, gearID: "b1001")
    }

    /// Every file under `folder`, relative path → bytes, but for the activity index (derived
    /// from the cache, built by any command that reads it: status too).
    static func bytes(of folder: URL) -> [String: Data] {
        var out: [String: Data] = [:]
        for case let path as String in FileManager.default.enumerator(atPath: folder.path) ?? FileManager.DirectoryEnumerator()
        where !path.hasPrefix(".bikecheck/activity-index") {
            let url = folder.appendingPathComponent(path)
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
                out[path] = (try? Data(contentsOf: url)) ?? Data()
            }
        }
        return out
    }

    @Test func logoutRevokesThroughOAuthRevokeWithBasicAuthAndTheRefreshTokenInTheBodyOnly() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        try await world.login()
        let token = try world.savedToken()
        let access = try #require(token["access_token"] as? String)
        let refresh = try #require(token["refresh_token"] as? String)
        await world.server.resetCounts()
        let r = try await world.run(["logout"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Strava revoked bikecheck's access"), "\(r.stdout)")
        let posts = await world.server.posts
        #expect(posts.map(\.path) == ["/oauth/revoke"], "no deauthorize while revoke answers: \(posts.map(\.path))")
        let basic = "Basic " + Data("\(await world.server.clientID):\(await world.server.clientSecret)".utf8).base64EncodedString()
        #expect(posts.first?.authorization == basic)
        #expect(posts.first?.form == ["token": refresh], "the refresh token, in the body alone")
        #expect(await world.server.log.allSatisfy { $0.query.isEmpty }, "no query carries anything")
        #expect(!(await world.server.isValid(accessToken: access)), "revoking the refresh token revoked the access token")
        #expect(!FileManager.default.fileExists(atPath: world.tokenPath))
    }

    @Test func beforeJune2027LogoutFallsBackToDeauthorizeWithTheTokenInTheHeaderWhenRevokeIsNotFound() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        try await world.login()
        let access = try #require(try world.savedToken()["access_token"] as? String)
        await world.server.setRevokeAvailable(false)
        await world.server.resetCounts()
        let r = try await world.run(["logout"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Strava revoked bikecheck's access"), "\(r.stdout)")
        let posts = await world.server.posts
        #expect(posts.map(\.path) == ["/oauth/revoke", "/oauth/deauthorize"], "\(posts.map(\.path))")
        #expect(posts.last?.authorization == "Bearer " + access)
        #expect(posts.last?.form == [:], "no token in a form field of deauthorize")
        #expect(!(await world.server.isValid(accessToken: access)))
    }

    @Test func anInactiveApplicationSaysWhatHappenedAndWhatToDoAndTouchesNoByteOfTheGarage() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.setBikes(athlete: StravaEndToEndTests.bikes, all: StravaEndToEndTests.bikes)
        await world.server.setActivities(Self.rides)
        try await world.login()
        let first = try await world.run(["sync"])
        #expect(first.status == 0, "\(first.stderr)")
        await world.server.setActivities(
            Self.rides + [StandInActivity(id: 7_200_000, name: "New", sportType: "Ride", start: 1_781_000_000, movingTime: 60, elapsedTime: 60, distance: 1000)]
        )
        await world.server.setApplicationInactive(true)
        let before = Self.bytes(of: world.garage.root)
        #expect(before.keys.contains { $0.hasPrefix("activities/") })
        for arguments in [["sync"], ["sync", "--full"], ["whoami"]] {
            let r = try await world.run(arguments)
            #expect(r.status == 1, "\(arguments): \(r.stdout)\(r.stderr)")
            #expect(r.stderr.contains("the API application bikecheck uses is inactive"), "\(r.stderr)")
            #expect(r.stderr.contains("works only while its owner has a Strava subscription"), "\(r.stderr)")
            #expect(r.stderr.contains("reactivate the application at https://www.strava.com/settings/api"), "\(r.stderr)")
            #expect(!r.stderr.contains("HTTP 403: Forbidden"), "the old words are gone: \(r.stderr)")
            #expect(Self.bytes(of: world.garage.root) == before, "\(arguments) changed the garage")
        }

        // Another refusal stays what it is.
        await world.server.setApplicationInactive(false)
        await world.server.setForbidden(true)
        let other = try await world.run(["sync"])
        #expect(other.status == 1)
        #expect(other.stderr.contains("Strava answered HTTP 403: Forbidden"), "\(other.stderr)")
        #expect(!other.stderr.contains("inactive"), "\(other.stderr)")
    }

    @Test func theNewAPIHostIsUsedWhenItAnswersAndTheOldBaseWhenItDoesNotSaidOnce() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.setBikes(athlete: StravaEndToEndTests.bikes, all: StravaEndToEndTests.bikes)
        await world.server.setActivities(Self.rides)
        try await world.login()
        let newHost = await world.server.apiBaseURL
        let oldBase = await world.server.baseURL + "/api/v3"

        // The new host answers: everything goes there, nothing said.
        await world.server.resetCounts()
        let served = try await world.run(["sync", "--full"], extra: ["BIKECHECK_STRAVA_API_URL": newHost])
        #expect(served.status == 0, "\(served.stderr)")
        #expect(served.stdout.contains("5 new"), "\(served.stdout)")
        #expect(!served.stderr.contains("does not answer"), "\(served.stderr)")
        #expect(await world.server.apiRequestsByHost["old"] == nil)
        #expect((await world.server.apiRequestsByHost["new"] ?? 0) >= 2)

        // The new host answers 404 at its base (not open yet): the old base, said once.
        await world.server.setNewHostServing(false)
        await world.server.resetCounts()
        let notYet = try await world.run(["sync", "--full"], extra: ["BIKECHECK_STRAVA_API_URL": newHost])
        #expect(notYet.status == 0, "\(notYet.stderr)")
        let said = notYet.stderr.split(separator: "\n").filter { $0.contains("does not answer") }
        #expect(
            said == ["note: the Strava API host '\(newHost)' does not answer (HTTP 404 at its base); using '\(oldBase)' for this run"],
            "\(notYet.stderr)")
        #expect(await world.server.apiRequestsByHost["new"] == 1, "asked once, never in a loop")
        #expect((await world.server.apiRequestsByHost["old"] ?? 0) >= 2)

        // Nothing listens there (connection refused): the same, without retries.
        let closed = "http://127.0.0.1:1"
        let refused = try await world.run(["whoami"], extra: ["BIKECHECK_STRAVA_API_URL": closed])
        #expect(refused.status == 0, "\(refused.stderr)")
        let saidAgain = refused.stderr.split(separator: "\n").filter { $0.contains("does not answer") }
        #expect(saidAgain.count == 1 && saidAgain[0].contains("'\(closed)'") && saidAgain[0].contains("'\(oldBase)'"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("retrying"), "\(refused.stderr)")
    }
}
