/// What a quantity measures.
package enum Measure: String, Sendable, Hashable, Codable, CaseIterable {
    /// Moving time, in seconds.
    case time
    /// Distance, in metres.
    case distance
    /// Calendar time, in days.
    case days
    /// Calendar time, in months (calendar arithmetic: months and years).
    case months
    /// Number of rides.
    case rides
}

/// An amount with a unit, as a rider writes it: `10 h`, `1500 km`, `6 months`, `25 rides`.
package struct Quantity: Sendable, Hashable, CustomStringConvertible {
    package var measure: Measure
    /// In the measure's base unit: seconds, metres, days, months or rides.
    package var amount: Double
    /// As written, for messages and reports.
    package var text: String
    /// The unit it was written in (`mi`, `weeks`) and its size in the base unit.
    package var unit: String
    package var unitSize: Double

    package init(measure: Measure, amount: Double, text: String, unit: String, unitSize: Double) {
        self.measure = measure
        self.amount = amount
        self.text = text
        self.unit = unit
        self.unitSize = unitSize
    }

    package var description: String { text }

    /// The forms accepted, for help lines.
    package static let accepted = "write a number and a unit: 10 h, 90 min, 1500 km, 900 mi, 30 days, 2 weeks, 6 months, 1 year, 25 rides"

    package static let units: [String: (Measure, Double)] = [
        "h": (.time, 3600), "hour": (.time, 3600), "hours": (.time, 3600),
        "min": (.time, 60), "mins": (.time, 60), "minute": (.time, 60), "minutes": (.time, 60),
        "km": (.distance, 1000), "mi": (.distance, 1609.344), "mile": (.distance, 1609.344), "miles": (.distance, 1609.344),
        "day": (.days, 1), "days": (.days, 1), "week": (.days, 7), "weeks": (.days, 7),
        "month": (.months, 1), "months": (.months, 1), "year": (.months, 12), "years": (.months, 12),
        "ride": (.rides, 1), "rides": (.rides, 1),
    ]

    package enum ParseError: Error, Equatable {
        case missingUnit
        case unknownUnit(String)
        case badNumber
        case notPositive
        /// More than any bike will see; the largest accepted, as text.
        case tooLarge(String)
        /// Months and years are calendar arithmetic, so only whole months make sense.
        case partialMonths
    }

    /// The largest amount of each measure, in base units: far beyond any bike, small enough that
    /// every sum and date computed from it stays exact.
    static let ceilings: [Measure: (amount: Double, text: String)] = [
        .time: (100_000 * 3600, "100000 h"), .distance: (1_000_000_000, "1000000 km"),
        .days: (36_500, "36500 days"), .months: (1_200, "100 years"), .rides: (1_000_000, "1000000 rides"),
    ]

    /// Parses `NUMBER UNIT` (the space is optional). Zero and negative amounts are refused.
    package static func parse(_ raw: String) -> Result<Quantity, ParseError> {
        let text = raw.trimmingSpaces()
        var numberEnd = text.startIndex
        for (i, c) in zip(text.indices, text) {
            if c.isNumber || c == "." || c == "-" || c == "+" { numberEnd = text.index(after: i) } else { break }
        }
        let numberText = String(text[..<numberEnd])
        let unit = String(text[numberEnd...]).trimmingSpaces()
        guard !numberText.isEmpty, let value = Double(numberText), value.isFinite else { return .failure(.badNumber) }
        guard !unit.isEmpty else { return .failure(.missingUnit) }
        guard let (measure, factor) = units[unit.lowercased()] else { return .failure(.unknownUnit(unit)) }
        guard value > 0 else { return .failure(.notPositive) }
        let amount = value * factor
        if let ceiling = ceilings[measure], amount > ceiling.amount { return .failure(.tooLarge(ceiling.text)) }
        if measure == .months, amount != amount.rounded() { return .failure(.partialMonths) }
        return .success(Quantity(measure: measure, amount: amount, text: "\(numberText) \(unit)", unit: unit, unitSize: factor))
    }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}

extension Quantity {
    /// A ride's duration in seconds: `1h30`, `1h 30min`, `1:30`, `90 min`, `1.5 h`.
    package static func parseDuration(_ raw: String) -> Double? {
        let text = raw.trimmingSpaces().lowercased()
        if text.isEmpty { return nil }
        let colon = text.split(separator: ":", omittingEmptySubsequences: false)
        if colon.count == 2 || colon.count == 3 {
            let numbers = colon.compactMap { part in part.allSatisfy(\.isASCII) ? Double(part) : nil }
            guard numbers.count == colon.count, numbers.allSatisfy({ $0 >= 0 && $0 == $0.rounded() }),
                numbers.dropFirst().allSatisfy({ $0 < 60 })
            else { return nil }
            let seconds = numbers[0] * 3600 + numbers[1] * 60 + (numbers.count == 3 ? numbers[2] : 0)
            return plausibleRide(seconds)
        }
        // `1h30` means one hour thirty minutes.
        if let h = text.firstIndex(of: "h"), text[text.index(after: h)...].allSatisfy(\.isNumber),
            text.index(after: h) < text.endIndex,
            let hours = Double(String(text[..<h]).trimmingSpaces()), let minutes = Double(text[text.index(after: h)...])
        {
            return minutes < 60 ? plausibleRide(hours * 3600 + minutes * 60) : nil
        }
        // Otherwise one or more `NUMBER UNIT` parts of time: `1 h 30 min`.
        var total = 0.0
        var rest = Substring(text)
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " }
            let number = rest.prefix { $0.isNumber || $0 == "." }
            rest = rest.dropFirst(number.count).drop { $0 == " " }
            let unit = rest.prefix { $0.isLetter }
            rest = rest.dropFirst(unit.count).drop { $0 == " " }
            guard let value = Double(number), let (measure, factor) = units[String(unit)], measure == .time else { return nil }
            total += value * factor
        }
        return plausibleRide(total)
    }

    /// The longest ride bikecheck believes: thirty days of moving time.
    package static let longestRide: Double = 30 * 24 * 3600

    private static func plausibleRide(_ seconds: Double) -> Double? {
        seconds.isFinite && seconds > 0 && seconds <= longestRide ? seconds : nil
    }
}
