import Foundation

/// The reader's fast path for the layout `ActivityCacheFormat.encode` writes, which is nearly
/// every activity of every cache: keys in its order, no space, numbers in its forms, strings
/// without escapes (but for a name's one-letter ones). Each expected key is compared as words
/// and each value read straight from the bytes, eight at a time where it can. At the first
/// surprise (a key out of order, another escape, a number it does not write, a value outside
/// `ActivityLimits`) it gives up and the general reader reads the activity from its start, so a
/// hand-edited or foreign-ordered file reads, and reports, exactly as before. What it accepts,
/// it reads to the same values as the general reader does (`CanonicalFields`).
extension ActivityCacheReader {
    /// The activity at `i` when it is in the canonical layout, `i` then past it; else nil, and
    /// `i` unchanged.
    /// `layout` is the reader's `canonical`, copied once a file rather than once an activity.
    @inline(__always)
    mutating func readCanonicalActivity(_ layout: CanonicalLayout) -> CanonicalFields<Builder>? {
        guard let base = b.baseAddress else { return nil }
        var cursor = CanonicalCursor(base: base, count: b.count, at: i)
        guard let fields = cursor.activity(layout, days: &days, &builder) else { return nil }
        i = cursor.at
        return fields
    }
}

/// What the fast path makes of the three strings a record may keep, each as soon as it is read
/// (`CanonicalCursor.activity`): a builder that keeps bytes (`BytesCanonicalValues`) takes them
/// as they are; the summaries' (`SummaryBuilder`) looks the gear and the sport up and finds the
/// name's hashtags there and then, so that a number, not a run of bytes, lives across the rest
/// of the activity. None may change what the builder holds: the fast path can still give the
/// activity up to the general reader.
protocol CanonicalValues {
    associatedtype Gear
    associatedtype Name
    associatedtype Sport
    mutating func gear(_ bytes: UnsafeBufferPointer<UInt8>?) -> Gear
    mutating func name(_ name: CanonicalName) -> Name
    mutating func sport(_ bytes: UnsafeBufferPointer<UInt8>) -> Sport
}

/// A name as the fast path read it.
struct CanonicalName {
    /// Its bytes in the file: with `escaped`, with their escapes, all one-letter ones
    /// (`CanonicalCursor.unescape`).
    var bytes: UnsafeBufferPointer<UInt8>
    var escaped: Bool
    /// Whether the bytes have a '#' (an escape never stands for one here: no `\u`).
    var hash: Bool
}

/// Values taken as the bytes read.
protocol BytesCanonicalValues: CanonicalValues
where Gear == UnsafeBufferPointer<UInt8>?, Name == CanonicalName, Sport == UnsafeBufferPointer<UInt8> {}

extension BytesCanonicalValues {
    @inline(__always) func gear(_ bytes: UnsafeBufferPointer<UInt8>?) -> UnsafeBufferPointer<UInt8>? { bytes }
    @inline(__always) func name(_ name: CanonicalName) -> CanonicalName { name }
    @inline(__always) func sport(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> { bytes }
}

/// One activity as the fast path read it: numbers and runs of the file's bytes, nothing to
/// retain or release, with gear, name and sport as `Values` made them. With bytes, the same
/// values as the general reader's `ActivityFields` (`ActivityFields.init(_:)`), without making a
/// String of an escaped name unless asked.
struct CanonicalFields<Values: CanonicalValues> {
    var id: Int64
    var name: Values.Name
    var sportType: Values.Sport
    var type: UnsafeBufferPointer<UInt8>?
    /// Always 20 ASCII bytes, `YYYY-MM-DDTHH:MM:SSZ`.
    var startDate: UnsafeBufferPointer<UInt8>
    var startDateLocal: UnsafeBufferPointer<UInt8>?
    var localDay: Day
    var timezone: UnsafeBufferPointer<UInt8>?
    var movingTime: Double
    var elapsedTime: Double
    var distance: Double
    var totalElevationGain: Double
    var gearID: Values.Gear
    var trainer: Bool
    var commute: Bool
    var manual: Bool
    var source: UnsafeBufferPointer<UInt8>?
    var device: Int64?
    var athlete: Int64?
    /// `startDate` as big-endian words (bytes 0-7, 8-15, 16-19): their order is its byte order,
    /// which is `CacheText.cacheOrder`'s for ASCII.
    var order: (UInt64, UInt64, UInt32)
    /// `startDate`'s first eight bytes as a little-endian word (`YYYY-MM-` for the month check).
    var startWord: UInt64 { order.0.byteSwapped }
}

extension ActivityFields {
    /// The general reader's fields for what the fast path read.
    init<Values: BytesCanonicalValues>(_ c: CanonicalFields<Values>) {
        self.init(
            id: c.id, name: c.name.escaped ? .string(CanonicalCursor.unescape(c.name.bytes)) : .bytes(c.name.bytes), sportType: .bytes(c.sportType),
            type: c.type.map { .bytes($0) }, startDate: .bytes(c.startDate), startDateLocal: c.startDateLocal.map { .bytes($0) },
            localDay: c.localDay, timezone: c.timezone.map { .bytes($0) }, movingTime: c.movingTime, elapsedTime: c.elapsedTime,
            distance: c.distance, totalElevationGain: c.totalElevationGain, gearID: c.gearID.map { .bytes($0) }, trainer: c.trainer,
            commute: c.commute, manual: c.manual, source: c.source.map { .bytes($0) }, device: c.device, athlete: c.athlete)
    }
}

/// A key as `encode` writes it with what comes before and after (`,"name":`): its bytes as
/// little-endian words, literals so that each comparison is with an immediate (a key read from
/// a table took a load of each word and mask and a test of its length, 18 times an activity).
/// `CacheReaderDifferentialTests` checks each against its text.
struct CanonicalKey {
    let text: StaticString
    /// Bytes, up to 24.
    let length: Int
    /// Bytes 0-7 (zeros past a shorter key); bytes 8-15 of a key longer than 16; its last eight
    /// bytes when longer than 8.
    let head: UInt64
    let middle: UInt64
    let tail: UInt64

    @inline(__always)
    init(_ text: StaticString, _ length: Int, head: UInt64, middle: UInt64 = 0, tail: UInt64 = 0) {
        self.text = text
        self.length = length
        self.head = head
        self.middle = middle
        self.tail = tail
    }

    // The keys of the canonical layout, in `ActivityCacheFormat.encode`'s order.
    @inline(__always) static var athleteFirst: CanonicalKey { CanonicalKey("{\"athlete\":", 11, head: 0x7465_6C68_7461_227B, tail: 0x3A22_6574_656C_6874) }
    @inline(__always) static var commuteFirst: CanonicalKey { CanonicalKey("{\"commute\":", 11, head: 0x7475_6D6D_6F63_227B, tail: 0x3A22_6574_756D_6D6F) }
    @inline(__always) static var commute: CanonicalKey { CanonicalKey(",\"commute\":", 11, head: 0x7475_6D6D_6F63_222C, tail: 0x3A22_6574_756D_6D6F) }
    @inline(__always) static var device: CanonicalKey { CanonicalKey(",\"device\":", 10, head: 0x6563_6976_6564_222C, tail: 0x3A22_6563_6976_6564) }
    @inline(__always) static var distance: CanonicalKey { CanonicalKey(",\"distance\":", 12, head: 0x6E61_7473_6964_222C, tail: 0x3A22_6563_6E61_7473) }
    @inline(__always) static var elapsedTime: CanonicalKey { CanonicalKey(",\"elapsed_time\":", 16, head: 0x6573_7061_6C65_222C, tail: 0x3A22_656D_6974_5F64) }
    @inline(__always) static var gearID: CanonicalKey { CanonicalKey(",\"gear_id\":", 11, head: 0x695F_7261_6567_222C, tail: 0x3A22_6469_5F72_6165) }
    @inline(__always) static var id: CanonicalKey { CanonicalKey(",\"id\":", 6, head: 0x3A22_6469_222C) }
    @inline(__always) static var manual: CanonicalKey { CanonicalKey(",\"manual\":", 10, head: 0x6C61_756E_616D_222C, tail: 0x3A22_6C61_756E_616D) }
    @inline(__always) static var movingTime: CanonicalKey { CanonicalKey(",\"moving_time\":", 15, head: 0x676E_6976_6F6D_222C, tail: 0x3A22_656D_6974_5F67) }
    @inline(__always) static var name: CanonicalKey { CanonicalKey(",\"name\":", 8, head: 0x3A22_656D_616E_222C) }
    @inline(__always) static var source: CanonicalKey { CanonicalKey(",\"source\":", 10, head: 0x6563_7275_6F73_222C, tail: 0x3A22_6563_7275_6F73) }
    @inline(__always) static var sportType: CanonicalKey { CanonicalKey(",\"sport_type\":", 14, head: 0x5F74_726F_7073_222C, tail: 0x3A22_6570_7974_5F74) }
    @inline(__always) static var startDate: CanonicalKey { CanonicalKey(",\"start_date\":", 14, head: 0x5F74_7261_7473_222C, tail: 0x3A22_6574_6164_5F74) }
    @inline(__always) static var startDateLocal: CanonicalKey {
        CanonicalKey(",\"start_date_local\":", 20, head: 0x5F74_7261_7473_222C, middle: 0x636F_6C5F_6574_6164, tail: 0x3A22_6C61_636F_6C5F)
    }
    @inline(__always) static var timezone: CanonicalKey { CanonicalKey(",\"timezone\":", 12, head: 0x6F7A_656D_6974_222C, tail: 0x3A22_656E_6F7A_656D) }
    @inline(__always) static var totalElevationGain: CanonicalKey {
        CanonicalKey(",\"total_elevation_gain\":", 24, head: 0x5F6C_6174_6F74_222C, middle: 0x6F69_7461_7665_6C65, tail: 0x3A22_6E69_6167_5F6E)
    }
    @inline(__always) static var trainer: CanonicalKey { CanonicalKey(",\"trainer\":", 11, head: 0x656E_6961_7274_222C, tail: 0x3A22_7265_6E69_6172) }
    @inline(__always) static var type: CanonicalKey { CanonicalKey(",\"type\":", 8, head: 0x3A22_6570_7974_222C) }

    /// Every key, for the test that checks the words against the text.
    static var all: [CanonicalKey] {
        [
            athleteFirst, commuteFirst, commute, device, distance, elapsedTime, gearID, id, manual, movingTime, name, source, sportType,
            startDate, startDateLocal, timezone, totalElevationGain, trainer, type,
        ]
    }
}

/// The powers of ten of the general reader's exact numbers, for the fast path's digit-by-digit
/// reading (its words use `CanonicalCursor.tenTo`). (A generic reader holds a copy: it
/// would reach a global through a lazy initialiser at every access.)
struct CanonicalLayout {
    /// The same values as the general reader's table: a number is the same Double either way.
    let powersOfTen: [Double] = (0...15).map { p in (0..<p).reduce(1.0) { r, _ in r * 10 } }
}

/// The days of the last two timestamps read (a start and a local start), by their first ten
/// bytes: a month's activities come in order, most on the same day as the one before.
struct TimestampDays {
    var start: (date: (UInt64, UInt64), day: Day)?
    var local: (date: (UInt64, UInt64), day: Day)?
}

/// A position in a cache file's bytes, for the fast path: every read either consumes exactly
/// what it expects or returns nil (false) and leaves the position alone.
struct CanonicalCursor {
    let base: UnsafePointer<UInt8>
    let count: Int
    var at: Int

    /// The eight bytes at `k` as a little-endian word (`k + 8 <= count`).
    @inline(__always)
    func word(_ k: Int) -> UInt64 { UInt64(littleEndian: UnsafeRawPointer(base + k).loadUnaligned(as: UInt64.self)) }

    /// Consumes `key` when it comes next.
    @inline(__always)
    mutating func key(_ key: CanonicalKey) -> Bool {
        let n = key.length
        if at &+ 24 <= count {
            // Whole words, the last one overlapping the one before: no masks but for a key
            // shorter than a word.
            if n < 8 {
                guard word(at) & (UInt64(1) &<< UInt64(8 &* n) &- 1) == key.head else { return false }
            } else {
                guard word(at) == key.head else { return false }
                if n > 16 { guard word(at &+ 8) == key.middle else { return false } }
                if n > 8 { guard word(at &+ n &- 8) == key.tail else { return false } }
            }
        } else {
            guard at + n <= count, memcmp(base + at, key.text.utf8Start, n) == 0 else { return false }
        }
        at &+= n
        return true
    }

    /// `true` or `false`.
    @inline(__always)
    mutating func bool() -> Bool? {
        guard at &+ 8 <= count else {
            guard let (value, end) = slowBool() else { return nil }
            at = end
            return value
        }
        let w = word(at)
        if w & 0xFFFF_FFFF == 0x6575_7274 {  // "true"
            at &+= 4
            return true
        }
        if w & 0xFF_FFFF_FFFF == 0x65_736C_6166 {  // "false"
            at &+= 5
            return false
        }
        return nil
    }

    /// `bool()` near the end of the bytes, and where it ends. (Not mutating, as no slow path
    /// is: a call that takes the cursor by address keeps it in memory for the whole activity.)
    private func slowBool() -> (Bool, Int)? {
        if literal("true") { return (true, at + 4) }
        return literal("false") ? (false, at + 5) : nil
    }

    private func literal(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        return at + n <= count && memcmp(base + at, word.utf8Start, n) == 0
    }

    /// A string, or nil when `null`; `.none` for anything else.
    @inline(__always)
    mutating func optionalString() -> UnsafeBufferPointer<UInt8>?? {
        if at &+ 4 <= count, UnsafeRawPointer(base + at).loadUnaligned(as: UInt32.self) == UInt32(littleEndian: 0x6C6C_756E) {  // "null"
            at &+= 4
            return .some(nil)
        }
        return plainString().map { .some($0) }
    }

    /// The string after `key` when `key` comes next, `.some(nil)` when it does not; nil when its
    /// value is no plain string.
    @inline(__always)
    private mutating func plainString(after key: CanonicalKey) -> UnsafeBufferPointer<UInt8>?? {
        guard self.key(key) else { return .some(nil) }
        return plainString().map { .some($0) }
    }

    /// One activity in the canonical layout, with the general reader's checks: nil at the first
    /// byte that differs from what `encode` writes, or at a value the general reader reports.
    /// Everything it calls either is inlined or takes the cursor by value and says where it
    /// stopped: the cursor then stays in registers (a call given its address, the timestamps'
    /// and the slow paths', had it stored and reloaded at every step).
    @inline(__always)
    mutating func activity<Values: CanonicalValues>(
        _ k: CanonicalLayout, days: inout TimestampDays, _ values: inout Values
    ) -> CanonicalFields<Values>? {
        let start = at
        guard let fields = fields(k, &days, &values) else {
            at = start
            return nil
        }
        return fields
    }

    @inline(__always)
    private mutating func fields<Values: CanonicalValues>(
        _ k: CanonicalLayout, _ days: inout TimestampDays, _ values: inout Values
    ) -> CanonicalFields<Values>? {
        var athlete: Int64?
        if key(.athleteFirst) {
            guard let value = positiveInteger(k), key(.commute) else { return nil }
            athlete = value
        } else {
            guard key(.commuteFirst) else { return nil }
        }
        guard let commute = bool() else { return nil }
        var device: Int64?
        if key(.device) {
            guard let value = positiveInteger(k) else { return nil }
            device = value
        }
        guard key(.distance), let distance = number(k), ActivityLimits.allows(distance, .distance),
            key(.elapsedTime), let elapsed = number(k), ActivityLimits.allows(elapsed, .elapsedTime),
            key(.gearID), let gearBytes = optionalString()
        else { return nil }
        let gear = values.gear(gearBytes)
        guard key(.id), let id = positiveInteger(k),
            key(.manual), let manual = bool(),
            key(.movingTime), let moving = number(k), ActivityLimits.allows(moving, .movingTime),
            key(.name), case let (nameBytes, nameEscaped, nameHasHash)? = nameString()
        else { return nil }
        let name = values.name(CanonicalName(bytes: nameBytes, escaped: nameEscaped, hash: nameHasHash))
        guard let source = plainString(after: .source) else { return nil }
        guard key(.sportType), let sportBytes = plainString() else { return nil }
        let sport = values.sport(sportBytes)
        guard key(.startDate), let start = timestamp(&days.start, local: false) else { return nil }
        at = start.end
        var startLocal: UnsafeBufferPointer<UInt8>?, localDay = start.day
        if key(.startDateLocal) {
            guard let local = timestamp(&days.local, local: true) else { return nil }
            at = local.end
            startLocal = local.text
            localDay = local.day
        }
        guard let timezone = plainString(after: .timezone) else { return nil }
        guard key(.totalElevationGain), let elevation = number(k), ActivityLimits.allows(elevation, .totalElevationGain),
            key(.trainer), let trainer = bool()
        else { return nil }
        guard let type = plainString(after: .type) else { return nil }
        guard at < count, base[at] == UInt8(ascii: "}") else { return nil }
        at &+= 1
        return CanonicalFields(
            id: id, name: name, sportType: sport, type: type, startDate: start.text,
            startDateLocal: startLocal,
            localDay: localDay, timezone: timezone, movingTime: moving, elapsedTime: elapsed, distance: distance,
            totalElevationGain: elevation, gearID: gear, trainer: trainer, commute: commute, manual: manual, source: source, device: device,
            athlete: athlete, order: start.order)
    }
}
