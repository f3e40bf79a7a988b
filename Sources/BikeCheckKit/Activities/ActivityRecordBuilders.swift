import Foundation

/// One activity as read, before it becomes a record.
struct ActivityFields {
    var id: Int64
    var name: CacheText?
    /// `sport_type`, else `type`.
    var sportType: CacheText
    var type: CacheText?
    var startDate: CacheText
    var startDateLocal: CacheText?
    /// The day of `startDateLocal`, else of `startDate`: `Activity.localDay`.
    var localDay: Day
    var timezone: CacheText?
    var movingTime: Double
    var elapsedTime: Double?
    var distance: Double
    var totalElevationGain: Double
    var gearID: CacheText?
    var trainer: Bool
    var commute: Bool
    var manual: Bool
    var source: CacheText?
    var device: Int64?
    var athlete: Int64?
}

/// Makes the records of one cache file from the activities read, keeping what it shares
/// between them.
protocol ActivityRecordBuilder: SendableMetatype {
    associatedtype Record: Sendable
    init()
    mutating func record(_ fields: ActivityFields) -> Record
    /// Strings that records refer to by number; read before the file's bytes go away.
    var strings: [String] { get }
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
    /// Strings seen in this file, by their bytes (valid only while the file is being read).
    private var interned: [FileBytes: String] = [:]
    /// Full activities hold their own Strings.
    var strings: [String] { [] }

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
            manual: f.manual, source: f.source.map { shared($0) }, device: f.device,
            athlete: f.athlete)
    }
}

/// `ActivitySummary` records, with the file's gear ids and sport types numbered in `strings`.
struct SummaryBuilder: ActivityRecordBuilder {
    private(set) var strings: [String] = []
    private var symbols = SymbolTable()
    private var tagNumbers: [String: Int32] = [:]

    private mutating func symbol(_ text: CacheText) -> Int32 {
        // An escaped value is rare: it gets its own number, and the loader merges equal Strings.
        guard case .bytes(let bytes) = text else {
            strings.append(text.string)
            return Int32(strings.count - 1)
        }
        if let known = symbols.number(bytes) { return known }
        strings.append(String(decoding: bytes, as: UTF8.self))
        symbols.add(bytes, Int32(strings.count - 1))
        return Int32(strings.count - 1)
    }

    mutating func record(_ f: ActivityFields) -> ActivitySummary {
        ActivitySummary(
            id: f.id, day: Int32(truncatingIfNeeded: f.localDay.ordinal), gear: f.gearID.map { symbol($0) } ?? -1,
            sport: symbol(f.sportType), trainer: f.trainer, movingTime: Double(Int(f.movingTime)), distance: f.distance,
            elevation: f.totalElevationGain, tags: tags(f.name))
    }

    /// The number of a name's hashtags; most names have none, and are not made into a String.
    private mutating func tags(_ name: CacheText?) -> Int32 {
        guard let name, name.withUTF8({ $0.isEmpty ? false : memchr($0.baseAddress!, Int32(UInt8(ascii: "#")), $0.count) != nil }),
            let tags = RideTags.of(name: name.string)
        else { return -1 }
        if let known = tagNumbers[tags] { return known }
        strings.append(tags)
        tagNumbers[tags] = Int32(strings.count - 1)
        return Int32(strings.count - 1)
    }
}

/// Numbers for runs of a file's bytes (a file's few gear ids and sport types), looked up twice
/// per activity: open addressing with an FNV-1a step per eight bytes, which costs a tenth of
/// `Hasher`'s SipHash on such short keys. (The keys come from the garage's own cache, so flooding is not a concern.)
struct SymbolTable {
    private var keys: [UnsafeBufferPointer<UInt8>] = []
    private var values: [Int32] = []
    /// Index into `keys` + 1, or 0 for an empty slot; the count is a power of two.
    private var slots = [Int32](repeating: 0, count: 64)

    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(bytes.count)
        guard let base = bytes.baseAddress else { return Int(truncatingIfNeeded: h) }
        // Eight bytes at a time, then the rest one by one.
        let raw = UnsafeRawPointer(base)
        var k = 0
        while k + 8 <= bytes.count {
            h = (h ^ raw.loadUnaligned(fromByteOffset: k, as: UInt64.self)) &* 0x100_0000_01b3
            h ^= h >> 29
            k += 8
        }
        while k < bytes.count {
            h = (h ^ UInt64(base[k])) &* 0x100_0000_01b3
            k += 1
        }
        return Int(truncatingIfNeeded: h ^ (h >> 29))
    }

    /// The slot holding `bytes`, or the empty slot where it would go.
    private func slot(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let mask = slots.count - 1
        var s = Self.hash(bytes) & mask
        while slots[s] != 0 {
            let key = keys[Int(slots[s]) - 1]
            if key.count == bytes.count, key.isEmpty || memcmp(key.baseAddress!, bytes.baseAddress!, key.count) == 0 { return s }
            s = (s + 1) & mask
        }
        return s
    }

    func number(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32? {
        let s = slot(bytes)
        return slots[s] == 0 ? nil : values[Int(slots[s]) - 1]
    }

    /// Adds a key that `number` did not find.
    mutating func add(_ bytes: UnsafeBufferPointer<UInt8>, _ value: Int32) {
        slots[slot(bytes)] = Int32(keys.count + 1)
        keys.append(bytes)
        values.append(value)
        if keys.count * 2 > slots.count {
            slots = [Int32](repeating: 0, count: slots.count * 2)
            for (k, key) in keys.enumerated() { slots[slot(key)] = Int32(k + 1) }
        }
    }
}
