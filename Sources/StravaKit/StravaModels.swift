import BikeCheckKit
import Foundation

/// Strava's token response (exchange and refresh); refresh responses have no athlete.
struct TokenResponse: Decodable {
    var accessToken: String
    var refreshToken: String
    var expiresAt: Int64
    var athlete: AthleteSummary?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", refreshToken = "refresh_token", expiresAt = "expires_at", athlete
    }
}

struct AthleteSummary: Decodable {
    var id: Int64
    var firstname: String?
    var lastname: String?

    var displayName: String {
        [firstname, lastname].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
    }
}

/// A bike (or shoe) on Strava, from `/athlete`'s `bikes` or `/gear/{id}`.
public struct StravaGear: Codable, Equatable, Sendable {
    public var id: String
    public var name: String
    public var nickname: String?
    public var brandName: String?
    public var modelName: String?
    public var retired: Bool
    /// Metres, as Strava totals them.
    public var distance: Double?

    enum CodingKeys: String, CodingKey {
        case id, name, nickname, retired, distance, brandName = "brand_name", modelName = "model_name"
    }

    public init(id: String, name: String, nickname: String? = nil, brandName: String? = nil, modelName: String? = nil,
                retired: Bool = false, distance: Double? = nil) {
        self.id = id
        self.name = name
        self.nickname = nickname
        self.brandName = brandName
        self.modelName = modelName
        self.retired = retired
        self.distance = distance
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        name = c.lenient(String.self, .name) ?? id
        nickname = c.lenient(String.self, .nickname)
        brandName = c.lenient(String.self, .brandName)
        modelName = c.lenient(String.self, .modelName)
        retired = c.lenient(Bool.self, .retired) ?? false
        distance = c.lenient(Double.self, .distance)
    }

    /// The name the rider gave it, else Strava's.
    public var displayName: String {
        if let n = nickname, !n.isEmpty { return n }
        return name
    }
}

/// The logged-in athlete: who, and their (unretired) bikes.
public struct StravaAthlete: Decodable, Sendable {
    public var id: Int64
    public var firstname: String?
    public var lastname: String?
    public var bikes: [StravaGear]

    enum CodingKeys: String, CodingKey { case id, firstname, lastname, bikes }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(Int64.self, forKey: .id)
        firstname = c.lenient(String.self, .firstname)
        lastname = c.lenient(String.self, .lastname)
        bikes = c.lenient([Lenient<StravaGear>].self, .bikes)?.compactMap(\.value) ?? []
    }

    public var displayName: String {
        [firstname, lastname].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
    }
}

extension KeyedDecodingContainer {
    /// The value, or nil when it is missing, null or of another type: Strava adds and changes fields.
    func lenient<T: Decodable>(_ type: T.Type, _ key: Key) -> T? {
        guard let value = try? decodeIfPresent(type, forKey: key) else { return nil }
        return value
    }
}

/// Decodes one element of an array, keeping going when it is malformed.
struct Lenient<T: Decodable>: Decodable {
    var value: T?
    init(from decoder: Decoder) throws { value = try? T(from: decoder) }
}

/// One element of a page of activities: the activity if it could be read, and its id if at
/// least that could (a full sync must not delete a cached activity it merely failed to read).
struct PageItem: Decodable {
    var activity: Activity?
    var id: Int64?

    enum CodingKeys: String, CodingKey { case id }

    init(from decoder: Decoder) throws {
        id = try? decoder.container(keyedBy: CodingKeys.self).decode(Int64.self, forKey: .id)
        activity = (try? SummaryActivity(from: decoder))?.activity
    }
}

/// A SummaryActivity from `/athlete/activities`, decoded leniently: any sport type is kept as
/// sent, unknown fields are skipped, and missing numbers are zero.
struct SummaryActivity: Decodable {
    var activity: Activity

    enum CodingKeys: String, CodingKey {
        case id, name, type, timezone, distance, trainer, commute, manual
        case sportType = "sport_type", startDate = "start_date", startDateLocal = "start_date_local"
        case movingTime = "moving_time", elapsedTime = "elapsed_time"
        case totalElevationGain = "total_elevation_gain", gearID = "gear_id"
    }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let id = try c.decode(Int64.self, forKey: .id)
        guard let start = Timestamps.normalise(try c.decode(String.self, forKey: .startDate)) else {
            throw DecodingError.dataCorruptedError(forKey: .startDate, in: c, debugDescription: "bad start_date")
        }
        func string(_ k: CodingKeys) -> String? { c.lenient(String.self, k) }
        // A number that is not finite is as good as missing: it must never reach the cache.
        func number(_ k: CodingKeys) -> Double { c.lenient(Double.self, k).flatMap(ActivityLimits.finite) ?? 0 }
        func duration(_ k: CodingKeys) throws -> Int {
            guard let seconds = ActivityLimits.duration(c.lenient(Double.self, k) ?? 0) else {
                throw DecodingError.dataCorruptedError(forKey: k, in: c, debugDescription: "\(k.rawValue) out of range")
            }
            return seconds
        }
        func bool(_ k: CodingKeys) -> Bool { c.lenient(Bool.self, k) ?? false }
        let type = string(.type)
        guard let sport = string(.sportType) ?? type else {
            throw DecodingError.keyNotFound(CodingKeys.sportType, .init(codingPath: c.codingPath, debugDescription: "no sport type"))
        }
        activity = Activity(
            id: id, name: string(.name) ?? "", sportType: sport, type: type, startDate: start,
            startDateLocal: string(.startDateLocal).flatMap(Timestamps.normalise), timezone: string(.timezone),
            movingTime: try duration(.movingTime), elapsedTime: try duration(.elapsedTime),
            distance: max(0, number(.distance)), totalElevationGain: number(.totalElevationGain),
            gearID: string(.gearID).flatMap { $0.isEmpty ? nil : $0 },
            trainer: bool(.trainer), commute: bool(.commute), manual: bool(.manual))
    }
}

/// The ranges an activity's numbers must lie in before they go into the cache.
enum ActivityLimits {
    /// The longest believable moving or elapsed time: 30 days, in seconds.
    static let maxDuration: Double = 30 * 86400

    /// `value` when finite, else nil.
    static func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }

    /// Whole seconds when `value` is finite and at most maxDuration (so `Int` cannot trap), else
    /// nil; a negative time (as read before) counts as 0.
    static func duration(_ value: Double) -> Int? {
        guard value.isFinite, value <= maxDuration else { return nil }
        return Int(max(0, value).rounded())
    }
}

/// Strava's error body: `{"message": …, "errors": [{resource, field, code}]}`, `errors` optional.
struct Fault: Decodable {
    struct Item: Decodable { var resource: String?; var field: String?; var code: String? }
    var message: String?
    var errors: [Item]?

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        message = c.lenient(String.self, .message)
        errors = c.lenient([Item].self, .errors)
    }
    enum CodingKeys: String, CodingKey { case message, errors }

    static func summary(_ body: Data) -> String {
        guard let f = try? JSONDecoder().decode(Fault.self, from: body) else { return "" }
        let items = (f.errors ?? []).map { [$0.resource, $0.field, $0.code].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ") }
        return ([f.message].compactMap { $0 } + items).joined(separator: "; ")
    }
}

/// UTC timestamps in the cache's form, `YYYY-MM-DDTHH:MM:SSZ`.
enum Timestamps {
    /// Accepts Strava's form (and fractional seconds or offsets), returns the cache's form.
    static func normalise(_ s: String) -> String? {
        let u = Array(s.utf8)
        if u.count == 20, u[4] == 0x2D, u[7] == 0x2D, u[10] == 0x54, u[13] == 0x3A, u[16] == 0x3A, u[19] == 0x5A,
           Day(String(s.prefix(10))) != nil {
            return s
        }
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = parser.date(from: s) { return format(d) }
        parser.formatOptions = [.withInternetDateTime]
        if let d = parser.date(from: s) { return format(d) }
        return nil
    }

    static func format(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: date)
    }

    static func epoch(_ s: String) -> Int64? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: s).map { Int64($0.timeIntervalSince1970) }
    }
}
