import BikeCheckKit
import Foundation

/// Where Strava lives, who the app is, and where its secrets are kept: read once from the
/// environment (and garage.yaml), then passed in, so nothing reads globals later.
package struct StravaSettings: Sendable {
    /// `https://www.strava.com`, or `BIKECHECK_STRAVA_URL` (tests point it at 127.0.0.1): the
    /// OAuth host, and the old API base under `/api/v3`.
    package var baseURL: URL
    /// `BIKECHECK_STRAVA_API_URL`: the new API host (no `/api/v3` under it), tried first whatever
    /// the date; nil: `newAPIHost` from `newAPIHostFrom` on.
    package var apiURL: URL?
    /// `$XDG_CONFIG_HOME/bikecheck`, else `~/.config/bikecheck`.
    package var configDirectory: String
    package var clientID: String?
    package var clientSecret: String?
    /// First retry delay; doubles each time (`BIKECHECK_RETRY_BASE_MS`, default 1000).
    package var retryBaseMilliseconds: Int
    package var maxAttempts: Int
    /// The bound on one request's total time (`BIKECHECK_HTTP_TIMEOUT_MS`, default 60,000); a
    /// stall ends it sooner (see `CurlTransport.Limits`).
    package var requestTimeoutMilliseconds: Int
    /// Why the credentials file could not be used, when it exists and could not: told when the
    /// id or the secret it would have given is missing.
    package var credentialsProblem: String?
    /// The household rider whose login this is (`--rider NAME`); nil: the garage's one login.
    /// Each rider's token has its own file (`tokenPath`); the application is the same.
    package var rider: String?
    /// How long a rate-limit wait really sleeps, in milliseconds, whatever the window's end
    /// (`BIKECHECK_RATE_LIMIT_WAIT_MS`, for tests against a stand-in whose windows are short);
    /// nil: until the window's end.
    package var rateLimitSleepMilliseconds: Int?

    package init(
        baseURL: URL, configDirectory: String, clientID: String?, clientSecret: String?,
        retryBaseMilliseconds: Int = 1000, maxAttempts: Int = 4, requestTimeoutMilliseconds: Int = 60_000
    ) {
        self.baseURL = baseURL
        self.configDirectory = configDirectory
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.retryBaseMilliseconds = retryBaseMilliseconds
        self.maxAttempts = maxAttempts
        self.requestTimeoutMilliseconds = requestTimeoutMilliseconds
    }

    /// Settings from the environment: `STRAVA_CLIENT_ID`, else garage.yaml's client id, else the
    /// credentials file; `STRAVA_CLIENT_SECRET`, else the credentials file.
    package static func from(environment env: [String: String], garageClientID: String?) -> StravaSettings {
        let base = env["BIKECHECK_STRAVA_URL"].flatMap { $0.isEmpty ? nil : URL(string: $0) } ?? URL(string: "https://www.strava.com")!
        var config = env["XDG_CONFIG_HOME"] ?? ""
        if !config.hasPrefix("/") {
            config = (env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()) + "/.config"
        }
        let directory = config + "/bikecheck"
        let (saved, problem) = AppCredentials.load(directory: directory)
        let id = nonEmpty(env["STRAVA_CLIENT_ID"]) ?? nonEmpty(garageClientID) ?? saved?.clientID
        var secret = nonEmpty(env["STRAVA_CLIENT_SECRET"])
        if secret == nil, let saved, saved.clientID == id { secret = saved.clientSecret }
        let retry = env["BIKECHECK_RETRY_BASE_MS"].flatMap(Int.init) ?? 1000
        let timeout = env["BIKECHECK_HTTP_TIMEOUT_MS"].flatMap(Int.init) ?? 60_000
        var settings = StravaSettings(
            baseURL: base, configDirectory: directory, clientID: id, clientSecret: secret,
            retryBaseMilliseconds: max(0, retry), requestTimeoutMilliseconds: max(1, timeout))
        settings.credentialsProblem = problem
        settings.rateLimitSleepMilliseconds = env["BIKECHECK_RATE_LIMIT_WAIT_MS"].flatMap(Int.init).map { max(0, $0) }
        settings.apiURL = env["BIKECHECK_STRAVA_API_URL"].flatMap { nonEmpty($0) }.flatMap { URL(string: $0) }
        return settings
    }

    /// Strava's own API host since 2027 (announced as available from 2027-01-04; the old base
    /// `https://www.strava.com/api/v3` has no announced end).
    package static let newAPIHost = URL(string: "https://api-v3.strava.com")!
    /// 2027-01-04 00:00 UTC: from then on the new API host is the default.
    package static let newAPIHostFrom = Date(timeIntervalSince1970: 1_799_020_800)
    /// 2027-06-01 00:00 UTC: `oauth/deauthorize` is no longer supported from then on.
    package static let deauthorizeEnds = Date(timeIntervalSince1970: 1_811_808_000)

    /// The old API base: `/api/v3` on the OAuth host.
    package var oldAPIBase: URL { baseURL.appendingPathComponent("api/v3") }

    /// The API bases to try at `date`, in order: the new host first when it is named or its date
    /// has come, the old base last (used while the new host does not answer).
    package func apiBases(at date: Date) -> [URL] {
        if let apiURL { return [apiURL, oldAPIBase] }
        return date >= Self.newAPIHostFrom ? [Self.newAPIHost, oldAPIBase] : [oldAPIBase]
    }

    /// The app's id and secret, or why one is missing: the credentials file that could not be
    /// used, if there is one, else the variable to set.
    package func appCredentials() throws(StravaError) -> AppCredentials {
        guard let clientID, let clientSecret else {
            if let credentialsProblem { throw .unreadableCredentials(path: credentialsPath, reason: credentialsProblem) }
            throw clientID == nil ? .missingClientID : .missingClientSecret
        }
        return AppCredentials(clientID: clientID, clientSecret: clientSecret)
    }

    /// `strava-token.json`, or a rider's `strava-token.RIDER.json` (a rider's name is an id:
    /// letters, digits, `-`, `_` and `.`, never a `/`).
    package var tokenPath: String { configDirectory + "/strava-token" + riderSuffix + ".json" }
    package var credentialsPath: String { configDirectory + "/strava-credentials.json" }
    /// Held (flock) while a refresh runs, so processes sharing the login refresh one at a time.
    package var refreshLockPath: String { configDirectory + "/strava-token" + riderSuffix + ".lock" }
    private var riderSuffix: String { rider.map { "." + $0 } ?? "" }

    /// These settings for `rider`'s login (nil: the garage's one login).
    package func forRider(_ rider: String?) -> StravaSettings {
        var copy = self
        copy.rider = rider
        return copy
    }

    /// The household riders with a saved token in the config folder, of `riders` in that order.
    package func ridersLoggedIn(among riders: [String]) -> [String] {
        riders.filter { FileManager.default.fileExists(atPath: forRider($0).tokenPath) }
    }

    /// Refuses a config folder inside the garage: tokens must never be committed with it. The
    /// folder need not exist yet: the real location of its nearest existing ancestor counts, with
    /// every symbolic link on the way followed (a dangling one too), as creating it would.
    package func checkOutside(garage root: String) throws {
        let dir = RealPath.location(of: configDirectory) + "/"
        let garage = RealPath.location(of: root) + "/"
        if dir == "//" || dir.hasPrefix(garage) || garage == "//" { throw StravaError.insideGarage(configDirectory) }
    }

    /// Tightens what others could read or change: the config folder to 0700, the token,
    /// credentials and lock files to 0600. Returns one warning per change (or failure to change).
    package func tightenPermissions() -> [Warning] {
        var warnings: [Warning] = []
        func tighten(_ path: String, to wanted: mode_t, directory: Bool) {
            var info = stat()
            guard stat(path, &info) == 0, ((info.st_mode & S_IFMT) == S_IFDIR) == directory else { return }
            let mode = info.st_mode & 0o7777
            guard mode & 0o077 != 0 else { return }
            let shown = String(mode, radix: 8), want = String(wanted, radix: 8)
            if chmod(path, wanted) == 0 {
                warnings.append(Warning("'\(path)' was open to other users (mode 0\(shown)); bikecheck set it to 0\(want), since it holds Strava secrets"))
            } else {
                warnings.append(
                    Warning(
                        "'\(path)' is open to other users (mode 0\(shown)) and bikecheck cannot change that (\(String(cString: strerror(errno))))",
                        help: "set it to 0\(want) (chmod \(want) '\(path)')"))
            }
        }
        tighten(configDirectory, to: 0o700, directory: true)
        var files = [tokenPath, credentialsPath, refreshLockPath]
        // Every rider's token and lock too: `strava-token.*.json` and `.lock`.
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: configDirectory)) ?? []).sorted()
        where name.hasPrefix("strava-token.") && (name.hasSuffix(".json") || name.hasSuffix(".lock")) {
            let path = configDirectory + "/" + name
            if !files.contains(path) { files.append(path) }
        }
        for file in files { tighten(file, to: 0o600, directory: false) }
        return warnings
    }

    static func nonEmpty(_ s: String?) -> String? {
        guard let s = s?.trimmingCharacters(in: .whitespaces), !s.isEmpty else { return nil }
        return s
    }
}

/// The rider's own Strava API application, kept (mode 0600) so refreshes work without the
/// environment variables.
package struct AppCredentials: Codable, Equatable, Sendable {
    package var clientID: String
    package var clientSecret: String

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case clientSecret = "client_secret"
    }

    package init(clientID: String, clientSecret: String) {
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    /// The saved credentials, or why a file that exists cannot be used (the size is checked
    /// before anything is read).
    static func load(directory: String) -> (credentials: AppCredentials?, problem: String?) {
        let path = directory + "/strava-credentials.json"
        switch readFile(path, limit: FileSizeLimit.localState) {
        case .bytes(let bytes):
            guard let saved = try? JSONDecoder().decode(AppCredentials.self, from: Data(bytes)) else {
                return (nil, bytes.isEmpty ? "it is empty" : "it is not a credentials file bikecheck wrote")
            }
            return (saved, nil)
        case .tooLarge(let size):
            return (nil, "it is \(FileSizeLimit.describe(size)), more than a file of local state may be (\(FileSizeLimit.describe(FileSizeLimit.localState)))")
        case .unreadable:
            return (nil, FileManager.default.fileExists(atPath: path) ? "it cannot be read, or is not a regular file" : nil)
        }
    }

    func save(directory: String) throws {
        try AtomicFile.makeDirectory(directory, mode: 0o700)
        try AtomicFile.write(SecretFile.encode(self), to: directory + "/strava-credentials.json", mode: 0o600)
    }
}

/// The tokens from Strava's OAuth exchange. Never printed: `description` hides them.
package struct StravaToken: Codable, Equatable, Sendable, CustomStringConvertible {
    package var accessToken: String
    package var refreshToken: String
    /// Epoch seconds.
    package var expiresAt: Int64
    /// The scopes the rider granted, as the redirect reported them (nil when unknown).
    package var scope: String?
    package var athleteID: Int64?
    package var athleteName: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case expiresAt = "expires_at"
        case scope
        case athleteID = "athlete_id"
        case athleteName = "athlete_name"
    }

    package init(
        accessToken: String, refreshToken: String, expiresAt: Int64, scope: String? = nil,
        athleteID: Int64? = nil, athleteName: String? = nil
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.scope = scope
        self.athleteID = athleteID
        self.athleteName = athleteName
    }

    package var description: String { "StravaToken(athlete: \(athleteID.map(String.init) ?? "?"), expires_at: \(expiresAt))" }
}

/// The token file, `strava-token.json` in the config folder, mode 0600 from creation.
package struct TokenStore: Sendable {
    package let path: String

    package init(path: String) { self.path = path }

    /// The saved token; nil when there is none, or when the file cannot be read (see `read`).
    package func load() -> StravaToken? { try? read() }

    /// The saved token, nil when there is no token file; a file that exists but cannot be read or
    /// decoded is `StravaError.unreadableToken`, never taken for "not logged in".
    package func read() throws -> StravaToken? {
        let data: Data
        switch readFile(path, limit: FileSizeLimit.localState) {
        case .bytes(let bytes): data = Data(bytes)
        case .tooLarge(let size):
            throw StravaError.unreadableToken(
                path: path, reason: "it is \(FileSizeLimit.describe(size)), more than a token file may be (\(FileSizeLimit.describe(FileSizeLimit.localState)))"
            )
        case .unreadable:
            if !FileManager.default.fileExists(atPath: path) { return nil }
            throw StravaError.unreadableToken(path: path, reason: "it cannot be read, or is not a regular file")
        }
        do {
            return try JSONDecoder().decode(StravaToken.self, from: data)
        } catch {
            throw StravaError.unreadableToken(path: path, reason: data.isEmpty ? "it is empty" : "it is not a token file bikecheck wrote")
        }
    }

    package func save(_ token: StravaToken) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try AtomicFile.makeDirectory(directory, mode: 0o700)
        try AtomicFile.write(SecretFile.encode(token), to: path, mode: 0o600)
    }

    /// Deletes the token file; true if there was one.
    @discardableResult
    package func delete() -> Bool {
        (try? FileManager.default.removeItem(atPath: path)) != nil
    }
}

/// Where a path really leads, whether or not it exists yet.
enum RealPath {
    /// The absolute, symlink-free location `path` names: links are followed (dangling ones by
    /// their target), `.` and `..` taken physically; parts that do not exist are kept as written. "/" with too many links (a loop).
    static func location(of path: String, from base: String = FileManager.default.currentDirectoryPath) -> String {
        var pending = (path.hasPrefix("/") ? path : base + "/" + path).split(separator: "/").map(String.init)
        pending.reverse()
        var resolved: [String] = []
        var links = 0
        while let part = pending.popLast() {
            if part.isEmpty || part == "." { continue }
            if part == ".." { _ = resolved.popLast(); continue }
            let candidate = "/" + (resolved + [part]).joined(separator: "/")
            var info = stat()
            guard lstat(candidate, &info) == 0 else {
                resolved.append(part)
                continue
            }
            guard (info.st_mode & S_IFMT) == S_IFLNK else {
                resolved.append(part)
                continue
            }
            links += 1
            if links > 40 { return "/" }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(candidate, &buffer, buffer.count - 1)
            guard n > 0 else { return "/" }
            let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target.hasPrefix("/") { resolved = [] }
            pending += target.split(separator: "/").map(String.init).reversed()
        }
        return "/" + resolved.joined(separator: "/")
    }
}

enum SecretFile {
    static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return Array((try? encoder.encode(value)) ?? Data()) + [0x0A]
    }
}
