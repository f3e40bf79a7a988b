import Diagnostics
import LocatedYAML
import Testing

@Suite struct YAMLDocumentTests {
    @Test func scalarRangesCoverExactlyTheValueText() throws {
        let text = "name: Grail\nevery: 10 h # lube\n"
        let doc = YAMLDocument(path: "t.yaml", bytes: Array(text.utf8))
        guard case .mapping(let m) = try #require(doc.root), case .scalar(let every) = try #require(m["every"]) else {
            Issue.record("expected a mapping with a scalar")
            return
        }
        let bytes = Array(text.utf8)
        #expect(String(decoding: bytes[every.range.start.offset..<every.range.end.offset], as: UTF8.self) == "10 h")
        #expect(every.range.start.line == 2)
        #expect(every.range.start.column == 8)
    }
}
