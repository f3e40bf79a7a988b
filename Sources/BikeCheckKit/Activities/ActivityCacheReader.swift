import Diagnostics
import Foundation

/// A small, strict JSON reader specialised for the activity cache: a top-level array of flat
/// objects. It reads straight from bytes, so a year of rides loads in milliseconds.
///
/// `Builder` decides what each accepted activity becomes (a whole `Activity`, or the compact
/// `ActivitySummary` status needs); the reading, the checks and the diagnostics are the same.
struct ActivityCacheReader<Builder: ActivityRecordBuilder> {
    let b: UnsafeBufferPointer<UInt8>
    let path: String
    var i = 0
    var diagnostics: [Diagnostic] = []
    var builder = Builder()
    /// With `month` given: how many accepted activities started in another month.
    private(set) var misplaced = 0
    /// Whether two accepted activities were out of cache order (start date, then id).
    private(set) var unsorted = false
    private let month: [UInt8]?
    /// The reader's own copies of the tables: a generic type reaches a global through a lazy
    /// initialiser on every access.
    private let keys = CacheSyntax.keys
    private let patterns = CacheSyntax.patterns
    private let powersOfTen = CacheSyntax.powersOfTen
    let canonical = CanonicalLayout()
    private var previous: (start: CacheText, id: Int64)?
    /// The previous activity when the fast path read it: its start's order words and id, and
    /// the start's bytes (for the general reader's check of the one after it).
    private var previousCanonical: (order: (UInt64, UInt64, UInt32), id: Int64, start: UnsafeBufferPointer<UInt8>)?
    /// `month` as the first seven bytes of a little-endian word (nil when it is not seven bytes).
    private let monthWord: UInt64?
    /// The fast path's days of the last timestamps it read.
    var days = TimestampDays()
    private(set) var source: SourceText?
    /// Problems past `Diagnostic.perFileLimit`: how many, and where the first is.
    private var omitted = 0
    private var firstOmitted: SourcePosition?
    /// Index in `keys` of the key expected next: files are written with keys in one order.
    private var nextKey = 0

    /// `month` (`YYYY-MM`, from the file name) turns on the count of misplaced activities.
    init(_ buffer: UnsafeBufferPointer<UInt8>, path: String, month: String? = nil) {
        self.b = buffer
        self.path = path
        self.month = month.map { Array($0.utf8) }
        monthWord = self.month.flatMap { m in m.count == 7 ? m.reversed().reduce(0) { $0 << 8 | UInt64($1) } : nil }
    }

    private struct Failure: Error {}

    mutating func readFile() -> (records: [Builder.Record], diagnostics: [Diagnostic]) {
        var records: [Builder.Record] = []
        let diagnostics = readFile(into: &records)
        return (records, diagnostics)
    }

    /// `readFile()`, appending the records to `records`: a loader that reads month after month
    /// hands back the same array, emptied, so that its memory is touched once, not once a month.
    mutating func readFile(into records: inout [Builder.Record]) -> [Diagnostic] {
        records.reserveCapacity(records.count + b.count / 300)  // about 340 bytes an activity: grow once, if at all
        do {
            skipSpace()
            try expect(UInt8(ascii: "["), "the activity cache should be a JSON array")
            skipSpace()
            if peek() == UInt8(ascii: "]") {
                i += 1
            } else {
                // Once, not once an activity: a copy of a property of the reader, which the loop changes.
                let layout = canonical
                while true {
                    skipSpace()
                    // Nearly always the layout the cache is written in; anything else is read by
                    // the general reader, from the same place.
                    if let fields = readCanonicalActivity(layout) {
                        accept(fields, into: &records)
                    } else if let fields = try readActivity() {
                        accept(fields, into: &records)
                    }
                    skipSpace()
                    if peek() == UInt8(ascii: ",") { i += 1; continue }
                    try expect(UInt8(ascii: "]"), "expected ',' or ']' after an activity")
                    break
                }
            }
            skipSpace()
            if i < b.count { fail("unexpected text after the end of the array", at: i) }
        } catch {}
        if let firstOmitted {
            diagnostics.append(.tooManyProblems(omitted, at: SourceLocation(file: path, range: SourceRange(at: firstOmitted)), severity: .error))
        }
        return diagnostics
    }

    // MARK: - Activities

    /// An activity read: checked for its month and order, and made a record.
    private mutating func accept(_ fields: ActivityFields, into records: inout [Builder.Record]) {
        if let month, !fields.startDate.starts(inMonth: month) { misplaced += 1 }
        if let previous = previousCanonical.map({ (start: CacheText.bytes($0.start), id: $0.id) }) ?? previous,
            !CacheText.cacheOrder(previous, (fields.startDate, fields.id))
        {
            unsorted = true
        }
        previous = (fields.startDate, fields.id)
        previousCanonical = nil
        records.append(builder.record(fields))
    }

    /// The same for an activity the fast path read, its start date's checks done on its words.
    @inline(__always)
    private mutating func accept(_ fields: CanonicalFields<Builder>, into records: inout [Builder.Record]) {
        // `CacheText.starts(inMonth:)` and `cacheOrder` on 20 ASCII bytes.
        if month != nil, fields.startWord & 0x00FF_FFFF_FFFF_FFFF != monthWord { misplaced += 1 }
        if let p = previousCanonical {
            let o = fields.order
            if !(p.order.0 != o.0 ? p.order.0 < o.0 : p.order.1 != o.1 ? p.order.1 < o.1 : p.order.2 != o.2 ? p.order.2 < o.2 : p.id < fields.id) {
                unsorted = true
            }
        } else if let previous, !CacheText.cacheOrder(previous, (.bytes(fields.startDate), fields.id)) {
            unsorted = true
        }
        previousCanonical = (fields.order, fields.id, fields.startDate)
        records.append(builder.record(fields))
    }

    private mutating func readActivity() throws -> ActivityFields? {
        let start = i
        try expect(UInt8(ascii: "{"), "expected an activity object")
        var id: Int64?, name: CacheText?, sport: CacheText?, type: CacheText?, startDate: CacheText?, startLocal: CacheText?
        var startDay: Day?, localDay: Day?
        var timezone: CacheText?, moving: Double?, elapsed: Double?, distance: Double?, elevation = 0.0, gear: CacheText?
        var trainer = false, commute = false, manual = false
        var source: CacheText?, device: Int64?, athlete: Int64?
        var bad = false
        skipSpace()
        if peek() == UInt8(ascii: "}") {
            i += 1
        } else {
            while true {
                skipSpace()
                let key = try readKey()
                skipSpace()
                try expect(UInt8(ascii: ":"), "expected ':' after a key")
                skipSpace()
                let valueStart = i
                switch key {
                case .id:
                    // Exactly, not through a Double: Strava ids pass 2^53, where Doubles skip integers.
                    if let exact = readPositiveInteger() {
                        id = exact
                    } else {
                        _ = try readNumber()
                        bad = wrong(.id, at: valueStart)
                    }
                case .name: name = try readString()
                case .sportType: sport = try readString()
                case .type: type = try readString()
                case .startDate:
                    startDate = try readString()
                    startDay = startDate?.timestampDay
                    if startDay == nil { bad = wrong(.startDate, at: valueStart) }
                case .startDateLocal:
                    startLocal = try readString()
                    localDay = startLocal?.timestampDay
                    if startLocal != nil, localDay == nil { bad = wrong(.startDateLocal, at: valueStart) }
                case .timezone: timezone = try readString()
                // The limits are ActivityLimits', the same the writer checks.
                case .movingTime:
                    moving = try readNumber()
                    if !ActivityLimits.allows(moving ?? -1, .movingTime) { bad = wrong(.movingTime, at: valueStart) }
                case .elapsedTime:
                    elapsed = try readNumber()
                    if let elapsed, !ActivityLimits.allows(elapsed, .elapsedTime) { bad = wrong(.elapsedTime, at: valueStart) }
                case .distance:
                    distance = try readNumber()
                    if !ActivityLimits.allows(distance ?? -1, .distance) { bad = wrong(.distance, at: valueStart) }
                case .totalElevationGain:
                    elevation = try readNumber() ?? 0
                    if !ActivityLimits.allows(elevation, .totalElevationGain) { bad = wrong(.totalElevationGain, at: valueStart) }
                case .gearID: gear = try readString()
                case .trainer: trainer = try readBool() ?? false
                case .commute: commute = try readBool() ?? false
                case .manual: manual = try readBool() ?? false
                case .source: source = try readString()
                case .device:
                    if let exact = readPositiveInteger() {
                        device = exact
                    } else {
                        try skipValue()
                    }
                case .athlete:
                    if let exact = readPositiveInteger() {
                        athlete = exact
                    } else {
                        try skipValue()
                    }
                case .other: try skipValue()
                }
                skipSpace()
                if peek() == UInt8(ascii: ",") { i += 1; continue }
                try expect(UInt8(ascii: "}"), "expected ',' or '}' in an activity")
                break
            }
        }
        if bad { return nil }
        guard let id, let startDate, let startDay, let sportType = sport ?? type, let moving, let distance else {
            var missing: [String] = []
            if id == nil { missing.append("id") }
            if startDate == nil { missing.append("start_date") }
            if sport == nil && type == nil { missing.append("sport_type") }
            if moving == nil { missing.append("moving_time") }
            if distance == nil { missing.append("distance") }
            report(
                .cacheMissingField, "activity is missing \(missing.map { "'\($0)'" }.joined(separator: ", "))", at: start,
                help: "re-create the cache with 'bikecheck sync --full'")
            return nil
        }
        return ActivityFields(
            id: id, name: name, sportType: sportType, type: type, startDate: startDate, startDateLocal: startLocal,
            localDay: localDay ?? startDay, timezone: timezone, movingTime: moving, elapsedTime: elapsed, distance: distance, totalElevationGain: elevation,
            gearID: gear, trainer: trainer, commute: commute, manual: manual, source: source, device: device,
            athlete: athlete)
    }

    /// A run of digits that fits an Int64 and is more than zero, consumed only when it is one.
    private mutating func readPositiveInteger() -> Int64? {
        var j = i, n: Int64 = 0
        while j < b.count, b[j] >= 48, b[j] <= 57 {
            let (times10, o1) = n.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int64(b[j] - 48))
            if o1 || o2 { return nil }
            n = sum
            j += 1
        }
        if j == i || n == 0 || b[i] == 48 { return nil }
        if j < b.count, b[j] == UInt8(ascii: ".") || b[j] == UInt8(ascii: "e") || b[j] == UInt8(ascii: "E") { return nil }
        i = j
        return n
    }

    private mutating func wrong(_ field: ActivityLimits.Field, at offset: Int) -> Bool {
        report(.cacheBadField, "'\(field.rawValue)' should be \(field.expected)", at: offset, help: "re-create the cache with 'bikecheck sync --full'")
        return true
    }

    // MARK: - Keys

    private static func spells(_ key: StaticString, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        key.utf8CodeUnitCount == name.count && memcmp(key.utf8Start, name.baseAddress!, name.count) == 0
    }

    private mutating func readKey() throws -> CacheSyntax.Key {
        guard peek() == UInt8(ascii: "\"") else {
            fail("expected a quoted key", at: i)
            throw Failure()
        }
        // Usually the key expected next: compare it in place, closing quote included, as three
        // eight-byte words.
        if i + 25 <= b.count {
            let p = patterns[nextKey]
            let at = UnsafeRawPointer(b.baseAddress! + i + 1)
            let w0 = UInt64(littleEndian: at.loadUnaligned(as: UInt64.self))
            let w1 = UInt64(littleEndian: at.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            let w2 = UInt64(littleEndian: at.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
            if w0 & p.masks.0 == p.words.0, w1 & p.masks.1 == p.words.1, w2 & p.masks.2 == p.words.2 {
                i += 1 + p.length
                nextKey = nextKey + 1 == keys.count ? 0 : nextKey + 1
                return keys[p.index].1
            }
        }
        let start = i + 1
        var j = start
        while j < b.count, b[j] != UInt8(ascii: "\""), b[j] != UInt8(ascii: "\\") { j += 1 }
        if j < b.count, b[j] == UInt8(ascii: "\"") {
            i = j + 1
            let name = UnsafeBufferPointer(rebasing: b[start..<j])
            for n in keys.indices where Self.spells(keys[n].0, name) {
                nextKey = (n + 1) % keys.count
                return keys[n].1
            }
            return .other
        }
        _ = try readString()
        return .other
    }

    // MARK: - Values

    /// A string value, not yet made into a String: most are only compared, or shared between
    /// activities, and some not needed at all.
    private mutating func readString() throws -> CacheText? {
        if peek() == UInt8(ascii: "n"), matchLiteral("null") { return nil }
        guard peek() == UInt8(ascii: "\"") else {
            fail("expected a string", at: i)
            throw Failure()
        }
        let start = i + 1
        var plain = true
        // A local index: the loop runs for every byte of every string.
        var j = start
        // Eight bytes at a time while none is a quote, a backslash or a control character.
        while j + 8 <= b.count, !CanonicalCursor.mayEndString(UnsafeRawPointer(b.baseAddress! + j).loadUnaligned(as: UInt64.self)) { j += 8 }
        while j < b.count {
            let c = b[j]
            if c == UInt8(ascii: "\"") { break }
            if c < 0x20 {
                i = j
                fail("control character inside a string", at: j)
                throw Failure()
            }
            if c == UInt8(ascii: "\\") { plain = false; j += 2; continue }
            j += 1
        }
        i = j
        guard i < b.count else {
            fail("unterminated string", at: start - 1)
            throw Failure()
        }
        let end = i
        i += 1
        // Escapes are rare; unescaping now reports a bad one where it is, whatever the builder needs.
        guard plain else { return .string(try unescape(start, end)) }
        return .bytes(UnsafeBufferPointer(rebasing: b[start..<end]))
    }

    private mutating func unescape(_ start: Int, _ end: Int) throws -> String {
        var out: [UInt8] = []
        var j = start
        var pendingHigh: UInt32?
        while j < end {
            let c = b[j]
            guard c == UInt8(ascii: "\\") else { out.append(c); j += 1; continue }
            guard j + 1 < end else { fail("bad escape", at: j); throw Failure() }
            let e = b[j + 1]
            j += 2
            switch e {
            case UInt8(ascii: "u"):
                guard j + 4 <= end, let v = UInt32(String(decoding: UnsafeBufferPointer(rebasing: b[j..<j + 4]), as: UTF8.self), radix: 16) else {
                    fail("bad \\u escape", at: j - 2); throw Failure()
                }
                j += 4
                var scalar: Unicode.Scalar?
                if (0xD800...0xDBFF).contains(v) { pendingHigh = v; continue }
                if (0xDC00...0xDFFF).contains(v), let high = pendingHigh {
                    scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (v - 0xDC00))
                } else {
                    scalar = Unicode.Scalar(v)
                }
                pendingHigh = nil
                out.append(contentsOf: String(scalar ?? "\u{FFFD}").utf8)
            default:
                if let byte = CanonicalCursor.unescaped(e) {
                    out.append(byte)
                    continue
                }
                fail("bad escape '\\\(Character(Unicode.Scalar(e)))'", at: j - 2); throw Failure()
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A JSON number, exactly as RFC 8259 writes them (no leading zeros, no `1.`, no bare
    /// exponent) and correctly rounded: the fast path only where it is exact (at most 15
    /// significant digits, a power of ten up to 22), the standard library's parser elsewhere.
    private mutating func readNumber() throws -> Double? {
        if peek() == UInt8(ascii: "n"), matchLiteral("null") { return nil }
        let start = i
        func isDigit(_ k: Int) -> Bool { k < b.count && b[k] >= 48 && b[k] <= 57 }
        var negative = false
        if peek() == UInt8(ascii: "-") { negative = true; i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0, exponent = 0
        var j = i
        guard isDigit(j) else { fail("expected a number", at: start); throw Failure() }
        if b[j] == 48, isDigit(j + 1) { fail("a number cannot start with 0", at: start); throw Failure() }
        while isDigit(j) {
            if digits < 18 { mantissa = mantissa * 10 + UInt64(b[j] - 48) } else { exponent += 1 }
            digits += 1
            j += 1
        }
        var exact = true
        if j < b.count, b[j] == UInt8(ascii: ".") {
            j += 1
            guard isDigit(j) else { fail("expected a digit after '.'", at: j); throw Failure() }
            while isDigit(j) {
                if digits < 18 { mantissa = mantissa * 10 + UInt64(b[j] - 48); exponent -= 1 }
                digits += 1
                j += 1
            }
        }
        if j < b.count, b[j] == UInt8(ascii: "e") || b[j] == UInt8(ascii: "E") {
            j += 1
            if j < b.count, b[j] == UInt8(ascii: "+") || b[j] == UInt8(ascii: "-") { j += 1 }
            guard isDigit(j) else { fail("expected a digit in the exponent", at: j); throw Failure() }
            while isDigit(j) { j += 1 }
            exact = false
        }
        i = j
        // Leading zeros of a fraction ("0.000123") count as digits here but not as significant
        // ones: the slow path is taken a little more often than needed, never less.
        if !exact || digits > 15 || exponent < -22 || exponent > 22 {
            guard let v = Double(String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)) else {
                fail("bad number", at: start); throw Failure()
            }
            return v
        }
        var value = Double(mantissa)
        if exponent < 0 { value /= powersOfTen[-exponent] } else if exponent > 0 { value *= powersOfTen[exponent] }
        return negative ? -value : value
    }

    private mutating func readBool() throws -> Bool? {
        switch peek() {
        case UInt8(ascii: "t"): if matchLiteral("true") { return true }
        case UInt8(ascii: "f"): if matchLiteral("false") { return false }
        case UInt8(ascii: "n"): if matchLiteral("null") { return nil }
        default: break
        }
        fail("expected true or false", at: i)
        throw Failure()
    }

    /// Skips any JSON value, nested or not, without recursion, holding it to JSON's grammar:
    /// brackets that match, a ':' after every key, a ',' between items.
    private mutating func skipValue() throws {
        // The open containers, innermost last: true for an object.
        var open: [Bool] = []
        func expect(_ byte: UInt8, _ what: String) throws {
            skipSpace()
            guard peek() == byte else { fail("expected \(what)", at: i); throw Failure() }
            i += 1
        }
        while true {
            // A value.
            skipSpace()
            switch peek() {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let object = peek() == UInt8(ascii: "{")
                i += 1
                skipSpace()
                if peek() == (object ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    i += 1
                } else {
                    open.append(object)
                    if object {
                        guard peek() == UInt8(ascii: "\"") else { fail("expected a key", at: i); throw Failure() }
                        _ = try readString()
                        try expect(UInt8(ascii: ":"), "':' after a key")
                    }
                    continue
                }
            case UInt8(ascii: "\""): _ = try readString()
            case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
            case UInt8(ascii: "n"): guard matchLiteral("null") else { fail("expected a value", at: i); throw Failure() }
            case .some(UInt8(ascii: "-")), .some(UInt8(ascii: "0")...UInt8(ascii: "9")): _ = try readNumber()
            default: fail("expected a value", at: i); throw Failure()
            }
            // After a value: the next item of the innermost container, or its end.
            while let object = open.last {
                skipSpace()
                if peek() == UInt8(ascii: ",") {
                    i += 1
                    if object {
                        skipSpace()
                        guard peek() == UInt8(ascii: "\"") else { fail("expected a key", at: i); throw Failure() }
                        _ = try readString()
                        try expect(UInt8(ascii: ":"), "':' after a key")
                    }
                    break
                }
                try expect(object ? UInt8(ascii: "}") : UInt8(ascii: "]"), object ? "',' or '}'" : "',' or ']'")
                open.removeLast()
            }
            if open.isEmpty { return }
        }
    }

    // MARK: - Bytes

    private func peek() -> UInt8? { i < b.count ? b[i] : nil }

    private mutating func skipSpace() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
    }

    private mutating func matchLiteral(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard i + n <= b.count else { return false }
        guard memcmp(b.baseAddress! + i, word.utf8Start, n) == 0 else { return false }
        i += n
        return true
    }

    private mutating func expect(_ c: UInt8, _ message: String) throws {
        guard peek() == c else {
            fail(message, at: i)
            throw Failure()
        }
        i += 1
    }

    private mutating func fail(_ message: String, at offset: Int) {
        let found = offset < b.count ? "" : " (found the end of the file)"
        report(.cacheSyntax, message + found, at: offset, help: "the cache is written by bikecheck; re-create it with 'bikecheck sync --full'")
    }

    private mutating func report(_ id: DiagnosticID, _ message: String, at offset: Int, help: String) {
        if source == nil { source = SourceText(path: path, bytes: Array(b)) }
        // Past the limit, problems are only counted: one file cannot print (or build) millions.
        if diagnostics.count >= Diagnostic.perFileLimit {
            omitted += 1
            if firstOmitted == nil { firstOmitted = source!.position(ofOffset: offset) }
            return
        }
        let at = source!.position(ofOffset: offset)
        diagnostics.append(.error(id, message, at: SourceLocation(file: path, range: SourceRange(at: at)), help: help))
    }
}

/// Tables of the reader, which a generic type cannot hold as static stored properties.
private enum CacheSyntax {
    enum Key {
        case id, name, sportType, type, startDate, startDateLocal, timezone, movingTime, elapsedTime, distance,
            totalElevationGain, gearID, trainer, commute, manual, source, device, athlete, other
    }

    /// In the order ActivityCacheFormat.encode writes them (sorted).
    static let keys: [(StaticString, Key)] = [
        ("athlete", .athlete), ("commute", .commute), ("device", .device), ("distance", .distance), ("elapsed_time", .elapsedTime), ("gear_id", .gearID),
        ("id", .id),
        ("manual", .manual), ("moving_time", .movingTime), ("name", .name), ("source", .source), ("sport_type", .sportType),
        ("start_date", .startDate), ("start_date_local", .startDateLocal), ("timezone", .timezone),
        ("total_elevation_gain", .totalElevationGain), ("trainer", .trainer), ("type", .type),
    ]

    static let powersOfTen: [Double] = (0...22).map { p in (0..<p).reduce(1.0) { r, _ in r * 10 } }

    /// A key and its closing quote as little-endian words, with masks for the bytes it covers.
    struct Pattern {
        var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var masks: (UInt64, UInt64, UInt64) = (0, 0, 0)
        /// Bytes of the key and its closing quote.
        var length = 0
        var index = 0
    }

    /// `keys` as patterns; every key is at most 23 bytes.
    static let patterns: [Pattern] = keys.indices.map { index in
        var bytes = Array(UnsafeBufferPointer(start: keys[index].0.utf8Start, count: keys[index].0.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        var words: [UInt64] = [0, 0, 0], masks: [UInt64] = [0, 0, 0]
        for (j, byte) in bytes.enumerated() {
            words[j / 8] |= UInt64(byte) << (8 * (j % 8))
            masks[j / 8] |= 0xFF << (8 * (j % 8))
        }
        return Pattern(words: (words[0], words[1], words[2]), masks: (masks[0], masks[1], masks[2]), length: bytes.count, index: index)
    }
}
