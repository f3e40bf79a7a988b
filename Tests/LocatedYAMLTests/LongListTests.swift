import LocatedYAML
import Testing

/// A bike's service log grows for years; composing a list must stay linear in its length
/// (appending to a list used to copy it, so 10,000 entries took a second or more).
@Test func aLongListComposesEveryItemInOrder() throws {
    var text = "log:\n"
    for i in 0..<10_000 { text += "  - {date: 2020-01-01, done: [item-\(i)]}\n" }
    let doc = YAMLDocument(path: "long.yaml", bytes: Array(text.utf8))
    #expect(doc.diagnostics.isEmpty)
    guard case .mapping(let m) = try #require(doc.root), case .sequence(let log) = try #require(m["log"]) else {
        Issue.record("expected a mapping with a list under 'log'")
        return
    }
    #expect(log.items.count == 10_000)
    #expect(log.items.last?.range.start.line == 10_001)
}
