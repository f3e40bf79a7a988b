/// Writes scalars the way a careful person would: plain unless plain style would read back as
/// something else, then quoted in the file's preferred quote.
package struct YAMLScalarWriter: Sendable {
    /// `'single'` or `"double"` quotes.
    package enum Quote: Sendable { case single, double }

    /// The quote used when one is needed.
    package var quote: Quote

    package init(quote: Quote = .double) { self.quote = quote }

    /// The text of a scalar and whether it is plain, for block context (`inFlow` false) or
    /// inside `[ ]` (`inFlow` true).
    package func render(_ value: YAMLValue, inFlow: Bool = false) -> (text: String, plain: Bool) {
        switch value {
        case .text(let s):
            if Self.isSafePlain(s, inFlow: inFlow) && Self.readsBackAsText(s) { return (s, true) }
            return (quoted(s), false)
        case .plain(let s):
            if Self.isSafePlain(s, inFlow: inFlow) { return (s, true) }
            return (quoted(s), false)
        case .null:
            return ("", true)
        default:
            return ("", false)
        }
    }

    func quoted(_ s: String) -> String {
        let printable = s.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }
        if quote == .single && printable {
            var out = "'"
            for c in s { out += c == "'" ? "''" : String(c) }
            return out + "'"
        }
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if u.value < 0x20 || u.value == 0x7F {
                    let hex = String(u.value, radix: 16, uppercase: true)
                    out += "\\x" + String(repeating: "0", count: max(0, 2 - hex.count)) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }

    /// True when `s` parses as one plain scalar with exactly this text.
    package static func isSafePlain(_ s: String, inFlow: Bool) -> Bool {
        let scalars = Array(s.unicodeScalars)
        guard let first = scalars.first, let last = scalars.last else { return false }
        if first == " " || last == " " || last == ":" { return false }
        for u in scalars where u.value < 0x20 || u.value == 0x7F || u == "\u{FEFF}" || u == "\u{85}" || u == "\u{2028}" || u == "\u{2029}" {
            return false
        }
        let indicators: Set<Unicode.Scalar> = ["-", "?", ":", ",", "[", "]", "{", "}", "#", "&", "*", "!", "|", ">", "'", "\"", "%", "@", "`"]
        if indicators.contains(first) {
            // `-x`, `?x`, `:x` may start a plain scalar when a non-space follows.
            guard ["-", "?", ":"].contains(first), scalars.count > 1, scalars[1] != " " else { return false }
            if inFlow && [",", "[", "]", "{", "}"].contains(scalars[1]) { return false }
        }
        if s.contains(": ") || s.contains(" #") { return false }
        if inFlow && scalars.contains(where: { [",", "[", "]", "{", "}"].contains($0) }) { return false }
        if inFlow && s.contains(":") { return false }
        if s == "---" || s == "..." || s.hasPrefix("--- ") || s.hasPrefix("... ") { return false }
        return true
    }

    /// False when a YAML reader would take plain `s` for a null, boolean, number or date.
    package static func readsBackAsText(_ s: String) -> Bool {
        let lower = s.lowercased()
        if ["", "~", "null", "true", "false", "yes", "no", "on", "off", "y", "n", ".inf", "-.inf", "+.inf", ".nan", "<<", "="].contains(lower) {
            return false
        }
        let chars = Array(s.unicodeScalars)
        // Numbers in any of YAML 1.1's and 1.2's forms: 12, -3.5, 1e3, 0x1F, 0o17, 1_000, 1:30 (sexagesimal).
        let numeric = chars.allSatisfy {
            ("0"..."9").contains($0) || ["-", "+", ".", "_", "e", "E", ":", "x", "o", "b"].contains($0) || ("a"..."f").contains($0) || ("A"..."F").contains($0)
        }
        if numeric && chars.contains(where: { ("0"..."9").contains($0) }) {
            let head = chars.first.map { ("0"..."9").contains($0) || ["-", "+", "."].contains($0) } ?? false
            if head { return false }
        }
        // Dates and timestamps: 2024-05-01, 2024-5-1 10:00.
        if chars.count >= 8, chars.prefix(4).allSatisfy({ ("0"..."9").contains($0) }), chars[4] == "-" { return false }
        return true
    }
}
