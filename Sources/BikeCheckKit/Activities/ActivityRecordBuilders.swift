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
/// between them; the fast path's gear, name and sport are made what it keeps of them as they are
/// read (`CanonicalValues`).
protocol ActivityRecordBuilder: CanonicalValues, SendableMetatype {
    associatedtype Record: Sendable
    init()
    mutating func record(_ fields: ActivityFields) -> Record
    /// The same for the reader's fast path (for one that keeps bytes, through `ActivityFields`).
    mutating func record(_ fields: CanonicalFields<Self>) -> Record
    /// Strings that records refer to by number; read before the file's bytes go away.
    var strings: [String] { get }
}

extension ActivityRecordBuilder where Self: BytesCanonicalValues {
    mutating func record(_ fields: CanonicalFields<Self>) -> Record { record(ActivityFields(fields)) }
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
struct ActivityBuilder: ActivityRecordBuilder, BytesCanonicalValues {
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
    /// What the fast path read but found no number for (`pending`), numbered only once the
    /// activity is read whole and accepted (`record`): in the general reader's order (gear,
    /// sport, hashtags), and never for an activity given up (a few times a file).
    private var pendingGear = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    private var pendingSport = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    private var pendingTags = ""
    private static var pending: Int32 { -2 }

    private mutating func symbol(_ text: CacheText) -> Int32 {
        // An escaped value is rare: it gets its own number, and the loader merges equal Strings.
        guard case .bytes(let bytes) = text else {
            strings.append(text.string)
            return Int32(strings.count - 1)
        }
        return symbol(bytes)
    }

    /// Inlined, twice an activity: a call's saving and restoring of registers was a fifth of a
    /// lookup. A new symbol, a few times a file, is added out of line.
    @inline(__always)
    private mutating func symbol(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        if let known = symbols.number(bytes) { return known }
        return add(bytes)
    }

    /// `symbol`, out of the fast path's loop: for what it left pending.
    @inline(never)
    private mutating func numbered(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 { symbol(bytes) }

    @inline(never)
    private mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        strings.append(String(decoding: bytes, as: UTF8.self))
        symbols.add(bytes, Int32(strings.count - 1))
        return Int32(strings.count - 1)
    }

    mutating func record(_ f: ActivityFields) -> ActivitySummary {
        ActivitySummary(
            id: f.id, day: Int32(truncatingIfNeeded: f.localDay.ordinal), gear: f.gearID.map { symbol($0) } ?? -1,
            sport: symbol(f.sportType), trainer: f.trainer, movingTime: Double(Int(f.movingTime)), distance: f.distance,
            elevation: f.totalElevationGain, tags: f.name.map { name in name.withUTF8(Self.hasHash) ? tags(name.string) : -1 } ?? -1)
    }

    /// The gear's number as the fast path reads it: -1 for none, `pending` for one not numbered yet.
    @inline(__always)
    mutating func gear(_ bytes: UnsafeBufferPointer<UInt8>?) -> Int32 {
        guard let bytes else { return -1 }
        if let known = symbols.number(bytes) { return known }
        pendingGear = bytes
        return Self.pending
    }

    @inline(__always)
    mutating func sport(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        if let known = symbols.number(bytes) { return known }
        pendingSport = bytes
        return Self.pending
    }

    /// The number of the name's hashtags: -1 for none (most names have no '#').
    @inline(__always)
    mutating func name(_ name: CanonicalName) -> Int32 { name.hash ? hashtags(name) : -1 }

    @inline(never)
    private mutating func hashtags(_ name: CanonicalName) -> Int32 {
        // An escape never stands for '#' here (no `\u`): the bytes have one when the name has.
        let text = name.escaped ? CanonicalCursor.unescape(name.bytes) : String(decoding: name.bytes, as: UTF8.self)
        guard let tags = RideTags.of(name: text) else { return -1 }
        if let known = tagNumbers[tags] { return known }
        pendingTags = tags
        return Self.pending
    }

    /// Inlined into the fast path's loop: the fields a summary does not keep are only checked,
    /// and those it keeps are numbers by now.
    @inline(__always)
    mutating func record(_ f: CanonicalFields<SummaryBuilder>) -> ActivitySummary {
        // In the general reader's order: a gear and a sport with the same bytes share a number.
        let gear = f.gearID == Self.pending ? numbered(pendingGear) : f.gearID
        let sport = f.sportType == Self.pending ? numbered(pendingSport) : f.sportType
        return ActivitySummary(
            id: f.id, day: Int32(truncatingIfNeeded: f.localDay.ordinal), gear: gear, sport: sport, trainer: f.trainer,
            movingTime: Double(Int(f.movingTime)), distance: f.distance, elevation: f.totalElevationGain,
            tags: f.name == Self.pending ? number(tags: pendingTags) : f.name)
    }

    /// Whether a name's bytes have a '#': most have none, and are not made into a String.
    private static func hasHash(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        !name.isEmpty && memchr(name.baseAddress!, Int32(UInt8(ascii: "#")), name.count) != nil
    }

    /// The number of a name's hashtags, -1 when it has none.
    private mutating func tags(_ name: String) -> Int32 {
        guard let tags = RideTags.of(name: name) else { return -1 }
        return number(tags: tags)
    }

    /// The number of hashtags (`RideTags.of`), given one if new.
    @inline(never)
    private mutating func number(tags: String) -> Int32 {
        if let known = tagNumbers[tags] { return known }
        strings.append(tags)
        tagNumbers[tags] = Int32(strings.count - 1)
        return Int32(strings.count - 1)
    }
}

/// Numbers for runs of a file's bytes (a file's few gear ids and sport types), looked up twice
/// per activity: open addressing on a key's first sixteen bytes as two words (a gear id or a
/// sport type is seldom longer), hashed with two multiplications and compared without `memcmp`,
/// which costs a fraction of `Hasher`'s SipHash on such short keys. (The keys come from the
/// garage's own cache, so flooding is not a concern.)
struct SymbolTable {
    private struct Entry {
        var bytes: UnsafeBufferPointer<UInt8>
        /// `SymbolTable.head(bytes)`.
        var head: (UInt64, UInt64)
        var value: Int32
    }
    private var entries: [Entry] = []
    /// Index into `entries` + 1, or 0 for an empty slot; the count is a power of two.
    private var slots = [Int32](repeating: 0, count: 64)
    /// `slots.count - 1`, kept: the count's getter was a call of its own in each lookup.
    private var mask = 63

    /// The first sixteen bytes as two little-endian words, zeros past the end: with the count,
    /// all of a key of up to sixteen bytes.
    @inline(__always)
    private static func head(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
        guard let base = bytes.baseAddress else { return (0, 0) }
        let n = bytes.count, raw = UnsafeRawPointer(base)
        func word(_ at: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        if n >= 16 { return (word(0), word(8)) }
        // Bytes 8 to n - 1: the last eight, shifted past those the first word has.
        if n >= 8 { return (word(0), word(n - 8) >> UInt64(8 * (16 - n))) }
        if n >= 4 {
            // Bytes 0-3 and n - 4 to n - 1 (the same bytes where they overlap).
            func half(_ at: Int) -> UInt64 { UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self))) }
            return (half(0) | half(n - 4) << UInt64(8 * (n - 4)), 0)
        }
        var w: UInt64 = 0
        for k in 0..<n { w |= UInt64(base[k]) << UInt64(8 * k) }
        return (w, 0)
    }

    private static func hash(_ head: (UInt64, UInt64), _ count: Int) -> Int {
        var h = (head.0 ^ UInt64(truncatingIfNeeded: count)) &* 0x9E37_79B9_7F4A_7C15
        h = (h ^ (h >> 29) ^ head.1) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: h ^ (h >> 32))
    }

    /// The slot holding `bytes` (whose head is `head`), or the empty slot where it would go, and
    /// the index + 1 of its entry (0 for none). Through the arrays' buffers, without their
    /// bounds checks: `mask` keeps a slot in range, and a slot holds only an entry's index + 1.
    @inline(__always)
    private func slot(_ bytes: UnsafeBufferPointer<UInt8>, _ head: (UInt64, UInt64)) -> (slot: Int, entry: Int) {
        let n = bytes.count, mask = self.mask
        var s = Self.hash(head, n) & mask
        return slots.withUnsafeBufferPointer { slots in
            entries.withUnsafeBufferPointer { entries in
                while true {
                    let e = Int(slots[s])
                    if e == 0 { return (s, 0) }
                    let key = entries[e &- 1]
                    if key.head == head, key.bytes.count == n, n <= 16 || memcmp(key.bytes.baseAddress! + 16, bytes.baseAddress! + 16, n - 16) == 0 {
                        return (s, e)
                    }
                    s = (s &+ 1) & mask
                }
            }
        }
    }

    @inline(__always)
    func number(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32? {
        let e = slot(bytes, Self.head(bytes)).entry
        return e == 0 ? nil : entries.withUnsafeBufferPointer { $0[e &- 1].value }
    }

    /// Adds a key that `number` did not find.
    mutating func add(_ bytes: UnsafeBufferPointer<UInt8>, _ value: Int32) {
        let head = Self.head(bytes)
        slots[slot(bytes, head).slot] = Int32(entries.count + 1)
        entries.append(Entry(bytes: bytes, head: head, value: value))
        // At most a quarter full: a garage's 500 gear ids took 1.3 probes a lookup at half.
        if entries.count * 4 > slots.count {
            slots = [Int32](repeating: 0, count: slots.count * 2)
            mask = slots.count - 1
            for (k, entry) in entries.enumerated() { slots[slot(entry.bytes, entry.head).slot] = Int32(k + 1) }
        }
    }
}
