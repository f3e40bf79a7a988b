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
    package static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != 0x26 && byte != 0x3C && byte != 0x3E && byte != 0x22 && byte != 0x27
    }

    /// Whether every byte of `utf8` is plain (`isPlain`), eight bytes a step (a string's bytes
    /// one by one were a third of the HTML history's rows): a word has a byte below 0x20, of
    /// 0x7F or more, or equal to one of the five specials exactly when these tests of its
    /// bytes' high bits say so. Each is exact as a whole: a borrow from one byte into the next
    /// starts only at a byte that passes the test itself, and `above` adds to seven bits only.
    package static func isPlain(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = utf8.baseAddress else { return true }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        /// A byte of `x` is zero (the classic test: exact as a whole).
        func hasZero(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        var k = 0
        while k + 8 <= utf8.count {
            let x = UnsafeRawPointer(base + k).loadUnaligned(as: UInt64.self)
            // Below 0x20: with its high bit clear, subtracting 0x20 sets it.
            let below = (x &- ones &* 0x20) & ~x & highs
            // 0x7F or more: its high bit set, or its low seven bits all ones (plus one sets it).
            let above = (x | ((x & ~highs) &+ ones)) & highs
            if below | above != 0 || hasZero(x ^ (ones &* 0x26)) || hasZero(x ^ (ones &* 0x3C)) || hasZero(x ^ (ones &* 0x3E))
                || hasZero(x ^ (ones &* 0x22)) || hasZero(x ^ (ones &* 0x27))
            {
                return false
            }
            k += 8
        }
        while k < utf8.count {
            if !isPlain(base[k]) { return false }
            k += 1
        }
        return true
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
/// markup as written, every value escaped) without a String per piece, into room made ahead
/// (`ByteRoom`). `html` is what was written.
package struct HTMLBytes {
    private var room = ByteRoom()

    package init() {}

    /// How many bytes are written.
    package var count: Int { room.count }

    /// What was written.
    package var bytes: [UInt8] { Array(room.written) }

    /// Room for `count` bytes in all.
    package mutating func reserveCapacity(_ count: Int) { room.reserveCapacity(count) }

    /// Nothing written, the room kept.
    package mutating func removeAll() { room.removeAll() }

    /// The program's own markup, as written.
    package mutating func markup(_ literal: StaticString) { room.put(literal) }

    /// Markup written the same way: already safe.
    package mutating func append(_ other: HTMLBytes) { other.room.written.withUnsafeBufferPointer { room.put($0) } }

    /// Markup built as `HTML`: already safe.
    package mutating func append(_ html: HTML) { room.put(utf8Of: html.string) }

    /// A value's text, escaped (`HTML.escape`): its bytes read where they are (not copied into
    /// a variable of its own, which retained and released it) and checked eight at a time.
    package mutating func text(_ value: String) {
        let plain = value.utf8.withContiguousStorageIfAvailable { utf8 in
            guard HTML.isPlain(utf8) else { return false }
            room.put(utf8)
            return true
        }
        if plain != true { append(HTML(escaping: value)) }
    }

    /// A day, `YYYY-MM-DD`: nothing to escape; written in place, without a String.
    package mutating func day(_ day: Day) { room.day(day) }

    /// An amount, as `ReportAmount` writes it (digits and a point: nothing to escape).
    package mutating func amount(_ amount: ReportAmount) {
        if !room.amount(amount.value) { text(amount.description) }
    }

    /// A whole number in decimal.
    package mutating func integer(_ n: Int) { room.integer(Int64(n)) }

    /// `ReportNumber.fixed(value, decimals)`.
    package mutating func fixed(_ value: Double, _ decimals: Int) { room.fixed(value, decimals) }

    /// An SVG coordinate to a tenth, the same on every machine: `ReportNumber.fixed(value, 1)`
    /// without a `.0` at its end (`52`, `26.5`).
    package mutating func coordinate(_ value: Double) {
        room.fixed(value, 1)
        if room.count >= 2, room[room.count - 2] == UInt8(ascii: "."), room[room.count - 1] == UInt8(ascii: "0") { room.removeLast(2) }
    }

    /// What was written, as one piece of markup.
    package var html: HTML { HTML(written: room.written) }
}

extension HTML {
    /// Markup the program wrote as bytes (`HTMLBytes`), as it is.
    init(written bytes: some Collection<UInt8>) { string = String(decoding: bytes, as: UTF8.self) }
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
