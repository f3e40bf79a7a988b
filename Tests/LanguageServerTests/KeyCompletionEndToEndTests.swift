import Foundation
import TestSupport
import Testing

/// Key completion from the garage files' JSON Schemas, on a copy of example-garage.
@Suite struct KeyCompletionEndToEndTests {
    let garage: TemporaryFolder
    let client: LSPClient

    init() throws {
        garage = try TemporaryFolder()
        try garage.copyExampleGarage()
        client = try LSPClient(in: garage.url)
        client.start(root: garage.url)
    }

    /// The completion items at `|` in `text`, opened as `file`.
    func items(_ file: String, _ text: String) -> [[String: Any]] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let line = lines.firstIndex { $0.contains("|") }!
        let character = lines[line].prefix { $0 != "|" }.utf16.count
        let uri = garage.url.appendingPathComponent(file).absoluteString
        client.open(uri, text.replacingOccurrences(of: "|", with: ""))
        let response = client.request("textDocument/completion", ["textDocument": ["uri": uri], "position": ["line": line, "character": character]])
        return response?["result"] as? [[String: Any]] ?? []
    }

    func labels(_ file: String, _ text: String) -> [String] { items(file, text).compactMap { $0["label"] as? String } }

    static let cases: [(file: String, text: String, expected: [String])] = [
        // A bike's top level: every key but those it has.
        (
            "bikes/new.yaml", "name: New\ntemplates: [road-basics]\n|\nlog:\n",
            ["bought", "components", "counts", "devices", "intervals", "notes", "price", "retired", "rider", "snooze", "strava", "todo", "trainer"]
        ),
        // A component's keys, under the component's id.
        (
            "bikes/new.yaml", "name: New\ncomponents:\n  chain:\n    name: KMC X11\n    |\n",
            ["counts", "distance", "hours", "installed", "notes", "rides", "trainer"]
        ),
        // A log entry's, after its first key, and as a new item's first key.
        ("bikes/new.yaml", "name: New\nlog:\n  - date: 2026-01-01\n    done: [chain-lube]\n    c|\n", ["category", "cost", "currency"]),
        (
            "bikes/new.yaml", "name: New\nlog:\n  - date: 2026-01-01\n    done: [chain-lube]\n  - |\n",
            ["category", "cost", "currency", "date", "done", "note", "readings", "todo", "new log entry"]
        ),
        // An interval's in a template, as typed.
        (
            "templates/new.yaml", "name: New\nintervals:\n  wax:\n    every: 5 h\n    |\n    task: Wax\n",
            ["component", "counts", "due_soon", "notes", "repeat", "replaces", "trainer", "wear_limit"]
        ),
        ("garage.yaml", "units: km\nnotify:\n  ntfy:\n    |\n", ["topic", "url"]),
        ("rides.yaml", "rides:\n  - date: 2026-01-01\n    |\n    time: 1 h\n", ["bike", "distance", "name", "sport"]),
        ("parts/new.yaml", "name: New\nmounts:\n  - bike: grail\n    |\n", ["from", "note", "tag", "to", "unless_tag"]),
        // Gear's top level: a bike's keys and `kind`.
        (
            "gear/new.yaml", "name: New\n|\n",
            [
                "bought", "components", "counts", "devices", "intervals", "kind", "log", "notes", "price", "retired", "rider", "snooze", "strava",
                "templates", "todo", "trainer",
            ]
        ),
    ]

    @Test(arguments: cases.indices)
    func theKeysTheSchemaAllowsThereAndTheMappingLacksAreOffered(index: Int) {
        let c = Self.cases[index]
        #expect(labels(c.file, c.text) == c.expected, "\(c.file): \(c.text)")
    }

    @Test func aKeyComesWithItsSchemaDescriptionAndAColonAfterIt() throws {
        let found = items("bikes/new.yaml", "name: New\n|\n")
        let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: repositoryRoot.appendingPathComponent("schemas/bike.schema.json")))
        let components = ((schema as? [String: Any])?["properties"] as? [String: Any])?["components"] as? [String: Any]
        let description = try #require(components?["markdownDescription"] as? String)
        let item = try #require(found.first { $0["label"] as? String == "components" })
        #expect((item["documentation"] as? [String: Any])?["value"] as? String == description)
        #expect((item["textEdit"] as? [String: Any])?["newText"] as? String == "components:")
        let strava = try #require(found.first { $0["label"] as? String == "strava" })
        #expect((strava["textEdit"] as? [String: Any])?["newText"] as? String == "strava: ")
    }

    @Test func noKeysWhereAValueOrAnIdGoes() {
        #expect(labels("bikes/new.yaml", "name: |\n").isEmpty)
        // The ids of a bike's components are the rider's, not the schema's.
        #expect(labels("bikes/new.yaml", "name: New\ncomponents:\n  |\n").isEmpty)
        // A word with a value after it is a key already written.
        #expect(labels("bikes/new.yaml", "name: New\npri|: 100\n").isEmpty)
        // A file the schemas do not describe.
        #expect(labels("notes.yaml", "|\n").isEmpty)
    }
}
