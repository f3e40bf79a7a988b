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
    mutating func readCanonicalActivity(_ layout: CanonicalLayout) -> CanonicalFields? {
        guard let base = b.baseAddress else { return nil }
        var cursor = CanonicalCursor(base: base, count: b.count, at: i)
        guard let fields = cursor.activity(layout, days: &days) else { return nil }
        i = cursor.at
        return fields
    }
}

/// One activity as the fast path read it: numbers and runs of the file's bytes, nothing to
/// retain or release. The same values as the general reader's `ActivityFields`
/// (`ActivityFields.init(_:)`), without making a String of an escaped name unless asked.
struct CanonicalFields {
    var id: Int64
    /// The name's bytes in the file: with `nameEscaped`, with their escapes, all one-letter ones
    /// (`CanonicalCursor.unescape`).
    var name: UnsafeBufferPointer<UInt8>
    var nameEscaped: Bool
    var sportType: UnsafeBufferPointer<UInt8>
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
    var gearID: UnsafeBufferPointer<UInt8>?
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
    init(_ c: CanonicalFields) {
        self.init(
            id: c.id, name: c.nameEscaped ? .string(CanonicalCursor.unescape(c.name)) : .bytes(c.name), sportType: .bytes(c.sportType),
            type: c.type.map { .bytes($0) }, startDate: .bytes(c.startDate), startDateLocal: c.startDateLocal.map { .bytes($0) },
            localDay: c.localDay, timezone: c.timezone.map { .bytes($0) }, movingTime: c.movingTime, elapsedTime: c.elapsedTime,
            distance: c.distance, totalElevationGain: c.totalElevationGain, gearID: c.gearID.map { .bytes($0) }, trainer: c.trainer,
            commute: c.commute, manual: c.manual, source: c.source.map { .bytes($0) }, device: c.device, athlete: c.athlete)
    }
}

/// A key as `encode` writes it with what comes before and after (`,"name":`), as little-endian
/// words and masks for the bytes it covers (up to 24).
struct CanonicalKey {
    var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
    var masks: (UInt64, UInt64, UInt64) = (0, 0, 0)
    var length = 0

    init(_ text: StaticString) {
        let bytes = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        var words: [UInt64] = [0, 0, 0], masks: [UInt64] = [0, 0, 0]
        for (j, byte) in bytes.prefix(24).enumerated() {
            words[j / 8] |= UInt64(byte) << (8 * (j % 8))
            masks[j / 8] |= 0xFF << (8 * (j % 8))
        }
        self.words = (words[0], words[1], words[2])
        self.masks = (masks[0], masks[1], masks[2])
        length = min(bytes.count, 24)
    }

    /// Byte `k` of the key.
    func byte(_ k: Int) -> UInt8 {
        let word = k < 8 ? words.0 : k < 16 ? words.1 : words.2
        return UInt8(truncatingIfNeeded: word >> (8 * UInt64(k % 8)))
    }
}

/// The canonical layout's keys, in `ActivityCacheFormat.encode`'s order, and the powers of ten
/// of the general reader's exact numbers. (A generic reader holds a copy: it would reach a
/// global through a lazy initialiser at every access.)
struct CanonicalLayout {
    let athleteFirst = CanonicalKey("{\"athlete\":")
    let commuteFirst = CanonicalKey("{\"commute\":")
    let commute = CanonicalKey(",\"commute\":")
    let device = CanonicalKey(",\"device\":")
    let distance = CanonicalKey(",\"distance\":")
    let elapsedTime = CanonicalKey(",\"elapsed_time\":")
    let gearID = CanonicalKey(",\"gear_id\":")
    let id = CanonicalKey(",\"id\":")
    let manual = CanonicalKey(",\"manual\":")
    let movingTime = CanonicalKey(",\"moving_time\":")
    let name = CanonicalKey(",\"name\":")
    let source = CanonicalKey(",\"source\":")
    let sportType = CanonicalKey(",\"sport_type\":")
    let startDate = CanonicalKey(",\"start_date\":")
    let startDateLocal = CanonicalKey(",\"start_date_local\":")
    let timezone = CanonicalKey(",\"timezone\":")
    let totalElevationGain = CanonicalKey(",\"total_elevation_gain\":")
    let trainer = CanonicalKey(",\"trainer\":")
    let type = CanonicalKey(",\"type\":")
    /// The same values as the general reader's table: a number is the same Double either way.
    let powersOfTen: [Double] = (0...15).map { p in (0..<p).reduce(1.0) { r, _ in r * 10 } }
    /// 10^0 through 10^8 as integers, to join two runs of digits.
    let integerPowersOfTen: [UInt64] = (0...8).map { p in (0..<p).reduce(1) { r, _ in r * 10 } }
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
        if at + 24 <= count {
            // Only the words the key covers: most keys take two.
            guard word(at) & key.masks.0 == key.words.0 else { return false }
            if key.length > 8 {
                guard word(at + 8) & key.masks.1 == key.words.1 else { return false }
                if key.length > 16 { guard word(at + 16) & key.masks.2 == key.words.2 else { return false } }
            }
        } else {
            guard at + key.length <= count else { return false }
            for k in 0..<key.length where base[at + k] != key.byte(k) { return false }
        }
        at += key.length
        return true
    }

    /// `true` or `false`.
    @inline(__always)
    mutating func bool() -> Bool? {
        guard at + 8 <= count else { return slowBool() }
        let w = word(at)
        if w & 0xFFFF_FFFF == 0x6575_7274 {  // "true"
            at += 4
            return true
        }
        if w & 0xFF_FFFF_FFFF == 0x65_736C_6166 {  // "false"
            at += 5
            return false
        }
        return nil
    }

    private mutating func slowBool() -> Bool? {
        if literal("true") { return true }
        return literal("false") ? false : nil
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard at + n <= count, memcmp(base + at, word.utf8Start, n) == 0 else { return false }
        at += n
        return true
    }

    /// A string, or nil when `null`; `.none` for anything else.
    @inline(__always)
    mutating func optionalString() -> UnsafeBufferPointer<UInt8>?? {
        if at + 4 <= count, UnsafeRawPointer(base + at).loadUnaligned(as: UInt32.self) == UInt32(littleEndian: 0x6C6C_756E) {  // "null"
            at += 4
            return .some(nil)
        }
        return plainString().map { .some($0) }
    }

    /// One activity in the canonical layout, with the general reader's checks: nil at the first
    /// byte that differs from what `encode` writes, or at a value the general reader reports.
    @inline(__always)
    mutating func activity(_ k: CanonicalLayout, days: inout TimestampDays) -> CanonicalFields? {
        let start = at
        guard let fields = fields(k, &days) else {
            at = start
            return nil
        }
        return fields
    }

    @inline(__always)
    private mutating func fields(_ k: CanonicalLayout, _ days: inout TimestampDays) -> CanonicalFields? {
        var athlete: Int64?
        if key(k.athleteFirst) {
            guard let value = positiveInteger(k), key(k.commute) else { return nil }
            athlete = value
        } else {
            guard key(k.commuteFirst) else { return nil }
        }
        guard let commute = bool() else { return nil }
        var device: Int64?
        if key(k.device) {
            guard let value = positiveInteger(k) else { return nil }
            device = value
        }
        guard key(k.distance), let distance = number(k), ActivityLimits.allows(distance, .distance),
            key(k.elapsedTime), let elapsed = number(k), ActivityLimits.allows(elapsed, .elapsedTime),
            key(k.gearID), let gear = optionalString(),
            key(k.id), let id = positiveInteger(k),
            key(k.manual), let manual = bool(),
            key(k.movingTime), let moving = number(k), ActivityLimits.allows(moving, .movingTime),
            key(k.name), case let (name, nameEscaped)? = nameString()
        else { return nil }
        var source: UnsafeBufferPointer<UInt8>?
        if key(k.source) {
            guard let value = plainString() else { return nil }
            source = value
        }
        guard key(k.sportType), let sport = plainString(),
            key(k.startDate), let startDate = plainString(), case let (startDay, order)? = startTimestamp(startDate, &days.start)
        else { return nil }
        var startLocal: UnsafeBufferPointer<UInt8>?, localDay = startDay
        if key(k.startDateLocal) {
            guard let value = plainString(), let day = localTimestamp(value, &days.local) else { return nil }
            startLocal = value
            localDay = day
        }
        var timezone: UnsafeBufferPointer<UInt8>?
        if key(k.timezone) {
            guard let value = plainString() else { return nil }
            timezone = value
        }
        guard key(k.totalElevationGain), let elevation = number(k), ActivityLimits.allows(elevation, .totalElevationGain),
            key(k.trainer), let trainer = bool()
        else { return nil }
        var type: UnsafeBufferPointer<UInt8>?
        if key(k.type) {
            guard let value = plainString() else { return nil }
            type = value
        }
        guard at < count, base[at] == UInt8(ascii: "}") else { return nil }
        at += 1
        return CanonicalFields(
            id: id, name: name, nameEscaped: nameEscaped, sportType: sport, type: type, startDate: startDate, startDateLocal: startLocal,
            localDay: localDay, timezone: timezone, movingTime: moving, elapsedTime: elapsed, distance: distance,
            totalElevationGain: elevation, gearID: gear, trainer: trainer, commute: commute, manual: manual, source: source, device: device,
            athlete: athlete, order: order)
    }
}
