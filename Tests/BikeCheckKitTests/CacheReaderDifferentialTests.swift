@testable import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// The activity cache is read by a hand-written JSON reader, in two flavours: whole activities
/// (sync, import) and compact summaries (status, validate: what the binary runs most). These
/// tests hold the fast path to the slow one and the hand-written reader to Foundation's.
@Suite struct CacheReaderDifferentialTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let exampleGarage = repository.appendingPathComponent("example-garage").path

    @Test func aLoadHoldsTheActivitiesAsItAskedForThemAndNothingElse() throws {
        let folder = try TemporaryFolder()
        try folder.write("garage.yaml", "units: metric\n")
        let ride = Activity(id: 5, name: "r", sportType: "Ride", startDate: "2025-10-02T06:00:00Z", movingTime: 60, elapsedTime: 60, distance: 900)
        try folder.write("activities/2025-10.json", try ActivityCacheFormat.encode([ride]))
        let root = folder.url.path
        guard case .none = GarageLoader.load(at: root, options: .init(activities: .skip)).activities else {
            Issue.record("a load that skips the cache holds no activities")
            return
        }
        guard case .full(let all) = GarageLoader.load(at: root, options: .init(activities: .full)).activities else {
            Issue.record("a full load holds whole activities")
            return
        }
        #expect(all == [ride])
        guard case .summaries(let summaries) = GarageLoader.load(at: root, options: .init(activities: .summaries)).activities else {
            Issue.record("a summary load holds summaries")
            return
        }
        #expect(summaries.records.map(\.id) == [5])
    }

    @Test(arguments: ["2026-01-15", "2026-06-30", "2026-11-15"])
    func statusFromSummariesEqualsStatusFromWholeActivitiesOnTheExampleGarage(_ asOf: String) throws {
        let day = try #require(Day(asOf))
        // A copy: the summaries make the activity index in the garage's .bikecheck/.
        let folder = try TemporaryFolder()
        for item in try FileManager.default.contentsOfDirectory(atPath: Self.exampleGarage) where item != ".bikecheck" {
            try FileManager.default.copyItem(atPath: Self.exampleGarage + "/" + item, toPath: folder.url.path + "/" + item)
        }
        Thread.sleep(forTimeInterval: 0.07)  // settled files can be indexed
        let full = GarageLoader.load(at: folder.url.path, options: .init(activities: .full))
        #expect(!full.wholeActivities.isEmpty)
        // Every bike, retired ones too, so no bike escapes the comparison.
        let all = full.garage.bikes.map(\.bike.id)
        let viaActivities = StatusPlanner(asOf: day).plan(full.garage, summaries: ActivitySummaries(full.wholeActivities), only: all)
        for pass in ["cold", "warm"] {
            let summarised = GarageLoader.load(at: folder.url.path, options: .init(activities: .summaries))
            #expect(full.diagnostics.map(\.message) == summarised.diagnostics.map(\.message), "index \(pass)")
            let viaSummaries = StatusPlanner(asOf: day).plan(summarised.garage, summaries: summarised.activitySummaries, only: all)
            #expect(viaSummaries == viaActivities, "index \(pass)")
            #expect(viaSummaries.bikes.contains { $0.intervals.contains { $0.usage.rides > 0 } }, "the example garage's rides count somewhere")
        }
        #expect(ActivityCacheLoader.loadSummaries(root: folder.url.path).indexed > 0, "the warm pass read the index")
    }

    @Test func statusFromSummariesEqualsStatusFromWholeActivitiesOnAGeneratedGarage() throws {
        let folder = try TemporaryFolder()
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = [
            "python3", Self.repository.appendingPathComponent("scripts/generate-garage.py").path, folder.url.path,
            "--bikes", "5", "--activities", "2000", "--years", "2",
        ]
        python.standardError = FileHandle.nullDevice
        try python.run()
        python.waitUntilExit()
        try #require(python.terminationStatus == 0)

        Thread.sleep(forTimeInterval: 0.07)  // settled files can be indexed
        let full = GarageLoader.load(at: folder.url.path, options: .init(activities: .full))
        #expect(full.wholeActivities.count == 2000)
        let all = full.garage.bikes.map(\.bike.id)
        for pass in ["cold", "warm"] {
            let summarised = GarageLoader.load(at: folder.url.path, options: .init(activities: .summaries))
            #expect(summarised.activitySummaries.records.count == 2000)
            for asOf in ["2025-03-01", "2026-01-01"] {
                let day = try #require(Day(asOf))
                #expect(
                    StatusPlanner(asOf: day).plan(summarised.garage, summaries: summarised.activitySummaries, only: all)
                        == StatusPlanner(asOf: day).plan(full.garage, summaries: ActivitySummaries(full.wholeActivities), only: all),
                    "as of \(asOf), index \(pass)")
            }
        }
        let months = try FileManager.default.contentsOfDirectory(atPath: folder.url.path + "/activities").filter { $0.hasSuffix(".json") }.count
        #expect(ActivityCacheLoader.loadSummaries(root: folder.url.path).indexed == months, "the warm pass read the index")
    }

    /// Mutates real cache files a thousand ways (seeded) and compares the hand-written reader with
    /// Foundation's JSON parser: what Foundation cannot parse the reader must report as an error,
    /// what the reader accepts without a word must be what Foundation reads, and the summary
    /// reader must agree with the whole-activity reader on every mutation.
    @Test func theCacheReaderAgreesWithFoundationOnMutatedFiles() throws {
        let source = try Data(contentsOf: URL(fileURLWithPath: Self.exampleGarage + "/activities/2026-03.json"))
        let original = Array(source)
        var random = SeededGenerator(seed: 20261123)
        var silentlyAcceptedInvalid: [String] = []
        var disagreements: [String] = []
        for trial in 0..<1000 {
            let bytes = mutate(original, &random)
            let decoded = ActivityCacheFormat.decode(bytes, path: "activities/2026-03.json")
            let errors = decoded.diagnostics.filter { $0.severity == .error }

            // The two loaders (whole activities, summaries), on every fourth trial for time:
            // the same diagnostics and the same numbers.
            if trial % 4 == 0 {
                let folder = try TemporaryFolder()
                try folder.write("activities/2026-03.json", bytes)
                let full = ActivityCacheLoader.load(root: folder.url.path)
                let summaries = ActivityCacheLoader.loadSummaries(root: folder.url.path)
                if full.diagnostics.map(\.message) != summaries.diagnostics.map(\.message) {
                    disagreements.append("trial \(trial): diagnostics differ between the readers")
                }
                let fromFull = full.activities.compactMap { a in a.localDay.map { (a.id, $0.ordinal, Double(a.movingTime), a.distance) } }
                let fromSummaries = summaries.summaries.records.map { ($0.id, Int($0.day), $0.movingTime, $0.distance) }
                if !fromFull.elementsEqual(fromSummaries, by: { $0 == $1 }) {
                    disagreements.append("trial \(trial): activities differ between the readers")
                }
            }

            guard let parsed = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else {
                if errors.isEmpty { silentlyAcceptedInvalid.append("trial \(trial): \(String(decoding: bytes.prefix(200), as: UTF8.self))") }
                continue
            }
            guard errors.isEmpty, let items = parsed as? [[String: Any]] else { continue }
            // Accepted by both: every field bikecheck reads is what Foundation reads.
            for (a, item) in zip(
                decoded.activities.sorted { $0.id < $1.id },
                items.sorted { (($0["id"] as? NSNumber)?.int64Value ?? 0) < (($1["id"] as? NSNumber)?.int64Value ?? 0) })
            {
                let same =
                    (item["id"] as? NSNumber)?.int64Value == a.id
                    && number(item["moving_time"]) == Double(a.movingTime)
                    && number(item["distance"]) == a.distance
                    && item["start_date"] as? String == a.startDate
                    && (item["sport_type"] as? String ?? item["type"] as? String) == a.sportType
                    && item["gear_id"] as? String == a.gearID
                if !same { disagreements.append("trial \(trial): activity \(a.id) reads differently from Foundation's") }
            }
            if items.count != decoded.activities.count { disagreements.append("trial \(trial): \(items.count) items, \(decoded.activities.count) activities") }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
        #expect(silentlyAcceptedInvalid.isEmpty, "invalid JSON accepted without an error: \(silentlyAcceptedInvalid.prefix(3))")
    }

    /// The reader's fast path takes only the layout `encode` writes and hands anything else to
    /// the general reader: each line, as written and with a space after its '{' (which only the
    /// general reader takes), reads to the same activities and the same problems, alone and
    /// between canonical activities.
    @Test func theCanonicalFastPathReadsWhatTheGeneralReaderReads() throws {
        let (canonical, minimal, lines) = try Self.editedLines()
        func read(_ items: [String]) -> [String] {
            let decoded = ActivityCacheFormat.decode(Array(("[\n" + items.joined(separator: ",\n") + "\n]\n").utf8), path: "activities/2020-06.json")
            return decoded.activities.map { "\($0)" } + decoded.diagnostics.map { "\($0.id) \($0.message)" }
        }
        for line in lines {
            let general = "{ " + line.dropFirst()
            #expect(read([line]) == read([general]), "\(line)")
            #expect(read([minimal, line, canonical]) == read([minimal, general, canonical]), "\(line)")
        }
        #expect(ActivityCacheFormat.decode(Array(("[\n" + canonical + "\n]\n").utf8), path: "activities/2020-06.json").activities == [Self.whole])
        #expect(ActivityCacheFormat.decode(Array(("[\n" + minimal + "\n]\n").utf8), path: "activities/2020-06.json").activities == [Self.bare])
    }

    /// The same lines as summaries, which status reads (the fast path builds them without the
    /// general reader's fields): the same records, strings and problems, the checks of month
    /// and order included, alone in their month's file and between canonical activities in the
    /// next month's.
    @Test func theCanonicalFastPathsSummariesAreTheGeneralReadersOnes() throws {
        let (canonical, minimal, lines) = try Self.editedLines()
        let folder = try TemporaryFolder()
        func load(_ items: [String], month: String) throws -> [String] {
            try? FileManager.default.removeItem(atPath: folder.url.path + "/activities")
            try folder.write("activities/\(month).json", "[\n" + items.joined(separator: ",\n") + "\n]\n")
            let loaded = ActivityCacheLoader.loadSummaries(root: folder.url.path, index: false)
            return loaded.summaries.records.map { "\($0)" } + loaded.summaries.strings + loaded.diagnostics.map { "\($0.id) \($0.message)" }
        }
        for line in lines {
            let general = "{ " + line.dropFirst()
            // Alone in its month, and between canonical activities in the next month's file.
            #expect(try load([line], month: "2020-06") == load([general], month: "2020-06"), "\(line)")
            #expect(try load([minimal, line, canonical], month: "2020-07") == load([minimal, general, canonical], month: "2020-07"), "\(line)")
        }
        // Out of order and in another month: the problems the checks report.
        let problems = try load([minimal, canonical], month: "2020-07")
        #expect(problems.contains { $0.hasPrefix("cache-misplaced") } && problems.contains { $0.hasPrefix("cache-unsorted") }, "\(problems)")
    }

    /// The fast path compares each key as literal words: each must be its text, accepted where
    /// it stands (with bytes after it, and at the very end of the bytes) and refused with any
    /// one byte changed.
    @Test func theFastPathsKeysAreTheirText() {
        for key in CanonicalKey.all {
            let text = Array(UnsafeBufferPointer(start: key.text.utf8Start, count: key.text.utf8CodeUnitCount))
            #expect(text.count == key.length, "\(key.text)")
            for tail in [Array("\"b10000023\",\"id\":1}".utf8), []] {
                for changed in [-1] + Array(text.indices) {
                    var bytes = text
                    if changed >= 0 { bytes[changed] ^= 0x20 }
                    bytes += tail
                    let accepted = bytes.withUnsafeBufferPointer { b in
                        var cursor = CanonicalCursor(base: b.baseAddress!, count: b.count, at: 0)
                        return cursor.key(key) ? cursor.at : nil
                    }
                    #expect(accepted == (changed < 0 ? text.count : nil), "\(key.text), byte \(changed), \(tail.count) after")
                }
            }
        }
    }

    /// Near the end of the bytes the fast path reads digit by digit and literal by literal
    /// (its words would run past them): each line without its last key, the only item of a
    /// file with no space or newline, so that its elevation and `trainer` end within a word of
    /// the end, reads to the same activities, summaries and problems as the general reader.
    @Test func theFastPathsEndOfTheBytesReadsWhatTheGeneralReaderReads() throws {
        let (_, _, lines) = try Self.editedLines()
        let folder = try TemporaryFolder()
        func read(_ item: String) throws -> [String] {
            let bytes = Array(("[" + item + "]").utf8)
            let decoded = ActivityCacheFormat.decode(bytes, path: "activities/2020-06.json")
            try? FileManager.default.removeItem(atPath: folder.url.path + "/activities")
            try folder.write("activities/2020-06.json", bytes)
            let loaded = ActivityCacheLoader.loadSummaries(root: folder.url.path, index: false)
            return decoded.activities.map { "\($0)" } + decoded.diagnostics.map { "\($0.id) \($0.message)" }
                + loaded.summaries.records.map { "\($0)" } + loaded.summaries.strings + loaded.diagnostics.map { "\($0.id) \($0.message)" }
        }
        var ending = 0
        for line in lines {
            let cut = line.replacingOccurrences(of: #","type":"EBikeRide""#, with: "")
            let general = "{ " + cut.dropFirst()
            let fast = try read(cut)
            #expect(fast == (try read(general)), "\(cut)")
            if cut.hasSuffix(#""trainer":true}"#) && fast.contains(where: { $0.hasPrefix("Activity(") }) { ending += 1 }
        }
        #expect(ending > 10, "lines that end with the fast path's slow reads are read")
    }

    /// The string scan's test of eight bytes marks, as its lowest bit, the first byte that is
    /// '"', '\' or a control character (or, in a name's scan, '#'), for every byte value at
    /// every place and with any byte after it.
    @Test(arguments: [false, true])
    func theStringScanFindsTheFirstByteThatEndsAString(_ name: Bool) {
        func ends(_ c: UInt8) -> Bool { c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 || (name && c == UInt8(ascii: "#")) }
        for c in 0...255 {
            for place in 0..<8 {
                for after in [UInt8(ascii: "a"), 0, 0xFF, UInt8(ascii: "\""), 0x80, UInt8(ascii: "#")] {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
                    bytes[place] = UInt8(c)
                    for k in (place + 1)..<8 { bytes[k] = after }
                    let word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                    let found = name ? CanonicalCursor.nameEnds(word) : CanonicalCursor.stringEnds(word)
                    let first = bytes.firstIndex(where: ends)
                    #expect((found == 0 ? nil : found.trailingZeroBitCount >> 3) == first, "byte \(c) at \(place), then \(after)")
                }
            }
        }
    }

    static let whole = Activity(
        id: 10_086_461_706, name: "Commute #home", sportType: "EBikeRide", type: "EBikeRide", startDate: "2020-06-01T05:01:50Z",
        startDateLocal: "2020-06-01T07:01:50Z", timezone: "(GMT+02:00) Europe/Berlin", movingTime: 5345, elapsedTime: 6360,
        distance: 33787.4, totalElevationGain: 168.9, gearID: "b10000023", trainer: true, commute: true, manual: false,
        source: "fit", device: 3_980_001_234, athlete: 42)
    static let bare = Activity(id: 7, name: "", sportType: "Ride", startDate: "2020-06-02T05:01:50Z", movingTime: 0, elapsedTime: 0, distance: 0)

    /// `whole` as `encode` writes it, `bare` so, and `whole`'s line edited each way that the fast
    /// path must read as the general reader does or hand to it.
    static func editedLines() throws -> (canonical: String, minimal: String, lines: [String]) {
        let canonical = String(decoding: try ActivityCacheFormat.encode([whole]), as: UTF8.self).split(separator: "\n").map(String.init)[1]
        let minimal = String(decoding: try ActivityCacheFormat.encode([bare]), as: UTF8.self).split(separator: "\n").map(String.init)[1]
        // Each edit of the canonical line: (what it replaces, by what).
        let edits: [(String, String)] = [
            ("", ""), ("Commute #home", #"Commute \"home\""#), ("Commute #home", #"Caf\u00e9"#), ("Commute #home", "tab\there"),
            ("Commute #home", #"\"Big\" day #out"#), ("Commute #home", #"a\\b\/c\b\f\n\r\t #x"#), ("Commute #home", #"bad \x"#),
            ("Commute #home", #"#a\u0023b"#), ("Commute #home", #"end\"#), ("Commute #home", "Café #tour"),
            ("Commute #home", "1234567#"), ("Commute #home", "#"), ("Commute #home", "a#b #c##d #e12345678 #f"), ("Commute #home", "12345678"),
            ("33787.4", "3.37874e4"), ("33787.4", "33787.40000000001"), ("33787.4", "0.5"), ("33787.4", "007"), ("33787.4", "-5"),
            ("33787.4", "1."), ("33787.4", "null"), ("33787.4", "1e999"), ("33787.4", "0"), ("33787.4", "12345678.5"),
            ("33787.4", "1234567.1234567"), ("33787.4", "1.12345678"), ("33787.4", "99999999.9"), ("33787.4", "0.0"), ("33787.4", "00.5"),
            ("5345", "99999999999999"), ("5345", "5345.5"), ("5345", "0"), ("5345", "2592000"), ("5345", "2592001"),
            ("6360", "null"), ("168.9", "-1"), ("168.9", "1234567"), ("10086461706", "0"), ("10086461706", "012"),
            ("10086461706", "9223372036854775808"), ("10086461706", "4611686018427387904"), ("10086461706", "1.5"), ("10086461706", "\"1\""),
            ("10086461706", "12345678"), ("10086461706", "1234567812345678"), ("10086461706", "123456781234567"), ("10086461706", "5"),
            ("10086461706", "123456789012345678"), ("10086461706", "1234567890123456789"), ("3980001234", "-3"), ("3980001234", "\"x\""),
            (#""athlete":42"#, #""athlete":null"#), ("2020-06-01T05:01:50Z", "2020-13-01T05:01:50Z"), ("2020-06-01T05:01:50Z", "2020-02-30T05:01:50Z"),
            ("2020-06-01T05:01:50Z", "2020-06-01T05:01:50.250Z"), ("2020-06-01T05:01:50Z", "2020-06-01Té:01:50Z"),
            ("2020-06-01T05:01:50Z", "2020-05-31T23:01:50Z"),
            ("2020-06-01T05:01:50Z", "2020-06-01 05:01:50Z"), ("2020-06-01T05:01:50Z", "2020-06-01T05:01:50X"), ("2020-06-01T07:01:50Z", "yesterday"),
            ("2020-06-01T07:01:50Z", "2020-06-02T07:01:50.5Z"), ("2020-06-01T07:01:50Z", "2020-06-31T07:01:50Z"),
            ("2020-06-01T07:01:50Z", "2020-06-01T07-01:50Z"), ("2020-06-01T05:01:50Z", "2020-06-01T05:0a:50Z"),
            ("2020-06-01T05:01:50Z", "2020-06-01T05:01:5/Z"), ("2020-06-01T07:01:50Z", "2020-06-01T07:01::0Z"),
            ("2020-06-01T05:01:50Z", "2020/06-01T05:01:50Z"), ("2020-06-01T07:01:50Z", "2020-06-01T07:01:50z"),
            (#""commute":true"#, #""commute":null"#), (#""commute":true"#, #""commute":false"#), (#""trainer":true"#, #""trainer":1"#),
            (#""trainer":true"#, #""trainer":tru"#), (#""manual":false"#, #""manual":fals"#), (#""b10000023""#, "null"), (#""b10000023""#, "7"),
            (#""b10000023""#, #""MountainBikeRide-b1""#), (#""b10000023""#, #""""#), (#""b10000023""#, #""b1000002\u0033""#),
            // A gear id that is the sport type's bytes, or the name's hashtags: numbered as the general reader numbers them.
            (#""b10000023""#, #""EBikeRide""#), (#""b10000023""#, ##""#home""##),
            (#","trainer":true"#, ""), (#","id":10086461706"#, ""), (#","type":"EBikeRide""#, #","type":"EBikeRide","extra":[1,{"a":2}]"#),
            (#""manual":false"#, #""manual":false,"manual":true"#), (#""trainer":true,"type":"EBikeRide""#, #""type":"EBikeRide","trainer":true"#),
            ("}", ""), ("}", "},"), (#""name""#, #""nam\u0065""#), (#""EBikeRide","start_date""#, #""E\"","start_date""#),
        ]
        // Each key with a letter of its start, middle or end in capitals, and with a space before
        // its ':' (which only the general reader takes): every word the fast path compares.
        let keys = [
            "athlete", "commute", "device", "distance", "elapsed_time", "gear_id", "id", "manual", "moving_time", "name", "source",
            "sport_type", "start_date", "start_date_local", "timezone", "total_elevation_gain", "trainer", "type",
        ]
        var keyEdits: [(String, String)] = []
        for key in keys {
            let letters = Array(key)
            for k in Set([0, letters.count / 2, letters.count - 1]) {
                var changed = letters
                changed[k] = Character(changed[k].uppercased())
                keyEdits.append(("\"\(key)\":", "\"\(String(changed))\":"))
            }
            keyEdits.append(("\"\(key)\":", "\"\(key)\" :"))
        }
        // Each byte of both timestamps made a letter, and a digit made a separator or a
        // separator a digit: every byte the fast path checks as a word.
        var timestampEdits: [(String, String)] = []
        for timestamp in ["2020-06-01T05:01:50Z", "2020-06-01T07:01:50Z"] {
            let bytes = Array(timestamp.utf8)
            for k in bytes.indices {
                for replacement in [UInt8(ascii: "x"), bytes[k] &- 48 < 10 ? UInt8(ascii: ":") : UInt8(ascii: "5")] {
                    var changed = bytes
                    changed[k] = replacement
                    timestampEdits.append((timestamp, String(decoding: changed, as: UTF8.self)))
                }
            }
        }
        var lines = [minimal]
        for (old, new) in edits + keyEdits + timestampEdits {
            let range = try #require(old.isEmpty ? canonical.startIndex..<canonical.startIndex : canonical.range(of: old), "\(old)")
            lines.append(canonical.replacingCharacters(in: range, with: new))
        }
        return (canonical, minimal, lines)
    }

    /// A number as Foundation read it. Long ones come as NSDecimalNumber, whose `doubleValue` is
    /// not correctly rounded (113404.49223372036854775808 gives …035, not …038): read its digits.
    func number(_ value: Any?) -> Double? {
        if let decimal = value as? NSDecimalNumber { return Double(decimal.stringValue) }
        return (value as? NSNumber)?.doubleValue
    }

    /// One random edit of the kind a crash, a bad merge or a hand edit makes.
    func mutate(_ bytes: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
        var out = bytes
        let interesting = Array("{}[]\",:0123456789.eE-+ntf\\ ".utf8)
        let edits = 1 + random.next(3)
        for _ in 0..<edits where !out.isEmpty {
            let at = random.next(out.count)
            switch random.next(6) {
            case 0: out[at] = interesting[random.next(interesting.count)]
            case 1: out.remove(at: at)
            case 2: out.insert(interesting[random.next(interesting.count)], at: at)
            case 3: out.removeSubrange(at..<min(out.count, at + 1 + random.next(40)))
            case 4:
                // Swap a number for an odd one.
                let numbers = ["1e999", "-0", "007", "1.", "1e", "9223372036854775808", "0.1", "-5", "NaN"]
                let text = Array(numbers[random.next(numbers.count)].utf8)
                var end = at
                while end < out.count, (out[end] >= 0x30 && out[end] <= 0x39) || out[end] == UInt8(ascii: ".") { end += 1 }
                out.replaceSubrange(at..<end, with: text)
            default: out = Array(out.prefix(at))
            }
        }
        return out
    }
}
