import Foundation
import TestSupport
import Testing

/// Rename across the garage, workspace symbols, snippets, inlay hints, and hover and actions in
/// a file that does not parse, on a copy of example-garage.
@Suite struct NavigationEndToEndTests {
    let garage: TemporaryFolder
    let client: LSPClient
    /// What a client that applies file renames and takes snippets says it can do.
    static var capabilities: [String: Any] {
        [
            "workspace": ["workspaceEdit": ["documentChanges": true, "resourceOperations": ["create", "rename", "delete"]]],
            "textDocument": ["completion": ["completionItem": ["snippetSupport": true]]],
        ]
    }

    init() throws {
        garage = try TemporaryFolder()
        try garage.copyExampleGarage()
        client = try LSPClient(in: garage.url)
        client.start(root: garage.url, capabilities: Self.capabilities)
    }

    func uri(_ file: String) -> String { garage.url.appendingPathComponent(file).absoluteString }

    /// The position of the first `word` on the first line holding `marker` (a character inside it).
    func position(_ text: String, line marker: String, word: String) throws -> [String: Int] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let line = try #require(lines.firstIndex { $0.contains(marker) })
        let character = try #require(lines[line].range(of: word)).lowerBound.utf16Offset(in: lines[line]) + 1
        return ["line": line, "character": character]
    }

    func rename(_ file: String, line marker: String, word: String, to new: String) throws -> [String: Any]? {
        let text = try garage.read(file)
        client.open(uri(file), text)
        return client.request(
            "textDocument/rename",
            ["textDocument": ["uri": uri(file)], "position": try position(text, line: marker, word: word), "newName": new])
    }

    /// Applies a workspace edit's `documentChanges` to the garage's files, as an editor would
    /// (the files are ASCII, so characters are bytes). Returns the files each change named.
    @discardableResult
    func apply(_ response: [String: Any]?) throws -> [String] {
        let changes = try #require((response?["result"] as? [String: Any])?["documentChanges"] as? [[String: Any]], "\(response ?? [:])")
        var named: [String] = []
        for change in changes {
            if change["kind"] as? String == "rename" {
                let old = try #require(URL(string: change["oldUri"] as? String ?? "")), new = try #require(URL(string: change["newUri"] as? String ?? ""))
                try FileManager.default.moveItem(at: old, to: new)
                named.append("rename " + old.lastPathComponent + " " + new.lastPathComponent)
                continue
            }
            let document = try #require(change["textDocument"] as? [String: Any])
            let url = try #require(URL(string: document["uri"] as? String ?? ""))
            var lines = try String(decoding: Data(contentsOf: url), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let edits = (change["edits"] as? [[String: Any]] ?? []).map { ($0["range"], $0["newText"] as? String ?? "") }
            // Last first, so earlier ranges stay where they are.
            for (range, text) in edits.sorted(by: { numbers($0.0).lexicographicallyPrecedes(numbers($1.0)) }).reversed() {
                let n = numbers(range)
                #expect(n[0] == n[2], "one line each")
                var line = Array(lines[n[0]])
                line.replaceSubrange(n[1]..<n[3], with: Array(text))
                lines[n[0]] = String(line)
            }
            try Data(lines.joined(separator: "\n").utf8).write(to: url)
            named.append(url.lastPathComponent)
        }
        return named
    }

    func status(_ subjects: [String] = []) throws -> String {
        let r = try runBikecheck(["status", "--garage", garage.path, "--as-of", "2026-11-15"] + subjects, in: garage.url)
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout
    }

    @Test func renamingATemplatesIntervalChangesItEverywhereTheGarageWritesItAndStatusStaysTheSame() throws {
        let before = try status(["tarmac", "grail"]), others = try status(["charger", "stumpy", "spare-chain"])
        let response = try rename("bikes/tarmac.yaml", line: "done: [chain-lube]", word: "chain-lube", to: "chain-wax")
        // The open buffer's edit carries its version; files not open, null.
        let changes = (response?["result"] as? [String: Any])?["documentChanges"] as? [[String: Any]] ?? []
        let versions = changes.compactMap { $0["textDocument"] as? [String: Any] }.map { ($0["uri"] as? String ?? "", $0["version"]) }
        #expect(versions.contains { $0.0 == uri("bikes/tarmac.yaml") && $0.1 as? Int == 1 })
        #expect(versions.contains { $0.0 == uri("bikes/grail.yaml") && $0.1 is NSNull })
        // The template, the bikes that use it (grail also overrides it); not the spare chain,
        // whose chain-lube is its own.
        #expect(try apply(response).sorted() == ["grail.yaml", "road-basics.yaml", "tarmac.yaml"])
        #expect(try garage.read("parts/spare-chain.yaml").contains("chain-lube:"))
        let validate = try runBikecheck(["validate", "--garage", garage.path], in: garage.url)
        #expect(validate.status == 0, "\(validate.stderr)")
        // The same lines, the interval renamed (the columns may be narrower).
        func words(_ text: String) -> [[Substring]] { text.split(separator: "\n").map { $0.split(separator: " ") } }
        #expect(words(try status(["tarmac", "grail"])) == words(before.replacingOccurrences(of: "chain-lube", with: "chain-wax")))
        // The chain-lube of other templates is another interval.
        #expect(try status(["charger", "stumpy", "spare-chain"]) == others)
    }

    @Test func renamingATemplateRenamesItsFileAndEveryListThatNamesIt() throws {
        let before = try status()
        let response = try rename("bikes/stumpy.yaml", line: "templates:", word: "fox-36", to: "fork-36")
        #expect(try apply(response) == ["stumpy.yaml", "rename fox-36.yaml fork-36.yaml"])
        #expect(try garage.read("bikes/stumpy.yaml").contains("templates: [mtb-basics, fork-36, fox-float-x, tubeless]"))
        #expect(try status() == before)
    }

    @Test func renamingABikeRenamesItsFileAndThePartsMountsAndTheRidesThatNameIt() throws {
        let response = try rename("parts/race-wheels.yaml", line: "{bike: tarmac", word: "tarmac", to: "sl7")
        let named = try apply(response)
        #expect(named.contains("race-wheels.yaml") && named.last == "rename tarmac.yaml sl7.yaml", "\(named)")
        #expect(try garage.read("parts/race-wheels.yaml").contains("{bike: sl7, from: 2026-05-01}"))
        let status = try runBikecheck(["status", "sl7", "--garage", garage.path, "--as-of", "2026-11-15"], in: garage.url)
        #expect(status.status == 0 && status.stdout.contains("sl7 · Specialized Tarmac SL7"), "\(status.stderr)\(status.stdout)")
        let charger = try rename("rides.yaml", line: "bike: charger", word: "charger", to: "commuter")
        try apply(charger)
        #expect(try !garage.read("rides.yaml").contains("charger") && garage.read("rides.yaml").contains("bike: commuter"))
        #expect(try runBikecheck(["validate", "--garage", garage.path], in: garage.url).status == 0)

        // On the `name:` key of its own file: a part, whose id is written nowhere else.
        let part = try rename("parts/spare-chain.yaml", line: "name:", word: "name", to: "chain-spare")
        #expect(try apply(part) == ["rename spare-chain.yaml chain-spare.yaml"])
        let show = try runBikecheck(["part", "show", "chain-spare", "--garage", garage.path], in: garage.url)
        #expect(show.status == 0, "\(show.stderr)")
        // A part that parts are mounted on (the race tyres on the wheelset): their mounts too,
        // from the mount as from the part's own file.
        let wheels = try rename("parts/race-tyres.yaml", line: "{part: race-wheels", word: "race-wheels", to: "wheelset")
        #expect(try apply(wheels) == ["race-tyres.yaml", "rename race-wheels.yaml wheelset.yaml"])
        #expect(try garage.read("parts/race-tyres.yaml").contains("{part: wheelset, from: 2026-03-01}"))
        let tyres = try runBikecheck(["part", "show", "race-tyres", "--garage", garage.path, "--as-of", "2026-11-15"], in: garage.url)
        #expect(tyres.status == 0 && tyres.stdout.contains("sl7 (on wheelset)"), "\(tyres.stderr)\(tyres.stdout)")
    }

    @Test func renameRefusesAnIdThatIsTakenOrNotAnIdAndAFileRenameTheEditorCannotDo() throws {
        let taken = try rename("bikes/tarmac.yaml", line: "done: [chain-lube]", word: "chain-lube", to: "brake-pads")
        #expect((taken?["error"] as? [String: Any])?["message"] as? String == "an interval 'brake-pads' is there already")
        let invalid = try rename("bikes/tarmac.yaml", line: "done: [chain-lube]", word: "chain-lube", to: "chain lube")
        let invalidMessage = (invalid?["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(invalidMessage.hasPrefix("'chain lube' is not a valid id"), "\(invalidMessage)")
        let bike = try rename("parts/race-wheels.yaml", line: "{bike: tarmac", word: "tarmac", to: "grail")
        #expect((bike?["error"] as? [String: Any])?["message"] as? String == "bikes/grail.yaml is there already")

        let plain = try LSPClient(in: garage.url)
        plain.start(root: garage.url)
        let text = try garage.read("bikes/stumpy.yaml")
        plain.open(uri("bikes/stumpy.yaml"), text)
        let refused = plain.request(
            "textDocument/rename",
            ["textDocument": ["uri": uri("bikes/stumpy.yaml")], "position": try position(text, line: "templates:", word: "fox-36"), "newName": "fork"])
        #expect(
            (refused?["error"] as? [String: Any])?["message"] as? String
                == "renaming 'fox-36' renames templates/fox-36.yaml, and this editor does not let a server rename files")
        #expect(FileManager.default.fileExists(atPath: garage.path + "/templates/fox-36.yaml"))
    }

    @Test func workspaceSymbolsFindBikesPartsTemplatesAndIntervalsByIdOrName() throws {
        let result = client.request("workspace/symbol", ["query": "tarmac"])?["result"] as? [[String: Any]] ?? []
        #expect(result.map { $0["name"] as? String ?? "" } == ["tarmac"])
        #expect(((result.first?["location"] as? [String: Any])?["uri"] as? String) == uri("bikes/tarmac.yaml"))
        let byName = client.request("workspace/symbol", ["query": "dt swiss"])?["result"] as? [[String: Any]] ?? []
        #expect(byName.map { $0["name"] as? String ?? "" } == ["race-wheels"])
        let intervals = client.request("workspace/symbol", ["query": "shock-full"])?["result"] as? [[String: Any]] ?? []
        #expect(intervals.map { $0["containerName"] as? String ?? "" } == ["fox-float-x"])
        let location = intervals.first?["location"] as? [String: Any]
        let line = numbers(location?["range"]).first ?? -1
        let template = try garage.read("templates/fox-float-x.yaml").split(separator: "\n", omittingEmptySubsequences: false)
        #expect(line >= 0 && template[line].hasPrefix("  shock-full:"), "\(line)")
    }

    @Test func completionOffersANewIntervalAndALogEntryAsSnippetsIndentedWhereTheCursorIs() throws {
        let text = try garage.read("bikes/tarmac.yaml").replacingOccurrences(of: "\nlog:\n", with: "\nintervals:\n  \nlog:\n  - \n")
        client.open(uri("bikes/tarmac.yaml"), text)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let intervalLine = try #require(lines.firstIndex { $0 == "intervals:" }) + 1
        let items =
            client.request(
                "textDocument/completion", ["textDocument": ["uri": uri("bikes/tarmac.yaml")], "position": ["line": intervalLine, "character": 2]])?[
                "result"] as? [[String: Any]] ?? []
        let interval = try #require(items.first { $0["label"] as? String == "new interval" })
        #expect(interval["insertTextFormat"] as? Int == 2)
        #expect((interval["textEdit"] as? [String: Any])?["newText"] as? String == "${1:new-interval}:\n    task: ${2:What to do}\n    every: ${3:10 h}$0")
        let logLine = try #require(lines.firstIndex { $0 == "  - " })
        let logItems =
            client.request("textDocument/completion", ["textDocument": ["uri": uri("bikes/tarmac.yaml")], "position": ["line": logLine, "character": 4]])?[
                "result"] as? [[String: Any]] ?? []
        // The entry's keys, then the entry as a whole.
        #expect(logItems.map { $0["label"] as? String ?? "" }.suffix(3) == ["readings", "todo", "new log entry"])
        #expect((logItems.last?["textEdit"] as? [String: Any])?["newText"] as? String == "date: ${1:YYYY-MM-DD}\n    done: [${2}]$0")

        // A client without snippets gets plain text.
        let plain = try LSPClient(in: garage.url)
        plain.start(root: garage.url)
        plain.open(uri("bikes/tarmac.yaml"), text)
        let plainItems =
            plain.request("textDocument/completion", ["textDocument": ["uri": uri("bikes/tarmac.yaml")], "position": ["line": logLine, "character": 4]])?[
                "result"] as? [[String: Any]] ?? []
        #expect(plainItems.last?["insertTextFormat"] == nil)
        #expect((plainItems.last?["textEdit"] as? [String: Any])?["newText"] as? String == "date: YYYY-MM-DD\n    done: []")
    }

    @Test func inlayHintsGiveEachIntervalsStatusAfterItsKeyOrItsTemplatesId() throws {
        let text = try garage.read("bikes/grail.yaml")
        client.open(uri("bikes/grail.yaml"), text)
        let hints =
            client.request(
                "textDocument/inlayHint", ["textDocument": ["uri": uri("bikes/grail.yaml")], "range": lspRange(0, 0, 200, 0)])?["result"]
            as? [[String: Any]] ?? []
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let byLine = Dictionary(hints.map { (($0["position"] as? [String: Any])?["line"] as? Int ?? -1, $0["label"] as? String ?? "") }) { a, _ in a }
        let chainLube = try #require(lines.firstIndex { $0 == "  chain-lube:" })
        let templates = try #require(lines.firstIndex { $0.hasPrefix("templates:") })
        #expect(
            byLine[chainLube].map { $0.range(of: #"^(ok|due-soon|overdue|snoozed until \S+) \d+%"#, options: .regularExpression) != nil } == true, "\(hints)")
        // road-basics's intervals but chain-lube and chain-replace (grail overrides them), after the template's id.
        let fromTemplate = byLine[templates] ?? ""
        #expect(fromTemplate.contains("brake-pads: ") && !fromTemplate.contains("chain-lube: ") && !fromTemplate.contains("chain-replace: "), "\(fromTemplate)")
    }

    @Test func hoverAndTheServiceActionInAFileThatDoesNotParseSayWhy() throws {
        let text = try garage.read("bikes/tarmac.yaml")
        client.open(uri("bikes/tarmac.yaml"), text)
        let at = try position(text, line: "done: [chain-lube]", word: "chain-lube")
        let doc = ["uri": uri("bikes/tarmac.yaml")]
        #expect(client.request("textDocument/hover", ["textDocument": doc, "position": at])?["result"] is [String: Any])
        // An unclosed list at the end: the file does not parse.
        client.change(uri("bikes/tarmac.yaml"), version: 2, [["text": text + "  - date: [2026-11-01\n"]])
        let hover = client.request("textDocument/hover", ["textDocument": doc, "position": at])
        let value = ((hover?["result"] as? [String: Any])?["contents"] as? [String: Any])?["value"] as? String ?? ""
        #expect(value.hasPrefix("_`bikes/tarmac.yaml` cannot be read as it is (line "), "\(value)")
        #expect(value.contains("as of the last time it could be read._") && value.contains("chain-lube"), "\(value)")
        let actions =
            client.request(
                "textDocument/codeAction", ["textDocument": doc, "range": ["start": at, "end": at], "context": ["diagnostics": [Any]()]])?["result"]
            as? [[String: Any]] ?? []
        let log = try #require(actions.first { ($0["title"] as? String ?? "").hasPrefix("log chain-lube done today") })
        #expect(log["edit"] == nil)
        #expect((log["disabled"] as? [String: Any])?["reason"] as? String == "'bikes/tarmac.yaml' has errors; fix them before bikecheck writes to it")

        // A file never read: the hover says why.
        try garage.write("bikes/new.yaml", "name: [New\ntemplates: [road-basics]\n")
        client.open(uri("bikes/new.yaml"), "name: [New\ntemplates: [road-basics]\n")
        let never = client.request("textDocument/hover", ["textDocument": ["uri": uri("bikes/new.yaml")], "position": ["line": 1, "character": 14]])
        let why = ((never?["result"] as? [String: Any])?["contents"] as? [String: Any])?["value"] as? String ?? ""
        #expect(why.hasPrefix("`bikes/new.yaml` cannot be read as it is (line ") && why.hasSuffix(", so there is nothing to show here yet."), "\(why)")
    }
}
