import Foundation
@testable import StravaKit
import Testing

@Suite struct StravaLoginTests {
    func login(_ folder: String) -> StravaLogin {
        StravaLogin(
            settings: StravaSettings(
                baseURL: URL(string: "http://127.0.0.1:1")!, configDirectory: folder + "/bikecheck",
                clientID: "1", clientSecret: "s"))
    }

    @Test func aManualLoginsStateIsGoodForAnHourThenRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bikecheck-login-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let login = login(folder)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        try login.savePending(state: "s1", now: start)
        let address = "http://localhost/exchange_token?state=s1&code=c&scope=read"
        #expect(try login.checkPasted(address, now: start.addingTimeInterval(3599)) == StravaLogin.Callback(code: "c", scope: "read"))
        #expect(throws: StravaError.noPendingLogin("the manual login waiting for this address is over an hour old")) {
            try login.checkPasted(address, now: start.addingTimeInterval(3601))
        }
    }

    @Test func pastedTextIsReadAsAnAddressAQueryOrABareCode() {
        #expect(StravaLogin.parameters(fromPasted: " http://localhost/exchange_token?state=a&code=b \n") == ["state": "a", "code": "b"])
        #expect(StravaLogin.parameters(fromPasted: "state=a&code=b") == ["state": "a", "code": "b"])
        #expect(StravaLogin.parameters(fromPasted: "b0c0de") == ["code": "b0c0de"])
    }

    @Test func aRedirectIsCheckedForDenialThenStateThenCode() throws {
        #expect(throws: StravaError.accessDenied) { try StravaLogin.callback(["error": "access_denied", "state": "x"], expectedState: "s") }
        #expect(throws: StravaError.stateMismatch) { try StravaLogin.callback(["code": "c"], expectedState: "s") }
        #expect(throws: StravaError.badCode("no code in the redirect")) { try StravaLogin.callback(["state": "s"], expectedState: "s") }
        #expect(try StravaLogin.callback(["state": "s", "code": "c"], expectedState: "s") == StravaLogin.Callback(code: "c", scope: nil))
    }
}
