import Diagnostics
import Foundation

/// A value the garage cache stores (`GarageCache`): written and read field by field, in the same
/// order, in one place per type. A compact binary form, because reading it back must cost a small
/// fraction of parsing the YAML it came from: integers as variable-length numbers, every string
/// once per entry (later uses are indexes: interval ids and the file name recur on every line).
///
/// Every stored property of the model is written; `GarageCacheTests` holds the list to the model
/// (a property no sample sets, or one that does not survive the round trip, fails it). A change to
/// what is written is a new `GarageCache.formatVersion`.
protocol CacheCodable {
    func write(to w: inout CacheWriter)
    init(from r: inout CacheReader) throws(CacheReader.Invalid)
}

/// Writes values in the garage cache's binary form.
struct CacheWriter {
    private(set) var bytes: [UInt8] = []
    private var strings: [String: Int] = [:]
    /// The start of the location written last: the next one is written relative to it.
    private var lastOffset = 0, lastLine = 0
    /// Set when a value cannot be written so that it reads back the same: the entry is not made.
    private(set) var refused = false

    mutating func refuse() { refused = true }

    /// An unsigned integer, seven bits a byte (LEB128).
    mutating func uint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// A signed integer, zigzag-encoded so small negatives stay short.
    mutating func int(_ value: Int) {
        let v = Int64(value)
        uint(UInt64(bitPattern: (v << 1) ^ (v >> 63)))
    }

    mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func double(_ value: Double) { fixed(value.bitPattern) }

    mutating func fixed<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }

    /// A string: its text the first time, its number in the entry's list of strings after that.
    mutating func string(_ value: String) {
        if let known = strings[value] {
            uint(UInt64(known))
            return
        }
        uint(UInt64(strings.count))
        strings[value] = strings.count
        let utf8 = Array(value.utf8)
        uint(UInt64(utf8.count))
        bytes += utf8
    }

    mutating func write<T: CacheCodable>(_ value: T) { value.write(to: &self) }

    /// A location: its file, whether it has a range, then the range's start as the difference
    /// from the start of the location written before it (offset and line; the column as it is)
    /// and its end as the difference from its start. Locations follow each other closely in a
    /// file (a log entry's, then its `done:` ids'), so each number takes one byte and
    /// `CacheReader.location` reads the eight bytes at once.
    mutating func location(_ value: SourceLocation) {
        string(value.file)
        bool(value.range != nil)
        guard let range = value.range else { return }
        let start = range.start, end = range.end
        int(start.offset &- lastOffset)
        int(start.line &- lastLine)
        int(start.column)
        int(end.offset &- start.offset)
        int(end.line &- start.line)
        int(end.column &- start.column)
        (lastOffset, lastLine) = (start.offset, start.line)
    }
}

/// Reads what `CacheWriter` wrote, checking everything: a count larger than the bytes left, a
/// string that is not UTF-8 or not yet defined, a case that does not exist, a number that is not
/// finite: each makes the whole entry invalid, never a crash or a default.
struct CacheReader {
    struct Invalid: Error {}

    private let base: UnsafeRawBufferPointer
    private(set) var at: Int
    private var strings: [String] = []
    /// The start of the location read last (`CacheWriter.location`).
    private var lastOffset = 0, lastLine = 0

    init(_ base: UnsafeRawBufferPointer, at: Int = 0) {
        self.base = base
        self.at = at
    }

    var isAtEnd: Bool { at == base.count }

    mutating func byte() throws(Invalid) -> UInt8 {
        guard at < base.count else { throw Invalid() }
        defer { at += 1 }
        return base[at]
    }

    /// Most numbers (counts, string numbers, columns) take one byte, and the others (offsets
    /// and lines of a file under 2 MB) two or three: those cases are inlined.
    @inline(__always)
    mutating func uint() throws(Invalid) -> UInt64 {
        if at < base.count, base[at] < 0x80 {
            at += 1
            return UInt64(base[at - 1])
        }
        if base.count - at >= 3 {
            let b0 = UInt64(base[at] & 0x7F), b1 = base[at + 1], b2 = base[at + 2]
            if b1 < 0x80 {
                at += 2
                return b0 | UInt64(b1) << 7
            }
            if b2 < 0x80 {
                at += 3
                return b0 | UInt64(b1 & 0x7F) << 7 | UInt64(b2) << 14
            }
        }
        return try longUInt()
    }

    private mutating func longUInt() throws(Invalid) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard at < base.count, shift < 64 else { throw Invalid() }
            let b = base[at]
            at += 1
            result |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return result }
            shift += 7
        }
    }

    @inline(__always)
    mutating func int() throws(Invalid) -> Int {
        let u = try uint()
        return Int(Int64(bitPattern: (u >> 1) ^ (0 &- (u & 1))))
    }

    /// A count of things that follow: each takes at least one byte, so no more than are left.
    mutating func count() throws(Invalid) -> Int {
        let n = try uint()
        guard n <= UInt64(base.count - at) else { throw Invalid() }
        return Int(n)
    }

    @inline(__always)
    mutating func bool() throws(Invalid) -> Bool {
        switch try byte() {
        case 0: return false
        case 1: return true
        default: throw Invalid()
        }
    }

    mutating func fixed<T: FixedWidthInteger>(_: T.Type = T.self) throws(Invalid) -> T {
        guard base.count - at >= MemoryLayout<T>.size else { throw Invalid() }
        defer { at += MemoryLayout<T>.size }
        return T(littleEndian: base.loadUnaligned(fromByteOffset: at, as: T.self))
    }

    /// A finite number: the decoders never make another.
    mutating func double() throws(Invalid) -> Double {
        let d = Double(bitPattern: try fixed(UInt64.self))
        guard d.isFinite else { throw Invalid() }
        return d
    }

    /// A string seen before in the entry is one array lookup: that case is inlined.
    @inline(__always)
    mutating func string() throws(Invalid) -> String {
        let n = try uint()
        if n < UInt64(strings.count) { return strings[Int(n)] }
        return try newString(n)
    }

    private mutating func newString(_ n: UInt64) throws(Invalid) -> String {
        guard n == UInt64(strings.count) else { throw Invalid() }
        let length = try count()
        guard let s = Self.string(UnsafeRawBufferPointer(rebasing: base[at..<(at + length)])) else { throw Invalid() }
        at += length
        strings.append(s)
        return s
    }

    /// The string of UTF-8 bytes, nil when they are not UTF-8. ASCII, nearly every string,
    /// is found so eight bytes at a time and decoded as it is: `String(validating:)` looks up
    /// generic metadata on every call, which cost more than the rest of reading a short string.
    static func string(_ raw: UnsafeRawBufferPointer) -> String? {
        let utf8 = raw.bindMemory(to: UInt8.self)
        return SourceText.isASCII(raw) ? String(decoding: utf8, as: UTF8.self) : String(validating: utf8, as: UTF8.self)
    }

    mutating func read<T: CacheCodable>(_: T.Type = T.self) throws(Invalid) -> T { try T(from: &self) }

    /// A string that may be absent, as `Optional`'s `CacheCodable` writes it; inlined (a log
    /// entry has three).
    @inline(__always)
    mutating func optionalString() throws(Invalid) -> String? { try bool() ? try string() : nil }

    /// A count, then that many elements each read by `element`, appended to an array with room
    /// reserved for them. Not `Array(unsafeUninitializedCapacity:)` nor `Array(repeating:count:)`:
    /// both find the array's storage class through the generic runtime (680 instructions, twice
    /// what reserving takes), which every log entry's `done:` list paid when tried.
    @inline(__always)
    mutating func array<Element>(_ element: (inout CacheReader) throws(Invalid) -> Element) throws(Invalid) -> [Element] {
        let n = try count()
        // Most lists of a log entry (its readings) are empty: no room to reserve.
        guard n > 0 else { return [] }
        var array: [Element] = []
        array.reserveCapacity(n)
        for _ in 0..<n { array.append(try element(&self)) }
        return array
    }

    /// A location as `CacheWriter.location` wrote it. Nearly every one is eight bytes of
    /// one-byte numbers (a file already named, a range, six small differences), or nine with its
    /// end two bytes past its start (a log entry's own, which spans its lines): those are read as
    /// one word and a byte, with one check for all; anything else number by number.
    @inline(__always)
    mutating func location() throws(Invalid) -> SourceLocation {
        if base.count - at >= 9 {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt64.self))
            let file = Int(word & 0xFF), high = word & 0x8080_8080_8080_8080
            // The end's offset in one byte, or in two (the sixth byte's high bit set) with the
            // end's column in the ninth.
            let wide = high == 0x0000_8000_0000_0000
            if high == 0 || (wide && base[at + 8] < 0x80), (word >> 8) & 0xFF == 1, file < strings.count {
                @inline(__always) func zigzag(_ u: Int) -> Int { (u >> 1) ^ (0 &- (u & 1)) }
                @inline(__always) func byte(_ n: Int) -> Int { Int((word >> UInt64(n * 8)) & 0x7F) }
                let offset = lastOffset &+ zigzag(byte(2)), line = lastLine &+ zigzag(byte(3)), column = zigzag(byte(4))
                let endOffset: Int, endLine: Int, endColumn: Int
                if wide {
                    (endOffset, endLine, endColumn) = (zigzag(byte(5) | byte(6) << 7), zigzag(byte(7)), zigzag(Int(base[at + 8])))
                    at += 9
                } else {
                    (endOffset, endLine, endColumn) = (zigzag(byte(5)), zigzag(byte(6)), zigzag(byte(7)))
                    at += 8
                }
                (lastOffset, lastLine) = (offset, line)
                let start = SourcePosition(offset: offset, line: line, column: column)
                let end = SourcePosition(offset: offset &+ endOffset, line: line &+ endLine, column: column &+ endColumn)
                return SourceLocation(file: strings[file], range: SourceRange(start: start, end: end))
            }
        }
        return try longLocation()
    }

    private mutating func longLocation() throws(Invalid) -> SourceLocation {
        let file = try string()
        guard try bool() else { return SourceLocation(file: file) }
        let offset = lastOffset &+ (try int()), line = lastLine &+ (try int()), column = try int()
        (lastOffset, lastLine) = (offset, line)
        let start = SourcePosition(offset: offset, line: line, column: column)
        let end = SourcePosition(offset: offset &+ (try int()), line: line &+ (try int()), column: column &+ (try int()))
        return SourceLocation(file: file, range: SourceRange(start: start, end: end))
    }

    /// One of `cases`, written as its index.
    mutating func choice<T>(_ cases: [T]) throws(Invalid) -> T {
        let n = try uint()
        guard n < UInt64(cases.count) else { throw Invalid() }
        return cases[Int(n)]
    }
}

// MARK: - Building blocks

extension String: CacheCodable {
    func write(to w: inout CacheWriter) { w.string(self) }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) { self = try r.string() }
}

extension Int: CacheCodable {
    func write(to w: inout CacheWriter) { w.int(self) }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) { self = try r.int() }
}

extension Int64: CacheCodable {
    func write(to w: inout CacheWriter) { w.int(Int(self)) }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) { self = Int64(try r.int()) }
}

extension Double: CacheCodable {
    func write(to w: inout CacheWriter) { w.double(self) }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) { self = try r.double() }
}

extension Bool: CacheCodable {
    func write(to w: inout CacheWriter) { w.bool(self) }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) { self = try r.bool() }
}

extension Optional: CacheCodable where Wrapped: CacheCodable {
    func write(to w: inout CacheWriter) {
        w.bool(self != nil)
        if let value = self { value.write(to: &w) }
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self = try r.bool() ? try Wrapped(from: &r) : nil
    }
}

extension Array: CacheCodable where Element: CacheCodable {
    func write(to w: inout CacheWriter) {
        w.uint(UInt64(count))
        for e in self { e.write(to: &w) }
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self = try r.array { r throws(CacheReader.Invalid) in try Element(from: &r) }
    }
}

/// Sets and dictionaries are written sorted: the same value always gives the same bytes.
extension Set: CacheCodable where Element == String {
    func write(to w: inout CacheWriter) { w.write(sorted()) }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        let all = try [String](from: &r)
        self.init(all)
        guard count == all.count else { throw CacheReader.Invalid() }
    }
}

extension Dictionary: CacheCodable where Key == String, Value == SourceLocation {
    func write(to w: inout CacheWriter) {
        w.uint(UInt64(count))
        for key in keys.sorted() {
            w.string(key)
            self[key]!.write(to: &w)
        }
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        let n = try r.count()
        self.init(minimumCapacity: n)
        for _ in 0..<n {
            let key = try r.string()
            guard updateValue(try r.location(), forKey: key) == nil else { throw CacheReader.Invalid() }
        }
    }
}

extension ID: CacheCodable {
    func write(to w: inout CacheWriter) { w.string(rawValue) }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) { self.init(try r.string()) }
}

extension Day: CacheCodable {
    func write(to w: inout CacheWriter) { w.int(ordinal) }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) { self.init(ordinal: try r.int()) }
}

extension Located: CacheCodable where Value: CacheCodable {
    func write(to w: inout CacheWriter) {
        value.write(to: &w)
        location.write(to: &w)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(try Value(from: &r), at: try r.location())
    }
}

/// An enumeration with raw values, written as its raw value (a new case never shifts the others).
protocol CacheCodableByRawValue: CacheCodable, RawRepresentable where RawValue == String {}

extension CacheCodableByRawValue {
    func write(to w: inout CacheWriter) { w.string(rawValue) }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        guard let value = Self(rawValue: try r.string()) else { throw CacheReader.Invalid() }
        self = value
    }
}

extension UnitSystem: CacheCodableByRawValue {}
extension TrainerRule: CacheCodableByRawValue {}
extension Measure: CacheCodableByRawValue {}
extension RepeatRule: CacheCodableByRawValue {}
extension GearKind: CacheCodableByRawValue {}
