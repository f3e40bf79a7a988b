import Diagnostics
import LocatedYAML
import Testing

/// Applies edits to `text` and returns the new text.
func edited(_ text: String, _ edits: [YAMLEdit]) throws -> String {
    let editor = YAMLEditor(path: "t.yaml", bytes: Array(text.utf8))
    return String(decoding: try editor.apply(edits), as: UTF8.self)
}

/// The diagnostics of a refused edit, or nil when it went through.
func refusal(_ text: String, _ edits: [YAMLEdit]) -> [Diagnostic]? {
    do {
        _ = try YAMLEditor(path: "t.yaml", bytes: Array(text.utf8)).apply(edits)
        return nil
    } catch {
        return error.diagnostics
    }
}

let logEntry = YAMLValue.mapping([YAMLPair("date", .plain("2026-11-16")), YAMLPair("done", .flowList([.plain("chain-lube")]))])

@Suite struct YAMLEditorTests {
    @Test func insertingIntoABlockListPutsTheItemAfterThePreviousItemsLinesAndComments() throws {
        let text =
            "log:\r\n  # spring\r\n  - date: 2026-03-01   # KMC\r\n    done: [chain-replace]\r\n    # a note on march\r\n  - date: 2026-09-01\r\n    done: [chain-lube]\r\n"
        let middle = try edited(text, [.insert(logEntry, into: ["log"], at: 1)])
        #expect(
            middle == "log:\r\n  # spring\r\n  - date: 2026-03-01   # KMC\r\n    done: [chain-replace]\r\n    # a note on march\r\n"
                + "  - date: 2026-11-16\r\n    done: [chain-lube]\r\n  - date: 2026-09-01\r\n    done: [chain-lube]\r\n")
        let first = try edited(text, [.insert(logEntry, into: ["log"], at: 0)])
        #expect(first.hasPrefix("log:\r\n  # spring\r\n  - date: 2026-11-16\r\n    done: [chain-lube]\r\n  - date: 2026-03-01   # KMC\r\n"))
        // At the end it is an append; into a '[ ]' list it is refused, not rewritten.
        #expect(try edited(text, [.insert(logEntry, into: ["log"], at: 2)]) == edited(text, [.append(logEntry, to: ["log"])]))
        #expect(refusal("log: [{date: 2026-01-01, done: [a]}]\n", [.insert(logEntry, into: ["log"], at: 0)]) != nil)
    }

    @Test func noEditsGiveTheSameBytes() throws {
        let text = "name: x # c\r\nlog: []"
        #expect(try edited(text, []) == text)
    }

    @Test func appendingToABlockListAddsLinesAfterTheLastItemAndKeepsCommentsBelowIt() throws {
        let text = """
            name: Grail   # the gravel bike
            log:
              - date: 2026-03-01
                done: [chain-replace]   # KMC
                note: |
                  two lines
                  of notes

            # Components below
            components:
              chain: {}

            """
        let result = try edited(text, [.append(logEntry, to: ["log"])])
        #expect(
            result == """
                name: Grail   # the gravel bike
                log:
                  - date: 2026-03-01
                    done: [chain-replace]   # KMC
                    note: |
                      two lines
                      of notes
                  - date: 2026-11-16
                    done: [chain-lube]

                # Components below
                components:
                  chain: {}

                """)
    }

    @Test func appendingAfterATrailingCommentKeepsTheCommentOnItsLine() throws {
        let text = "log:\n- date: 2026-01-01\n  done: [a]  # first\n# end of log\n"
        let result = try edited(text, [.append(logEntry, to: ["log"])])
        #expect(result == "log:\n- date: 2026-01-01\n  done: [a]  # first\n- date: 2026-11-16\n  done: [chain-lube]\n# end of log\n")
    }

    @Test func aMissingKeyIsAddedAtTheEndInTheFileIndentation() throws {
        let text = "name: Stumpy\nintervals:\n    fork:\n        every: 50 h\n"
        let result = try edited(text, [.addKey("log", .list([logEntry]), in: [])])
        #expect(result == text + "log:\n    - date: 2026-11-16\n      done: [chain-lube]\n")
    }

    @Test func anEmptyFlowListBecomesABlockListChangingOneLine() throws {
        let text = "name: x\nlog: []   # nothing yet\nnotes: hi\n"
        let result = try edited(text, [.set(["log"], .list([logEntry]))])
        #expect(result == "name: x\nlog:   # nothing yet\n  - date: 2026-11-16\n    done: [chain-lube]\nnotes: hi\n")
    }

    @Test func aNullValueIsFilledIn() throws {
        #expect(try edited("name: x\nlog:\n", [.set(["log"], .list([logEntry]))]) == "name: x\nlog:\n  - date: 2026-11-16\n    done: [chain-lube]\n")
        #expect(try edited("name: x\nretired:\n", [.set(["retired"], .plain("2026-01-02"))]) == "name: x\nretired: 2026-01-02\n")
        #expect(try edited("name: x\nretired: ~\n", [.set(["retired"], .plain("2026-01-02"))]) == "name: x\nretired: 2026-01-02\n")
    }

    @Test func crlfStaysCRLFAndAMissingFinalNewlineStaysMissing() throws {
        let text = "name: Ünïcode 🚲\r\nlog:\r\n  - date: 2026-01-01\r\n    done: [a]"
        let result = try edited(text, [.append(logEntry, to: ["log"])])
        #expect(result == text + "\r\n  - date: 2026-11-16\r\n    done: [chain-lube]")
    }

    @Test func addingAKeyAfterASiblingPutsItThere() throws {
        let text = "name: x\nbought: 2024-01-01\nlog:\n  - date: 2026-01-01\n    done: [a]\n"
        let result = try edited(text, [.addKey("retired", .plain("2026-11-01"), in: [], after: ["bought"])])
        #expect(result == "name: x\nbought: 2024-01-01\nretired: 2026-11-01\nlog:\n  - date: 2026-01-01\n    done: [a]\n")
    }

    @Test func aFlowListOfScalarsGetsOneMoreItemOnTheSameLine() throws {
        #expect(
            try edited("templates: [road, tubeless]  # mine\n", [.append(.plain("gravel"), to: ["templates"])])
                == "templates: [road, tubeless, gravel]  # mine\n")
        #expect(try edited("templates: []\n", [.append(.plain("road"), to: ["templates"])]) == "templates: [road]\n")
    }

    @Test func aOneLineFlowMappingGetsAKeyAfterItsAnchorAndNothingElseMoves() throws {
        let text = "mounts:\r\n  - {bike: grail, from: 2026-05-01, note: 'race'}   # season\r\n"
        #expect(
            try edited(text, [.addKey("to", .plain("2026-11-09"), in: ["mounts", 0], after: ["from"])])
                == "mounts:\r\n  - {bike: grail, from: 2026-05-01, to: 2026-11-09, note: 'race'}   # season\r\n")
        // A value that needs quotes inside '{ }' gets them.
        let quoted = try edited("{name: x}", [.addKey("note", .text("a, b"), in: [])])
        #expect(quoted == "{name: x, note: \"a, b\"}")
    }

    @Test func aOneLineFlowListOfFlowMappingsGetsOneMoreOnTheSameLine() throws {
        let mount = YAMLValue.flowMapping([YAMLPair("bike", .plain("tarmac")), YAMLPair("from", .plain("2026-11-16"))])
        #expect(
            try edited("mounts: [{bike: grail, from: 2026-01-01}]  # one", [.append(mount, to: ["mounts"])])
                == "mounts: [{bike: grail, from: 2026-01-01}, {bike: tarmac, from: 2026-11-16}]  # one")
        // Not into a list of scalars, nor into one over several lines.
        #expect(refusal("mounts: [a, b]\n", [.append(mount, to: ["mounts"])]) != nil)
        #expect(refusal("mounts: [{bike: a, from: 2026-01-01},\n  {bike: b, from: 2026-02-01}]\n", [.append(mount, to: ["mounts"])]) != nil)
    }

    @Test func settingAQuotedScalarKeepsItsQuotes() throws {
        #expect(try edited("name: 'Old name'\n", [.set(["name"], .text("It's new"))]) == "name: 'It''s new'\n")
        #expect(try edited("name: \"Old\"\n", [.set(["name"], .text("New"))]) == "name: \"New\"\n")
        #expect(try edited("name: Old\n", [.set(["name"], .text("New"))]) == "name: New\n")
    }

    @Test func removingAKeyRemovesItsLinesOnly() throws {
        let text = "name: x\nnotes: |\n  a\n  b\n# keep\nlog: []\n"
        #expect(try edited(text, [.removeKey("notes", from: [])]) == "name: x\n# keep\nlog: []\n")
        #expect(try edited("a: 1\nb: 2", [.removeKey("b", from: [])]) == "a: 1")
    }

    @Test(arguments: [
        ("{name: x,\n other: 1}", YAMLEdit.addKey("log", .plain("1"), in: [])),
        ("{name: x}", YAMLEdit.addKey("log", .flowList([.plain("1")]), in: [])),
        ("log: [{date: 2026-01-01}]\n", YAMLEdit.append(.flowMapping([YAMLPair("done", .flowList([.plain("a")]))]), to: ["log"])),
        ("log: [{date: 2026-01-01}]\n", YAMLEdit.append(logEntry, to: ["log"])),
        ("name: &a x\nother: 1\n", YAMLEdit.addKey("log", .plain("1"), in: [])),
        ("name: !!str x\n", YAMLEdit.addKey("log", .plain("1"), in: [])),
        ("name: x\n---\nname: y\n", YAMLEdit.addKey("log", .plain("1"), in: [])),
        ("name: x\n", YAMLEdit.addKey("name", .plain("1"), in: [])),
        ("notes: |\n  a\n", YAMLEdit.set(["notes"], .text("b"))),
    ])
    func unsafeEditsAreRefusedWithALocatedDiagnostic(text: String, edit: YAMLEdit) throws {
        let diagnostics = try #require(refusal(text, [edit]))
        #expect(!diagnostics.isEmpty)
        #expect(diagnostics.allSatisfy { $0.location.file == "t.yaml" && $0.severity == .error })
        #expect(diagnostics.contains { $0.id.hasPrefix("yaml-edit") })
    }

    @Test(arguments: [
        ("2024-05-01", "'2024-05-01'"), ("yes", "'yes'"), ("a: b", "'a: b'"), ("a #b", "'a #b'"), ("12.5", "'12.5'"),
        ("KMC X11, old one at 0.5 % stretch", "KMC X11, old one at 0.5 % stretch"), ("Ünïcode", "Ünïcode"), ("", "''"),
        ("- dash", "'- dash'"), ("null", "'null'"), ("#1", "'#1'"), ("it's", "it's"),
    ])
    func newTextIsQuotedOnlyWhenPlainWouldReadBackAsSomethingElse(value: String, expected: String) {
        #expect(YAMLScalarWriter(quote: .single).render(.text(value)).text == expected)
    }

    @Test func typedPlainValuesStayPlain() {
        let w = YAMLScalarWriter()
        #expect(w.render(.plain("2026-11-16")).text == "2026-11-16")
        #expect(w.render(.plain("45.99")).text == "45.99")
        #expect(w.render(.text("line\nbreak")).text == "\"line\\nbreak\"")
    }

    @Test func newQuotesFollowTheFile() throws {
        let result = try edited("a: 'x'\nb: 'y'\n", [.addKey("c", .text("yes"), in: [])])
        #expect(result == "a: 'x'\nb: 'y'\nc: 'yes'\n")
        #expect(try edited("a: \"x\"\n", [.addKey("c", .text("no"), in: [])]) == "a: \"x\"\nc: \"no\"\n")
    }
}

@Suite struct YAMLEditorEdgeTests {
    @Test func appendingAfterABlockScalarAtTheEndOfAFileWithoutANewlineIsRefused() throws {
        // The scalar's text would gain a line break: the check catches it and nothing is written.
        let text = "log:\n- note: |\n    last words"
        let diagnostics = try #require(refusal(text, [.append(.plain("x"), to: ["log"])]))
        #expect(diagnostics.map(\.id) == ["yaml-edit-unsafe"])
        #expect(diagnostics.first?.location.range?.start.line == 3)
    }

    @Test func aKeepChompedBlockScalarKeepsItsTrailingBlankLines() throws {
        let text = "notes: |+\n  kept\n\nname: x\nlog:\n  - a\n"
        #expect(
            try edited(text, [.addKey("bought", .plain("2024-01-01"), in: [], after: ["notes"])])
                == "notes: |+\n  kept\n\nbought: 2024-01-01\nname: x\nlog:\n  - a\n")
    }

    @Test func documentStartAndEndMarkersAreKept() throws {
        let text = "---\nname: x\n...\n"
        #expect(try edited(text, [.addKey("log", .list([.plain("a")]), in: [])]) == "---\nname: x\nlog:\n  - a\n...\n")
    }

    @Test func nestedAppendsUseTheNestedIndentation() throws {
        let text = "intervals:\n   chain-lube:\n      every: 10 h\n"
        #expect(
            try edited(text, [.addKey("task", .text("Lube"), in: ["intervals", "chain-lube"])])
                == "intervals:\n   chain-lube:\n      every: 10 h\n      task: Lube\n")
        #expect(
            try edited(text, [.addKey("wax", .mapping([YAMLPair("every", .plain("300 km"))]), in: ["intervals"])])
                == "intervals:\n   chain-lube:\n      every: 10 h\n   wax:\n      every: 300 km\n")
    }

    @Test func oneLineMappingsAreWrittenInFlowStyle() throws {
        let text = "rides:\n  - {date: 2026-01-01, time: 1h}\n"
        let item = YAMLValue.flowMapping([
            YAMLPair("date", .plain("2026-01-02")), YAMLPair("time", .text("1:30")),
            YAMLPair("name", .text("a, b")), YAMLPair("tags", .flowList([.plain("x")])),
        ])
        #expect(
            try edited(text, [.append(item, to: ["rides"])])
                == text + "  - {date: 2026-01-02, time: \"1:30\", name: \"a, b\", tags: [x]}\n")
    }

    @Test func commentLinesIndentedUnderTheLastEntryStayWithIt() throws {
        let text = "log:\n  - date: 2026-01-01\n    done: [a]\n    # the chain was at 0.5 %\n  # about the log\n# next section\nnotes: x\n"
        #expect(
            try edited(text, [.append(.plain("b"), to: ["log"])])
                == "log:\n  - date: 2026-01-01\n    done: [a]\n    # the chain was at 0.5 %\n  - b\n  # about the log\n# next section\nnotes: x\n")
        let mapping = "intervals:\n  lube:\n    every: 10 h\n    # weekly in winter\n# bikes\n"
        #expect(
            try edited(mapping, [.addKey("wax", .mapping([YAMLPair("every", .plain("300 km"))]), in: ["intervals"])])
                == "intervals:\n  lube:\n    every: 10 h\n    # weekly in winter\n  wax:\n    every: 300 km\n# bikes\n")
        let last = "log:\n  - a\n    # no newline"
        #expect(try edited(last, [.append(.plain("b"), to: ["log"])]) == "log:\n  - a\n    # no newline\n  - b")
    }
}
