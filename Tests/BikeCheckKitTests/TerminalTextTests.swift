import Diagnostics
import Testing

@Suite struct TerminalTextTests {
    @Test(arguments: [
        ("\u{1B}[31m", #"\u{1B}[31m"#), ("a\u{7}b", #"a\u{7}b"#), ("del\u{7F}", #"del\u{7F}"#), ("csi\u{9B}1m", #"csi\u{9B}1m"#),
        ("\u{202E}exe.txt", #"\u{202E}exe.txt"#), ("\u{2066}x\u{2069}", #"\u{2066}x\u{2069}"#), ("\u{200E}\u{200F}\u{61C}", #"\u{200E}\u{200F}\u{61C}"#),
        ("line\nfeed\ttab\rcr", #"line\u{A}feed\u{9}tab\u{D}cr"#), ("Müller 😁 · ok", "Müller 😁 · ok"),
    ])
    func interpolatedValuesAreEscapedVisibly(_ value: String, _ shown: String) {
        let text: TerminalText = "name: \(value)!"
        #expect(text.string == "name: " + shown + "!")
    }

    @Test func literalsAndNestedTextPassAsWritten() {
        let inner: TerminalText = "\u{1B}[1m\("\u{1B}")\u{1B}[0m"
        let outer: TerminalText = "[\(inner)]"
        #expect(outer.string == "[\u{1B}[1m\\u{1B}\u{1B}[0m]")
    }

    @Test func multiLineValuesKeepLineFeedsAndTabsOnly() {
        let text: TerminalText = "\(lines: "a\n\tb\u{1B}c\r\n")"
        #expect(text.string == "a\n\tb\\u{1B}c\\u{D}\n")
    }

    @Test func jsonKeepsItsValueAndLosesTheRawControls() {
        let json = "{\"name\" : \"a\u{7F}b\u{9B}c\u{202E}d\"}\n"
        #expect(TerminalEscaping.escapeJSON(json) == "{\"name\" : \"a\\u007fb\\u009bc\\u202ed\"}\n")
    }

    @Test func messagesQuoteABoundedPrefix() {
        #expect(shown(String(repeating: "x", count: 10_000_000)) == String(repeating: "x", count: 57) + "…")
        #expect(shown("short") == "short")
    }
}
