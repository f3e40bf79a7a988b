import Foundation

/// Why a Strava operation stopped; each has a one-line message for the rider.
package enum StravaError: Error, CustomStringConvertible, Equatable {
    case notLoggedIn
    /// The token file exists but cannot be read or decoded.
    case unreadableToken(path: String, reason: String)
    /// `login --code` was given something without the state a login can be checked by.
    case pastedWithoutState
    /// `login --code` with no pending `login --manual` to check it against (or one too old).
    case noPendingLogin(String)
    case missingClientID
    case missingClientSecret
    /// The credentials file exists and cannot be used, and the id or secret it would give is missing.
    case unreadableCredentials(path: String, reason: String)
    /// Strava rejected the tokens even after a refresh; only a new login helps.
    case loginExpired(String)
    case accessDenied
    case stateMismatch
    case loginTimedOut(Int)
    case badCode(String)
    /// A rate limit was reached (or would be by the next request); `window` is "15-minute" or "daily".
    case rateLimited(window: String, resetsAt: Date)
    case http(status: Int, message: String)
    /// HTTP 403 `Application Status Inactive`: the API application the tokens belong to is off.
    case applicationInactive
    case network(String)
    case badResponse(String)
    case insideGarage(String)
    /// The refresh lock could not be taken (another process holds it too long, or it cannot be opened).
    case refreshBusy(String)

    package var description: String {
        switch self {
        case .notLoggedIn: return "not logged in to Strava; run 'bikecheck login'"
        case .unreadableToken(let path, let reason):
            return "the Strava token file '\(path)' is corrupt (\(reason)); run 'bikecheck login' to replace it"
        case .pastedWithoutState:
            return
                "paste the whole address the browser ended on (http://localhost/exchange_token?state=…&code=…), not the code alone: its state shows the approval is the one 'bikecheck login --manual' asked for"
        case .noPendingLogin(let why): return "\(why); run 'bikecheck login --manual' and paste the address it leads to"
        case .missingClientID:
            return "no Strava client id; set STRAVA_CLIENT_ID or 'strava: {client_id: …}' in garage.yaml (create an app at https://www.strava.com/settings/api)"
        case .missingClientSecret:
            return "no Strava client secret; set STRAVA_CLIENT_SECRET (bikecheck keeps it in its credentials file after the first login)"
        case .unreadableCredentials(let path, let reason):
            return
                "the Strava credentials file '\(path)' cannot be used (\(reason)); set STRAVA_CLIENT_ID and STRAVA_CLIENT_SECRET, and 'bikecheck login' replaces it"
        case .loginExpired(let why): return "Strava no longer accepts bikecheck's authorisation (\(why)); run 'bikecheck login' again"
        case .accessDenied: return "access was denied on Strava's page; run 'bikecheck login' and press Authorize"
        case .stateMismatch: return "the redirect's state does not match this login (a stale or forged redirect); run 'bikecheck login' again"
        case .loginTimedOut(let s): return "no redirect from Strava within \(s) s; run 'bikecheck login' again, or use 'bikecheck login --code CODE'"
        case .badCode(let why): return "Strava did not accept the authorisation code (\(why)); codes work once and expire quickly: run 'bikecheck login' again"
        case .rateLimited(let window, let reset):
            return "stopped at Strava's \(window) rate limit; nothing is lost: run 'bikecheck sync' again after \(Self.format(reset)) (the limit resets then)"
        case .applicationInactive:
            return
                "Strava says the API application bikecheck uses is inactive (HTTP 403, Application Status Inactive): since 2026-06-30 a Standard Tier application works only while its owner has a Strava subscription. Nothing was changed. The application's owner: subscribe, then reactivate the application at https://www.strava.com/settings/api; then run the command again"
        case .http(let status, let message): return "Strava answered HTTP \(status)\(message.isEmpty ? "" : ": " + message)"
        case .network(let why): return "cannot reach Strava: \(why)"
        case .badResponse(let why): return "unexpected answer from Strava: \(why)"
        case .insideGarage(let path): return "refusing to keep Strava tokens inside the garage ('\(path)'); point XDG_CONFIG_HOME elsewhere"
        case .refreshBusy(let why): return "\(why); try again in a moment"
        }
    }

    package static func format(_ date: Date, seconds: Bool = false) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = seconds ? "yyyy-MM-dd HH:mm:ss 'UTC'" : "yyyy-MM-dd HH:mm 'UTC'"
        return f.string(from: date)
    }
}
