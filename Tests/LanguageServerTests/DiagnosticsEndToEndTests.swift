import Foundation
import TestSupport
import Testing

/// Diagnostics in the editor are `validate`'s: the same ids, severities, messages and ranges, over
/// the buffers as they stand.
@Suite struct DiagnosticsEndToEndTests {
    /// Everything the server published from message `from` (by default its first) to the answer
    /// to a request sent now (a request runs the pending check first, and messages go out in
    /// order). Counting from the start, not from now: a fast server has published before the
    /// request is sent.
    static func publishedAtStart(_ client: LSPClient, from: Int = 0) -> [String: [[String: Any]]] {
        let id = client.send("textDocument/documentSymbol", ["textDocument": ["uri": "file:///nowhere.yaml"]])
        _ = client.response(id)
        var byURI: [String: [[String: Any]]] = [:]
        for message in client.messages[from...] where (message["method"] as? String) == "textDocument/publishDiagnostics" {
            let params = message["params"] as? [String: Any] ?? [:]
            byURI[params["uri"] as? String ?? ""] = params["diagnostics"] as? [[String: Any]] ?? []
        }
        return byURI
    }

    /// One diagnostic reduced to what both sides must agree on.
    struct Seen: Hashable, CustomStringConvertible {
        var file: String
        var id: String
        var severity: Int
        var range: [Int]
        var message: String
        /// Each note as `file line character message` (where it starts).
        var notes: [String]
        var description: String { "\(file) \(range) \(id) \(severity) \(message) \(notes)" }
    }

    /// A 1-based scalar column of a line, as a 0-based UTF-16 character (after any BOM).
    static func utf16(_ line: Int, _ column: Int, in bytes: [UInt8]) -> Int {
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard line >= 1, line <= lines.count else { return column - 1 }
        let scalars = lines[line - 1].unicodeScalars.prefix(column - 1)
        return scalars.reduce(0) { $0 + ($1.value > 0xFFFF ? 2 : 1) }
    }

    /// What `bikecheck validate` reports for the garage at `garage`, as the editor would see it.
    static func validated(_ garage: URL) throws -> [Seen] {
        let validated = try runBikecheck(["validate", "--format", "json", "--garage", garage.path], in: garage)
        let json = try JSONSerialization.jsonObject(with: Data(validated.stdout.utf8)) as? [String: Any]
        var expected: [Seen] = []
        for d in json?["diagnostics"] as? [[String: Any]] ?? [] {
            let file = d["file"] as? String ?? ""
            let bytes = (try? [UInt8](Data(contentsOf: garage.appendingPathComponent(file)))) ?? []
            var range = [0, 0, 0, 0]
            if let s = d["start"] as? [String: Int], let e = d["end"] as? [String: Int] {
                range = [s["line"]! - 1, Self.utf16(s["line"]!, s["column"]!, in: bytes), e["line"]! - 1, Self.utf16(e["line"]!, e["column"]!, in: bytes)]
            }
            let severity = ["error": 1, "warning": 2, "note": 3][d["severity"] as? String ?? ""] ?? 0
            // The editor shows the help line under the message.
            let message = (d["message"] as? String ?? "") + ((d["help"] as? String).map { "\nhelp: " + $0 } ?? "")
            let notes = (d["notes"] as? [[String: Any]] ?? []).map { n -> String in
                let file = n["file"] as? String ?? ""
                let bytes = (try? [UInt8](Data(contentsOf: garage.appendingPathComponent(file)))) ?? []
                let (line, column) = (n["line"] as? Int ?? 1, n["column"] as? Int ?? 1)
                return "\(file) \(line - 1) \(Self.utf16(line, column, in: bytes)) \(n["message"] as? String ?? "")"
            }
            expected.append(Seen(file: file, id: d["id"] as? String ?? "", severity: severity, range: range, message: message, notes: notes))
        }
        return expected.sorted { $0.description < $1.description }
    }

    /// The diagnostics published (by URI, as `publishedAtStart` gives them) for the garage at
    /// `garage`, as `validated` gives them.
    static func seen(_ byURI: [String: [[String: Any]]], in garage: URL) -> [Seen] {
        var published: [Seen] = []
        for (uri, diagnostics) in byURI {
            let path = URL(string: uri)?.path ?? uri
            let file = path.hasPrefix(garage.path + "/") ? String(path.dropFirst(garage.path.count + 1)) : path
            for d in diagnostics {
                let message = d["message"] as? String ?? ""
                let notes = (d["relatedInformation"] as? [[String: Any]] ?? []).map { n -> String in
                    let location = n["location"] as? [String: Any] ?? [:]
                    let path = URL(string: location["uri"] as? String ?? "")?.path ?? ""
                    let start = numbers(location["range"])
                    return
                        "\(String(path.dropFirst(garage.path.count + 1))) \(start.first ?? -1) \(start.dropFirst().first ?? -1) \(n["message"] as? String ?? "")"
                }
                published.append(
                    Seen(
                        file: file, id: d["code"] as? String ?? "", severity: d["severity"] as? Int ?? 0, range: numbers(d["range"]), message: message,
                        notes: notes))
            }
        }
        return published.sorted { $0.description < $1.description }
    }

    @Test(arguments: CatalogueCase.names)
    func theServerPublishesWhatValidateReportsForEveryCatalogueCase(_ name: String) throws {
        let parsed = CatalogueCase(try String(contentsOf: CatalogueCase.folder.appendingPathComponent(name + ".case"), encoding: .utf8))
        let garage = try TemporaryFolder()
        try parsed.write(into: garage)

        let expected = try Self.validated(garage.url)
        #expect(!expected.isEmpty, "validate found nothing in \(name)")

        let client = try LSPClient(in: garage.url)
        client.start(root: garage.url)
        let published = Self.seen(Self.publishedAtStart(client), in: garage.url)
        #expect(published == expected)
        #expect(client.stop() == 0)
    }

    static let bike = """
        name: Grail
        templates: [road]
        log:
          - date: 2025-01-02
            done: [chain-lube]

        """
    static let template = """
        name: Road
        intervals:
          chain-lube:
            task: Lube the chain
            every: 10 h

        """

    func roadGarage() throws -> TemporaryFolder {
        try TemporaryFolder([
            "garage.yaml": Array("units: metric\n".utf8), "bikes/grail.yaml": Array(Self.bike.utf8),
            "templates/road.yaml": Array(Self.template.utf8),
        ])
    }

    @Test func anUnsavedEditIsCheckedAsItStandsAndAFixClearsIt() throws {
        let garage = try roadGarage()
        let client = try LSPClient(in: garage.url)
        client.start(root: nil)
        let uri = garage.url.appendingPathComponent("bikes/grail.yaml").absoluteString
        var from = client.count
        client.open(uri, Self.bike)
        // Found from the opened file (no workspace folder), and clean.
        #expect(client.diagnostics(for: uri, after: from)?.isEmpty == true)

        from = client.count
        // Line 1 (`templates: [road]`), characters 12..<16: `road` becomes `roab`, unsaved.
        client.change(uri, version: 2, [["range": lspRange(1, 12, 1, 16), "text": "roab"]])
        let broken = client.diagnostics(for: uri, after: from)
        #expect(broken?.map { $0["code"] as? String } == ["unknown-template"])
        #expect(numbers(broken?.first?["range"]) == [1, 12, 1, 16])
        #expect(try garage.read("bikes/grail.yaml") == Self.bike, "nothing was written")

        from = client.count
        client.change(uri, version: 3, [["text": Self.bike]])  // a full-text change
        #expect(client.diagnostics(for: uri, after: from)?.isEmpty == true)
        #expect(client.stop() == 0)
    }

    @Test func anEditInATemplateRechecksTheBikesThatUseIt() throws {
        let garage = try roadGarage()
        let client = try LSPClient(in: garage.url)
        client.start(root: garage.url)
        let template = garage.url.appendingPathComponent("templates/road.yaml").absoluteString
        let bike = garage.url.appendingPathComponent("bikes/grail.yaml").absoluteString
        client.open(template, Self.template)
        var from = client.count
        // `chain-lube:` (line 2) renamed in the template's buffer: the bike's log names an interval
        // that no longer exists. The bike is not open; its diagnostics are published all the same.
        client.change(template, version: 2, [["range": lspRange(2, 8, 2, 12), "text": "oil"]])
        let onBike = client.diagnostics(for: bike, after: from)
        #expect(onBike?.map { $0["code"] as? String } == ["unknown-interval"])
        #expect(numbers(onBike?.first?["range"]) == [4, 11, 4, 21])

        from = client.count
        client.change(template, version: 3, [["range": lspRange(2, 8, 2, 11), "text": "lube"]])
        #expect(client.diagnostics(for: bike, after: from)?.isEmpty == true, "the bike became clean: an empty list")
        #expect(client.stop() == 0)
    }

    @Test func positionsAreUTF16AfterAccentsAndEmoji() throws {
        let garage = try roadGarage()
        let client = try LSPClient(in: garage.url)
        client.start(root: garage.url)
        let uri = garage.url.appendingPathComponent("bikes/grail.yaml").absoluteString
        // é is 2 bytes and 1 UTF-16 unit; 😀 is 4 bytes, 1 scalar, 2 UTF-16 units.
        let text = "name: Grail\nintervals:\n  wash: {task: \"é😀é\", every: 8 hrs}\n"
        var from = client.count
        client.open(uri, text)
        let d = client.diagnostics(for: uri, after: from)
        #expect(d?.map { $0["code"] as? String } == ["bad-quantity"])
        // `8 hrs` starts after `  wash: {task: "é😀é", every: `: 16 + 4 UTF-16 units + 10 = 30.
        #expect(numbers(d?.first?["range"]) == [2, 30, 2, 35])

        // An incremental edit placed in UTF-16 units: right after the emoji (character 19), x.
        from = client.count
        client.change(uri, version: 2, [["range": lspRange(2, 19, 2, 19), "text": "x"]])
        let again = client.diagnostics(for: uri, after: from)
        #expect(numbers(again?.first?["range"]) == [2, 31, 2, 36])
        let symbols = client.request("textDocument/documentSymbol", ["textDocument": ["uri": uri]])
        let intervals = (symbols?["result"] as? [[String: Any]])?.first { $0["name"] as? String == "intervals" }
        // The buffer now holds "é😀xé": the wash entry ends after its `}`, at character 37.
        let wash = (intervals?["children"] as? [[String: Any]])?.first
        #expect(numbers(wash?["range"]) == [2, 2, 2, 37])
        #expect(client.stop() == 0)
    }
}
