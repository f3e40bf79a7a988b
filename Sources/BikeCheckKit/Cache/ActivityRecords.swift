import Foundation

/// What status needs of one cached activity: 40 bytes and no Strings, where a whole `Activity`
/// takes 160 bytes and up to seven Strings.
public struct ActivitySummary: Sendable, Equatable {
    public var id: Int64
    /// The day the rider rode, on their own calendar (`Day.ordinal`).
    public var day: Int32
    /// Index of the gear id in `ActivitySummaries.strings`, or -1 when there is none.
    public var gear: Int32
    /// Index of the sport type in `ActivitySummaries.strings`.
    public var sport: Int32
    /// Seconds, whole as in `Activity.movingTime`.
    public var movingTime: Double
    /// Metres.
    public var distance: Double
}

/// Cached activities as summaries, with the gear ids and sport types their indices name.
public struct ActivitySummaries: Sendable {
    public var records: [ActivitySummary] = []
    /// Distinct gear ids and sport types, each once.
    public var strings: [String] = []

    public init() {}

    /// The summaries of whole activities, in the same order; activities without a day are left out.
    public init(_ activities: [Activity]) {
        var index: [String: Int32] = [:]
        func symbol(_ s: String) -> Int32 {
            if let known = index[s] { return known }
            strings.append(s)
            index[s] = Int32(strings.count - 1)
            return Int32(strings.count - 1)
        }
        for a in activities {
            guard let day = a.localDay else { continue }
            records.append(ActivitySummary(id: a.id, day: Int32(day.ordinal), gear: a.gearID.map(symbol) ?? -1, sport: symbol(a.sportType),
                                           movingTime: Double(a.movingTime), distance: a.distance))
        }
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

    /// `YYYY-MM-DDTHH:MM:SS…Z`, loosely: what `Activity.localDay` and the month checks rely on.
    var isTimestamp: Bool {
        withUTF8 { u in
            u.count >= 20 && u[u.count - 1] == UInt8(ascii: "Z") && Day(utf8: UnsafeBufferPointer(rebasing: u[0..<10])) != nil
                && u[10] == UInt8(ascii: "T") && u[13] == UInt8(ascii: ":") && u[16] == UInt8(ascii: ":")
        }
    }

    /// The day of a timestamp, from its first ten bytes.
    var day: Day? { withUTF8 { $0.count >= 10 ? Day(utf8: UnsafeBufferPointer(rebasing: $0[0..<10])) : nil } }

    /// Same as `Activity.starts(inMonth:)` on this start date.
    func starts(inMonth month: String) -> Bool {
        var month = month
        return withUTF8 { d in month.withUTF8 { m in min(d.count, 7) == m.count && d.prefix(7).elementsEqual(m) } }
    }

    /// Same as `Activity.cacheOrder` on start dates and ids.
    static func cacheOrder(_ a: (start: CacheText, id: Int64), _ b: (start: CacheText, id: Int64)) -> Bool {
        // String order is byte order for ASCII, which every timestamp bikecheck writes is; others
        // go through String so that the answer is the same as for `Activity` values.
        let order: Int32? = a.start.withUTF8 { x in
            b.start.withUTF8 { y in
                guard x.allSatisfy({ $0 < 0x80 }), y.allSatisfy({ $0 < 0x80 }) else { return nil }
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

/// One activity as read, before it becomes a record.
struct ActivityFields {
    var id: Int64
    var name: CacheText?
    /// `sport_type`, else `type`.
    var sportType: CacheText
    var type: CacheText?
    var startDate: CacheText
    var startDateLocal: CacheText?
    var timezone: CacheText?
    var movingTime: Double
    var elapsedTime: Double?
    var distance: Double
    var totalElevationGain: Double
    var gearID: CacheText?
    var trainer: Bool
    var commute: Bool
    var manual: Bool
}

/// Makes the records of one cache file from the activities read, keeping what it shares
/// between them.
protocol ActivityRecordBuilder: SendableMetatype {
    associatedtype Record: Sendable
    init()
    mutating func record(_ fields: ActivityFields) -> Record
}

/// A run of a file's bytes, compared and hashed by content.
struct FileBytes: Hashable {
    let bytes: UnsafeBufferPointer<UInt8>
    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }
    static func == (a: FileBytes, b: FileBytes) -> Bool {
        a.bytes.count == b.bytes.count && (a.bytes.isEmpty || memcmp(a.bytes.baseAddress!, b.bytes.baseAddress!, a.bytes.count) == 0)
    }
    func hash(into hasher: inout Hasher) { hasher.combine(bytes: UnsafeRawBufferPointer(bytes)) }
}

/// Whole `Activity` values, for sync, import and anything that writes the cache back.
struct ActivityBuilder: ActivityRecordBuilder {
    /// Strings seen in this file, by their bytes (which outlive the reader).
    private var interned: [FileBytes: String] = [:]

    /// A String for values that repeat (sport types, gear, time zones, names): made once per
    /// file and shared by every activity with the same bytes.
    private mutating func shared(_ text: CacheText) -> String {
        guard case .bytes(let bytes) = text else { return text.string }
        // Up to 15 bytes, a String is stored inline, so sharing would not save an allocation.
        guard bytes.count > 15 else { return String(decoding: bytes, as: UTF8.self) }
        if let known = interned[FileBytes(bytes)] { return known }
        let made = String(decoding: bytes, as: UTF8.self)
        interned[FileBytes(bytes)] = made
        return made
    }

    mutating func record(_ f: ActivityFields) -> Activity {
        Activity(
            id: f.id, name: f.name.map { shared($0) } ?? "", sportType: shared(f.sportType), type: f.type.map { shared($0) },
            startDate: f.startDate.string, startDateLocal: f.startDateLocal?.string, timezone: f.timezone.map { shared($0) },
            movingTime: Int(f.movingTime), elapsedTime: Int(f.elapsedTime ?? f.movingTime), distance: f.distance,
            totalElevationGain: f.totalElevationGain, gearID: f.gearID.map { shared($0) }, trainer: f.trainer, commute: f.commute,
            manual: f.manual)
    }
}

/// `ActivitySummary` records, with the file's gear ids and sport types numbered in `strings`.
struct SummaryBuilder: ActivityRecordBuilder {
    private(set) var strings: [String] = []
    private var symbols: [FileBytes: Int32] = [:]

    private mutating func symbol(_ text: CacheText) -> Int32 {
        // An escaped value is rare: it gets its own number, and the loader merges equal Strings.
        guard case .bytes(let bytes) = text else {
            strings.append(text.string)
            return Int32(strings.count - 1)
        }
        if let known = symbols[FileBytes(bytes)] { return known }
        strings.append(String(decoding: bytes, as: UTF8.self))
        symbols[FileBytes(bytes)] = Int32(strings.count - 1)
        return Int32(strings.count - 1)
    }

    mutating func record(_ f: ActivityFields) -> ActivitySummary {
        // `Activity.localDay`; the reader checked both timestamps, so the day is there.
        let day = (f.startDateLocal ?? f.startDate).day?.ordinal ?? Int(Int32.min)
        return ActivitySummary(id: f.id, day: Int32(truncatingIfNeeded: day), gear: f.gearID.map { symbol($0) } ?? -1,
                               sport: symbol(f.sportType), movingTime: Double(Int(f.movingTime)), distance: f.distance)
    }
}
