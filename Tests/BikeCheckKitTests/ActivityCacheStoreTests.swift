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

    /// A ride imported from a file: its id in `Activity.importedIDs`, its source, its device's bike.
    func imported(_ start: String, distance: Double, gear: String? = "bike:grail") -> Activity {
        Activity(
            id: Activity.importedIDs.lowerBound + 7, name: "a", sportType: "Ride", startDate: start, movingTime: 3600, elapsedTime: 3600,
            distance: distance, gearID: gear, source: "fit", device: 3_980_001_234)
    }

    @Test func stravasCopyOfARideImportedInTheMonthBeforeReplacesItAndKeepsItsBike() throws {
        let folder = try TemporaryFolder()
        let root = folder.url.path
        // Started 30 s before midnight UTC; Strava says 40 s later, 3 % longer: the same ride.
        let file = imported("2025-10-31T23:59:30Z", distance: 25_000)
        try folder.write("activities/2025-10.json", try ActivityCacheFormat.encode([file, ride(1, "2025-10-02T06:00:00Z")]))
        try folder.write("activities/2025-11.json", try ActivityCacheFormat.encode([ride(2, "2025-11-03T06:00:00Z")]))
        var strava = ride(9_000_000_001, "2025-11-01T00:00:10Z")
        strava.distance = 25_750
        let cache = ActivityCacheStore(garageRoot: root, readsMonthsAsNeeded: true)
        let (change, replaced) = cache.upsertListed(strava)
        #expect(change == .new)
        #expect(replaced.map(\.id) == [file.id])
        #expect(cache[file.id] == nil)
        #expect(cache[strava.id]?.gearID == "bike:grail", "Strava names no bike: the file's stays")
        #expect(cache[strava.id]?.device == 3_980_001_234)
        try cache.flush()

        // The next listing, still without gear, keeps it; one that names a bike wins.
        let again = ActivityCacheStore(garageRoot: root)
        #expect(again.upsertListed(strava) == (.unchanged, []))
        var onStrava = strava
        onStrava.gearID = "b1002"
        #expect(again.upsertListed(onStrava).change == .changed)
        #expect(again[strava.id]?.gearID == "b1002" && again[strava.id]?.device == nil)
    }

    @Test(arguments: [("2025-10-02T06:03:00Z", 25_000.0), ("2025-10-02T06:00:30Z", 27_000.0)])
    func aStravaRideThatIsNotTheImportedOneLeavesItAlone(start: String, distance: Double) throws {
        let folder = try TemporaryFolder()
        let file = imported("2025-10-02T06:00:00Z", distance: 25_000)
        try folder.write("activities/2025-10.json", try ActivityCacheFormat.encode([file]))
        var strava = ride(9_000_000_001, start)
        strava.distance = distance
        let cache = ActivityCacheStore(garageRoot: folder.url.path)
        #expect(cache.upsertListed(strava) == (.new, []))
        #expect(cache[file.id] == file)
        #expect(cache[strava.id]?.gearID == nil)
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

    /// A store that reads months as needed answers and writes as one that reads the whole cache,
    /// and parses only the months it is asked about.
    @Test func readingMonthsAsNeededAnswersAndWritesAsReadingThemAll() throws {
        func garage() throws -> TemporaryFolder {
            let folder = try TemporaryFolder()
            for month in 1...9 {
                let rides = (0..<5).map { k in
                    Activity(
                        id: Int64(month * 100 + k), name: "r", sportType: "Ride", startDate: "2025-0\(month)-1\(k)T08:00:00Z", movingTime: 60,
                        elapsedTime: 60, distance: 1000, gearID: k == 0 ? "b\(month)" : nil)
                }
                try folder.write("activities/2025-0\(month).json", try ActivityCacheFormat.encode(rides))
            }
            return folder
        }
        let (a, b) = (try garage(), try garage())
        let whole = ActivityCacheStore(garageRoot: a.url.path)
        let asNeeded = ActivityCacheStore(garageRoot: b.url.path, readsMonthsAsNeeded: true)
        #expect(asNeeded.count == whole.count)
        #expect(asNeeded.gearIDs == whole.gearIDs)
        #expect(asNeeded.newestStart == whole.newestStart)
        #expect(asNeeded[304] == whole[304])
        #expect(asNeeded[999] == nil)
        // The same changes: one new, one moved to another month, one removed, one unchanged.
        for cache in [whole, asNeeded] {
            #expect(
                cache.upsert(Activity(id: 1000, name: "n", sportType: "Ride", startDate: "2025-09-20T08:00:00Z", movingTime: 1, elapsedTime: 1, distance: 1))
                    == .new)
            var moved = try #require(cache[502])
            moved.startDate = "2025-06-01T08:00:00Z"
            #expect(cache.upsert(moved) == .changed)
            #expect(cache.remove(701) != nil)
            #expect(cache.upsert(try #require(cache[801])) == .unchanged)
            #expect(cache.count == 45)
        }
        #expect(try whole.flush() == 4)
        #expect(try asNeeded.flush() == 4)
        for month in 1...9 {
            let name = "activities/2025-0\(month).json"
            #expect(try Data(contentsOf: a.url.appendingPathComponent(name)) == Data(contentsOf: b.url.appendingPathComponent(name)), "\(name)")
        }
        #expect(asNeeded.ids == whole.ids)
    }

    @Test func aStoreReadingMonthsAsNeededParsesOnlyThoseItIsAskedAbout() throws {
        let folder = try TemporaryFolder()
        let ride = { (id: Int64, start: String) in
            Activity(id: id, name: "r", sportType: "Ride", startDate: start, movingTime: 60, elapsedTime: 60, distance: 1000)
        }
        try folder.write("activities/2025-01.json", try ActivityCacheFormat.encode([ride(1, "2025-01-05T08:00:00Z")]))
        try folder.write("activities/2025-02.json", try ActivityCacheFormat.encode([ride(2, "2025-02-05T08:00:00Z")]))
        // The catalogue comes from the summaries; a month made unreadable after that is noticed
        // only when it is parsed.
        let cache = ActivityCacheStore(garageRoot: folder.url.path, readsMonthsAsNeeded: true)
        try folder.write("activities/2025-01.json", Array("[\n{\"id\": oops}\n]\n".utf8))
        #expect(cache.newestStart == "2025-02-05T08:00:00Z")
        #expect(cache.leftAlone.isEmpty, "January was not parsed")
        #expect(cache[1] == nil, "January parsed now: it no longer reads")
        #expect(cache.leftAlone == ["2025-01": "it could not be read whole"])
        #expect(cache.upsert(ride(3, "2025-01-06T08:00:00Z")) == .held)
    }
}
