import BikeCheckKit
import Foundation
import Testing

@Suite struct ActivityCacheTests {
    let sample = [
        Activity(
            id: 2, name: "Evening \"hill\" repeats\n", sportType: "Ride", type: "Ride", startDate: "2025-10-02T17:00:00Z",
            startDateLocal: "2025-10-02T19:00:00Z", timezone: "(GMT+02:00) Europe/Berlin", movingTime: 3600, elapsedTime: 4000,
            distance: 30123.4, totalElevationGain: 410, gearID: "b1", trainer: false, commute: true, manual: false),
        Activity(
            id: 1, name: "Morgenrunde über den Berg 🚴", sportType: "GravelRide", startDate: "2025-10-02T06:00:00Z",
            movingTime: 5400, elapsedTime: 5400, distance: 45000, gearID: nil),
        Activity(
            id: 3, name: "Trainer", sportType: "Pickleball2030", startDate: "2025-10-01T06:00:00Z",
            movingTime: 0, elapsedTime: 0, distance: 0, trainer: true, manual: true),
    ]

    @Test func encodingIsSortedOneActivityPerLineWithATrailingNewline() throws {
        let text = String(decoding: try ActivityCacheFormat.encode(sample), as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "[")
        #expect(lines.dropLast().last == "]")
        #expect(lines.last == "")
        #expect(lines.count == sample.count + 3)
        let ids = lines.compactMap { line -> String? in
            guard let r = line.range(of: "\"id\":") else { return nil }
            return String(line[r.upperBound...].prefix { $0.isNumber })
        }
        #expect(ids == ["3", "1", "2"])
    }

    @Test func theSameActivitiesInAnyOrderGiveTheSameBytes() throws {
        #expect(try ActivityCacheFormat.encode(sample) == ActivityCacheFormat.encode(sample.reversed()))
        #expect(try ActivityCacheFormat.encode([]) == Array("[]\n".utf8))
    }

    @Test func decodingGivesBackWhatWasEncoded() throws {
        let bytes = try ActivityCacheFormat.encode(sample)
        let decoded = ActivityCacheFormat.decode(bytes, path: "activities/2025-10.json")
        #expect(decoded.diagnostics.isEmpty)
        #expect(Set(decoded.activities) == Set(sample))
        #expect(try ActivityCacheFormat.encode(decoded.activities) == bytes)
    }

    /// A household's cache records whose each activity is (`athlete`, first of the sorted keys);
    /// files written before, without it, read as they did: the garage's one rider.
    @Test func theAthleteIsWrittenAndReadBackAndOldFilesWithoutItStillRead() throws {
        var owned = sample
        owned[0].athlete = 12_342_176
        let bytes = try ActivityCacheFormat.encode(owned)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("\n{\"athlete\":12342176,\"commute\":true,"), "\(text)")
        let decoded = ActivityCacheFormat.decode(bytes, path: "activities/2025-10.json")
        #expect(decoded.diagnostics.isEmpty)
        #expect(Set(decoded.activities) == Set(owned))
        let old = ActivityCacheFormat.decode(try ActivityCacheFormat.encode(sample), path: "activities/2025-10.json")
        #expect(old.diagnostics.isEmpty)
        #expect(old.activities.allSatisfy { $0.athlete == nil })
    }

    @Test func unknownFieldsNestedValuesAndEscapesAreRead() throws {
        let json =
            #"[{"athlete":{"id":1,"resource_state":1},"map":{"id":"a1","summary_polyline":"x\\y"},"id":7,"name":"Caf\u00e9 \ud83d\udeb4","sport_type":"Ride","start_date":"2025-10-02T06:00:00Z","moving_time":6.0e2,"distance":1000.5,"kudos":[1,2,{"a":[]}],"gear_id":null}]"#
        let decoded = ActivityCacheFormat.decode(Array(json.utf8), path: "a.json")
        #expect(decoded.diagnostics.isEmpty, "\(decoded.diagnostics.map(\.message))")
        let a = try #require(decoded.activities.first)
        #expect(a.name == "Café 🚴")
        #expect(a.movingTime == 600)
        #expect(a.distance == 1000.5)
        #expect(a.gearID == nil)
    }

    @Test(arguments: [
        ("", "cache-syntax"), ("{}", "cache-syntax"), ("[{\"id\":1}", "cache-syntax"),
        ("[{\"id\":1,\"sport_type\":\"Ride\"}]", "cache-missing-field"),
        ("[{\"id\":\"1\",\"sport_type\":\"Ride\",\"start_date\":\"2025-10-02T06:00:00Z\",\"moving_time\":1,\"distance\":1}]", "cache-syntax"),
        ("[1]", "cache-syntax"), ("[] []", "cache-syntax"),
    ])
    func brokenFilesGiveALocatedDiagnostic(_ input: String, _ id: String) throws {
        let decoded = ActivityCacheFormat.decode(Array(input.utf8), path: "a.json")
        #expect(decoded.diagnostics.map(\.id).contains(id), "\(decoded.diagnostics.map(\.id))")
        #expect(decoded.diagnostics.allSatisfy { $0.location.range != nil })
    }

    @Test func theExampleGarageCacheIsInCanonicalForm() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("example-garage/activities")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        #expect(names.count >= 12)
        for name in names {
            let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
            let decoded = ActivityCacheFormat.decode(bytes, path: name)
            #expect(decoded.diagnostics.isEmpty)
            // What the generator wrote is byte for byte what bikecheck would write: a sync of
            // the same activities would leave git status clean.
            #expect(try ActivityCacheFormat.encode(decoded.activities) == bytes, "\(name) is not canonical")
        }
    }
}

@Suite struct ActivityCacheBoundsTests {
    @Test(arguments: ["1e300", "1e30", "9.3e18", "1e19", "1e400", "2592001", "-1"])
    func timesBeyondThirtyDaysAreReportedNotTrapped(_ value: String) throws {
        let json =
            "[\n{\"distance\":1000,\"elapsed_time\":\(value),\"id\":1,\"moving_time\":\(value),\"sport_type\":\"Ride\",\"start_date\":\"2025-10-01T08:00:00Z\"}\n]\n"
        let decoded = ActivityCacheFormat.decode(Array(json.utf8), path: "a.json")
        #expect(decoded.activities.isEmpty)
        #expect(decoded.diagnostics.map(\.id).contains("cache-bad-field"))
    }

    @Test func distancesBeyondAnyRideAreReported() {
        let json = "[{\"distance\":1e300,\"id\":1,\"moving_time\":5,\"sport_type\":\"Ride\",\"start_date\":\"2025-10-01T08:00:00Z\"}]"
        #expect(ActivityCacheFormat.decode(Array(json.utf8), path: "a.json").diagnostics.map(\.id) == ["cache-bad-field"])
    }

    @Test func aNonFiniteNumberIsRefusedOnWriteNotWrittenAsNull() {
        var a = Activity(id: 1, name: "x", sportType: "Ride", startDate: "2025-10-01T08:00:00Z", movingTime: 5, elapsedTime: 5, distance: 10)
        a.totalElevationGain = .nan
        #expect(throws: ActivityLimits.Failure(activityID: 1, violation: .init(field: .totalElevationGain, value: "nan"))) {
            try ActivityCacheFormat.encode([a])
        }
    }
}

@Suite struct ActivityIDTests {
    @Test func idsPastTwoToTheFiftyThirdAreReadExactly() {
        let json =
            "[{\"distance\":1,\"id\":9007199254740993,\"moving_time\":1,\"sport_type\":\"Ride\",\"start_date\":\"2025-10-01T08:00:00Z\"},"
            + "{\"distance\":1,\"id\":1000000000000000009,\"moving_time\":1,\"sport_type\":\"Ride\",\"start_date\":\"2025-10-01T08:00:00Z\"}]"
        let decoded = ActivityCacheFormat.decode(Array(json.utf8), path: "a.json")
        #expect(decoded.diagnostics.isEmpty)
        #expect(decoded.activities.map(\.id) == [9_007_199_254_740_993, 1_000_000_000_000_000_009])
    }

    @Test(arguments: ["0", "-3", "1.5", "1e3", "99999999999999999999"])
    func idsThatAreNotPositiveWholeNumbersAreReported(_ id: String) {
        let json = "[{\"distance\":1,\"id\":\(id),\"moving_time\":1,\"sport_type\":\"Ride\",\"start_date\":\"2025-10-01T08:00:00Z\"}]"
        #expect(ActivityCacheFormat.decode(Array(json.utf8), path: "a.json").diagnostics.map(\.id).contains("cache-bad-field"))
    }

    /// JSON's number grammar, held exactly: what Foundation refuses, the cache reader refuses.
    @Test(arguments: [
        ("id", "012"), ("moving_time", "032"), ("distance", "1."), ("distance", "1e"), ("distance", "-"),
        ("distance", ".5"), ("distance", "+1"), ("extra", "[1 2]"), ("extra", "{\"a\" 1}"), ("extra", "[1}"), ("extra", "{\"a\":1,}"), ("extra", "[,1]"),
    ])
    func numbersAndValuesThatAreNotJSONAreSyntaxErrors(_ key: String, _ value: String) {
        var fields = ["distance": "1", "id": "7", "moving_time": "1", "sport_type": "\"Ride\"", "start_date": "\"2025-10-01T08:00:00Z\""]
        fields[key] = value
        let json = "[{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}]"
        #expect(ActivityCacheFormat.decode(Array(json.utf8), path: "a.json").diagnostics.map(\.id) == ["cache-syntax"], "\(json)")
    }

    @Test func longNumbersAreCorrectlyRounded() {
        let json = "[{\"distance\":113404.49223372036854775808,\"id\":7,\"moving_time\":1,\"sport_type\":\"Ride\",\"start_date\":\"2025-10-01T08:00:00Z\"}]"
        let decoded = ActivityCacheFormat.decode(Array(json.utf8), path: "a.json")
        #expect(decoded.activities.first?.distance == Double("113404.49223372036854775808"))
    }
}
