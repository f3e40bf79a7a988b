import Foundation

/// An exact amount of money in one currency. The amount is read from the text the rider wrote,
/// digit by digit, never through binary floating point: 0.10 + 0.20 is 0.30.
package struct Money: Sendable, Hashable {
    package var amount: Decimal
    /// A currency code (`EUR`), or nil when neither the entry nor `garage.yaml` names one.
    package var currency: String?

    package init(_ amount: Decimal, _ currency: String? = nil) {
        self.amount = amount
        self.currency = currency
    }

    /// The most an amount may be: a bike costs less, and sums of many stay exact.
    package static let maximum: Decimal = 1_000_000_000
    /// Digits after the decimal point an amount may have (mills and tenths of cents exist).
    package static let maximumFractionDigits = 4

    /// Why a text is not an amount.
    package enum ParseError: Error, Equatable, Sendable {
        case notAnAmount
        case negative
        case tooLarge
        case tooPrecise

        /// The one sentence that says why `text`, given as `what` (`cost`, `price`), is not an
        /// amount: a file's diagnostic and the command line's refusal say the same.
        package func message(_ what: String, _ text: String) -> String {
            switch self {
            case .negative: return "\(what) must be zero or more, found '\(text)'"
            case .tooLarge: return "\(what) '\(text)' is too large (at most \(Money.format(Money.maximum, fractionDigits: 0)))"
            case .tooPrecise: return "\(what) '\(text)' has more than \(Money.maximumFractionDigits) decimals"
            case .notAnAmount: return "\(what) '\(text)' is not an amount"
            }
        }
    }

    /// Reads `45.99`, `45`, `45.99 EUR` or `0.5`: a plain decimal number, optionally followed by a
    /// currency code of three capital letters. No sign, exponent, thousands separator or symbol.
    package static func parse(_ text: String) -> Result<Money, ParseError> {
        // Most amounts have no space: no list of parts to make.
        if !text.utf8.contains(UInt8(ascii: " ")) {
            guard !text.isEmpty else { return .failure(.notAnAmount) }
            return parseAmount(text[...]).map { Money($0, nil) }
        }
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 1 || parts.count == 2 else { return .failure(.notAnAmount) }
        var currency: String?
        if parts.count == 2 {
            guard isCurrencyCode(parts[1]) else { return .failure(.notAnAmount) }
            currency = String(parts[1])
        }
        switch parseAmount(parts[0]) {
        case .success(let amount): return .success(Money(amount, currency))
        case .failure(let e): return .failure(e)
        }
    }

    /// A plain decimal number of at most ``maximumFractionDigits`` decimals, zero or more.
    package static func parseAmount(_ text: Substring) -> Result<Decimal, ParseError> {
        var digits = text.utf8[...]
        var negative = false
        if digits.first == UInt8(ascii: "-") {
            negative = true
            digits = digits.dropFirst()
        } else if digits.first == UInt8(ascii: "+") {
            digits = digits.dropFirst()
        }
        let point = digits.firstIndex(of: UInt8(ascii: "."))
        let whole = point.map { digits[..<$0] } ?? digits
        let fraction = point.map { digits[digits.index(after: $0)...] } ?? digits[digits.endIndex...]
        let isDigit = { (c: UInt8) in c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
        guard !whole.isEmpty, whole.allSatisfy(isDigit), fraction.allSatisfy(isDigit), point == nil || !fraction.isEmpty else {
            return .failure(.notAnAmount)
        }
        if negative { return .failure(.negative) }
        let significantFraction = fraction.reversed().drop { $0 == UInt8(ascii: "0") }.count
        guard significantFraction <= maximumFractionDigits else { return .failure(.tooPrecise) }
        let trimmedWhole = whole.drop { $0 == UInt8(ascii: "0") }
        guard trimmedWhole.count <= 10 else { return .failure(.tooLarge) }
        // Integer arithmetic on the digits: exact, and independent of any locale.
        var units: Int64 = 0
        for c in trimmedWhole { units = units * 10 + Int64(c - UInt8(ascii: "0")) }
        var scaled = units
        var taken = 0
        for c in fraction.prefix(maximumFractionDigits) {
            scaled = scaled * 10 + Int64(c - UInt8(ascii: "0"))
            taken += 1
        }
        let amount = Decimal(sign: .plus, exponent: -taken, significand: Decimal(scaled))
        guard amount <= maximum else { return .failure(.tooLarge) }
        return .success(amount)
    }

    /// How to write an amount, for every message that refuses one (the files' and the command line's).
    package static let amountHelp = "write a plain number with a point for decimals, optionally with a currency code: 45.99, or 45.99 EUR"

    /// A currency code as costs and `garage.yaml` name one: three capital letters (`EUR`).
    package static func isCurrencyCode<S: StringProtocol>(_ text: S) -> Bool {
        text.utf8.count == 3 && text.utf8.allSatisfy { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }

    /// The amount with exactly `fractionDigits` decimals (`45.90`, `1234.00`), no grouping:
    /// the same text on every machine, for CSV and JSON as well as for people.
    package static func format(_ amount: Decimal, fractionDigits: Int = 2) -> String {
        var value = amount
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, max(fractionDigits, 0), .bankers)
        let negative = rounded < 0
        var magnitude = negative ? -rounded : rounded
        // Shift to an integer of minor units, then place the point by hand.
        var scaled = Decimal()
        _ = NSDecimalMultiplyByPowerOf10(&scaled, &magnitude, Int16(fractionDigits), .plain)
        var digits = scaled.description  // as NSDecimalNumber's stringValue, without the object
        // By bytes: Foundation's `contains` of a string costs more than formatting the amount.
        if digits.utf8.contains(UInt8(ascii: ".")) { digits = String(digits.prefix { $0 != "." }) }
        if fractionDigits > 0 {
            if digits.count <= fractionDigits { digits = String(repeating: "0", count: fractionDigits - digits.count + 1) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -fractionDigits))
        }
        return (negative ? "-" : "") + digits
    }

    /// Decimals to show for an amount: two, or more when the rider wrote more (a price in mills).
    package static func fractionDigits(of amount: Decimal) -> Int {
        max(2, -min(0, Int(amount.exponent)))
    }
}
