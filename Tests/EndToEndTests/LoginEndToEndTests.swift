import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import StravaStandIn
import TestSupport
import Testing

/// login and logout as a rider meets them: no dead ends, no tab that says more than happened.
@Suite(.serialized) struct LoginEndToEndTests {
    /// Starts `bikecheck login` (listening on 127.0.0.1), plays the browser with `query` after the
    /// printed state, and returns the page the tab showed, the exit status and stderr.
    func browserLogin(_ world: StravaWorld, query: String) async throws -> (page: String, status: Int32, stderr: String) {
        let login = try await world.startBrowserLogin()
        let (_, page) = try await login.returnFromStrava(query)
        let (status, stderr) = await login.finish()
        return (page, status, stderr)
    }

    @Test func theBrowserTabSaysAuthorisedOnlyAfterTheCodeWasExchanged() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        // Strava redirects with the right state, but the code is one it will not exchange.
        let refused = try await browserLogin(world, query: "code=never-issued&scope=read,profile:read_all,activity:read_all")
        #expect(refused.page.contains("not authorised"), "\(refused.page)")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("did not accept the authorisation code"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: world.tokenPath))

        await world.server.authorize(code: "good-code")
        let accepted = try await browserLogin(world, query: "code=good-code&scope=read,profile:read_all,activity:read_all")
        #expect(accepted.page.contains("bikecheck is authorised and logged in to Strava"), "\(accepted.page)")
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(FileManager.default.fileExists(atPath: world.tokenPath))
    }

    @Test func permissionsLeftUntickedAreEachAWarningWithOneHelpUnderTheLast() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.authorize(code: "good-code")
        // The rider unticked both boxes on Strava's page: only `read` comes back.
        let login = try await browserLogin(world, query: "code=good-code&scope=read")
        #expect(login.status == 1, "no rides can be listed: \(login.stderr)")
        let lines = login.stderr.split(separator: "\n").map(String.init).drop { !$0.hasPrefix("warning: ") }
        #expect(
            Array(lines) == [
                "warning: permission not granted: profile:read_all (\"View data about your profile\"): without it Strava hides your bikes",
                "warning: permission not granted: activity:read_all (\"View data about your activities\"): bikecheck cannot list any rides",
                "  help: run 'bikecheck login --force' and leave every box ticked on Strava's page",
            ], "\(login.stderr)")
    }

    @Test func withoutAClientSecretLoginStopsBeforeSendingTheRiderToStrava() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        for arguments in [["login", "--timeout", "3"], ["login", "--manual"]] {
            let r = try await world.run(arguments, extra: ["STRAVA_CLIENT_SECRET": ""])
            #expect(r.status == 1)
            #expect(r.stderr.contains("no Strava client secret"), "\(r.stderr)")
            #expect(!r.stderr.contains("Open this page"), "\(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: world.config.path + "/bikecheck/strava-login-state.json"))
    }

    @Test func aPastedAddressIsCheckedAgainstTheStateTheManualLoginSaved() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.authorize(code: "c0de")
        // Nothing pasted makes sense before a manual login.
        let early = try await world.run(["login", "--code", "http://localhost/exchange_token?state=abc&code=c0de"])
        #expect(early.status == 1)
        #expect(early.stderr.contains("no manual login is waiting for a pasted address"), "\(early.stderr)")

        let state = try await world.manualLoginState()
        let saved = world.config.path + "/bikecheck/strava-login-state.json"
        #expect(try fileMode(saved) == 0o600)
        // A bare code carries no state: refused as a usage error, nothing sent.
        let bare = try await world.run(["login", "--code", "c0de"])
        #expect(bare.status == 2)
        #expect(bare.stderr.hasPrefix("error: paste the whole address the browser ended on"), "\(bare.stderr)")
        // Another login's state: refused, nothing sent.
        let forged = try await world.run(["login", "--code", "http://localhost/exchange_token?state=forged&code=c0de"])
        #expect(forged.status == 1)
        #expect(forged.stderr.contains("state does not match"), "\(forged.stderr)")
        #expect(await world.server.requests(to: "/oauth/token") == 0)

        let address = "http://localhost/exchange_token?state=\(state)&code=c0de&scope=read,profile:read_all,activity:read_all"
        let right = try await world.run(["login", "--code", address])
        #expect(right.status == 0, "\(right.stderr)")
        #expect(FileManager.default.fileExists(atPath: world.tokenPath))
        // The saved state is used once.
        #expect(!FileManager.default.fileExists(atPath: saved))
        let replay = try await world.run(["login", "--code", address])
        #expect(replay.status == 1)
        #expect(replay.stderr.contains("no manual login is waiting"))
    }

    @Test func logoutWhenNotLoggedInIsANoteAndExitsZero() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        let r = try await world.run(["logout"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "note: not logged in to Strava ('\(world.tokenPath)' does not exist); nothing to do\n")
        #expect(await world.server.totalRequests == 0)
    }

    @Test func aCorruptTokenFileIsReportedAsCorruptWithItsPathNotAsLoggedOut() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        try FileManager.default.createDirectory(atPath: world.config.path + "/bikecheck", withIntermediateDirectories: true)
        try Data("{\"access_token\": tru".utf8).write(to: URL(fileURLWithPath: world.tokenPath))
        for arguments in [["whoami"], ["sync"]] {
            let r = try await world.run(arguments)
            #expect(r.status == 1)
            #expect(r.stderr.contains("error: the Strava token file '\(world.tokenPath)' is corrupt"), "\(r.stderr)")
            #expect(!r.stderr.contains("not logged in"), "\(r.stderr)")
        }
        let out = try await world.run(["logout"])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stderr.contains("warning: the Strava token file '\(world.tokenPath)' is corrupt"), "\(out.stderr)")
        #expect(out.stderr.contains("https://www.strava.com/settings/apps"))
        #expect(!FileManager.default.fileExists(atPath: world.tokenPath))
    }
}
