import Diagnostics

/// HTML, safe by construction: the literal parts are the program's own markup and pass as
/// written, every interpolated value is escaped. Names, tasks and notes from the garage's files
/// and from Strava are interpolated, so none of them can open an element, close an attribute or
/// start a script.
///
///     let cell: HTML = "<td title=\"\(bike.name)\">\(interval.task)</td>"
///
/// Escaped are `&`, `<`, `>`, `"` and `'` (so a value is safe in text and in a quoted attribute),
/// and, as everywhere bikecheck prints, the control and bidirectional characters, shown as
/// `\u{1B}` (the file is text a terminal may show too). Markup built the same way is spliced in
/// whole: `"\(row)"` with `row: HTML` is not escaped again.
package struct HTML: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The markup, safe to write out.
    package private(set) var string: String

    package init(stringLiteral value: String) { string = value }

    package init(stringInterpolation: Interpolation) { string = stringInterpolation.string }

    /// User-controlled text, escaped: the same as `"\(value)"`.
    package init(escaping value: some Any) { string = HTML.escape(String(describing: value)) }

    /// A String, escaped, without first copying it through `String(describing:)`.
    package init(escaping value: String) { string = HTML.escape(value) }

    package var description: String { string }
    package var isEmpty: Bool { string.isEmpty }

    package struct Interpolation: StringInterpolationProtocol {
        var string = ""

        package init(literalCapacity: Int, interpolationCount: Int) { string.reserveCapacity(literalCapacity + 16 * interpolationCount) }

        package mutating func appendLiteral(_ literal: String) { string += literal }

        /// Already safe: markup built the same way.
        package mutating func appendInterpolation(_ html: HTML) { string += html.string }

        /// Pieces of markup, one after the other.
        package mutating func appendInterpolation(_ pieces: [HTML]) { for p in pieces { string += p.string } }

        /// Anything else, escaped.
        package mutating func appendInterpolation(_ value: some Any) { string += HTML.escape(String(describing: value)) }

        /// A String, escaped: the same as any other value, without first copying it.
        package mutating func appendInterpolation(_ value: String) { string += HTML.escape(value) }

        /// A day, `YYYY-MM-DD`: digits and dashes, which need no escaping (a report has a
        /// hundred thousand, and `String(describing:)` of each cost more than the rest of its row).
        package mutating func appendInterpolation(_ day: Day) { string += day.description }

        /// A whole number: digits and a sign, which need no escaping.
        package mutating func appendInterpolation(_ number: Int) { string += String(number) }
    }

    package static func + (a: HTML, b: HTML) -> HTML {
        var out = a
        out.string += b.string
        return out
    }

    package static func += (a: inout HTML, b: HTML) { a.string += b.string }

    /// A byte of printable ASCII that HTML gives no meaning to: text made only of these (the
    /// usual text) is written as it is.
    static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != 0x26 && byte != 0x3C && byte != 0x3E && byte != 0x22 && byte != 0x27
    }

    /// `text` for an HTML text node or a quoted attribute value.
    package static func escape(_ text: String) -> String {
        if text.utf8.allSatisfy(isPlain) { return text }
        let visible = TerminalEscaping.escape(text)
        guard visible.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else { return visible }
        var out = ""
        out.reserveCapacity(visible.utf8.count + 16)
        for c in visible.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}

/// HTML written as UTF-8 bytes, a piece at a time, for the page's long tables (a garage's
/// service history is a hundred thousand rows): the same rules as `HTML` (the program's own
/// markup as written, every value escaped) without a String per piece. `html` is what was written.
package struct HTMLBytes {
    package private(set) var bytes: [UInt8] = []

    package init() {}

    /// The program's own markup, as written.
    package mutating func markup(_ literal: StaticString) { literal.withUTF8Buffer { bytes.append(contentsOf: $0) } }

    /// Markup built as `HTML`: already safe.
    package mutating func append(_ html: HTML) {
        var string = html.string
        string.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// A value's text, escaped (`HTML.escape`).
    package mutating func text(_ value: String) {
        var value = value
        let plain = value.withUTF8 { utf8 in
            guard utf8.allSatisfy(HTML.isPlain) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if !plain { append(HTML(escaping: value)) }
    }

    /// A day, `YYYY-MM-DD`: nothing to escape; written in place, without a String.
    package mutating func day(_ day: Day) {
        let (y, m, d) = day.components
        guard (0...9999).contains(y) else {
            var text = day.description
            return text.withUTF8 { bytes.append(contentsOf: $0) }
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 10) { room in
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: room[..<Day.writeISO(y, m, d, to: room)]))
        }
    }

    /// An amount, as `ReportAmount` writes it (digits and a point: nothing to escape).
    package mutating func amount(_ amount: ReportAmount) {
        if !ReportNumber.appendAmount(amount.value, to: &bytes) { text(amount.description) }
    }

    /// A whole number in decimal.
    package mutating func integer(_ n: Int) { ReportNumber.appendInteger(Int64(n), to: &bytes) }

    /// `ReportNumber.fixed(value, decimals)`.
    package mutating func fixed(_ value: Double, _ decimals: Int) { ReportNumber.appendFixed(value, decimals, to: &bytes) }

    /// An SVG coordinate to a tenth, the same on every machine: `ReportNumber.fixed(value, 1)`
    /// without a `.0` at its end (`52`, `26.5`).
    package mutating func coordinate(_ value: Double) {
        ReportNumber.appendFixed(value, 1, to: &bytes)
        if bytes.count >= 2, bytes[bytes.count - 2] == UInt8(ascii: "."), bytes[bytes.count - 1] == UInt8(ascii: "0") { bytes.removeLast(2) }
    }

    /// What was written, as one piece of markup.
    package var html: HTML { HTML(markup: String(decoding: bytes, as: UTF8.self)) }
}

extension HTML {
    /// Markup the program wrote, as it is (`HTMLBytes.html`).
    fileprivate init(markup: String) { string = markup }
}

extension Sequence where Element == HTML {
    package func joined(separator: HTML = "") -> HTML {
        var out: HTML = ""
        var first = true
        for h in self {
            if !first { out += separator }
            out += h
            first = false
        }
        return out
    }
}
