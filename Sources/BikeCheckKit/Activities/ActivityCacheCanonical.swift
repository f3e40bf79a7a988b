import Foundation

/// The reader's fast path for the layout `ActivityCacheFormat.encode` writes, which is nearly
/// every activity of every cache: keys in its order, no space, numbers in its forms, strings
/// without escapes. Each expected key is compared as words and each value read straight from
/// the bytes. At the first surprise (a key out of order, an escape, a number it does not write,
/// a value outside `ActivityLimits`) it gives up and the general reader reads the activity from
/// its start, so a hand-edited or foreign-ordered file reads, and reports, exactly as before.
/// What it accepts, it reads to the same fields as the general reader does.
extension ActivityCacheReader {
    /// The activity at `i` when it is in the canonical layout, `i` then past it; else nil, and
    /// `i` unchanged.
    @inline(__always)
    mutating func readCanonicalActivity() -> ActivityFields? {
        guard let base = b.baseAddress else { return nil }
        var cursor = CanonicalCursor(base: base, count: b.count, at: i)
        guard let fields = cursor.activity(canonical) else { return nil }
        i = cursor.at
        return fields
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

}

/// A position in a cache file's bytes, for the fast path: every read either consumes exactly
/// what it expects or returns nil (false) and leaves the position alone.
struct CanonicalCursor {
    let base: UnsafePointer<UInt8>
    let count: Int
    var at: Int

    private func isDigit(_ k: Int) -> Bool { k < count && base[k] &- 48 < 10 }

    /// Consumes `key` when it comes next.
    @inline(__always)
    mutating func key(_ key: CanonicalKey) -> Bool {
        if at + 24 <= count {
            let raw = UnsafeRawPointer(base + at)
            guard UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)) & key.masks.0 == key.words.0,
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) & key.masks.1 == key.words.1,
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)) & key.masks.2 == key.words.2
            else { return false }
        } else {
            guard at + key.length <= count else { return false }
            for k in 0..<key.length where base[at + k] != key.byte(k) { return false }
        }
        at += key.length
        return true
    }

    /// A positive integer of at most 18 digits without a leading zero: what the general reader
    /// reads as an exact id when a ',' or '}' follows (the next key's own check).
    mutating func positiveInteger() -> Int64? {
        guard at < count, base[at] &- 49 < 9 else { return nil }
        var j = at, n: Int64 = 0
        while isDigit(j) {
            guard j - at < 18 else { return nil }
            n = n &* 10 &+ Int64(base[j] &- 48)
            j += 1
        }
        at = j
        return n
    }

    /// A number of at most 15 digits with an optional fraction, not negative and without an
    /// exponent: the general reader's exact case, computed the same way.
    mutating func number(_ powersOfTen: [Double]) -> Double? {
        var j = at
        guard isDigit(j), base[j] != 48 || !isDigit(j + 1) else { return nil }
        var mantissa: UInt64 = 0, digits = 0, fraction = 0
        while isDigit(j) {
            mantissa = mantissa &* 10 &+ UInt64(base[j] &- 48)
            digits += 1
            j += 1
        }
        if j < count, base[j] == UInt8(ascii: ".") {
            j += 1
            while isDigit(j) {
                mantissa = mantissa &* 10 &+ UInt64(base[j] &- 48)
                digits += 1
                fraction += 1
                j += 1
            }
            guard fraction > 0 else { return nil }
        }
        guard digits <= 15 else { return nil }
        at = j
        var value = Double(mantissa)
        if fraction > 0 { value /= powersOfTen[fraction] }
        return value
    }

    /// A string without escapes or control characters, as its bytes.
    mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        guard at < count, base[at] == UInt8(ascii: "\"") else { return nil }
        let start = at + 1
        var j = start
        // Eight bytes at a time: the first that ends the string or has an escape or a control
        // character decides.
        while j + 8 <= count {
            let ends = CanonicalCursor.stringEnds(UInt64(littleEndian: UnsafeRawPointer(base + j).loadUnaligned(as: UInt64.self)))
            if ends != 0 {
                j += ends.trailingZeroBitCount >> 3
                guard base[j] == UInt8(ascii: "\"") else { return nil }
                at = j + 1
                return UnsafeBufferPointer(start: base + start, count: j - start)
            }
            j += 8
        }
        while j < count {
            let c = base[j]
            if c == UInt8(ascii: "\"") {
                at = j + 1
                return UnsafeBufferPointer(start: base + start, count: j - start)
            }
            if c < 0x20 || c == UInt8(ascii: "\\") { return nil }
            j += 1
        }
        return nil
    }

    /// Whether any of eight bytes is '"', '\\' or below 0x20.
    static func mayEndString(_ v: UInt64) -> Bool { stringEnds(v) != 0 }

    /// The high bit of each of eight bytes (the first in the lowest byte) that is '"', '\\' or
    /// below 0x20 (the SWAR "has a zero byte" tests): exact up to the first such byte, which is
    /// all a reader looks at.
    static func stringEnds(_ v: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func zeroBytes(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & highs }
        let control = (v &- ones &* 0x20) & ~v & highs
        return control | zeroBytes(v ^ (ones &* 0x22)) | zeroBytes(v ^ (ones &* 0x5C))
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard at + n <= count, memcmp(base + at, word.utf8Start, n) == 0 else { return false }
        at += n
        return true
    }

    mutating func bool() -> Bool? {
        if at < count, base[at] == UInt8(ascii: "t") { return literal("true") ? true : nil }
        return literal("false") ? false : nil
    }

    /// A string, or nil when `null`; `.none` for anything else.
    mutating func optionalString() -> UnsafeBufferPointer<UInt8>?? {
        if at < count, base[at] == UInt8(ascii: "n") { return literal("null") ? .some(nil) : nil }
        return plainString().map { .some($0) }
    }

    /// One activity in the canonical layout, with the general reader's checks: nil at the first
    /// byte that differs from what `encode` writes, or at a value the general reader reports.
    @inline(__always)
    mutating func activity(_ k: CanonicalLayout) -> ActivityFields? {
        let start = at
        guard let fields = fields(k) else {
            at = start
            return nil
        }
        return fields
    }

    @inline(__always)
    private mutating func fields(_ k: CanonicalLayout) -> ActivityFields? {
        var athlete: Int64?
        if key(k.athleteFirst) {
            guard let value = positiveInteger(), key(k.commute) else { return nil }
            athlete = value
        } else {
            guard key(k.commuteFirst) else { return nil }
        }
        guard let commute = bool() else { return nil }
        var device: Int64?
        if key(k.device) {
            guard let value = positiveInteger() else { return nil }
            device = value
        }
        guard key(k.distance), let distance = number(k.powersOfTen), ActivityLimits.allows(distance, .distance),
            key(k.elapsedTime), let elapsed = number(k.powersOfTen), ActivityLimits.allows(elapsed, .elapsedTime),
            key(k.gearID), let gear = optionalString(),
            key(k.id), let id = positiveInteger(),
            key(k.manual), let manual = bool(),
            key(k.movingTime), let moving = number(k.powersOfTen), ActivityLimits.allows(moving, .movingTime),
            key(k.name), let name = plainString()
        else { return nil }
        var source: UnsafeBufferPointer<UInt8>?
        if key(k.source) {
            guard let value = plainString() else { return nil }
            source = value
        }
        guard key(k.sportType), let sport = plainString(),
            key(k.startDate), let startDate = plainString(), let startDay = ActivityLimits.timestampDay(utf8: startDate)
        else { return nil }
        var startLocal: UnsafeBufferPointer<UInt8>?, localDay: Day?
        if key(k.startDateLocal) {
            guard let value = plainString(), let day = ActivityLimits.timestampDay(utf8: value) else { return nil }
            startLocal = value
            localDay = day
        }
        var timezone: UnsafeBufferPointer<UInt8>?
        if key(k.timezone) {
            guard let value = plainString() else { return nil }
            timezone = value
        }
        guard key(k.totalElevationGain), let elevation = number(k.powersOfTen), ActivityLimits.allows(elevation, .totalElevationGain),
            key(k.trainer), let trainer = bool()
        else { return nil }
        var type: UnsafeBufferPointer<UInt8>?
        if key(k.type) {
            guard let value = plainString() else { return nil }
            type = value
        }
        guard at < count, base[at] == UInt8(ascii: "}") else { return nil }
        at += 1
        return ActivityFields(
            id: id, name: .bytes(name), sportType: .bytes(sport), type: type.map { .bytes($0) }, startDate: .bytes(startDate),
            startDateLocal: startLocal.map { .bytes($0) }, localDay: localDay ?? startDay, timezone: timezone.map { .bytes($0) },
            movingTime: moving, elapsedTime: elapsed, distance: distance, totalElevationGain: elevation, gearID: gear.map { .bytes($0) },
            trainer: trainer, commute: commute, manual: manual, source: source.map { .bytes($0) }, device: device, athlete: athlete)
    }
}
