import BikeCheckKit
import Foundation

/// Strava's token response (exchange and refresh); refresh responses have no athlete.
struct TokenResponse: Decodable {
    var accessToken: String
    var refreshToken: String
    var expiresAt: Int64
    var athlete: AthleteSummary?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case expiresAt = "expires_at"
        case athlete
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
package struct StravaGear: Codable, Equatable, Sendable {
    package var id: String
    package var name: String
    package var nickname: String?
    package var brandName: String?
    package var modelName: String?
    package var retired: Bool
    /// Metres, as Strava totals them.
    package var distance: Double?

    enum CodingKeys: String, CodingKey {
        case id, name, nickname, retired, distance
        case brandName = "brand_name"
        case modelName = "model_name"
    }

    package init(
        id: String, name: String, nickname: String? = nil, brandName: String? = nil, modelName: String? = nil,
        retired: Bool = false, distance: Double? = nil
    ) {
        self.id = id
        self.name = name
        self.nickname = nickname
        self.brandName = brandName
        self.modelName = modelName
        self.retired = retired
        self.distance = distance
    }

    package init(from decoder: Decoder) throws {
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
    package var displayName: String {
        if let n = nickname, !n.isEmpty { return n }
        return name
    }
}

/// The logged-in athlete: who, and their (unretired) bikes.
package struct StravaAthlete: Decodable, Sendable {
    package var id: Int64
    package var firstname: String?
    package var lastname: String?
    package var bikes: [StravaGear]

    enum CodingKeys: String, CodingKey { case id, firstname, lastname, bikes }

    package init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(Int64.self, forKey: .id)
        firstname = c.lenient(String.self, .firstname)
        lastname = c.lenient(String.self, .lastname)
        bikes = c.lenient([Lenient<StravaGear>].self, .bikes)?.compactMap(\.value) ?? []
    }

    package var displayName: String {
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

/// One element of a page of activities: the activity if it could be read; else why not, and its
/// id and start if at least those could (a full sync must not delete a cached activity it merely
/// failed to read, and the listing's time cursor needs every start it can get).
struct PageItem: Decodable {
    var activity: Activity?
    var id: Int64?
    /// Epoch seconds of `start_date`.
    var start: Int64?
    /// Why the activity could not be read (nil when it could).
    var problem: String?

    enum CodingKeys: String, CodingKey {
        case id
        case startDate = "start_date"
    }

    init(from decoder: Decoder) throws {
        let c = try? decoder.container(keyedBy: CodingKeys.self)
        id = try? c?.decode(Int64.self, forKey: .id)
        start = (try? c?.decode(String.self, forKey: .startDate)).flatMap(Timestamps.normalise).flatMap(Timestamps.epoch)
        do {
            activity = try SummaryActivity(from: decoder).activity
        } catch let e as SummaryActivity.Unreadable {
            problem = e.reason
        } catch {
            problem = "not an activity object"
        }
    }
}

/// A SummaryActivity from `/athlete/activities`. Any sport type is kept as sent, unknown fields
/// are skipped, and a missing (or null) optional field takes its documented default (numbers 0,
/// flags false). A field that is present but of the wrong type or out of range makes the whole
/// activity unreadable: it must never reach the cache as 0 over a good cached value.
struct SummaryActivity: Decodable {
    var activity: Activity

    /// Why an activity could not be read: the field and what was wrong with it.
    struct Unreadable: Error { var reason: String }

    enum CodingKeys: String, CodingKey {
        case id, name, type, timezone, distance, trainer, commute, manual
        case sportType = "sport_type"
        case startDate = "start_date"
        case startDateLocal = "start_date_local"
        case movingTime = "moving_time"
        case elapsedTime = "elapsed_time"
        case totalElevationGain = "total_elevation_gain"
        case gearID = "gear_id"
        case athlete
    }

    /// `athlete: {id, resource_state}`: whose activity it is.
    struct AthleteRef: Decodable { var id: Int64 }

    init(from decoder: Decoder) throws {
        guard let c = try? decoder.container(keyedBy: CodingKeys.self) else { throw Unreadable(reason: "not a JSON object") }
        /// The value when present and not null; a value of another type is unreadable, not missing.
        func optional<T: Decodable>(_ type: T.Type, _ k: CodingKeys, _ expected: String) throws -> T? {
            guard c.contains(k), (try? c.decodeNil(forKey: k)) == false else { return nil }
            guard let value = try? c.decode(T.self, forKey: k) else { throw Unreadable(reason: "\(k.rawValue): expected \(expected)") }
            return value
        }
        func required<T: Decodable>(_ type: T.Type, _ k: CodingKeys, _ expected: String) throws -> T {
            guard let value = try optional(type, k, expected) else { throw Unreadable(reason: "\(k.rawValue): missing") }
            return value
        }
        // The cache's own limits (ActivityLimits), so what is read here can always be cached.
        func number(_ k: CodingKeys, _ field: ActivityLimits.Field) throws -> Double {
            guard let value = try optional(Double.self, k, field.expected) else { return 0 }
            guard ActivityLimits.allows(value, field) else { throw Unreadable(reason: "\(k.rawValue): expected \(field.expected)") }
            return value
        }
        func duration(_ k: CodingKeys, _ field: ActivityLimits.Field) throws -> Int {
            Int(try number(k, field).rounded())
        }
        func timestamp(_ k: CodingKeys) throws -> String? {
            guard let text = try optional(String.self, k, "a date-time") else { return nil }
            guard let normal = Timestamps.normalise(text) else { throw Unreadable(reason: "\(k.rawValue): expected a date-time") }
            return normal
        }
        let id = try required(Int64.self, .id, "an integer id")
        guard id > 0 else { throw Unreadable(reason: "id: expected a positive integer") }
        guard let start = try timestamp(.startDate) else { throw Unreadable(reason: "start_date: missing") }
        let type = try optional(String.self, .type, "a string")
        guard let sport = try optional(String.self, .sportType, "a string") ?? type else {
            throw Unreadable(reason: "sport_type: missing")
        }
        let activity = Activity(
            id: id, name: try optional(String.self, .name, "a string") ?? "", sportType: sport, type: type, startDate: start,
            startDateLocal: try timestamp(.startDateLocal), timezone: try optional(String.self, .timezone, "a string"),
            movingTime: try duration(.movingTime, .movingTime), elapsedTime: try duration(.elapsedTime, .elapsedTime),
            distance: try number(.distance, .distance), totalElevationGain: try number(.totalElevationGain, .totalElevationGain),
            gearID: try optional(String.self, .gearID, "a string").flatMap { $0.isEmpty ? nil : $0 },
            trainer: try optional(Bool.self, .trainer, "true or false") ?? false,
            commute: try optional(Bool.self, .commute, "true or false") ?? false,
            manual: try optional(Bool.self, .manual, "true or false") ?? false,
            athlete: try optional(AthleteRef.self, .athlete, "an object with an id").map(\.id).flatMap { $0 > 0 ? $0 : nil })
        if let violation = ActivityLimits.check(activity) {
            throw Unreadable(reason: "\(violation.field.rawValue): expected \(violation.field.expected)")
        }
        self.activity = activity
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

    /// Whether the answer is Strava's "application inactive" (`Application Status Inactive`):
    /// since 2026-06-30 a Standard Tier application works only while its owner subscribes.
    static func isApplicationInactive(_ body: Data) -> Bool {
        guard let f = try? JSONDecoder().decode(Fault.self, from: body) else { return false }
        return (f.errors ?? []).contains {
            $0.resource?.lowercased() == "application" && $0.field?.lowercased() == "status" && $0.code?.lowercased() == "inactive"
        }
    }
}

/// One page of `/athlete/activities` as read.
package struct ActivityPage {
    var items: [PageItem]

    /// The activities that could be read.
    package var activities: [Activity] { items.compactMap(\.activity) }
    /// The elements that could not be read: id and start when those could be, and why.
    package var unreadable: [(id: Int64?, start: Int64?, problem: String)] {
        items.compactMap { item in item.problem.map { (item.id, item.start, $0) } }
    }
    /// How many elements the page had (a page of only unreadable items is not the end).
    package var count: Int { items.count }
    /// Each element's start in epoch seconds, in the page's order (nil where it could not be read).
    package var starts: [Int64?] { items.map(\.start) }
    /// Each element's id, in the page's order (nil where it could not be read).
    package var ids: [Int64?] { items.map(\.id) }
}
