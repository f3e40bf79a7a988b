import BikeCheckKit
import Foundation

/// The decisions of a Strava login, apart from printing and listening: the state that ties a
/// redirect to the login that asked for it, reading a pasted address, and when a login may start.
///
/// A browser login on this machine keeps its state in memory and checks Strava's redirect
/// against it. A manual login (`login --manual`, for a machine without a browser) saves its state
/// in the config folder (`strava-login-state.json`, mode 0600, valid for an hour); the rider
/// pastes the whole address the browser ends on, and its state must match the saved one. A bare
/// code carries no state, so it is refused. The saved state is used once: a successful login
/// deletes it.
package struct StravaLogin: Sendable {
    package let settings: StravaSettings

    package init(settings: StravaSettings) { self.settings = settings }

    /// How long a manual login waits for its pasted address.
    package static let pendingLifetime: TimeInterval = 3600

    /// Where a manual login's state waits for the pasted address.
    package var pendingPath: String { settings.configDirectory + "/strava-login-state.json" }

    /// What Strava's redirect carried, once checked.
    package struct Callback: Equatable, Sendable {
        package var code: String
        /// The scopes the rider granted; nil when the redirect did not say.
        package var scope: String?
    }

    /// A fresh random state: 16 bytes, hex.
    package static func randomState() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &g)) }.joined()
    }

    /// Refuses to start a login that could not finish: the app's client id and secret must be
    /// known before the rider is sent to approve anything.
    package func requireCredentials() throws {
        _ = try settings.appCredentials()
    }

    /// The code and scope of a redirect whose state must be `expected`. A denial is reported as
    /// one whatever its state (it grants nothing).
    package static func callback(_ parameters: [String: String], expectedState expected: String) throws -> Callback {
        if let error = parameters["error"] {
            throw error == "access_denied" ? StravaError.accessDenied : StravaError.badCode(error)
        }
        guard let state = parameters["state"], state == expected else { throw StravaError.stateMismatch }
        guard let code = parameters["code"], !code.isEmpty else { throw StravaError.badCode("no code in the redirect") }
        return Callback(code: code, scope: parameters["scope"])
    }

    /// The query parameters of a pasted redirect address (or of a pasted query, `state=…&code=…`);
    /// a lone word is taken for a bare code.
    package static func parameters(fromPasted text: String) -> [String: String] {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.contains("?") || trimmed.contains("="),
            let c = URLComponents(string: trimmed.contains("?") ? trimmed : "x:?" + trimmed)
        else {
            return ["code": trimmed]
        }
        var out: [String: String] = [:]
        for item in c.queryItems ?? [] { out[item.name] = item.value ?? "" }
        return out
    }

    struct Pending: Codable {
        var state: String
        /// Epoch seconds.
        var created: Int64
    }

    /// Saves a manual login's state for the pasted address to be checked against.
    package func savePending(state: String, now: Date = Date()) throws {
        try AtomicFile.makeDirectory(settings.configDirectory, mode: 0o700)
        _ = try AtomicFile.write(SecretFile.encode(Pending(state: state, created: Int64(now.timeIntervalSince1970))), to: pendingPath, mode: 0o600)
    }

    /// The code and scope of a pasted address, checked against the saved manual login.
    package func checkPasted(_ text: String, now: Date = Date()) throws -> Callback {
        let parameters = Self.parameters(fromPasted: text)
        if parameters["error"] == nil, (parameters["state"] ?? "").isEmpty { throw StravaError.pastedWithoutState }
        let data: Data
        switch readFile(pendingPath, limit: FileSizeLimit.localState) {
        case .bytes(let bytes): data = Data(bytes)
        case .tooLarge(let size):
            throw StravaError.noPendingLogin(
                "the saved login state '\(pendingPath)' is \(FileSizeLimit.describe(size)), more than a file of local state may be (\(FileSizeLimit.describe(FileSizeLimit.localState)))"
            )
        case .unreadable: throw StravaError.noPendingLogin("no manual login is waiting for a pasted address")
        }
        guard let pending = try? JSONDecoder().decode(Pending.self, from: data) else {
            throw StravaError.noPendingLogin("the saved login state '\(pendingPath)' cannot be read")
        }
        if now.timeIntervalSince1970 - Double(pending.created) > Self.pendingLifetime {
            throw StravaError.noPendingLogin("the manual login waiting for this address is over an hour old")
        }
        return try Self.callback(parameters, expectedState: pending.state)
    }

    /// Forgets the saved manual login (after it was used).
    package func clearPending() { try? FileManager.default.removeItem(atPath: pendingPath) }
}
