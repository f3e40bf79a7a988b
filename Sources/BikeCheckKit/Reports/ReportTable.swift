import Foundation

/// A report as rows and columns of plain text: what the text, CSV and Markdown renderers lay out.
/// Each report builds its table from its typed model; JSON is encoded from the model itself.
public struct ReportTable: Sendable, Equatable {
    public struct Column: Sendable, Equatable {
        /// The CSV header: lower case, fixed units in the name (`distance_km`).
        public var name: String
        /// The heading people read in text and Markdown.
        public var title: String
        /// Numbers are right-aligned; text is left-aligned and the first to shorten on a narrow terminal.
        public var numeric: Bool

        public init(_ name: String, _ title: String, numeric: Bool = false) {
            self.name = name
            self.title = title
            self.numeric = numeric
        }
    }

    public var columns: [Column]
    public var rows: [[String]]
    /// Lines after the table (totals per currency, notes), for text and Markdown.
    public var footer: [String] = []

    public init(columns: [Column], rows: [[String]], footer: [String] = []) {
        self.columns = columns
        self.rows = rows
        self.footer = footer
    }
}

/// Plain numbers in fixed units, the same on every machine (no locale, no grouping).
public enum ReportNumber {
    public static func fixed(_ value: Double, _ decimals: Int) -> String {
        let scale = pow(10.0, Double(decimals))
        let rounded = (value * scale).rounded() / scale
        return String(format: "%.\(decimals)f", rounded == 0 ? 0 : rounded)
    }

    /// A sum of measured values to a tenth, so JSON shows `829078.3`, not `829078.2999999999`.
    public static func tenth(_ value: Double) -> Double { (value * 10).rounded() / 10 }

    public static func km(_ metres: Double) -> String { fixed(metres / 1000, 1) }
    public static func hours(_ seconds: Double) -> String { fixed(seconds / 3600, 1) }
    public static func metres(_ metres: Double) -> String { fixed(metres, 0) }
}

/// An exact amount in JSON: a string with at least two decimals (`"0.30"`), so no reader turns it
/// into binary floating point on the way in.
public struct ReportAmount: Sendable, Hashable, Encodable, CustomStringConvertible {
    public var value: Decimal
    public init(_ value: Decimal) { self.value = value }
    public var description: String { Money.format(value, fractionDigits: Money.fractionDigits(of: value)) }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
