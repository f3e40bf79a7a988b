import Diagnostics
import Foundation

/// The activity cache's checks across month files: duplicate ids, each counted once.
extension ActivityCacheLoader {
    /// The checks across files, in name order; `accept` gets each file's records that count.
    /// With `locating`, returns which file (index in `files`) each activity id was last seen in.
    /// Without, the table holds only the ids of files whose span of ids meets another file's: a
    /// file alone in its span (Strava's ids grow with time, so month files seldom meet) can only
    /// repeat its own ids, and none when they increase. A million activities would otherwise
    /// take a table of 25 MB and a million lookups that miss the processor's cache.
    @discardableResult
    static func check<Builder: ActivityRecordBuilder>(
        _ files: [File<Builder>], _ diagnostics: inout [Diagnostic], _ sources: inout [String: SourceText], locating: Bool = true,
        accept: (File<Builder>, [Builder.Record]) -> Void
    ) -> ActivityIDTable where Builder.Record: CachedActivityRecord {
        check(files, records: { files[$0].records[...] }, &diagnostics, &sources, locating: locating) { k, records, duplicates in
            accept(files[k], duplicates.isEmpty ? Array(records) : records.indices.filter { !duplicates.contains($0) }.map { records[$0] })
        }
    }

    /// `check`, with each file's records wherever `records` finds them (by the file's index in
    /// `files`); `accept` gets each file's index, its records and the positions among them
    /// (indices of the slice) of those that do not count.
    @discardableResult
    static func check<Builder: ActivityRecordBuilder>(
        _ files: [File<Builder>], records recordsOf: (Int) -> ArraySlice<Builder.Record>, _ diagnostics: inout [Diagnostic],
        _ sources: inout [String: SourceText], locating: Bool = true,
        accept: (Int, ArraySlice<Builder.Record>, Set<Int>) -> Void
    ) -> ActivityIDTable where Builder.Record: CachedActivityRecord {
        let spans = locating ? nil : IDSpans(files, records: recordsOf)
        // id → the last file it was in
        var seen = ActivityIDTable(
            capacity: files.indices.reduce(0) { spans?.alone[$1] == true ? $0 : $0 + recordsOf($1).count })
        for (index, file) in files.enumerated() {
            let name = file.name
            let relative = "activities/" + name
            diagnostics += file.diagnostics
            if let source = file.source { sources[relative] = source }
            if !file.named {
                diagnostics.append(
                    .error(
                        .cacheFileName, "'\(shown(name))' is not named after a month",
                        at: SourceLocation(file: relative),
                        help: "cache files are named YYYY-MM.json; move or delete this one"))
                continue
            }
            var duplicates: Set<Int> = []
            let records = recordsOf(index)
            func look(_ table: inout ActivityIDTable) {
                table.update(records, file: Int32(index)) { k, other in
                    diagnostics.append(
                        .error(
                            .cacheDuplicateActivity, "activity \(records[k].id) is cached twice (also in activities/\(files[Int(other)].name))",
                            at: SourceLocation(file: relative),
                            help: "re-create the cache with 'bikecheck sync --full'"))
                    duplicates.insert(k)
                }
            }
            if let spans, spans.alone[index] {
                if !spans.increasing[index] {
                    var own = ActivityIDTable(capacity: records.count)
                    look(&own)
                }
            } else {
                look(&seen)
            }
            accept(index, records, duplicates)
            if file.misplaced > 0 {
                diagnostics.append(
                    .warning(
                        .cacheMisplaced, "\(file.misplaced) activit\(file.misplaced == 1 ? "y" : "ies") in \(name) started in another month",
                        at: SourceLocation(file: relative),
                        help: "re-create the cache with 'bikecheck sync --full'"))
            }
            if file.unsorted {
                diagnostics.append(
                    .warning(
                        .cacheUnsorted, "\(name) is not sorted by start date and id",
                        at: SourceLocation(file: relative),
                        help: "re-create the cache with 'bikecheck sync --full'"))
            }
        }
        return seen
    }

    /// Each file's span of activity ids, for `check`: whether no other file named after a month
    /// has an id within it (`alone`), and whether its ids increase record by record.
    struct IDSpans {
        var alone: [Bool]
        var increasing: [Bool]

        init<Builder: ActivityRecordBuilder>(_ files: [File<Builder>], records recordsOf: (Int) -> ArraySlice<Builder.Record>)
        where Builder.Record: CachedActivityRecord {
            alone = [Bool](repeating: false, count: files.count)
            increasing = alone
            var spans: [(low: Int64, high: Int64, file: Int)] = []
            for (k, file) in files.enumerated() where file.named && !recordsOf(k).isEmpty {
                var low = Int64.max, high = Int64.min, previous = Int64.min, rising = true
                for r in recordsOf(k) {
                    let id = r.id
                    if id <= previous { rising = false }
                    previous = id
                    low = min(low, id)
                    high = max(high, id)
                }
                increasing[k] = rising
                spans.append((low, high, k))
            }
            spans.sort { $0.low < $1.low }
            // Spans that meet, one after the other by their lowest id, make a group; a group of
            // one is alone.
            var k = 0
            while k < spans.count {
                var end = k + 1, high = spans[k].high
                while end < spans.count, spans[end].low <= high {
                    high = max(high, spans[end].high)
                    end += 1
                }
                if end == k + 1 { alone[spans[k].file] = true }
                k = end
            }
        }
    }
}

/// A record of the cache with an activity id, checked for duplicates across files.
protocol CachedActivityRecord { var id: Int64 { get } }
extension Activity: CachedActivityRecord {}
extension ActivitySummary: CachedActivityRecord {}

/// Activity ids (positive, so 0 marks an empty slot) to the index of the file each was last seen
/// in: open addressing with a multiplicative hash, for the one lookup per cached activity that a
/// Dictionary made cost more than reading the activity's numbers.
struct ActivityIDTable {
    private var ids: [Int64]
    private var files: [Int32]
    private let shift: UInt64

    init(capacity: Int) {
        var bits = 4
        while 1 << bits < 2 * capacity { bits += 1 }
        ids = Array(repeating: 0, count: 1 << bits)
        files = Array(repeating: 0, count: 1 << bits)
        shift = UInt64(64 - bits)
    }

    /// Records `file` for `id`, returning the file it had before, like `Dictionary.updateValue`.
    mutating func updateValue(_ file: Int32, forKey id: Int64) -> Int32? {
        let mask = ids.count - 1
        var slot = Int((UInt64(bitPattern: id) &* 0x9E37_79B9_7F4A_7C15) >> shift)
        while ids[slot] != 0 {
            if ids[slot] == id {
                defer { files[slot] = file }
                return files[slot]
            }
            slot = (slot + 1) & mask
        }
        ids[slot] = id
        files[slot] = file
        return nil
    }

    /// Records `file` for the id of each of `records`, in order, as `updateValue` does one by
    /// one; `seenBefore` gets the position of each whose id had a file, and that file. The table's
    /// arrays are reached once for the whole run, not checked for sharing at every record.
    mutating func update<Record: CachedActivityRecord>(_ records: ArraySlice<Record>, file: Int32, seenBefore: (Int, Int32) -> Void) {
        let mask = ids.count - 1
        let shift = self.shift
        ids.withUnsafeMutableBufferPointer { ids in
            files.withUnsafeMutableBufferPointer { files in
                for k in records.indices {
                    let id = records[k].id
                    var slot = Int(truncatingIfNeeded: (UInt64(bitPattern: id) &* 0x9E37_79B9_7F4A_7C15) >> shift)
                    while ids[slot] != 0 && ids[slot] != id { slot = (slot &+ 1) & mask }
                    if ids[slot] != 0 { seenBefore(k, files[slot]) } else { ids[slot] = id }
                    files[slot] = file
                }
            }
        }
    }

    /// The value recorded for `id`, if any.
    func value(forKey id: Int64) -> Int32? {
        let mask = ids.count - 1
        var slot = Int((UInt64(bitPattern: id) &* 0x9E37_79B9_7F4A_7C15) >> shift)
        while ids[slot] != 0 {
            if ids[slot] == id { return files[slot] }
            slot = (slot + 1) & mask
        }
        return nil
    }
}
