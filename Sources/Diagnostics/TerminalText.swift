/// Text for a terminal, safe by construction: the literal parts are the program's own words and
/// pass as written, every interpolated value is escaped. Names, tasks, Strava's answers, archive
/// fields, error texts: whatever comes from a file or the network is interpolated, so nothing in
/// it can move the cursor, recolour the screen, set the window title or reorder a line.
///
///     let line: TerminalText = "bike '\(bike.name)' now uses template '\(template)'"
///
/// Escaped are the C0 and C1 control characters (ESC, CR, DEL, CSI, …, and also tab and line
/// feed, so a value cannot forge a line of its own), the Unicode bidirectional controls and the
/// line and paragraph separators; each is shown as `\u{1B}`. `\(lines: text)` keeps line feeds
/// and tabs, for values that are several lines by nature (a description, a diff).
package struct TerminalText: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The text, safe to print.
    package private(set) var string: String

    package init(stringLiteral value: String) { string = value }

    package init(stringInterpolation: Interpolation) { string = stringInterpolation.string }

    /// User-controlled text, escaped: the same as `"\(value)"`.
    package init(escaping value: some Any) { string = TerminalEscaping.escape(String(describing: value)) }

    package var description: String { string }

    /// `count` spaces, for aligning columns.
    package static func spaces(_ count: Int) -> TerminalText { TerminalText(stringLiteral: String(repeating: " ", count: max(0, count))) }

    /// `text` in an SGR style (`"1;31"`: bold red) when `enabled`.
    package static func styled(_ text: TerminalText, _ code: StaticString, if enabled: Bool) -> TerminalText {
        enabled ? TerminalText(stringLiteral: "\u{1B}[\(code)m") + text + "\u{1B}[0m" : text
    }
    package var isEmpty: Bool { string.isEmpty }

    package struct Interpolation: StringInterpolationProtocol {
        var string = ""

        package init(literalCapacity: Int, interpolationCount: Int) { string.reserveCapacity(literalCapacity + 16 * interpolationCount) }

        package mutating func appendLiteral(_ literal: String) { string += literal }

        /// Already safe: text built the same way.
        package mutating func appendInterpolation(_ text: TerminalText) { string += text.string }

        /// Anything else, escaped.
        package mutating func appendInterpolation(_ value: some Any) { string += TerminalEscaping.escape(String(describing: value)) }

        /// A String, escaped: the same as any other value, without first copying it.
        package mutating func appendInterpolation(_ value: String) { string += TerminalEscaping.escape(value) }

        /// Text of several lines: line feeds and tabs kept, every other control escaped.
        package mutating func appendInterpolation(lines value: String) { string += TerminalEscaping.escape(value, keepingLines: true) }
    }

    package static func + (a: TerminalText, b: TerminalText) -> TerminalText {
        var out = a
        out.string += b.string
        return out
    }

    package static func += (a: inout TerminalText, b: TerminalText) { a.string += b.string }
}

extension Sequence where Element == TerminalText {
    package func joined(separator: TerminalText = "") -> TerminalText {
        var out: TerminalText = ""
        var first = true
        for t in self {
            if !first { out += separator }
            out += t
            first = false
        }
        return out
    }
}

/// The one escaper for text that reaches a terminal (and, through `TerminalText`, every output).
package enum TerminalEscaping {
    /// Whether a scalar must never reach a terminal as it is: C0 and C1 controls, DEL, the bidi
    /// embedding, override, isolate and mark characters (U+061C, U+200E, U+200F, U+202A–U+202E,
    /// U+2066–U+2069), and the line and paragraph separators U+2028, U+2029.
    @inline(__always)
    package static func isUnsafe(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        if v < 0x20 || (0x7F...0x9F).contains(v) { return true }
        if v < 0x61C { return false }
        return v == 0x61C || v == 0x200E || v == 0x200F || (0x2028...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }

    /// `text` with each unsafe scalar written as `\u{1B}`; line feeds and tabs kept when asked.
    package static func escape(_ text: String, keepingLines: Bool = false) -> String {
        func unsafe(_ s: Unicode.Scalar) -> Bool { isUnsafe(s) && !(keepingLines && (s == "\n" || s == "\t")) }
        // Printable ASCII, the usual text, is safe: one pass over its bytes, no scalars decoded.
        if isPrintableASCII(text) { return text }
        guard text.unicodeScalars.contains(where: unsafe) else { return text }
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            if unsafe(s) {
                out.append(contentsOf: "\\u{\(String(s.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(s)
            }
        }
        return String(out)
    }

    /// Whether `text` is all printable ASCII: its bytes read where they are, not one by one
    /// through the UTF-8 view (most text the program prints is).
    static func isPrintableASCII(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            for b in bytes where b < 0x20 || b >= 0x7F { return false }
            return true
        }
    }

    /// JSON text with the unsafe scalars JSON encoders leave as they are (DEL, C1, bidi controls,
    /// U+2028, U+2029) written as `\u00XX` escapes: the same JSON value, harmless on a terminal.
    /// Those scalars can only occur inside strings, where the escape means the same scalar.
    package static func escapeJSON(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: isUnsafe) else { return json }
        var out = String.UnicodeScalarView()
        for s in json.unicodeScalars {
            // Raw C0 cannot be in valid JSON text except as whitespace (tab, LF, CR), kept.
            if isUnsafe(s) && s.value >= 0x20 {
                let hex = String(s.value, radix: 16, uppercase: false)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            } else {
                out.append(s)
            }
        }
        return String(out)
    }
}
