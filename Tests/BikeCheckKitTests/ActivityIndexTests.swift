@testable import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// The activity index is derived from the JSON cache and must never change an answer: a warm
/// index is used, and a stale, corrupt, truncated or foreign one is detected, not trusted, and
/// rebuilt.
@Suite struct ActivityIndexTests {
    static func ride(_ id: Int64, _ date: String, gear: String? = "b1", sport: String = "Ride", km: Double = 30) -> Activity {
        Activity(
            id: id, name: "ride \(id)", sportType: sport, startDate: date + "T08:00:00Z", startDateLocal: date + "T09:00:00Z",
            movingTime: 3600, elapsedTime: 3700, distance: km * 1000, gearID: gear, trainer: id % 5 == 0)
    }

    static let months: [String: [Activity]] = [
        "2026-01": [ride(1, "2026-01-02"), ride(2, "2026-01-05", gear: "g7"), ride(3, "2026-01-09", gear: nil, sport: "Run")],
        "2026-02": [ride(10, "2026-02-01"), ride(11, "2026-02-03", sport: "GravelRide"), ride(15, "2026-02-04", gear: "g7")],
        "2026-03": [ride(20, "2026-03-01", gear: "b1")],
    ]

    /// A garage folder with the three months cached, settled (see `ActivityIndex.settleTime`).
    func garage(_ months: [String: [Activity]] = months) throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try folder.write("garage.yaml", "units: metric\n")
        for (month, items) in months { try folder.write("activities/\(month).json", ActivityCacheFormat.encode(items)) }
        settle()
        return folder
    }

    func settle() { Thread.sleep(forTimeInterval: ActivityIndex.settleTime + 0.02) }

    func indexFile(_ folder: TemporaryFolder, _ month: String) -> String {
        folder.url.path + "/.bikecheck/activity-index/\(month).json.idx"
    }

    /// The answer from JSON alone, to hold every indexed answer to.
    func expected(_ folder: TemporaryFolder) -> ActivityCacheLoader.SummaryResult {
        ActivityCacheLoader.loadSummaries(root: folder.url.path, index: false)
    }

    func expectSameAnswer(
        _ a: ActivityCacheLoader.SummaryResult, _ b: ActivityCacheLoader.SummaryResult,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(a.summaries.records == b.summaries.records, sourceLocation: sourceLocation)
        #expect(a.summaries.runs == b.summaries.runs, sourceLocation: sourceLocation)
        #expect(a.summaries.strings == b.summaries.strings, sourceLocation: sourceLocation)
        #expect(a.diagnostics.map(\.message) == b.diagnostics.map(\.message), sourceLocation: sourceLocation)
        #expect(a.diagnostics.map(\.location) == b.diagnostics.map(\.location), sourceLocation: sourceLocation)
    }

    @Test func aColdRunBuildsTheIndexAndAWarmRunReadsItWithTheSameAnswer() throws {
        let folder = try garage()
        let json = expected(folder)
        let cold = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        #expect(cold.indexed == 0)
        for month in Self.months.keys { #expect(FileManager.default.fileExists(atPath: indexFile(folder, month))) }
        // Local state: the folder ignores itself in git.
        #expect(FileManager.default.fileExists(atPath: folder.url.path + "/.bikecheck/.gitignore"))
        let warm = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        #expect(warm.indexed == 3)
        expectSameAnswer(cold, json)
        expectSameAnswer(warm, json)
        #expect(warm.summaries.records.count == 7)
    }

    @Test func aMonthFileChangedInPlaceWithTheSameSizeAndItsOldTimeRestoredIsReadAgain() throws {
        let folder = try garage()
        _ = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        let path = folder.url.path + "/activities/2026-02.json"
        let before = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as! Date
        // Same length, same inode, same modification time: only the change time tells.
        var bytes = try #require(FileManager.default.contents(atPath: path)).map { $0 }
        let text = String(decoding: bytes, as: UTF8.self)
        let range = try #require(text.range(of: "GravelRide"))
        bytes.replaceSubrange(
            text.utf8.distance(from: text.startIndex, to: range.lowerBound)..<text.utf8.distance(from: text.startIndex, to: range.upperBound),
            with: Array("MountainBk".utf8))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: bytes)
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: before], ofItemAtPath: path)

        let stale = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        #expect(stale.indexed == 2)
        #expect(stale.summaries.strings.contains("MountainBk"))
        expectSameAnswer(stale, expected(folder))
        settle()
        _ = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        let rebuilt = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        #expect(rebuilt.indexed == 3)
        expectSameAnswer(rebuilt, expected(folder))
    }

    /// A `chmod` and a hard-linked copy (a backup) change the change time, and a copy its
    /// folder: the bytes are the same, so the index is still used, and stored again under the
    /// new key.
    @Test func aChmodOrAHardLinkedCopyKeepsTheIndexWarm() throws {
        let folder = try garage()
        _ = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        for month in Self.months.keys { chmod(folder.url.path + "/activities/\(month).json", 0o600) }
        settle()
        let chmodded = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        #expect(chmodded.indexed == 3)
        expectSameAnswer(chmodded, expected(folder))
        let rekeyed = try #require(ActivityIndex.key(folder.url.path + "/activities/2026-02.json"))
        #expect(ActivityIndex(root: folder.url.path).entry("2026-02.json", key: rekeyed) != nil, "stored under the new key")

        let copy = try TemporaryFolder()
        for relative in ["garage.yaml"] + Self.months.keys.flatMap({ ["activities/\($0).json", ".bikecheck/activity-index/\($0).json.idx"] }) {
            try FileManager.default.createDirectory(
                at: copy.url.appendingPathComponent(relative).deletingLastPathComponent(), withIntermediateDirectories: true)
            #expect(link(folder.url.path + "/" + relative, copy.url.path + "/" + relative) == 0)
        }
        settle()
        let linked = ActivityCacheLoader.loadSummaries(root: copy.url.path)
        #expect(linked.indexed == 3)
        expectSameAnswer(linked, expected(folder))
    }

    @Test func aMonthFileReplacedBySyncIsReadAgain() throws {
        let folder = try garage()
        _ = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        // What sync and import do: a new file renamed over the old one.
        try AtomicFile.write(
            ActivityCacheFormat.encode(Self.months["2026-03"]! + [Self.ride(21, "2026-03-02", km: 80)]),
            to: folder.url.path + "/activities/2026-03.json")
        let after = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        #expect(after.indexed == 2)
        #expect(after.summaries.records.contains { $0.id == 21 })
        expectSameAnswer(after, expected(folder))
    }

    /// Each way an index file can be wrong, applied to February's.
    static let damages: [String] = ["flipped byte", "truncated", "empty", "other month's", "not an index", "old version", "appended"]

    @Test(arguments: damages)
    func aDamagedIndexIsNotTrustedAndIsRebuilt(_ damage: String) throws {
        let folder = try garage()
        _ = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        let path = indexFile(folder, "2026-02")
        var bytes = try #require(FileManager.default.contents(atPath: path)).map { $0 }
        switch damage {
        case "flipped byte": bytes[bytes.count / 2] ^= 0x10
        case "truncated": bytes.removeLast(bytes.count / 3)
        case "empty": bytes = []
        case "other month's": bytes = try #require(FileManager.default.contents(atPath: indexFile(folder, "2026-01"))).map { $0 }
        case "not an index": bytes = Array("[{\"id\": 1}]\n".utf8)
        case "old version": bytes[8] = 0
        case "appended": bytes += [0, 0, 0, 0]
        default: Issue.record("unknown damage \(damage)")
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let damaged = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        #expect(damaged.indexed == 2, "February comes from its JSON")
        expectSameAnswer(damaged, expected(folder))
        let rebuilt = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        #expect(rebuilt.indexed == 3, "and its index was made again")
        expectSameAnswer(rebuilt, expected(folder))
    }

    /// The warm index writes each month's records straight into one array, renumbers them and
    /// closes up the duplicates there: the same records, strings and runs as from JSON, with
    /// months from JSON (a new one) between months from the index.
    @Test func aWarmIndexGivesTheSameRunsWithDuplicatesAndAMonthFromJSONBetween() throws {
        var months = Self.months
        months["2026-02"]! += [Self.ride(2, "2026-02-07", gear: "g7"), Self.ride(20, "2026-02-09", sport: "Run")]
        months["2026-03"]! += [Self.ride(22, "2026-03-04", gear: "g9", sport: "EBikeRide")]
        let folder = try garage(months)
        // Cold: each month indexed as it is read, its records moved into place from the reading.
        let cold = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        #expect(cold.indexed == 0)
        for month in months.keys { #expect(FileManager.default.fileExists(atPath: indexFile(folder, month))) }
        expectSameAnswer(cold, expected(folder))
        try folder.write("activities/2026-02.json", ActivityCacheFormat.encode(months["2026-02"]! + [Self.ride(16, "2026-02-10", gear: "g8")]))
        let mixed = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        #expect(mixed.indexed == 2)
        #expect(mixed.diagnostics.filter { $0.id == "cache-duplicate-activity" }.count == 2)
        expectSameAnswer(mixed, expected(folder))
        settle()
        _ = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        let warm = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        #expect(warm.indexed == 3)
        expectSameAnswer(warm, expected(folder))
        #expect(warm.summaries.records.count == 9)
    }

    @Test func anIndexOfTheSameMonthFromAnotherGarageIsForeign() throws {
        let one = try garage(), other = try garage()
        _ = ActivityCacheLoader.loadSummaries(root: one.url.path)
        _ = ActivityCacheLoader.loadSummaries(root: other.url.path)
        // Same name, same content, but another file (inode, times).
        try FileManager.default.removeItem(atPath: indexFile(other, "2026-01"))
        try FileManager.default.copyItem(atPath: indexFile(one, "2026-01"), toPath: indexFile(other, "2026-01"))
        let result = ActivityCacheLoader.loadSummaries(root: other.url.path)
        #expect(result.indexed == 2)
        expectSameAnswer(result, expected(other))
    }

    @Test func theIndexOfAMonthFileThatIsGoneIsRemoved() throws {
        let folder = try garage()
        _ = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        try FileManager.default.removeItem(atPath: folder.url.path + "/activities/2026-03.json")
        let result = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        #expect(result.indexed == 2)
        #expect(!FileManager.default.fileExists(atPath: indexFile(folder, "2026-03")))
        #expect(FileManager.default.fileExists(atPath: indexFile(folder, "2026-02")))
    }

    @Test func recordsThatTheReaderCannotProduceAreRefusedEvenWithAGoodChecksum() throws {
        let folder = try garage()
        let path = folder.url.path + "/activities/2026-01.json"
        let key = try #require(ActivityIndex.key(path))
        let good = ActivityIndex.Entry(
            records: [ActivitySummary(id: 1, day: 100, gear: 0, sport: 1, movingTime: 60, distance: 1)],
            strings: ["b1", "Ride"], misplaced: 0, unsorted: false)
        #expect(ActivityIndex.decode(ActivityIndex.encode(good, name: "2026-01.json", key: key), name: "2026-01.json", key: key) == good)
        var bad: [ActivityIndex.Entry] = []
        for change in 0..<6 {
            var e = good
            switch change {
            case 0: e.records[0].gear = 2
            case 1: e.records[0].sport = -1
            case 2: e.records[0].id = 0
            case 3: e.records[0].distance = .nan
            case 4: e.misplaced = 2
            default: e.records[0].movingTime = .infinity
            }
            bad.append(e)
        }
        for e in bad {
            #expect(ActivityIndex.decode(ActivityIndex.encode(e, name: "2026-01.json", key: key), name: "2026-01.json", key: key) == nil)
        }
        var otherKey = key
        otherKey.size += 1
        #expect(ActivityIndex.decode(ActivityIndex.encode(good, name: "2026-01.json", key: key), name: "2026-01.json", key: otherKey) == nil)
        #expect(ActivityIndex.decode(ActivityIndex.encode(good, name: "2026-01.json", key: key), name: "2026-02.json", key: key) == nil)
    }

    @Test func aMonthFileWithProblemsIsNotIndexedAndKeepsItsDiagnosticsWhenWarm() throws {
        let folder = try garage()
        // An error in February, and March's only ride in April: a warning kept in the index.
        try folder.write("activities/2026-02.json", "[\n{\"id\": \"x\"}\n]\n")
        try folder.write("activities/2026-04.json", ActivityCacheFormat.encode([Self.ride(30, "2026-03-20")]))
        settle()
        let json = expected(folder)
        #expect(json.diagnostics.contains { $0.severity == .error && $0.location.file == "activities/2026-02.json" })
        #expect(json.diagnostics.contains { $0.id == "cache-misplaced" })
        let cold = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        #expect(!FileManager.default.fileExists(atPath: indexFile(folder, "2026-02")))
        let warm = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        #expect(warm.indexed == 3)
        expectSameAnswer(cold, json)
        expectSameAnswer(warm, json)
        #expect(warm.sources["activities/2026-02.json"] != nil, "the file with errors can still be shown")
    }

    @Test func aFileStillChangingIsReadButNotIndexed() throws {
        let folder = try TemporaryFolder()
        try folder.write("activities/2026-01.json", ActivityCacheFormat.encode(Self.months["2026-01"]!))
        // Written just now: within one timestamp tick it could change again unseen.
        let result = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        #expect(result.summaries.records.count == 3)
        #expect(!FileManager.default.fileExists(atPath: indexFile(folder, "2026-01")))
    }

    @Test func anIndexFolderThatLinksOutsideTheGarageIsNotUsed() throws {
        let folder = try garage(), outside = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.url.path + "/.bikecheck", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.url.path + "/.bikecheck/activity-index", withDestinationPath: outside.url.path)
        let result = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        expectSameAnswer(result, expected(folder))
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.url.path).isEmpty)
    }
}

extension ActivityIndexTests {
    /// With one-second timestamps, a same-size edit later in the second the index was built in
    /// left every part of the key as it was: the index served the old answer (10 of 12 trials).
    /// A file whose times have no nanoseconds is not indexed until two seconds have passed.
    @Test func aMonthFileWithWholeSecondTimesIsNotIndexedWithinItsTick() throws {
        let folder = try garage()
        let path = folder.url.path + "/activities/2026-02.json"
        // A coarse filesystem's modification time: this second, no nanoseconds.
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var times = [timespec(tv_sec: now.tv_sec, tv_nsec: 0), timespec(tv_sec: now.tv_sec, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        settle()
        let first = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        expectSameAnswer(first, expected(folder))
        #expect(!FileManager.default.fileExists(atPath: indexFile(folder, "2026-02")), "indexed within its tick")
        #expect(FileManager.default.fileExists(atPath: indexFile(folder, "2026-01")), "a file with fine times is indexed at once")

        // Two seconds on, the tick is over: the file is indexed and read from the index.
        times = [timespec(tv_sec: now.tv_sec - 3, tv_nsec: 0), timespec(tv_sec: now.tv_sec - 3, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        Thread.sleep(forTimeInterval: ActivityIndex.settleTime + 0.02)
        _ = ActivityCacheLoader.loadSummaries(root: folder.url.path)
        #expect(FileManager.default.fileExists(atPath: indexFile(folder, "2026-02")))
    }

    /// The index's checksum (`laneChecksum`) changes with any one bit flipped, a byte cut off
    /// the end or a zero added, at every length up to 200 (three of its 64-byte steps): a torn,
    /// truncated or altered file.
    @Test func theIndexsChecksumCatchesAFlippedBitACutAndAnAddedZero() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        let bytes = (0..<200).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        func sum(_ b: [UInt8]) -> UInt64 { b.withUnsafeBytes(ActivityIndex.laneChecksum) }
        for length in 0...bytes.count {
            let prefix = Array(bytes[..<length])
            let whole = sum(prefix)
            for k in prefix.indices {
                var changed = prefix
                changed[k] ^= 1 << UInt8(k % 8)
                #expect(sum(changed) != whole, "length \(length), byte \(k)")
            }
            if length > 0 { #expect(sum(Array(prefix.dropLast())) != whole, "length \(length)") }
            #expect(sum(prefix + [0]) != whole, "length \(length)")
        }
    }

    /// The index's checksum is its definition (version 6: eight lanes of Fletcher's sums, as
    /// written here a word at a time) for every length to 300, wherever the bytes lie in memory:
    /// the vector loads take any address, and a change of the value needs a new index version.
    @Test func theIndexsChecksumIsEightLanesOfWordsAtAnyAddress() {
        let bytes = (0..<316).map { UInt8(truncatingIfNeeded: $0 &* 167 &+ 13) }
        func byWords(_ b: ArraySlice<UInt8>) -> UInt64 {
            let b = Array(b)
            func word(_ at: Int) -> UInt64 {
                var w: UInt64 = 0
                for k in 0..<8 where at + k < b.count { w |= UInt64(b[at + k]) << (8 * UInt64(k)) }
                return w
            }
            var a = [UInt64](repeating: 0, count: 8), s = a
            var at = 0
            while at + 64 <= b.count {
                for lane in 0..<8 {
                    a[lane] &+= word(at + 8 * lane)
                    s[lane] &+= a[lane]
                }
                at += 64
            }
            while at < b.count {
                a[0] &+= word(at)
                s[0] &+= a[0]
                at += 8
            }
            var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(b.count)
            for pair in 0..<4 {
                for v in [a[2 * pair], a[2 * pair + 1], s[2 * pair], s[2 * pair + 1]] {
                    h = (h ^ v) &* 0x9E37_79B9_7F4A_7C15
                    h ^= h >> 29
                }
            }
            return h ^ (h >> 32)
        }
        for offset in 0..<16 {
            for length in 0...300 {
                let slice = bytes[offset..<(offset + length)]
                #expect(slice.withUnsafeBytes(ActivityIndex.laneChecksum) == byWords(slice), "offset \(offset), length \(length)")
            }
        }
    }

    /// The checksum as first written, a word at a time: the faster one must give the same value
    /// for every length (the index and the garage cache store it; a change would need a version).
    static func checksumByWords(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(bytes.count)
        var at = 0
        while at + 8 <= bytes.count {
            var word: UInt64 = 0
            for k in 0..<8 { word |= UInt64(bytes[at + k]) << (8 * UInt64(k)) }
            h = (h ^ word) &* 0x100_0000_01b3
            h ^= h >> 29
            at += 8
        }
        while at < bytes.count {
            h = (h ^ UInt64(bytes[at])) &* 0x100_0000_01b3
            at += 1
        }
        return h ^ (h >> 32)
    }

    @Test func theChecksumIsTheWordAtATimeOneForEveryLength() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let bytes = (0..<300).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        for length in 0...bytes.count {
            let prefix = Array(bytes[..<length])
            #expect(ActivityIndex.checksum(prefix) == Self.checksumByWords(prefix), "length \(length)")
        }
    }
}

extension ActivityIndexTests {
    /// Months read from JSON go into place in name order as they are read, each in an array a
    /// month before it had, between indexed months decoded into theirs; where the room reserved
    /// from the files' sizes runs out (`bytesPerActivity` far above a ride's size), the months
    /// without room are gathered from their own arrays. Every way, the answer is the JSON's: the
    /// same records, runs, strings and diagnostics, cold, mixed and warm.
    @Test(arguments: [160, 600, 2_000, 1_000_000])
    func monthsPutInPlaceAsTheyAreReadGiveTheAnswerOfTheJSONWhateverTheRoom(_ bytesPerActivity: Int) throws {
        var months: [String: [Activity]] = [:]
        for m in 1...9 {
            let month = "2025-0\(m)"
            // 1 to 60 rides, some with a gear or sport new to the month, one a duplicate of the month before.
            months[month] = (0..<(m * 7 % 60 + 1)).map { k in
                let day = "\(month)-\(String(format: "%02d", k % 28 + 1))"
                return Self.ride(Int64(m * 1000 + k), day, gear: k % 4 == 0 ? nil : "g\(k % 5)", sport: k % 3 == 0 ? "Ride" : "Sport\(m)")
            }
            if m > 1 { months[month]!.append(Self.ride(Int64((m - 1) * 1000), "\(month)-28")) }
        }
        let folder = try garage(months)
        // A file not named after a month (read, not placed) and a month with an error.
        try folder.write("activities/notes.json", ActivityCacheFormat.encode([Self.ride(5, "2025-01-03")]))
        try folder.write("activities/2025-10.json", "[\n{\"id\": \"x\"}\n]\n")
        settle()
        let json = expected(folder)
        #expect(json.summaries.records.count > 200)
        func load() -> ActivityCacheLoader.SummaryResult {
            ActivityCacheLoader.loadSummaries(root: folder.url.path, bytesPerActivity: bytesPerActivity)
        }
        let cold = load()
        #expect(cold.indexed == 0)
        expectSameAnswer(cold, json)
        // Mixed: two months' index files gone, the rest read from the index between them.
        for month in ["2025-02", "2025-07"] { try FileManager.default.removeItem(atPath: indexFile(folder, month)) }
        let mixed = load()
        #expect(mixed.indexed == 7)
        expectSameAnswer(mixed, json)
        let warm = load()
        #expect(warm.indexed == 9)
        expectSameAnswer(warm, json)
    }
}
