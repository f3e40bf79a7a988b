import BikeCheckKit
import Foundation

/// Where Strava lives, who the app is, and where its secrets are kept: read once from the
/// environment (and garage.yaml), then passed in, so nothing reads globals later.
public struct StravaSettings: Sendable {
    /// `https://www.strava.com`, or `BIKECHECK_STRAVA_URL` (tests point it at 127.0.0.1).
    public var baseURL: URL
    /// `$XDG_CONFIG_HOME/bikecheck`, else `~/.config/bikecheck`.
    public var configDirectory: String
    public var clientID: String?
    public var clientSecret: String?
    /// First retry delay; doubles each time (`BIKECHECK_RETRY_BASE_MS`, default 1000).
    public var retryBaseMilliseconds: Int
    public var maxAttempts: Int

    public init(baseURL: URL, configDirectory: String, clientID: String?, clientSecret: String?,
                retryBaseMilliseconds: Int = 1000, maxAttempts: Int = 4) {
        self.baseURL = baseURL
        self.configDirectory = configDirectory
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.retryBaseMilliseconds = retryBaseMilliseconds
        self.maxAttempts = maxAttempts
    }

    /// Settings from the environment: `STRAVA_CLIENT_ID`, else garage.yaml's client id, else the
    /// credentials file; `STRAVA_CLIENT_SECRET`, else the credentials file.
    public static func from(environment env: [String: String], garageClientID: String?) -> StravaSettings {
        let base = env["BIKECHECK_STRAVA_URL"].flatMap { $0.isEmpty ? nil : URL(string: $0) } ?? URL(string: "https://www.strava.com")!
        var config = env["XDG_CONFIG_HOME"] ?? ""
        if !config.hasPrefix("/") {
            config = (env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()) + "/.config"
        }
        let directory = config + "/bikecheck"
        let saved = AppCredentials.load(directory: directory)
        let id = nonEmpty(env["STRAVA_CLIENT_ID"]) ?? nonEmpty(garageClientID) ?? saved?.clientID
        var secret = nonEmpty(env["STRAVA_CLIENT_SECRET"])
        if secret == nil, let saved, saved.clientID == id { secret = saved.clientSecret }
        let retry = env["BIKECHECK_RETRY_BASE_MS"].flatMap(Int.init) ?? 1000
        return StravaSettings(baseURL: base, configDirectory: directory, clientID: id, clientSecret: secret,
                              retryBaseMilliseconds: max(0, retry))
    }

    public var tokenPath: String { configDirectory + "/strava-token.json" }
    public var credentialsPath: String { configDirectory + "/strava-credentials.json" }

    /// Refuses a config folder inside the garage: tokens must never be committed with it.
    public func checkOutside(garage root: String) throws {
        let dir = URL(fileURLWithPath: configDirectory).standardizedFileURL.resolvingSymlinksInPath().path + "/"
        let garage = URL(fileURLWithPath: root).standardizedFileURL.resolvingSymlinksInPath().path + "/"
        if dir.hasPrefix(garage) { throw StravaError.insideGarage(configDirectory) }
    }

    static func nonEmpty(_ s: String?) -> String? {
        guard let s = s?.trimmingCharacters(in: .whitespaces), !s.isEmpty else { return nil }
        return s
    }
}

/// The rider's own Strava API application, kept (mode 0600) so refreshes work without the
/// environment variables.
public struct AppCredentials: Codable, Equatable, Sendable {
    public var clientID: String
    public var clientSecret: String

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id", clientSecret = "client_secret"
    }

    public init(clientID: String, clientSecret: String) {
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    static func load(directory: String) -> AppCredentials? {
        guard let data = FileManager.default.contents(atPath: directory + "/strava-credentials.json") else { return nil }
        return try? JSONDecoder().decode(AppCredentials.self, from: data)
    }

    func save(directory: String) throws {
        try AtomicFile.makeDirectory(directory, mode: 0o700)
        try AtomicFile.write(SecretFile.encode(self), to: directory + "/strava-credentials.json", mode: 0o600)
    }
}

/// The tokens from Strava's OAuth exchange. Never printed: `description` hides them.
public struct StravaToken: Codable, Equatable, Sendable, CustomStringConvertible {
    public var accessToken: String
    public var refreshToken: String
    /// Epoch seconds.
    public var expiresAt: Int64
    /// The scopes the rider granted, as the redirect reported them (nil when unknown).
    public var scope: String?
    public var athleteID: Int64?
    public var athleteName: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", refreshToken = "refresh_token", expiresAt = "expires_at"
        case scope, athleteID = "athlete_id", athleteName = "athlete_name"
    }

    public init(accessToken: String, refreshToken: String, expiresAt: Int64, scope: String? = nil,
                athleteID: Int64? = nil, athleteName: String? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.scope = scope
        self.athleteID = athleteID
        self.athleteName = athleteName
    }

    public var description: String { "StravaToken(athlete: \(athleteID.map(String.init) ?? "?"), expires_at: \(expiresAt))" }
}

/// The token file, `strava-token.json` in the config folder, mode 0600 from creation.
public struct TokenStore: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    public func load() -> StravaToken? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? JSONDecoder().decode(StravaToken.self, from: data)
    }

    public func save(_ token: StravaToken) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try AtomicFile.makeDirectory(directory, mode: 0o700)
        try AtomicFile.write(SecretFile.encode(token), to: path, mode: 0o600)
    }

    /// Deletes the token file; true if there was one.
    @discardableResult
    public func delete() -> Bool {
        (try? FileManager.default.removeItem(atPath: path)) != nil
    }
}

enum SecretFile {
    static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return Array((try? encoder.encode(value)) ?? Data()) + [0x0A]
    }
}
