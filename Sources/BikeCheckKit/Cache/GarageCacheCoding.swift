import Diagnostics
import Foundation

// The garage cache's form (`CacheCodable`) of diagnostics, of the values the model is made of,
// and of garage.yaml's settings; the bikes', parts', templates' and rides' is in
// `GarageModelCoding.swift`.

// MARK: - Diagnostics

/// Written by `CacheWriter.location`: relative to the location before it, and its end to its start.
extension SourceLocation: CacheCodable {
    func write(to w: inout CacheWriter) { w.location(self) }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) { self = try r.location() }
}

extension Diagnostic.Note: CacheCodable {
    func write(to w: inout CacheWriter) {
        w.string(message)
        location.write(to: &w)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(try r.string(), at: try r.location())
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
        self.init(severity, .tooManyProblems, try r.string(), at: try r.location())
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
    /// Inlined where a log entry's cost is read (with its currency: `Optional`'s form, read here).
    @inline(__always)
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        let significand = try r.uint(), exponent = try r.int(), negative = try r.bool()
        guard (-128...127).contains(exponent) else { throw CacheReader.Invalid() }
        self.init(Self.amount(significand, exponent, negative), try r.optionalString())
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
