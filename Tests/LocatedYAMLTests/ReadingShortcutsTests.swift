import Diagnostics
import LocatedYAML
import TestSupport
import Testing

/// The shortcuts every read takes (issue 32, the merge driver's speed) give what the plain
/// definitions give: line starts and the search for a byte eight bytes at a time, and the
/// composer's reuse of short scalars' texts by their bytes.
@Suite struct ReadingShortcutsTests {
    /// Lines start after every LF, at every length and place (the word-at-a-time search looks
    /// at bytes one by one only in a word that has one, and at the tail).
    @Test(arguments: 0..<24) func lineStartsAreThoseOfAByteAtATimeReading(seed: UInt64) {
        var g = SeededGenerator(seed: 0x32_0400 + seed)
        let alphabet: [UInt8] = Array("ab -:\n\n\r#".utf8)
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in alphabet[g.next(alphabet.count)] }
            let text = SourceText(path: "t.yaml", bytes: bytes)
            #expect(text.lineStarts == [0] + bytes.indices.filter { bytes[$0] == UInt8(ascii: "\n") }.map { $0 + 1 }, "\(bytes)")
            #expect(SourceText.contains(UInt8(ascii: "\r"), in: bytes) == bytes.contains(UInt8(ascii: "\r")), "\(bytes)")
            #expect(text.isASCII)
        }
        let accented = Array("é\nb\n".utf8)
        #expect(!SourceText(path: "t.yaml", bytes: accented).isASCII)
        #expect(SourceText(path: "t.yaml", bytes: accented).lineStarts == [0, 3, 5])
    }

    /// Scalars whose bytes agree in part (the first 15 or 16 of them, a prefix, a NUL written
    /// as `\0`, accents) each read as their own text, however often they repeat and however
    /// many distinct ones push each other out of the composer's table.
    @Test func shortScalarsThatShareBytesEachReadAsTheirOwnText() throws {
        let values: [(written: String, text: String)] = [
            ("abcdefghijklmno", "abcdefghijklmno"), ("abcdefghijklmnop", "abcdefghijklmnop"),
            ("abcdefghijklmnopq", "abcdefghijklmnopq"), ("abcdefghijklmnoq", "abcdefghijklmnoq"), ("a", "a"), ("b", "b"),
            ("\"a\\0\"", "a\u{0}"), ("\"a\\0b\"", "a\u{0}b"), ("''", ""), ("Müller", "Müller"), ("Mülles", "Mülles"),
            ("'chain-lube'", "chain-lube"), ("chain-lube", "chain-lube"), ("2025-03-01", "2025-03-01"), ("2025-03-10", "2025-03-10"),
        ]
        var g = SeededGenerator(seed: 0x32_0401)
        var lines: [String] = []
        var expected: [(key: String, text: String)] = []
        for i in 0..<900 {
            // A third of the values are distinct, so the table's slots are taken over again and again.
            let distinct = "v\(i)x\(g.next(1000))"
            let value = i % 3 == 0 ? (written: distinct, text: distinct) : values[g.next(values.count)]
            let key = i % 2 == 0 ? "k\(i)" : "key-\(i)-\(g.next(100))"
            lines.append("\(key): \(value.written)")
            expected.append((key, value.text))
        }
        let doc = YAMLDocument(path: "t.yaml", bytes: Array(lines.joined(separator: "\n").utf8))
        #expect(doc.diagnostics.isEmpty, "\(doc.diagnostics.map(\.message))")
        guard case .mapping(let m)? = doc.root else {
            Issue.record("not a mapping")
            return
        }
        #expect(m.entries.count == expected.count)
        for (entry, want) in zip(m.entries, expected) {
            #expect(entry.keyText == want.key)
            guard case .scalar(let s) = entry.value else {
                Issue.record("\(want.key) is not a scalar")
                continue
            }
            #expect(Array(s.value.utf8) == Array(want.text.utf8), "\(want.key)")
        }
    }
}
