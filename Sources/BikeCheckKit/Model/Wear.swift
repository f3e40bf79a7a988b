import Diagnostics

/// A measurement of wear as a rider writes it: `0.5 %` (a chain's stretch on a checker), `1.8 mm`
/// (a brake pad's thickness). The number may be zero; the unit is one of `units`.
package struct WearAmount: Sendable, Hashable, CustomStringConvertible {
    package var amount: Double
    /// `%` or `mm`.
    package var unit: String

    package init(amount: Double, unit: String) {
        self.amount = amount
        self.unit = unit
    }

    /// `0.5 %`, `1.8 mm`: the number as short as it reads, then the unit.
    package var description: String { "\(WearAmount.number(amount)) \(unit)" }

    /// The units a measurement may be written in.
    package static let units = ["%", "mm"]

    /// The forms accepted, for help lines.
    package static let accepted = "write a number and a unit: 0.5 % (a chain checker's stretch), 1.8 mm (a pad's thickness)"

    /// The largest measurement believed: a stretch of 100 %, a metre of anything.
    static let ceiling = 1000.0

    package enum ParseError: Error, Equatable {
        case badNumber
        case missingUnit
        case unknownUnit(String)
        case negative
        case tooLarge
    }

    /// Parses `NUMBER UNIT` (the space is optional): `0.5 %`, `0.5%`, `1.8 mm`.
    package static func parse(_ raw: String) -> Result<WearAmount, ParseError> {
        let text = raw.trimmingSpaces()
        let numberText = String(text.prefix { $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-" || $0 == "+") })
        let unit = String(text.dropFirst(numberText.count)).trimmingSpaces()
        guard !numberText.isEmpty, let value = Double(numberText), value.isFinite else { return .failure(.badNumber) }
        guard !unit.isEmpty else { return .failure(.missingUnit) }
        guard let known = units.first(where: { $0 == unit.lowercased() }) else { return .failure(.unknownUnit(unit)) }
        guard value >= 0 else { return .failure(.negative) }
        guard value <= ceiling else { return .failure(.tooLarge) }
        return .success(WearAmount(amount: value, unit: known))
    }

    /// A number as short as it reads: `0.5`, `2`, `0.125`.
    package static func number(_ v: Double) -> String {
        let rounded = (v * 10_000).rounded() / 10_000
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int(rounded)) }
        return String(rounded)
    }
}

/// One measurement in a log entry (`readings: {chain-replace: 0.5 %}`): of the interval whose
/// `wear_limit:` it is measured against.
package struct Reading: Sendable, Equatable {
    package var interval: Located<IntervalID>
    package var value: WearAmount
    /// Where the value is written.
    package var valueLocation: SourceLocation

    package init(interval: Located<IntervalID>, value: WearAmount, valueLocation: SourceLocation) {
        self.interval = interval
        self.value = value
        self.valueLocation = valueLocation
    }
}

/// Which way a measurement goes as the part wears: up to its limit (a chain's stretch, a maximum)
/// or down to it (a pad's thickness, a minimum). The first reading since the interval's anchor
/// decides: below the limit it is a maximum, above it a minimum.
package enum WearDirection: String, Sendable, Codable, Equatable {
    case maximum
    case minimum
}
