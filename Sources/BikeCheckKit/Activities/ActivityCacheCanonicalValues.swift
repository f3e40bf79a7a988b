import Foundation

/// The fast path's values, in the forms `ActivityCacheFormat.encode` writes them: numbers and
/// strings read eight bytes at a time, timestamps as words. Each takes what the general reader
/// takes to the same value, or returns nil and leaves the position alone.
extension CanonicalCursor {
    // MARK: - Numbers

    /// The run of digits at `k`, up to eight, read as one word (`k + 8 <= count`): how many,
    /// and their value.
    @inline(__always)
    func digits(_ k: Int) -> (count: Int, value: UInt64) {
        let t = word(k) ^ 0x3030_3030_3030_3030
        // A digit's byte is now 0 to 9: high nibble clear, and still clear after adding 6. (A
        // carry out of a byte that is no digit reaches only the bytes after it, which do not count.)
        let other = (t | (t &+ 0x0606_0606_0606_0606)) & 0xF0F0_F0F0_F0F0_F0F0
        let n = other.trailingZeroBitCount >> 3
        guard n > 0 else { return (0, 0) }
        // The digits moved to the top of the word (the first digit, the most significant, is the
        // lowest byte), zeros before them; then joined in pairs, fours and the eight.
        var v = t &<< UInt64(8 * (8 - n))
        v = ((v & 0x0F0F_0F0F_0F0F_0F0F) &* 2561) >> 8
        v = ((v & 0x00FF_00FF_00FF_00FF) &* 6_553_601) >> 16
        v = ((v & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) >> 32
        return (n, v)
    }

    /// A positive integer of at most 18 digits without a leading zero: what the general reader
    /// reads as an exact id when a ',' or '}' follows (the next key's own check).
    @inline(__always)
    mutating func positiveInteger(_ k: CanonicalLayout) -> Int64? {
        guard at &+ 16 <= count else {
            guard let (value, end) = digitByDigitPositiveInteger() else { return nil }
            at = end
            return value
        }
        let high = digits(at)
        guard high.count > 0, base[at] != UInt8(ascii: "0") else { return nil }
        if high.count < 8 {
            at &+= high.count
            return Int64(high.value)
        }
        let low = digits(at &+ 8)
        guard low.count < 8 else {
            guard let (value, end) = digitByDigitPositiveInteger() else { return nil }
            at = end
            return value
        }
        at &+= 8 &+ low.count
        return Int64(high.value &* CanonicalCursor.tenTo(low.count) &+ low.value)
    }

    /// 10^n for n from 0 to 7 (the count of a run of digits under eight), from constants: no
    /// array to keep at hand and no bounds check. As a Double, each is exact: the general
    /// reader's `powersOfTen`.
    @inline(__always)
    static func tenTo(_ n: Int) -> UInt64 {
        switch n {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        default: 10_000_000
        }
    }

    private func digitByDigitPositiveInteger() -> (Int64, Int)? {
        guard at < count, base[at] &- 49 < 9 else { return nil }
        var j = at, n: Int64 = 0
        while j < count, base[j] &- 48 < 10 {
            guard j - at < 18 else { return nil }
            n = n &* 10 &+ Int64(base[j] &- 48)
            j += 1
        }
        return (n, j)
    }

    /// A number of at most 15 digits with an optional fraction, not negative and without an
    /// exponent: the general reader's exact case, computed the same way.
    @inline(__always)
    mutating func number(_ k: CanonicalLayout) -> Double? {
        guard at &+ 24 <= count else {
            guard let (value, end) = digitByDigitNumber(k.powersOfTen) else { return nil }
            at = end
            return value
        }
        let whole = digits(at)
        guard whole.count > 0, base[at] != UInt8(ascii: "0") || whole.count == 1 else { return nil }
        guard whole.count < 8 else {
            guard let (value, end) = digitByDigitNumber(k.powersOfTen) else { return nil }
            at = end
            return value
        }
        let point = at &+ whole.count
        guard base[point] == UInt8(ascii: ".") else {
            at = point
            return Double(whole.value)
        }
        // One digit after the point, as distances and elevations mostly have: no second word.
        let first = base[point &+ 1] &- 48
        if first < 10, base[point &+ 2] &- 48 >= 10 {
            at = point &+ 2
            return Double(whole.value &* 10 &+ UInt64(first)) / 10
        }
        let fraction = digits(point &+ 1)
        guard fraction.count > 0 else { return nil }
        guard fraction.count < 8 else {
            guard let (value, end) = digitByDigitNumber(k.powersOfTen) else { return nil }
            at = end
            return value
        }
        at = point &+ 1 &+ fraction.count
        let scale = CanonicalCursor.tenTo(fraction.count)
        return Double(whole.value &* scale &+ fraction.value) / Double(scale)
    }

    private func digitByDigitNumber(_ powersOfTen: [Double]) -> (Double, Int)? {
        func isDigit(_ k: Int) -> Bool { k < count && base[k] &- 48 < 10 }
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
        var value = Double(mantissa)
        if fraction > 0 { value /= powersOfTen[fraction] }
        return (value, j)
    }

    // MARK: - Strings

    /// A string without escapes or control characters, as its bytes.
    @inline(__always)
    mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        guard case let (end, _, _)? = stringEnd(escapes: false) else { return nil }
        defer { at = end &+ 1 }
        return UnsafeBufferPointer(start: base + (at &+ 1), count: end &- at &- 1)
    }

    /// A string whose only escapes are one-letter ones (`\"`, `\n`, …; not `\u`), as its bytes,
    /// whether it has any, and whether it has a '#' (which no such escape stands for): a name,
    /// which may quote, and whose hashtags a summary keeps.
    @inline(__always)
    mutating func nameString() -> (UnsafeBufferPointer<UInt8>, escaped: Bool, hash: Bool)? {
        guard case let (end, escaped, hash)? = stringEnd(escapes: true) else { return nil }
        defer { at = end &+ 1 }
        return (UnsafeBufferPointer(start: base + (at &+ 1), count: end &- at &- 1), escaped, hash)
    }

    /// Where the string at `at` ends (its closing quote), whether it has escapes and (with
    /// `escapes`, a name's scan) a '#'; nil when it is none, has a control character or an
    /// escape not allowed.
    @inline(__always)
    private func stringEnd(escapes: Bool) -> (Int, Bool, Bool)? {
        guard at < count, base[at] == UInt8(ascii: "\"") else { return nil }
        var j = at &+ 1, escaped = false, hash = false
        while j < count {
            // Eight bytes at a time to the first that ends the string or is an escape or a
            // control character (or a name's '#'); one at a time near the end of the file.
            if j &+ 8 <= count {
                let ends = escapes ? CanonicalCursor.nameEnds(word(j)) : CanonicalCursor.stringEnds(word(j))
                if ends == 0 {
                    j &+= 8
                    continue
                }
                j &+= ends.trailingZeroBitCount >> 3
            }
            let c = base[j]
            if c == UInt8(ascii: "\"") { return (j, escaped, hash) }
            if c == UInt8(ascii: "\\") {
                guard escapes, j + 1 < count, CanonicalCursor.unescaped(base[j + 1]) != nil else { return nil }
                escaped = true
                j &+= 2
                continue
            }
            if escapes, c == UInt8(ascii: "#") {
                hash = true
                j &+= 1
                continue
            }
            guard c >= 0x20 else { return nil }
            j &+= 1
        }
        return nil
    }

    /// Whether any of eight bytes is '"', '\\' or below 0x20.
    static func mayEndString(_ v: UInt64) -> Bool { stringEnds(v) != 0 }

    /// The high bit of each of eight bytes (the first in the lowest byte) that is '"', '\\' or
    /// below 0x20 (the SWAR "has a byte less than" tests): exact up to the first such byte, which
    /// is all a reader looks at. XORed with 2, '"' is 0x20 and a control character stays below
    /// it, so one test below 0x21 finds both; a byte of 0x80 or more is none (`~v`), and a byte
    /// under 0x80 borrows from the one after it only when it is one. (Three tests took about 20
    /// instructions a word, in every string of every activity.)
    @inline(__always)
    static func stringEnds(_ v: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quoteOrControl = (v ^ (ones &* 0x02)) &- (ones &* 0x21)
        let backslash = (v ^ (ones &* 0x5C)) &- ones
        return (quoteOrControl | backslash) & ~v & (ones &* 0x80)
    }

    /// `stringEnds` and each '#' (a zero byte once XORed with it), for a name's scan.
    @inline(__always)
    static func nameEnds(_ v: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        return stringEnds(v) | ((v ^ (ones &* 0x23)) &- ones) & ~v & (ones &* 0x80)
    }

    /// The byte a one-letter escape stands for (10 for the `n` of `\n`), or nil (`u`, which the
    /// general reader alone reads, and anything else): JSON's, for both readers.
    static func unescaped(_ e: UInt8) -> UInt8? {
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return e
        case UInt8(ascii: "b"): return 8
        case UInt8(ascii: "f"): return 12
        case UInt8(ascii: "n"): return 10
        case UInt8(ascii: "r"): return 13
        case UInt8(ascii: "t"): return 9
        default: return nil
        }
    }

    /// The text of a string's bytes whose escapes are all one-letter ones (`nameString`'s).
    static func unescape(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var j = 0
        while j < bytes.count {
            if bytes[j] == UInt8(ascii: "\\"), j + 1 < bytes.count, let e = unescaped(bytes[j + 1]) {
                out.append(e)
                j += 2
            } else {
                out.append(bytes[j])
                j += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - Timestamps

    /// A start date (`local: false`: its day and order words, `startTimestamp`) or a local start
    /// date (`local: true`: its day, `localTimestamp`) at `at`, and where it ends: as three words
    /// when it is the 20 bytes `encode` writes with digits where digits go (nearly always),
    /// without looking for the string's end; else as any string. Not mutating (see `activity`).
    @inline(__always)
    func timestamp(_ memo: inout (date: (UInt64, UInt64), day: Day)?, local: Bool) -> CanonicalTimestamp? {
        if let (w0, w1, w2) = wordTimestamp() {
            // The separators are checked: the day is the first ten bytes' alone.
            let day: Day
            if let known = memo, known.date == (w0, w1 & 0xFFFF) {
                day = known.day
            } else {
                guard let read = CanonicalCursor.newDay(base + (at &+ 1), w0, w1, &memo) else { return nil }
                day = read
            }
            return CanonicalTimestamp(
                text: UnsafeBufferPointer(start: base + (at &+ 1), count: 20), day: day,
                order: (w0.byteSwapped, w1.byteSwapped, w2.byteSwapped), end: at &+ 22)
        }
        return otherTimestamp(&memo, local: local)
    }

    /// `timestamp` for a string that is not 20 bytes of digits and separators where `encode`
    /// writes them.
    @inline(never)
    private func otherTimestamp(_ memo: inout (date: (UInt64, UInt64), day: Day)?, local: Bool) -> CanonicalTimestamp? {
        var cursor = self
        guard let t = cursor.plainString() else { return nil }
        if local {
            guard let day = localTimestamp(t, &memo) else { return nil }
            return CanonicalTimestamp(text: t, day: day, order: (0, 0, 0), end: cursor.at)
        }
        guard case let (day, order)? = startTimestamp(t, &memo) else { return nil }
        return CanonicalTimestamp(text: t, day: day, order: order, end: cursor.at)
    }

    /// The day of a timestamp's first ten bytes at `date` (whose words are `w0`, `w1`), kept in
    /// `memo`: once a day of a month's activities, not inlined.
    @inline(never)
    private static func newDay(_ date: UnsafePointer<UInt8>, _ w0: UInt64, _ w1: UInt64, _ memo: inout (date: (UInt64, UInt64), day: Day)?) -> Day? {
        guard let day = Day(utf8: UnsafeBufferPointer(start: date, count: 10)) else { return nil }
        memo = ((w0, w1 & 0xFFFF), day)
        return day
    }

    /// The string at `at` when it is 20 bytes `DDDD-DD-DDTDD:DD:DDZ` (D a digit), as
    /// little-endian words (bytes 0-7, 8-15, 16-19); nil for anything else. Every byte is
    /// checked, so it has no quote, escape or control character, and its separators are where
    /// `ActivityLimits.timestampDay` wants them.
    @inline(__always)
    private func wordTimestamp() -> (UInt64, UInt64, UInt32)? {
        guard at &+ 32 <= count, base[at] == UInt8(ascii: "\""), base[at &+ 21] == UInt8(ascii: "\"") else { return nil }
        let w0 = word(at &+ 1), w1 = word(at &+ 9), w2 = UInt32(truncatingIfNeeded: word(at &+ 17))
        // Each word XORed with what it should be ('0' where a digit goes): digits become 0 to 9,
        // the other bytes 0. A byte that is no digit has a high nibble after adding 6 (its
        // carry, if any, reaches only bytes after it: the word is refused either way).
        let t0 = w0 ^ 0x2D30_302D_3030_3030, t1 = w1 ^ 0x3030_3A30_3054_3030
        let t2 = UInt64(w2 ^ 0x5A30_303A)
        let six: UInt64 = 0x0606_0606_0606_0606
        guard (t0 | (t0 &+ six) | t1 | (t1 &+ six) | t2 | (t2 &+ six)) & 0xF0F0_F0F0_F0F0_F0F0 == 0,
            (t0 & 0xFF00_00FF_0000_0000) | (t1 & 0x0000_FF00_00FF_0000) | (t2 & 0xFF00_00FF) == 0
        else { return nil }
        return (w0, w1, w2)
    }

    /// The day of a start date `YYYY-MM-DDTHH:MM:SSZ` and its order words (`CanonicalFields.order`):
    /// only in its 20 ASCII bytes (the general reader reads any other).
    func startTimestamp(_ t: UnsafeBufferPointer<UInt8>, _ memo: inout (date: (UInt64, UInt64), day: Day)?) -> (Day, (UInt64, UInt64, UInt32))? {
        guard t.count == 20 else { return nil }
        let (w0, w1, w2) = CanonicalCursor.words(t)
        guard (w0 | w1 | UInt64(w2)) & 0x8080_8080_8080_8080 == 0, let day = CanonicalCursor.day(t, w0, w1, w2, &memo) else { return nil }
        return (day, (w0.byteSwapped, w1.byteSwapped, w2.byteSwapped))
    }

    /// The day of a local start date: `ActivityLimits.timestampDay`, 20 bytes read as words.
    func localTimestamp(_ t: UnsafeBufferPointer<UInt8>, _ memo: inout (date: (UInt64, UInt64), day: Day)?) -> Day? {
        guard t.count == 20 else { return ActivityLimits.timestampDay(utf8: t) }
        let (w0, w1, w2) = CanonicalCursor.words(t)
        return CanonicalCursor.day(t, w0, w1, w2, &memo)
    }

    /// 20 bytes as little-endian words: bytes 0-7, 8-15 and 16-19.
    private static func words(_ t: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64, UInt32) {
        let raw = UnsafeRawPointer(t.baseAddress!)
        return (
            UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)), UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
            UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
        )
    }

    /// `ActivityLimits.timestampDay` of a 20-byte timestamp given as its words: 'T', ':', ':' and
    /// 'Z' where it wants them, and the day of the first ten bytes, from `memo` when they are its.
    static func day(
        _ t: UnsafeBufferPointer<UInt8>, _ w0: UInt64, _ w1: UInt64, _ w2: UInt32, _ memo: inout (date: (UInt64, UInt64), day: Day)?
    ) -> Day? {
        // Byte 10 'T', 13 ':' (in the second word); 16 ':', 19 'Z' (in the third).
        guard w1 & 0x0000_FF00_00FF_0000 == 0x0000_3A00_0054_0000, w2 & 0xFF00_00FF == 0x5A00_003A else { return nil }
        if let known = memo, known.date == (w0, w1 & 0xFFFF) { return known.day }
        return newDay(t.baseAddress!, w0, w1, &memo)
    }
}

/// A timestamp the fast path read: its bytes, day, order words (a start date's; zeros for a
/// local one read as any string) and the position after it.
struct CanonicalTimestamp {
    var text: UnsafeBufferPointer<UInt8>
    var day: Day
    var order: (UInt64, UInt64, UInt32)
    var end: Int
}
