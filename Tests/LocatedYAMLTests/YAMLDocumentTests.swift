import Diagnostics
import LocatedYAML
import Testing

@Suite struct YAMLDocumentTests {
    func parse(_ text: String) -> YAMLDocument { YAMLDocument(path: "t.yaml", bytes: Array(text.utf8)) }

    func slice(_ doc: YAMLDocument, _ range: SourceRange) -> String {
        String(decoding: doc.source.bytes[range.start.offset..<range.end.offset], as: UTF8.self)
    }

    func mapping(_ doc: YAMLDocument) throws -> YAMLMapping {
        guard case .mapping(let m) = try #require(doc.root) else { throw Failure("root is not a mapping") }
        return m
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    @Test func scalarRangesCoverExactlyTheValueText() throws {
        let doc = parse("name: Grail\nevery: 10 h # lube\n")
        guard case .scalar(let every) = try #require(try mapping(doc)["every"]) else { throw Failure("not a scalar") }
        #expect(slice(doc, every.range) == "10 h")
        #expect(every.range.start.line == 2)
        #expect(every.range.start.column == 8)
    }

    @Test(arguments: ["plain: Müller\nnext: x\n", "plain: Müller\r\nnext: x\r\n", "# ünïcödé comment\nplain: Müller\nnext: x"])
    func byteOffsetsSurviveUnicodeAndCRLF(_ text: String) throws {
        let doc = parse(text)
        #expect(doc.diagnostics.isEmpty)
        let m = try mapping(doc)
        guard case .scalar(let next) = try #require(m["next"]), case .scalar(let plain) = try #require(m["plain"]) else {
            throw Failure("not scalars")
        }
        #expect(slice(doc, next.range) == "x")
        #expect(slice(doc, plain.range) == "Müller")
        // Columns count characters, not bytes: 'x' is the 7th character of its line.
        #expect(next.range.start.column == 7)
    }

    @Test func aByteOrderMarkIsSkippedAndOffsetsStillPointAtTheText() throws {
        let doc = YAMLDocument(path: "t.yaml", bytes: [0xEF, 0xBB, 0xBF] + Array("name: Grail\nbrand: Müller\nnext: x\n".utf8))
        #expect(doc.diagnostics.isEmpty, "\(doc.diagnostics.map(\.message))")
        let m = try mapping(doc)
        guard case .scalar(let name) = try #require(m["name"]), case .scalar(let next) = try #require(m["next"]) else {
            throw Failure("not scalars")
        }
        #expect(slice(doc, name.range) == "Grail")
        #expect(slice(doc, next.range) == "x")
        #expect(next.range.start.line == 3)
    }

    @Test(arguments: [
        "name: \"caf\u{2028}e\"\nnote: x\nbought: 2025-13-01\n", "a: 1\rb: 2\nnote: x\nbought: 2025-13-01\n",
        "name: \"caf\u{85}e\"\nnote: x\nbought: 2025-13-01\n",
    ])
    func linesCountLineFeedsOnlyWhateverLibyamlThinks(_ text: String) throws {
        let doc = parse(text)
        guard case .scalar(let bought) = try #require(try mapping(doc)["bought"]) else { throw Failure("not a scalar") }
        #expect(bought.range.start.line == 3)
        #expect(bought.range.start.column == 9)
        #expect(doc.source.line(3) == "bought: 2025-13-01")
    }

    @Test func aControlCharacterAfterAByteOrderMarkIsLocatedAtIt() throws {
        let doc = YAMLDocument(path: "t.yaml", bytes: [0xEF, 0xBB, 0xBF] + Array("name: a\u{1}b\n".utf8))
        let d = try #require(doc.diagnostics.first)
        #expect(d.location.range?.start.line == 1)
        #expect(d.location.range?.start.column == 8)
    }

    @Test func anUnclosedBracketAtTheEndOfAFileWithoutAFinalNewlineIsShownWhereItOpens() throws {
        let doc = parse("name: X\ncounts: [Ride")
        let d = try #require(doc.diagnostics.first)
        #expect(d.message == "this '[' is never closed")
        #expect(d.location.range?.start.line == 2)
        #expect(d.location.range?.start.column == 9)
        // Where YAML noticed: the end of the file, still on its last line.
        let noticed = try #require(d.notes.first?.location.range?.start)
        #expect(noticed.line == 2 && noticed.column == 14)
    }

    @Test func quotedAndBlockScalarsKeepTheirStyle() throws {
        let m = try mapping(parse("a: 'one'\nb: \"two\"\nc: |\n  three\nd: four\n"))
        let styles: [ScalarStyle] = try ["a", "b", "c", "d"].map { key in
            guard case .scalar(let s) = try #require(m[key]) else { throw Failure("not a scalar") }
            return s.style
        }
        #expect(styles == [.singleQuoted, .doubleQuoted, .literal, .plain])
    }

    @Test func nestedCollectionsAreLocated() throws {
        let doc = parse("log:\n  - date: 2025-10-02\n    done: [chain-lube, sealant]\n")
        guard case .sequence(let log) = try #require(try mapping(doc)["log"]),
            case .mapping(let entry) = try #require(log.items.first),
            case .sequence(let done) = try #require(entry["done"])
        else { throw Failure("unexpected shape") }
        #expect(done.isFlow)
        #expect(!log.isFlow)
        #expect(slice(doc, done.range) == "[chain-lube, sealant]")
        #expect(done.items.count == 2)
    }

    @Test func aDuplicateKeyIsReportedAtTheRepeatWithANoteAtTheFirst() throws {
        let doc = parse("a: 1\nb: 2\na: 3\n")
        let d = try #require(doc.diagnostics.first)
        #expect(d.id == "duplicate-key")
        #expect(d.location.range?.start.line == 3)
        #expect(d.notes.first?.location.range?.start.line == 1)
        #expect(doc.isUsable, "a duplicate key does not stop later checks")
    }

    @Test func aDuplicateKeyInALongMappingIsDroppedAndTheEntriesKeepTheirOrder() throws {
        let keys = (0..<10).map { "k\($0)" }
        let text = keys.map { "\($0): \($0)\n" }.joined() + "k3: again\nk10: last\n"
        let doc = parse(text)
        #expect(doc.diagnostics.map(\.id) == ["duplicate-key"])
        #expect(doc.diagnostics.first?.location.range?.start.line == 11)
        #expect(doc.diagnostics.first?.notes.first?.location.range?.start.line == 4)
        let m = try mapping(doc)
        #expect(m.entries.compactMap(\.keyText) == keys + ["k10"])
        guard case .scalar(let first) = try #require(m["k3"]) else { throw Failure("k3 is not a scalar") }
        #expect(first.value == "k3")
        #expect(slice(doc, m.range) == String(text.dropLast()))
    }

    @Test func aKeyThatIsNotAScalarIsReportedAndDroppedWithItsValue() throws {
        let doc = parse("? [a, b]\n: 1\nc: 2\nd: [x, {e: f}]\n")
        #expect(doc.diagnostics.map(\.id) == ["yaml-complex-key"])
        #expect(doc.diagnostics.first?.location.range?.start.line == 1)
        let m = try mapping(doc)
        #expect(m.entries.compactMap(\.keyText) == ["c", "d"])
        guard case .sequence(let d) = try #require(m["d"]), case .mapping(let inner) = try #require(d.items.last) else {
            throw Failure("unexpected shape")
        }
        #expect(d.items.count == 2)
        #expect(slice(doc, inner.range) == "{e: f}")
    }

    @Test func deepNestingStopsWithOneDiagnosticInsteadOfOverflowingTheStack() {
        for opener in ["[", "{a: ", "- "] {
            let text = String(repeating: opener, count: 20_000) + "x\n"
            let doc = parse(text)
            #expect(!doc.isUsable)
            #expect(doc.diagnostics.map(\.id) == ["yaml-too-deep"], "\(opener): \(doc.diagnostics.map(\.message))")
        }
    }

    @Test func anAliasBombIsRefusedWithOneAliasDiagnostic() {
        var lines = ["a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]"]
        for (name, previous) in zip("bcdefghi", "abcdefgh") {
            lines.append("\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ",") + "]")
        }
        let doc = parse(lines.joined(separator: "\n") + "\n")
        #expect(!doc.isUsable)
        #expect(doc.diagnostics.filter { $0.id == "yaml-alias" }.count == 1)
        #expect(doc.diagnostics.filter { $0.id == "yaml-anchor" }.count == 1)
    }

    @Test func invalidUTF8IsLocatedAtTheBadByte() throws {
        let doc = YAMLDocument(path: "t.yaml", bytes: Array("a: 1\nname: M".utf8) + [0xFC] + Array("ller\n".utf8))
        let d = try #require(doc.diagnostics.first)
        #expect(d.id == "invalid-utf8")
        #expect(d.location.range?.start.line == 2)
        #expect(d.location.range?.start.column == 8)
    }

    @Test(arguments: ["", "\n\n", "# only a comment\n", "   \n# x\n"])
    func emptyFilesAreAnError(_ text: String) {
        let doc = parse(text)
        #expect(doc.diagnostics.map(\.id) == ["empty-file"])
        #expect(!doc.isUsable)
    }

    @Test func aSecondDocumentIsAnError() throws {
        let doc = parse("a: 1\n---\nb: 2\n")
        #expect(doc.diagnostics.map(\.id) == ["yaml-multiple-documents"])
        #expect(doc.diagnostics.first?.location.range?.start.line == 2)
    }

    @Test func aTabInIndentationIsNamed() throws {
        let doc = parse("a:\n\tb: 1\n")
        #expect(doc.diagnostics.map(\.id) == ["yaml-tab"])
        #expect(doc.diagnostics.first?.location.range?.start.line == 2)
    }

    @Test func nullsAreRecognisedOnlyWhenPlain() throws {
        let m = try mapping(parse("a:\nb: ~\nc: null\nd: 'null'\n"))
        let nulls = try ["a", "b", "c", "d"].map { key -> Bool in
            guard case .scalar(let s) = try #require(m[key]) else { throw Failure("not a scalar") }
            return s.isNull
        }
        #expect(nulls == [true, true, true, false])
    }

    @Test func theLayersOwnHelpSpeaksOfYAMLOnlyAndItsUserMayWordIt() throws {
        let files = ["a: &x 1\nb: *x\n", "a: [1, 2\n", "a: {b: 1\n"]
        let helps = files.flatMap { parse($0).diagnostics.compactMap(\.help) }
        #expect(helps.count >= 3, "\(helps)")
        for help in helps { #expect(!["bike", "garage", "interval", "template", "bikecheck"].contains { help.contains($0) }, "\(help)") }
        var limits = YAMLDocument.Limits()
        limits.help.alias = "share it through a template"
        let worded = YAMLDocument(path: "t.yaml", bytes: Array(files[0].utf8), limits: limits)
        #expect(worded.diagnostics.first?.help == "share it through a template")
        #expect(worded.limits.help.alias == "share it through a template", "an edit re-parses with the same wording")
    }
}
