import BikeCheckKit
import Foundation

/// Logging in and out, and keeping the login fresh: Strava's OAuth.
extension StravaClient {
    /// The scopes bikecheck asks for: bikes need `profile:read_all`, private rides `activity:read_all`.
    package static let scopes = ["read", "profile:read_all", "activity:read_all"]

    /// The page the rider opens to authorise bikecheck.
    package func authorizeURL(redirectURI: String, state: String, force: Bool) throws -> URL {
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
    package func exchange(code: String, grantedScope: String?) throws -> StravaToken {
        let app = try appCredentials()
        let reply = try send(
            form: [
                "client_id": app.clientID, "client_secret": app.clientSecret,
                "code": code, "grant_type": "authorization_code",
            ], to: "oauth/token")
        guard reply.status == 200 else {
            if reply.status == 400 || reply.status == 401 { throw StravaError.badCode(serverText(reply.body)) }
            throw failure(reply)
        }
        guard let r = try? JSONDecoder().decode(TokenResponse.self, from: reply.body) else {
            throw StravaError.badResponse("the token response could not be read")
        }
        secrets.formUnion([r.accessToken, r.refreshToken])
        let saved = StravaToken(
            accessToken: r.accessToken, refreshToken: r.refreshToken, expiresAt: r.expiresAt,
            scope: grantedScope, athleteID: r.athlete?.id, athleteName: r.athlete?.displayName)
        try app.save(directory: settings.configDirectory)
        let lock = try refreshLock()
        try tokens.save(saved)
        withExtendedLifetime(lock) {}
        token = saved
        return saved
    }

    /// What `deauthorize` did.
    package enum Logout: Equatable, Sendable {
        /// Strava confirmed the revocation; the tokens are deleted.
        case revoked
        /// Strava did not confirm (unreachable, or it said no); the tokens are deleted.
        case unconfirmed
        /// There were no saved tokens: nothing to do.
        case notLoggedIn
        /// The token file could not be read, so nothing could be revoked; it is deleted.
        case unreadable(path: String, reason: String)
    }

    /// Revokes bikecheck's access on Strava, then deletes the local tokens whatever Strava said.
    /// `POST oauth/revoke`: HTTP Basic with the app's id and secret, the refresh token in the
    /// body (revoking it revokes the access token too). Before 2027-06-01, when Strava does not
    /// know `oauth/revoke` (404) or the app's secret is missing, `oauth/deauthorize` instead, with
    /// the access token in the Authorization header only (never a form field or the query).
    package func deauthorize() -> Logout {
        let saved: StravaToken?
        do {
            saved = try tokens.read()
        } catch StravaError.unreadableToken(let path, let reason) {
            tokens.delete()
            return .unreadable(path: path, reason: reason)
        } catch {
            return .notLoggedIn
        }
        guard var current = saved else { return .notLoggedIn }
        defer { tokens.delete() }
        token = current
        remember(current)
        if let app = try? appCredentials() {
            let basic = Data("\(app.clientID):\(app.clientSecret)".utf8).base64EncodedString()
            secrets.formUnion([app.clientSecret, basic])
            let reply = try? send(form: ["token": current.refreshToken], to: "oauth/revoke", authorization: "Basic " + basic)
            if reply?.status == 200 { return .revoked }
            guard reply?.status == 404 else { return .unconfirmed }
        }
        guard now() < StravaSettings.deauthorizeEnds else { return .unconfirmed }
        // Strava deauthorizes by access token; an expired one would be refused.
        if secondsLeft(current) < 60, (try? refresh(.expiring)) != nil { current = token ?? current }
        let reply = try? send(form: [:], to: "oauth/deauthorize", authorization: "Bearer " + current.accessToken)
        return reply?.status == 200 ? .revoked : .unconfirmed
    }

    /// The saved token, if any (without contacting Strava); nil also when the file is unreadable.
    package var savedToken: StravaToken? { tokens.load() }

    /// The saved token, nil when not logged in; a corrupt token file is an error that says so.
    package func readSavedToken() throws -> StravaToken? { try tokens.read() }

    func appCredentials() throws -> AppCredentials {
        try settings.appCredentials()
    }

    /// Why a refresh is wanted: the access token is about to expire, or Strava refused this one.
    enum RefreshReason: Equatable {
        case expiring
        case rejected(accessToken: String)
    }

    /// Seconds before an access token expires at which bikecheck renews it: 50 minutes. Strava
    /// issues a new token only within the last hour, and the old access token keeps working
    /// until it expires, so a renewal whose answer is lost leaves up to 50 minutes to notice.
    static let renewalMargin: Int64 = 3000

    func secondsLeft(_ t: StravaToken) -> Int64 { t.expiresAt - Int64(now().timeIntervalSince1970) }

    func refreshLock() throws -> RefreshLock {
        // Long enough for another process's refresh with all its retries.
        let timeout =
            Double(settings.maxAttempts) * (Double(settings.requestTimeoutMilliseconds) / 1000 + 1)
            + Double(settings.retryBaseMilliseconds << max(0, settings.maxAttempts - 1)) / 1000 + 5
        return try RefreshLock(path: settings.refreshLockPath, timeout: timeout) {
            log("waiting for another bikecheck that is renewing the Strava login")
        }
    }

    /// Trades the refresh token for new tokens, holding the refresh lock. Inside the lock the
    /// token file is read again: when another process has renewed the login meanwhile, its
    /// tokens are used and nothing is sent. The new refresh token replaces the old one on disk
    /// before the new access token is used: Strava invalidates the old one at once. A refresh
    /// whose outcome is unknown (sent, then no whole answer) is never repeated.
    func refresh(_ reason: RefreshReason) throws {
        let lock = try refreshLock()
        defer { withExtendedLifetime(lock) {} }
        guard var current = try tokens.read() ?? token else { throw StravaError.notLoggedIn }
        remember(current)
        if let mine = token, current.accessToken != mine.accessToken || current.refreshToken != mine.refreshToken {
            let fresh: Bool
            switch reason {
            case .expiring: fresh = secondsLeft(current) >= Self.renewalMargin
            case .rejected(let refused): fresh = current.accessToken != refused
            }
            if fresh {
                log("using the Strava login another bikecheck renewed")
                token = current
                return
            }
        }
        let app = try appCredentials()
        log("refreshing the Strava access token")
        let reply = try send(
            form: [
                "client_id": app.clientID, "client_secret": app.clientSecret,
                "grant_type": "refresh_token", "refresh_token": current.refreshToken,
            ], to: "oauth/token")
        guard reply.status == 200 else {
            if reply.status == 400 || reply.status == 401 {
                throw StravaError.loginExpired("refresh refused: \(serverText(reply.body))")
            }
            throw failure(reply)
        }
        guard let r = try? JSONDecoder().decode(TokenResponse.self, from: reply.body) else {
            throw StravaError.badResponse("the refresh response could not be read")
        }
        secrets.formUnion([r.accessToken, r.refreshToken])
        current.accessToken = r.accessToken
        current.refreshToken = r.refreshToken
        current.expiresAt = r.expiresAt
        try tokens.save(current)
        token = current
    }

    /// Renews a login about to expire. When that fails but the saved access token still works
    /// (Strava keeps an old access token valid until it expires, even after a rotation), it
    /// says so and goes on with it; only an expired token makes the failure final.
    func renewIfExpiring(_ current: StravaToken) throws -> StravaToken {
        guard secondsLeft(current) < Self.renewalMargin else { return current }
        // Tried once in this run already: one attempt (and one note) per command.
        if renewalFailed, secondsLeft(current) > 10 { return current }
        do {
            try refresh(.expiring)
        } catch let error as StravaError {
            guard secondsLeft(current) > 10 else { throw error }
            renewalFailed = true
            let until = StravaError.format(Date(timeIntervalSince1970: TimeInterval(current.expiresAt)))
            if case .loginExpired(let why) = error {
                log("Strava refused to renew the login (\(why)); the saved access token still works until \(until): run 'bikecheck login' before then")
            } else {
                log("could not renew the Strava login (\(error)); the saved access token still works until \(until)")
            }
            token = current
            return current
        }
        return token ?? current
    }
}
