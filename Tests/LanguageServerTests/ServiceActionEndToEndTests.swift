import Foundation
import TestSupport
import Testing

/// "log this service today": the code action's edit, applied to the buffer, is byte for byte
/// what `bikecheck done` writes to the same file.
@Suite struct ServiceActionEndToEndTests {
    /// The server's today (`lsp --as-of`), after every entry of the example garage's logs.
    static let today = "2026-11-10"

    /// A copy of example-garage.
    static func copyOfExampleGarage() throws -> TemporaryFolder {
        let garage = try TemporaryFolder()
        try garage.copyExampleGarage()
        return garage
    }

    /// The server's actions at the first occurrence of `word` on a line containing `line`.
    func actions(_ client: LSPClient, _ uri: String, _ text: String, line marker: String, word: String) -> [[String: Any]] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let line = lines.firstIndex { $0.contains(marker) }!
        let character = lines[line].range(of: word).map { lines[line][..<$0.lowerBound].utf16.count + 1 }!
        let response = client.request(
            "textDocument/codeAction",
            ["textDocument": ["uri": uri], "range": lspRange(line, character, line, character), "context": ["diagnostics": [Any]()]])
        return response?["result"] as? [[String: Any]] ?? []
    }

    /// What `bikecheck done ARGS --date DATE` writes to `file` in a garage whose `file` holds `text`.
    func doneWrites(_ file: String, from text: String, _ arguments: [String], date: String = ServiceActionEndToEndTests.today) throws -> String {
        let other = try Self.copyOfExampleGarage()
        try Data(text.utf8).write(to: other.url.appendingPathComponent(file))
        let run = try runBikecheck(["done"] + arguments + ["--date", date, "--garage", other.path], in: other.url)
        #expect(run.status == 0, "\(run.stderr)")
        return try other.read(file)
    }

    @Test func loggingAServiceTodayEditsTheBufferAsDoneWritesTheFileRemovingItsSnooze() throws {
        let garage = try Self.copyOfExampleGarage()
        let client = try LSPClient(in: garage.url, arguments: ["lsp", "--as-of", Self.today])
        client.start(root: garage.url)
        let uri = garage.url.appendingPathComponent("bikes/stumpy.yaml").absoluteString
        let text = try garage.read("bikes/stumpy.yaml")
        client.open(uri, text)
        let found = actions(client, uri, text, line: "shock-full: 2028", word: "shock-full")
        let action = try #require(found.first { ($0["title"] as? String)?.hasPrefix("log shock-full done today") == true })
        #expect(action["title"] as? String == "log shock-full done today (\(Self.today))")
        let edits = try #require(documentEdits(action, uri))
        // Two places change, the snooze line and the end of the log: two edits, nothing between.
        #expect(edits.count == 2)
        #expect(applying(edits, to: text) == (try doneWrites("bikes/stumpy.yaml", from: text, ["stumpy", "shock-full"])))
        // The server plans; the editor writes.
        #expect(try garage.read("bikes/stumpy.yaml") == text)
    }

    @Test func theActionIsPlannedOverTheUnsavedBufferNotTheFileOnDisk() throws {
        let garage = try Self.copyOfExampleGarage()
        let client = try LSPClient(in: garage.url, arguments: ["lsp", "--as-of", "2026-10-15"])
        client.start(root: garage.url)
        let uri = garage.url.appendingPathComponent("bikes/tarmac.yaml").absoluteString
        // Unsaved: an override of chain-lube, and a log entry the file on disk does not have.
        let text = try garage.read("bikes/tarmac.yaml")
            .replacingOccurrences(of: "\nlog:\n", with: "\nintervals:\n  chain-lube:\n    every: 5 h\n\nlog:\n")
            .replacingOccurrences(of: "    note: new BB, cables\n", with: "    note: new BB, cables\n  - date: 2026-09-01\n    done: [bar-tape]\n")
        client.open(uri, text)
        let found = actions(client, uri, text, line: "  chain-lube:", word: "chain-lube")
        let action = try #require(found.first { $0["kind"] as? String == "refactor.rewrite" })
        let edits = try #require(documentEdits(action, uri))
        let applied = applying(edits, to: text)
        #expect(applied == (try doneWrites("bikes/tarmac.yaml", from: text, ["tarmac", "chain-lube"], date: "2026-10-15")))
        // Backdated into a log kept in date order: before 2026-11-01, after the buffer's 2026-09-01.
        #expect(applied.contains("    done: [bar-tape]\n  - date: 2026-10-15\n    done: [chain-lube]\n  - date: 2026-11-01\n"))
    }

    @Test func noServiceIsOfferedOffAnIntervalAndInAFileDoneWouldRefuseItSaysWhy() throws {
        let garage = try Self.copyOfExampleGarage()
        let client = try LSPClient(in: garage.url, arguments: ["lsp", "--as-of", Self.today])
        client.start(root: garage.url)
        let uri = garage.url.appendingPathComponent("bikes/tarmac.yaml").absoluteString
        let text = try garage.read("bikes/tarmac.yaml")
        client.open(uri, text)
        #expect(actions(client, uri, text, line: "templates:", word: "road-basics").isEmpty)
        #expect(actions(client, uri, text, line: "done: [chain-lube]", word: "chain-lube").count == 1)
        // An interval the bike does not have is an error in the file: `done` refuses to write to
        // a file with errors, so the action is there but disabled, with done's reason, and no edit.
        let broken = text.replacingOccurrences(of: "done: [chain-lube]\n", with: "done: [chain-lube, no-such]\n")
        client.change(uri, version: 2, [["text": broken]])
        #expect(actions(client, uri, broken, line: "[chain-lube, no-such]", word: "no-such").isEmpty)
        let offered = actions(client, uri, broken, line: "[chain-lube, no-such]", word: "chain-lube").filter { $0["kind"] as? String == "refactor.rewrite" }
        #expect(offered.count == 1 && offered.allSatisfy { $0["edit"] == nil }, "\(offered)")
        #expect(
            offered.first.flatMap { ($0["disabled"] as? [String: Any])?["reason"] as? String }
                == "'bikes/tarmac.yaml' has errors; fix them before bikecheck writes to it")
    }
}

/// `text` with the protocol's edits applied (positions in UTF-16 code units, none overlapping).
func applying(_ edits: [[String: Any]], to text: String) -> String {
    var units = Array(text.utf16)
    func offset(_ line: Int, _ character: Int) -> Int {
        var l = 0, i = 0
        while l < line, i < units.count {
            if units[i] == 10 { l += 1 }
            i += 1
        }
        return i + character
    }
    let located = edits.map { edit -> (Int, Int, String) in
        let r = numbers(edit["range"])
        return (offset(r[0], r[1]), offset(r[2], r[3]), edit["newText"] as? String ?? "")
    }
    for (start, end, new) in located.sorted(by: { $0.0 > $1.0 }) { units.replaceSubrange(start..<end, with: Array(new.utf16)) }
    return String(decoding: units, as: UTF16.self)
}
