import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// The cache's writer, beside its reader: one rule for which files are month files, and the
/// same limits both ways.
@Suite struct ActivityCacheStoreTests {
    func ride(_ id: Int64, _ start: String) -> Activity {
        Activity(id: id, name: "r\(id)", sportType: "Ride", startDate: start, movingTime: 60, elapsedTime: 60, distance: 1000)
    }

    @Test(
        arguments: [
            ("2025-10.json", "2025-10"), ("1999-01.json", "1999-01"), ("2025-13.json", nil), ("2025-1.json", nil),
            ("02025-10.json", nil), (".2025-10.json", nil), ("2025-10.json.tmp", nil), ("2025-10.JSON", nil), ("notes.json", nil),
        ] as [(String, String?)])
    func aMonthFileIsNamedYYYYMMDotJSON(name: String, month: String?) {
        #expect(ActivityCacheFormat.month(ofFileNamed: name) == month)
    }

    @Test func theWriterLeavesAloneEveryFileTheReaderDoesNotTakeForAMonth() throws {
        let folder = try TemporaryFolder()
        let root = folder.url.path
        let stray = Array("[]\n".utf8)
        try folder.write("activities/2025-13.json", stray)
        try folder.write("activities/notes.txt", stray)
        try folder.write("activities/2025-10.json", try ActivityCacheFormat.encode([ride(1, "2025-10-02T06:00:00Z")]))
        let read = ActivityCacheLoader.load(root: root)
        #expect(read.diagnostics.map(\.id) == ["cache-file-name"], "the reader refuses the one JSON file not named after a month")
        #expect(read.diagnostics.first?.location.file == "activities/2025-13.json")

        let cache = ActivityCacheStore(garageRoot: root)
        #expect(cache.ids == [1])
        #expect(cache.remove(1) != nil)
        cache.markAllDirty()
        #expect(try cache.flush() == 1, "only the month file is removed")
        let left = try FileManager.default.contentsOfDirectory(atPath: root + "/activities").sorted()
        #expect(left == ["2025-13.json", "notes.txt"])
    }

    @Test func whatTheWriterWritesTheReaderReadsWithoutADiagnostic() throws {
        let folder = try TemporaryFolder()
        let root = folder.url.path
        let cache = ActivityCacheStore(garageRoot: root)
        for (k, start) in ["2025-10-31T23:59:59Z", "2025-11-01T00:00:00Z", "1999-12-31T12:00:00Z"].enumerated() {
            #expect(cache.upsert(ride(Int64(k + 1), start)) == .new)
        }
        #expect(try cache.flush() == 3)
        let read = ActivityCacheLoader.load(root: root)
        #expect(read.diagnostics.isEmpty)
        #expect(Set(read.activities.map(\.id)) == [1, 2, 3])
        let names = try FileManager.default.contentsOfDirectory(atPath: root + "/activities").sorted()
        #expect(names == ["1999-12.json", "2025-10.json", "2025-11.json"])
    }

    @Test func theCacheNeverStoresAnActivityOutsideItsLimits() throws {
        let folder = try TemporaryFolder()
        let garage = folder.url.path
        let cache = ActivityCacheStore(garageRoot: garage)
        let nan = Activity(
            id: 7, name: "x", sportType: "Ride", startDate: "2026-05-09T07:09:27Z", movingTime: 1, elapsedTime: 1,
            distance: .nan, totalElevationGain: 3)
        #expect(cache.upsert(nan) == .rejected(.init(field: .distance, value: "nan")))
        var far = nan
        far.distance = 200_000_000_000
        #expect(cache.upsert(far) == .rejected(.init(field: .distance, value: "200000000000")))
        #expect(cache.count == 0)
        #expect(try cache.flush() == 0)
        #expect(!FileManager.default.fileExists(atPath: garage + "/activities"))
    }
}
