import Diagnostics
import Foundation

/// What status and the reports need of one cached activity: 48 bytes and no Strings, where a
/// whole `Activity` takes 160 bytes and up to seven Strings.
package struct ActivitySummary: Sendable, Equatable {
    package var id: Int64
    /// The day the rider rode, on their own calendar (`Day.ordinal`).
    package var day: Int32
    /// Index of the gear id in `ActivitySummaries.strings`, or -1 when there is none.
    package var gear: Int32
    /// Index of the sport type in `ActivitySummaries.strings`.
    package var sport: Int32
    /// Ridden on a trainer (Strava's `trainer`): counts only where the garage or bike says so.
    package var trainer: Bool = false
    /// Seconds, whole as in `Activity.movingTime`.
    package var movingTime: Double
    /// Metres.
    package var distance: Double
    /// Metres climbed (`Activity.totalElevationGain`).
    package var elevation: Double = 0
    /// Index in `ActivitySummaries.strings` of the hashtags in the ride's name (`RideTags`), or -1
    /// when it has none: what a mount with `tag:` or `unless_tag:` counts by.
    package var tags: Int32 = -1
}

/// Cached activities as summaries, with the gear ids and sport types their indices name.
package struct ActivitySummaries: Sendable {
    /// Appended only run by run (`append(run:renumbering:)`), so that `runs` always covers them.
    package private(set) var records: [ActivitySummary] = []
    /// Distinct gear ids and sport types, each once.
    package var strings: [String] = []
    /// The records in runs, one per cache file, in order: what a question about days looks at
    /// before it reads a run's records (`DayLookup`).
    package private(set) var runs: [ActivityRun] = []

    package init() {}

    /// The summaries of whole activities, in the same order; activities without a day are left out.
    package init(_ activities: [Activity]) {
        var index: [String: Int32] = [:]
        func symbol(_ s: String) -> Int32 {
            if let known = index[s] { return known }
            strings.append(s)
            index[s] = Int32(strings.count - 1)
            return Int32(strings.count - 1)
        }
        var run: [ActivitySummary] = []
        for a in activities {
            guard let day = a.localDay else { continue }
            run.append(
                ActivitySummary(
                    id: a.id, day: Int32(day.ordinal), gear: a.gearID.map(symbol) ?? -1, sport: symbol(a.sportType), trainer: a.trainer,
                    movingTime: Double(a.movingTime), distance: a.distance, elevation: a.totalElevationGain,
                    tags: RideTags.of(name: a.name).map(symbol) ?? -1))
        }
        append(run: run)
    }

    /// Room for `count` more records.
    mutating func reserveCapacity(_ count: Int) { records.reserveCapacity(records.count + count) }

    /// Appends one run of records (a cache file's), their gear and sport numbers first mapped
    /// through `renumber` when given, noting the run's days as they go by: the one pass over the
    /// records that the questions about days then skip.
    mutating func append(run: [ActivitySummary], renumbering renumber: [Int32]? = nil) {
        guard !run.isEmpty else { return }
        let start = records.count
        // Renumbered as they are copied, in one append (one check of the array's room and
        // sharing, where appending record by record checked them at each of 100,000).
        if let renumber {
            records.append(
                contentsOf: run.lazy.map { r in
                    var r = r
                    if r.gear >= 0 { r.gear = renumber[Int(r.gear)] }
                    if r.tags >= 0 { r.tags = renumber[Int(r.tags)] }
                    r.sport = renumber[Int(r.sport)]
                    return r
                })
        } else {
            records.append(contentsOf: run)
        }
        runs.append(Self.run(records, start..<records.count))
    }

    /// One cache file's records where `placeSummaries` put them, before they are checked: the
    /// positions of those that do not count (duplicates) and how its string numbers map to the
    /// whole cache's.
    struct Placed {
        var records: Range<Int>
        var duplicates: Set<Int>
        var renumber: [Int32]
    }

    /// The summaries of records already gathered in one array, file after file (`ActivityCacheLoader.placeSummaries`):
    /// each run renumbered and its duplicates left out in place, the same records and runs as
    /// appending the runs one by one gives, without a second array of them. `placed` is taken
    /// (left empty), so that the records are changed where they are, not copied first.
    init(placing placed: inout [ActivitySummary], runs placedRuns: [Placed], strings: [String]) {
        self.strings = strings
        swap(&records, &placed)
        var end = 0
        records.withUnsafeMutableBufferPointer { all in
            for run in placedRuns {
                let start = end
                // The numbers are the file's own (checked by the index's decode, made by the
                // builder otherwise): no bounds checks, and no lookup of duplicates in a run
                // that has none, for each of a million records.
                run.renumber.withUnsafeBufferPointer { renumber in
                    @inline(__always) func place(_ k: Int) {
                        var r = all[k]
                        if r.gear >= 0 { r.gear = renumber[Int(r.gear)] }
                        if r.tags >= 0 { r.tags = renumber[Int(r.tags)] }
                        r.sport = renumber[Int(r.sport)]
                        // Never ahead of `k`: runs are in order and only ever close up.
                        all[end] = r
                        end &+= 1
                    }
                    if run.duplicates.isEmpty {
                        for k in run.records { place(k) }
                    } else {
                        for k in run.records where !run.duplicates.contains(k) { place(k) }
                    }
                }
                if end > start { runs.append(Self.run(UnsafeBufferPointer(all), start..<end)) }
            }
        }
        records.removeLast(records.count - end)
    }

    /// The run of `range` in `all`: its days, noted in one pass over its records.
    private static func run(_ all: UnsafeBufferPointer<ActivitySummary>, _ range: Range<Int>) -> ActivityRun {
        var first = Int32.max, last = Int32.min, previous = Int32.min
        var inDayOrder = true
        var newestOfGear: [Int32] = []
        for k in range {
            let day = all[k].day
            if day < previous { inDayOrder = false }
            previous = day
            if day < first { first = day }
            if day > last { last = day }
            let gear = all[k].gear
            if gear >= 0 {
                let g = Int(gear)
                if g >= newestOfGear.count { newestOfGear += repeatElement(Int32.min, count: g + 1 - newestOfGear.count) }
                if day > newestOfGear[g] { newestOfGear[g] = day }
            }
        }
        return ActivityRun(records: range, firstDay: first, lastDay: last, inDayOrder: inDayOrder, newestOfGear: newestOfGear)
    }

    private static func run(_ all: [ActivitySummary], _ range: Range<Int>) -> ActivityRun {
        all.withUnsafeBufferPointer { run($0, range) }
    }
}

/// A run of `ActivitySummaries.records` (one cache file's) and its days: enough to skip it, or
/// to answer from it without reading its records.
package struct ActivityRun: Sendable, Equatable {
    package var records: Range<Int>
    /// Its earliest and latest day.
    package var firstDay: Int32
    package var lastDay: Int32
    /// Whether its records are in day order. A cache file is in order of start time, so its local
    /// days are too, unless the rider changed time zones within the month or the file is unsorted.
    package var inDayOrder: Bool
    /// The newest day of the run's records by gear index (into `ActivitySummaries.strings`);
    /// `Int32.min` (or past the end) for a gear with none.
    package var newestOfGear: [Int32]

    func newest(ofGear gear: Int32) -> Int32 { Int(gear) < newestOfGear.count ? newestOfGear[Int(gear)] : Int32.min }
}

// MARK: - Questions about days, run by run

extension ActivitySummaries {
    /// The newest day on or before `limit` of every record (`any`) and of each gear (`byGear`, by
    /// gear index), `Int32.min` where there is none; records dated `Int32.min` do not count. A run
    /// wholly on or before `limit` answers from its newest days, one after it is skipped, and only
    /// a run across `limit` is read record by record.
    package func newestDays(onOrBefore limit: Int32) -> (any: Int32, byGear: [Int32]) {
        var any = Int32.min
        var byGear = [Int32](repeating: Int32.min, count: strings.count)
        for run in runs where run.firstDay <= limit {
            if run.lastDay <= limit {
                any = max(any, run.lastDay)
                for (g, day) in run.newestOfGear.enumerated() where day > byGear[g] { byGear[g] = day }
                continue
            }
            for r in records[run.records] where r.day != Int32.min && r.day <= limit {
                any = max(any, r.day)
                if r.gear >= 0, r.day > byGear[Int(r.gear)] { byGear[Int(r.gear)] = r.day }
            }
        }
        return (any, byGear)
    }

    /// Whether some record has each of `wanted`'s gear indices on its day. Only the runs whose
    /// days take in a wanted day are read: by binary search when the run is in day order, else
    /// record by record.
    package func contains(gearDays wanted: [(gear: Int32, day: Int32)]) -> [Bool] {
        var found = [Bool](repeating: false, count: wanted.count)
        let order = wanted.indices.sorted { wanted[$0].day < wanted[$1].day }
        func firstWanted(onOrAfter day: Int32) -> Int {
            var lo = 0, hi = order.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if wanted[order[mid]].day < day { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
        for run in runs {
            var end = firstWanted(onOrAfter: run.firstDay)
            let start = end
            while end < order.count, wanted[order[end]].day <= run.lastDay { end += 1 }
            guard start < end else { continue }
            if run.inDayOrder {
                for k in order[start..<end] where !found[k] {
                    let (gear, day) = wanted[k]
                    var lo = run.records.lowerBound, hi = run.records.upperBound
                    while lo < hi {
                        let mid = (lo + hi) / 2
                        if records[mid].day < day { lo = mid + 1 } else { hi = mid }
                    }
                    while lo < run.records.upperBound, records[lo].day == day, !found[k] {
                        found[k] = records[lo].gear == gear
                        lo += 1
                    }
                }
            } else {
                func key(_ gear: Int32, _ day: Int32) -> UInt64 { UInt64(UInt32(bitPattern: gear)) << 32 | UInt64(UInt32(bitPattern: day)) }
                var keys = Set(order[start..<end].map { key(wanted[$0].gear, wanted[$0].day) })
                var matched: Set<UInt64> = []
                for r in records[run.records] where r.gear >= 0 {
                    let k = key(r.gear, r.day)
                    guard keys.remove(k) != nil else { continue }
                    matched.insert(k)
                    if keys.isEmpty { break }
                }
                for k in order[start..<end] where matched.contains(key(wanted[k].gear, wanted[k].day)) { found[k] = true }
            }
        }
        return found
    }
}

// MARK: - Building records while reading the cache

/// A string value of the cache file: its bytes in the file, or, when it had escapes, the
/// unescaped String.
enum CacheText {
    case bytes(UnsafeBufferPointer<UInt8>)
    case string(String)

    func withUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        switch self {
        case .bytes(let bytes): return body(bytes)
        case .string(var s): return s.withUTF8(body)
        }
    }

    var string: String {
        switch self {
        case .bytes(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .string(let s): return s
        }
    }

    /// The day of a timestamp `YYYY-MM-DDTHH:MM:SS…Z` (ActivityLimits' rule), or nil when it is not one.
    var timestampDay: Day? { withUTF8 { ActivityLimits.timestampDay(utf8: $0) } }

    /// Same as `Activity.starts(inMonth:)` on this start date, with the month's UTF-8.
    func starts(inMonth month: [UInt8]) -> Bool {
        withUTF8 { d in
            guard min(d.count, 7) == month.count else { return false }
            for k in month.indices where d[k] != month[k] { return false }
            return true
        }
    }

    /// Same as `Activity.cacheOrder` on start dates and ids.
    static func cacheOrder(_ a: (start: CacheText, id: Int64), _ b: (start: CacheText, id: Int64)) -> Bool {
        // String order is byte order for ASCII, which every timestamp bikecheck writes is; others
        // go through String so that the answer is the same as for `Activity` values.
        let order: Int32? = a.start.withUTF8 { x in
            b.start.withUTF8 { y in
                guard SourceText.isASCII(UnsafeRawBufferPointer(x)), SourceText.isASCII(UnsafeRawBufferPointer(y)) else { return nil }
                let common = min(x.count, y.count)
                let c = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
                return c != 0 ? c : Int32(x.count) - Int32(y.count)
            }
        }
        if let order { return order != 0 ? order < 0 : a.id < b.id }
        let x = a.start.string, y = b.start.string
        return x != y ? x < y : a.id < b.id
    }
}
