import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// The cache format has one set of limits, and both directions hold to it: what the encoder
/// writes the reader accepts, and what the encoder refuses the reader reports.
@Suite struct ActivityLimitsTests {
    static let base = Activity(
        id: 1, name: "x", sportType: "Ride", startDate: "2025-10-01T08:00:00Z",
        movingTime: 3600, elapsedTime: 3700, distance: 30000, totalElevationGain: 300)

    /// Values at and just past each bound, and the archive row that started this.
    static let cases: [(ActivityLimits.Field, Double)] = [
        (.movingTime, -1), (.movingTime, 0), (.movingTime, 2_592_000), (.movingTime, 2_592_001),
        (.elapsedTime, -1), (.elapsedTime, 0), (.elapsedTime, 2_592_000), (.elapsedTime, 2_592_001),
        (.distance, -0.5), (.distance, 0), (.distance, 100_000_000), (.distance, 100_000_000.5), (.distance, 200_000_000_000),
        (.totalElevationGain, -100_000_001), (.totalElevationGain, -100_000_000), (.totalElevationGain, 100_000_000),
        (.totalElevationGain, 100_000_001),
    ]

    static func activity(_ field: ActivityLimits.Field, _ value: Double) -> Activity {
        var a = base
        switch field {
        case .movingTime: a.movingTime = Int(value)
        case .elapsedTime: a.elapsedTime = Int(value)
        case .distance: a.distance = value
        case .totalElevationGain: a.totalElevationGain = value
        case .id, .startDate, .startDateLocal: break
        }
        return a
    }

    @Test(arguments: cases)
    func whatTheEncoderWritesTheReaderAcceptsAndWhatItRefusesTheReaderReports(field: ActivityLimits.Field, value: Double) throws {
        let a = Self.activity(field, value)
        let allowed = ActivityLimits.allows(value, field)
        #expect(allowed == (ActivityLimits.check(a) == nil))
        if allowed {
            let bytes = try ActivityCacheFormat.encode([a])
            let decoded = ActivityCacheFormat.decode(bytes, path: "activities/2025-10.json")
            #expect(decoded.diagnostics.isEmpty, "\(field) \(value): \(decoded.diagnostics)")
            #expect(decoded.activities == [a])
        } else {
            #expect(throws: ActivityLimits.Failure.self, "\(field) \(value)") { try ActivityCacheFormat.encode([a]) }
        }
        // The same value written by hand (or by an older bikecheck): the reader agrees.
        var fields = [
            "\"distance\":30000", "\"elapsed_time\":3700", "\"id\":1", "\"moving_time\":3600", "\"sport_type\":\"Ride\"",
            "\"start_date\":\"2025-10-01T08:00:00Z\"", "\"total_elevation_gain\":300",
        ]
        fields.removeAll { $0.hasPrefix("\"\(field.rawValue)\":") }
        fields.append("\"\(field.rawValue)\":\(value)")
        let decoded = ActivityCacheFormat.decode(Array("[{\(fields.joined(separator: ","))}]".utf8), path: "a.json")
        #expect(decoded.activities.count == (allowed ? 1 : 0), "\(field) \(value)")
        #expect(decoded.diagnostics.map(\.id) == (allowed ? [] : ["cache-bad-field"]))
        if !allowed {
            #expect(decoded.diagnostics.first?.message == "'\(field.rawValue)' should be \(field.expected)")
        }
    }

    @Test(arguments: [
        (ActivityLimits.Field.startDate, "2025-13-01T08:00:00Z"), (.startDate, "yesterday"), (.startDateLocal, "2025-10-01 08:00"),
    ])
    func timesTheReaderWouldRefuseAreRefusedOnWrite(field: ActivityLimits.Field, text: String) {
        var a = Self.base
        if field == .startDate { a.startDate = text } else { a.startDateLocal = text }
        #expect(ActivityLimits.check(a) == .init(field: field, value: "'\(text)'"))
        #expect(throws: ActivityLimits.Failure(activityID: 1, violation: .init(field: field, value: "'\(text)'"))) {
            try ActivityCacheFormat.encode([a])
        }
    }

    @Test func notANumberIsOutsideEveryRange() {
        for field in ActivityLimits.Field.allCases where field.range != nil {
            #expect(!ActivityLimits.allows(.nan, field) && !ActivityLimits.allows(.infinity, field))
        }
        #expect(ActivityLimits.wholeSeconds(1e30) == nil)
        #expect(ActivityLimits.wholeSeconds(59.6) == 60)
    }
}

/// The cache's JSON Schema (for editors) states the same limits as `ActivityLimits`.
@Suite struct ActivityLimitsSchemaTests {
    @Test func theCacheSchemaStatesTheSameLimits() throws {
        let url = repositoryRoot.appendingPathComponent("schemas/activities.schema.json")
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let items = try #require(schema["items"] as? [String: Any])
        let properties = try #require(items["properties"] as? [String: [String: Any]])
        for field in ActivityLimits.Field.allCases {
            guard let range = field.range else { continue }
            let property = try #require(properties[field.rawValue], "\(field.rawValue)")
            #expect((property["minimum"] as? NSNumber)?.doubleValue == range.lowerBound, "\(field.rawValue)")
            #expect((property["maximum"] as? NSNumber)?.doubleValue == range.upperBound, "\(field.rawValue)")
        }
        #expect((properties["id"]?["minimum"] as? NSNumber)?.intValue == 1)
    }
}
