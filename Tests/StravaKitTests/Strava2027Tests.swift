import Foundation
import StravaKit
import StravaStandIn
import Testing

/// The dates of Strava's 2027 changes, with the client's clock injected.
@Suite(.serialized) struct Strava2027Tests {
    static func day(_ text: String) -> Date { ISO8601DateFormatter().date(from: text + "T00:00:00Z")! }

    static func settings(_ base: String, apiURL: String? = nil, config: String = "/nonexistent") -> StravaSettings {
        var s = StravaSettings(
            baseURL: URL(string: base)!, configDirectory: config, clientID: "424242", clientSecret: "stand-in-client-secret-9f8e7d",
            retryBaseMilliseconds: 1, maxAttempts: 3)
        s.apiURL = apiURL.flatMap { URL(string: $0) }
        return s
    }

    @Test func theNewAPIHostIsTheDefaultFromTheFourthOfJanuary2027AndANamedHostIsTriedFirstWhateverTheDate() {
        let strava = Self.settings("https://www.strava.com")
        let old = URL(string: "https://www.strava.com/api/v3")!
        let new = URL(string: "https://api-v3.strava.com")!
        #expect(strava.apiBases(at: Self.day("2027-01-03")) == [old])
        #expect(strava.apiBases(at: Self.day("2027-01-04")) == [new, old])
        let named = Self.settings("https://www.strava.com", apiURL: "http://127.0.0.1:9")
        #expect(named.apiBases(at: Self.day("2026-11-27")) == [URL(string: "http://127.0.0.1:9")!, old])
        let env = StravaSettings.from(environment: ["BIKECHECK_STRAVA_API_URL": "http://127.0.0.1:9", "HOME": "/nonexistent"], garageClientID: nil)
        #expect(env.apiURL == URL(string: "http://127.0.0.1:9")!)
        #expect(env.baseURL == URL(string: "https://www.strava.com")!, "the OAuth host stays")
    }

    func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { c in DispatchQueue.global().async { c.resume(with: Result { try work() }) } }
    }

    @Test func fromJuneFirst2027LogoutNeverFallsBackToDeauthorize() async throws {
        let server = StravaStandIn()
        try await server.start()
        defer { Task { await server.stop() } }
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("client-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: config) }
        for (date, expected) in [("2027-05-31", StravaClient.Logout.revoked), ("2027-06-01", .unconfirmed)] {
            await server.authorize(code: "c")
            await server.setRevokeAvailable(false)
            await server.resetCounts()
            nonisolated(unsafe) let client = StravaClient(settings: Self.settings(await server.baseURL, config: config), now: { Self.day(date) })
            _ = try await blocking { try client.exchange(code: "c", grantedScope: nil) }
            let outcome = try await blocking { client.deauthorize() }
            #expect(outcome == expected, "\(date)")
            #expect(await server.requests(to: "/oauth/deauthorize") == (expected == .revoked ? 1 : 0), "\(date)")
            #expect(client.savedToken == nil)
            #expect(await server.tokenViolations.isEmpty)
        }
    }

    @Test func aGearTheNewHostDoesNotKnowIsNotAMissingHost() async throws {
        let server = StravaStandIn()
        try await server.start()
        defer { Task { await server.stop() } }
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("client-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: config) }
        await server.authorize(code: "c")
        nonisolated(unsafe) let client = StravaClient(settings: Self.settings(await server.baseURL, apiURL: await server.apiBaseURL, config: config))
        nonisolated(unsafe) var lines: [String] = []
        client.log = { lines.append($0) }
        _ = try await blocking { try client.exchange(code: "c", grantedScope: nil) }
        let gear = try await blocking { try client.gear("b404") }
        #expect(gear == nil)
        #expect(client.apiBase == URL(string: await server.apiBaseURL)!)
        #expect(await server.apiRequestsByHost["old"] == nil)
        #expect(lines.isEmpty, "\(lines)")
    }
}
