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
}

/// Reads what `CacheWriter` wrote, checking everything: a count larger than the bytes left, a
/// string that is not UTF-8 or not yet defined, a case that does not exist, a number that is not
/// finite: each makes the whole entry invalid, never a crash or a default.
struct CacheReader {
    struct Invalid: Error {}

    private let base: UnsafeRawBufferPointer
    private(set) var at: Int
    private var strings: [String] = []

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

    /// Most numbers (positions, counts, string numbers) take one byte: that case is inlined.
    @inline(__always)
    mutating func uint() throws(Invalid) -> UInt64 {
        if at < base.count, base[at] < 0x80 {
            at += 1
            return UInt64(base[at - 1])
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
        let utf8 = UnsafeRawBufferPointer(rebasing: base[at..<(at + length)]).bindMemory(to: UInt8.self)
        guard let s = String(validating: utf8, as: UTF8.self) else { throw Invalid() }
        at += length
        strings.append(s)
        return s
    }

    mutating func read<T: CacheCodable>(_: T.Type = T.self) throws(Invalid) -> T { try T(from: &self) }

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
        let n = try r.count()
        self = []
        reserveCapacity(n)
        for _ in 0..<n { append(try Element(from: &r)) }
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
            guard updateValue(try SourceLocation(from: &r), forKey: key) == nil else { throw CacheReader.Invalid() }
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
        self.init(try Value(from: &r), at: try SourceLocation(from: &r))
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

// MARK: - Diagnostics

extension SourcePosition: CacheCodable {
    func write(to w: inout CacheWriter) {
        w.int(offset)
        w.int(line)
        w.int(column)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(offset: try r.int(), line: try r.int(), column: try r.int())
    }
}

/// A range's end is written relative to its start: small numbers, one byte each.
extension SourceLocation: CacheCodable {
    func write(to w: inout CacheWriter) {
        w.string(file)
        w.bool(range != nil)
        if let range {
            range.start.write(to: &w)
            w.int(range.end.offset &- range.start.offset)
            w.int(range.end.line &- range.start.line)
            w.int(range.end.column &- range.start.column)
        }
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        let file = try r.string()
        guard try r.bool() else {
            self.init(file: file)
            return
        }
        let start = try SourcePosition(from: &r)
        let end = SourcePosition(offset: start.offset &+ (try r.int()), line: start.line &+ (try r.int()), column: start.column &+ (try r.int()))
        self.init(file: file, range: SourceRange(start: start, end: end))
    }
}

extension Diagnostic.Note: CacheCodable {
    func write(to w: inout CacheWriter) {
        w.string(message)
        location.write(to: &w)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(try r.string(), at: try SourceLocation(from: &r))
    }
}

extension Diagnostic: CacheCodable {
    static let severities: [Severity] = [.error, .warning, .note]

    func write(to w: inout CacheWriter) {
        w.string(id)
        w.uint(UInt64(Self.severities.firstIndex(of: severity)!))
        w.string(message)
        location.write(to: &w)
        w.write(notes)
        w.write(help)
        w.write(fix)
        w.write(omittedCount)
        w.uint(UInt64(redactions.count))
        for range in redactions {
            w.int(range.lowerBound)
            w.int(range.upperBound)
        }
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        let id = try r.string()
        let severity = try r.choice(Self.severities)
        self.init(severity, .tooManyProblems, try r.string(), at: try SourceLocation(from: &r))
        self.id = id
        notes = try r.read()
        help = try r.read()
        fix = try r.read()
        omittedCount = try r.read()
        let n = try r.count()
        for _ in 0..<n {
            let lower = try r.int(), upper = try r.int()
            guard lower <= upper else { throw CacheReader.Invalid() }
            redactions.append(lower..<upper)
        }
    }
}

// MARK: - The model

extension Money: CacheCodable {
    /// The amount as its significand and exponent, which rebuild the very same `Decimal` (the
    /// exponent decides how many decimals are shown); nil for one they would not.
    var cacheParts: (significand: UInt64, exponent: Int, negative: Bool)? {
        let magnitude = NSDecimalNumber(decimal: amount.significand)
        guard amount.isFinite, magnitude.compare(NSDecimalNumber(value: UInt64.max)) != .orderedDescending else { return nil }
        let parts = (magnitude.uint64Value, amount.exponent, amount.sign == .minus)
        let rebuilt = Self.amount(parts.0, parts.1, parts.2)
        guard rebuilt == amount, rebuilt.exponent == amount.exponent, rebuilt.significand == amount.significand else { return nil }
        return parts
    }

    static func amount(_ significand: UInt64, _ exponent: Int, _ negative: Bool) -> Decimal {
        Decimal(sign: negative ? .minus : .plus, exponent: exponent, significand: Decimal(significand))
    }

    func write(to w: inout CacheWriter) {
        guard let parts = cacheParts else { return w.refuse() }
        w.uint(parts.significand)
        w.int(parts.exponent)
        w.bool(parts.negative)
        w.write(currency)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        let significand = try r.uint(), exponent = try r.int(), negative = try r.bool()
        guard (-128...127).contains(exponent) else { throw CacheReader.Invalid() }
        self.init(Self.amount(significand, exponent, negative), try r.read())
    }
}

extension Quantity: CacheCodable {
    func write(to w: inout CacheWriter) {
        measure.write(to: &w)
        w.double(amount)
        w.string(text)
        w.string(unit)
        w.double(unitSize)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(measure: try r.read(), amount: try r.double(), text: try r.string(), unit: try r.string(), unitSize: try r.double())
    }
}

extension RideFilterSpec: CacheCodable {
    func write(to w: inout CacheWriter) {
        w.write(counts)
        w.write(trainer)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(counts: try r.read(), trainer: try r.read())
    }
}

extension UrgencyBand: CacheCodable {
    func write(to w: inout CacheWriter) {
        switch self {
        case .overdue: w.uint(0)
        case .within(let days):
            w.uint(1)
            w.int(days)
        case .dueSoon: w.uint(2)
        case .ok: w.uint(3)
        }
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        switch try r.uint() {
        case 0: self = .overdue
        case 1: self = .within(days: try r.int())
        case 2: self = .dueSoon
        case 3: self = .ok
        default: throw CacheReader.Invalid()
        }
    }
}

extension NotifySettings: CacheCodable {
    func write(to w: inout CacheWriter) {
        w.write(webhook.map(\.url))
        w.write(ntfy.map { [$0.url, $0.topic] })
        w.bool(email != nil)
        if let email {
            w.write(email.to)
            w.string(email.from)
            w.string(email.host)
            w.int(email.port)
        }
        w.write(repeatDays)
        w.write(bands)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init()
        webhook = try String?(from: &r).map(Webhook.init(url:))
        if let ntfy = try [String]?(from: &r) {
            guard ntfy.count == 2 else { throw CacheReader.Invalid() }
            self.ntfy = Ntfy(url: ntfy[0], topic: ntfy[1])
        }
        if try r.bool() { email = Email(to: try r.read(), from: try r.string(), host: try r.string(), port: try r.int()) }
        repeatDays = try r.read()
        bands = try r.read()
    }
}

extension GarageSettings: CacheCodable {
    func write(to w: inout CacheWriter) {
        w.write(name)
        units.write(to: &w)
        w.write(currency)
        w.double(dueSoon)
        w.write(counts)
        trainer.write(to: &w)
        w.write(stravaClientID)
        w.int(staleAfter)
        w.int(quietAfter)
        w.write(notify)
        w.write(riders)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init()
        name = try r.read()
        units = try r.read()
        currency = try r.read()
        dueSoon = try r.double()
        counts = try r.read()
        trainer = try r.read()
        stravaClientID = try r.read()
        staleAfter = try r.int()
        quietAfter = try r.int()
        notify = try r.read()
        riders = try r.read()
    }
}

extension Rider: CacheCodable {
    func write(to w: inout CacheWriter) {
        w.string(name)
        w.write(notify)
        location.write(to: &w)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(name: try r.string(), notify: try r.read(), location: try r.read())
    }
}

extension IntervalSpec: CacheCodable {
    func write(to w: inout CacheWriter) {
        id.write(to: &w)
        w.write(task)
        w.write(component)
        w.write(replaces)
        w.write(every)
        w.bool(everyIsInvalid)
        w.write(dueSoon)
        rideFilter.write(to: &w)
        location.write(to: &w)
        w.write(repeatRule)
        w.write(wearLimit)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(
            id: try r.read(), task: try r.read(), component: try r.read(), replaces: try r.read(), every: try r.read(),
            everyIsInvalid: try r.bool(), dueSoon: try r.read(), rideFilter: try r.read(), location: try r.read(), repeatRule: try r.read(),
            wearLimit: try r.read())
    }
}

extension WearAmount: CacheCodable {
    func write(to w: inout CacheWriter) {
        w.double(amount)
        w.string(unit)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(amount: try r.double(), unit: try r.string())
    }
}

extension Reading: CacheCodable {
    func write(to w: inout CacheWriter) {
        interval.write(to: &w)
        value.write(to: &w)
        valueLocation.write(to: &w)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(interval: try r.read(), value: try r.read(), valueLocation: try r.read())
    }
}

extension TemplateOrigin: CacheCodable {
    func write(to w: inout CacheWriter) {
        w.string(url)
        w.string(path)
        w.string(commit)
        w.write(ref)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(url: try r.string(), path: try r.string(), commit: try r.string(), ref: try r.read())
    }
}

extension Template: CacheCodable {
    func write(to w: inout CacheWriter) {
        id.write(to: &w)
        w.string(name)
        w.write(description)
        w.write(source)
        w.write(origin)
        w.write(intervals)
        location.write(to: &w)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(
            id: try r.read(), name: try r.string(), description: try r.read(), source: try r.read(), origin: try r.read(),
            intervals: try r.read(), location: try r.read())
    }
}

extension Component: CacheCodable {
    func write(to w: inout CacheWriter) {
        id.write(to: &w)
        w.write(name)
        w.write(installed)
        w.double(priorHours)
        w.double(priorDistance)
        w.double(priorRides)
        rideFilter.write(to: &w)
        location.write(to: &w)
        w.write(installedLocation)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(
            id: try r.read(), name: try r.read(), installed: try r.read(), priorHours: try r.double(), priorDistance: try r.double(),
            priorRides: try r.double(), rideFilter: try r.read(), location: try r.read(), installedLocation: try r.read())
    }
}

extension LogEntry: CacheCodable {
    func write(to w: inout CacheWriter) {
        date.write(to: &w)
        dateLocation.write(to: &w)
        w.write(done)
        w.write(cost)
        w.write(category)
        w.write(note)
        w.write(todo)
        location.write(to: &w)
        w.write(readings)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(
            date: try r.read(), dateLocation: try r.read(), done: try r.read(), cost: try r.read(), category: try r.read(), note: try r.read(),
            todo: try r.read(), location: try r.read(), readings: try r.read())
    }
}

extension Snooze: CacheCodable {
    func write(to w: inout CacheWriter) {
        interval.write(to: &w)
        until.write(to: &w)
        untilLocation.write(to: &w)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(interval: try r.read(), until: try r.read(), untilLocation: try r.read())
    }
}

extension Todo: CacheCodable {
    func write(to w: inout CacheWriter) {
        w.string(task)
        w.write(id)
        w.write(due)
        location.write(to: &w)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(task: try r.string(), id: try r.read(), due: try r.read(), location: try r.read())
    }
}

extension Bike: CacheCodable {
    func write(to w: inout CacheWriter) {
        id.write(to: &w)
        w.string(name)
        w.write(kind)
        w.write(rider)
        w.write(strava)
        w.write(devices)
        w.write(bought)
        w.write(retired)
        w.write(price)
        w.write(templates)
        w.write(counts)
        w.write(trainer)
        w.write(components)
        w.write(intervals)
        w.write(log)
        w.write(snoozes)
        w.write(todos)
        location.write(to: &w)
        fieldLocations.write(to: &w)
        misspelledKeys.write(to: &w)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(
            id: try r.read(), name: try r.string(), kind: try r.read(), rider: try r.read(), strava: try r.read(), devices: try r.read(),
            bought: try r.read(),
            retired: try r.read(),
            price: try r.read(),
            templates: try r.read(), counts: try r.read(), trainer: try r.read(), components: try r.read(), intervals: try r.read(),
            log: try r.read(), snoozes: try r.read(), todos: try r.read(), location: try r.read(), fieldLocations: try r.read(),
            misspelledKeys: try r.read())
    }
}

extension Mount: CacheCodable {
    func write(to w: inout CacheWriter) {
        bike.write(to: &w)
        from.write(to: &w)
        w.write(to)
        fromLocation.write(to: &w)
        w.write(toLocation)
        location.write(to: &w)
        w.int(entry)
        w.write(tag)
        w.write(unlessTags)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(
            bike: try r.read(), from: try r.read(), to: try r.read(), fromLocation: try r.read(), toLocation: try r.read(), location: try r.read(),
            entry: try r.int(), tag: try r.read(), unlessTags: try r.read())
    }
}

extension PartMount: CacheCodable {
    func write(to w: inout CacheWriter) {
        parent.write(to: &w)
        from.write(to: &w)
        w.write(to)
        fromLocation.write(to: &w)
        w.write(toLocation)
        location.write(to: &w)
        w.int(entry)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(
            parent: try r.read(), from: try r.read(), to: try r.read(), fromLocation: try r.read(), toLocation: try r.read(), location: try r.read(),
            entry: try r.int())
    }
}

extension Part: CacheCodable {
    func write(to w: inout CacheWriter) {
        id.write(to: &w)
        w.string(name)
        w.write(rider)
        w.write(bought)
        w.write(retired)
        w.write(price)
        w.write(slot)
        w.write(devices)
        w.double(priorHours)
        w.double(priorDistance)
        w.double(priorRides)
        rideFilter.write(to: &w)
        w.write(templates)
        w.write(intervals)
        w.write(mounts)
        w.write(partMounts)
        w.write(log)
        w.write(snoozes)
        w.write(todos)
        location.write(to: &w)
        fieldLocations.write(to: &w)
        misspelledKeys.write(to: &w)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(
            id: try r.read(), name: try r.string(), rider: try r.read(), bought: try r.read(), retired: try r.read(), price: try r.read(), slot: try r.read(),
            devices: try r.read(), priorHours: try r.double(), priorDistance: try r.double(), priorRides: try r.double(), rideFilter: try r.read(),
            templates: try r.read(), intervals: try r.read(), mounts: try r.read(), partMounts: try r.read(), log: try r.read(), snoozes: try r.read(),
            todos: try r.read(), location: try r.read(), fieldLocations: try r.read(), misspelledKeys: try r.read())
    }
}

extension Ride: CacheCodable {
    func write(to w: inout CacheWriter) {
        date.write(to: &w)
        bike.write(to: &w)
        w.double(movingTime)
        w.double(distance)
        w.write(sport)
        w.write(name)
        location.write(to: &w)
        dateLocation.write(to: &w)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(
            date: try r.read(), bike: try r.read(), movingTime: try r.double(), distance: try r.double(), sport: try r.read(), name: try r.read(),
            location: try r.read(), dateLocation: try r.read())
    }
}
