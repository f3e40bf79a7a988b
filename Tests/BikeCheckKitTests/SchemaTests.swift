import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// The JSON Schemas in `schemas/`, checked by the real `check-jsonschema` against the example
/// garage, the real binary's JSON output and fixtures; and bikecheck itself agreeing with every
/// YAML fixture, so a schema never invents a rule the decoders do not have (nor misses one).
@Suite struct SchemaTests {
    static let kinds = ["garage", "bike", "gear", "template", "rides", "part", "activities", "status", "parts", "validate"]
    static let garageKinds = ["garage", "bike", "gear", "template", "rides", "part", "activities"]
    /// Schemas of what the report commands print, checked against their golden JSON.
    static let reportKinds = ["costs": "costs-", "usage": "usage-", "history": "history", "rides-report": "rides-"]
    /// Schemas checked elsewhere against what the binary sends (the webhook's: NotifyEndToEndTests;
    /// diff's: GarageDiffEndToEndTests).
    static let otherKinds = ["notify-webhook", "diff"]

    @Test func everySchemaIsAValidDraft07Schema() throws {
        let files = try contents(of: schemas).filter { $0.hasSuffix(".schema.json") }
        #expect(files == (Self.kinds + Self.reportKinds.keys + Self.otherKinds).map { "\($0).schema.json" }.sorted())
        let result = try checkJSONSchema(["--check-metaschema"] + files, in: schemas)
        #expect(result?.status == 0, "\(result?.output ?? "")")
    }

    @Test func committedSchemasAreWhatTheGeneratorWrites() throws {
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "scripts/generate-schemas.py", "--check"], in: repositoryRoot)
        #expect(result.status == 0, "\(result.output)")
    }

    /// As `init` writes them: into the garage's own `.schemas/`, so that a copy of the example
    /// garage (as the README's tour invites) keeps modelines that point somewhere.
    @Test func everyExampleGarageFileNamesItsSchemaInAModeline() throws {
        let expected = [
            "garage": ".schemas/garage.schema.json", "rides": ".schemas/rides.schema.json",
            "bike": "../.schemas/bike.schema.json", "template": "../.schemas/template.schema.json",
            "part": "../.schemas/part.schema.json", "gear": "../.schemas/gear.schema.json",
        ]
        for (kind, schema) in expected {
            for file in try exampleFiles(kind) {
                let text = try String(contentsOf: exampleGarage.appendingPathComponent(file), encoding: .utf8)
                let firstLine = text.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
                #expect(firstLine == "# yaml-language-server: $schema=\(schema)", "example-garage/\(file)")
                let target = exampleGarage.appendingPathComponent(file).deletingLastPathComponent().appendingPathComponent(schema)
                #expect(FileManager.default.fileExists(atPath: target.standardizedFileURL.path), "\(file) names a missing schema")
            }
        }
        // The copies are the repository's schemas (scripts/embed-schemas writes both).
        for kind in expected.keys {
            let copy = try Data(contentsOf: exampleGarage.appendingPathComponent(".schemas/\(kind).schema.json"))
            #expect(
                copy == (try Data(contentsOf: schemas.appendingPathComponent("\(kind).schema.json"))),
                "example-garage/.schemas/\(kind).schema.json is stale: run scripts/embed-schemas")
        }
    }

    /// One check-jsonschema run per schema (each run costs half a second of Python start-up):
    /// every valid file must pass and every invalid fixture must fail.
    @Test(arguments: kinds)
    func schemaAcceptsEveryValidFileAndRefusesEveryInvalidFixture(kind: String) throws {
        let scratch = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let valid = try validFiles(kind, scratch: scratch)
        #expect(!valid.isEmpty, "no valid \(kind) files")
        let invalidDir = fixtures.appendingPathComponent("invalid/\(kind)")
        let invalid = try contents(of: invalidDir).map { invalidDir.path + "/" + $0 }
        #expect(invalid.count >= 5, "too few invalid \(kind) fixtures")
        guard
            let result = try checkJSONSchema(
                ["--output-format", "json", "--schemafile", schemas.path + "/\(kind).schema.json"] + valid + invalid, in: scratch)
        else { return }
        let report = try #require(try? JSONDecoder().decode(CheckReport.self, from: Data(result.stdout.utf8)), "\(result.output)")
        var failures: [String: [String]] = [:]
        for e in report.errors { failures[e.filename, default: []].append("\(e.path): \(e.message)") }
        // An unreadable fixture would "fail" for the wrong reason.
        for e in report.parse_errors { Issue.record("check-jsonschema cannot parse \(e.filename): \(e.message)") }
        for file in valid {
            #expect(failures[file] == nil, "\(file) fails \(kind).schema.json: \(failures[file] ?? [])")
        }
        for file in invalid {
            #expect(failures[file] != nil, "\(file) passes \(kind).schema.json")
        }
    }

    /// Each report schema accepts every golden JSON of its report, and refuses it with an amount
    /// written as a JSON number (which readers would turn into binary floating point).
    @Test(arguments: reportKinds.keys.sorted())
    func reportSchemaAcceptsTheGoldenReports(kind: String) throws {
        let golden = repositoryRoot.appendingPathComponent("Tests/EndToEndTests/Golden/Reports")
        let files = try contents(of: golden).filter { $0.hasPrefix(Self.reportKinds[kind]!) && $0.hasSuffix(".json") }.map { golden.path + "/" + $0 }
        #expect(!files.isEmpty)
        let scratch = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let text = try String(contentsOfFile: files[0], encoding: .utf8)
        let broken = text.replacingOccurrences(of: #""([0-9]+\.[0-9]{2})""#, with: "$1", options: .regularExpression)
        #expect(broken != text || kind == "usage" || kind == "rides-report")
        let mutated = scratch.appendingPathComponent("numeric-amounts.json")
        try (broken != text ? broken : text.replacingOccurrences(of: "\"as_of\"", with: "\"as-of\"")).write(to: mutated, atomically: true, encoding: .utf8)
        guard let ok = try checkJSONSchema(["--schemafile", schemas.path + "/\(kind).schema.json"] + files, in: scratch),
            let refused = try checkJSONSchema(["--schemafile", schemas.path + "/\(kind).schema.json", mutated.path], in: scratch)
        else { return }
        #expect(ok.status == 0, "\(ok.output)")
        #expect(refused.status != 0, "\(mutated.path) passes \(kind).schema.json")
    }

    /// The real binary's JSON output; the diagnostics of a broken garage include notes, help and both severities.
    private func binaryOutputs(_ kind: String, scratch: URL) throws -> [String] {
        var runs: [(String, [String], Int32)] = []
        if kind == "status" {
            runs = [("status.json", ["status", "--garage", exampleGarage.path, "--as-of", "2026-11-15", "--format", "json"], 0)]
        } else if kind == "parts" {
            runs = [
                ("part-list.json", ["part", "list", "--garage", exampleGarage.path, "--as-of", "2026-11-15", "--format", "json"], 0),
                ("part-show.json", ["part", "show", "race-wheels", "--garage", exampleGarage.path, "--as-of", "2026-11-15", "--format", "json"], 0),
            ]
        } else {
            let broken = scratch.appendingPathComponent("broken")
            try write("garage.yaml", "units: metres\n", in: broken)
            try write("bikes/a.yaml", "name: A\nstrava: b1\nbougth: 2025-03-01\n", in: broken)
            try write("bikes/b.yaml", "name: B\nstrava: b1\ncounts: [Rdie]\n", in: broken)
            runs = [
                ("validate-clean.json", ["validate", "--garage", exampleGarage.path, "--format", "json"], 0),
                ("validate-broken.json", ["validate", "--garage", broken.path, "--format", "json"], 1),
            ]
        }
        var files: [String] = []
        for (name, arguments, status) in runs {
            let result = try runBikecheck(arguments, in: repositoryRoot)
            #expect(result.status == status, "bikecheck \(arguments.joined(separator: " ")): \(result.output)")
            let url = scratch.appendingPathComponent(name)
            try result.stdout.write(to: url, atomically: true, encoding: .utf8)
            files.append(url.path)
        }
        if kind == "status" {
            let text = try String(contentsOfFile: files[0], encoding: .utf8)
            #expect(text.contains("\"overdue\"") && text.contains("\"due-soon\""), "the example garage should show every state")
        } else if kind == "parts" {
            let text = try String(contentsOfFile: files[0], encoding: .utf8)
            #expect(
                text.contains("\"component\"") && text.contains("\"mounts\"") && text.contains("\"slot\""),
                "the example garage should show parts and components")
        } else {
            let data = try Data(contentsOf: URL(fileURLWithPath: files[1]))
            let records = try JSONDecoder().decode(ValidateOutput.self, from: data).diagnostics
            #expect(records.contains { !$0.notes.isEmpty } && records.contains { $0.help != nil })
            #expect(Set(records.map(\.severity)) == ["error", "warning"])
        }
        return files
    }

    /// Absolute paths of the files one schema must accept.
    private func validFiles(_ kind: String, scratch: URL) throws -> [String] {
        if kind == "status" || kind == "parts" || kind == "validate" { return try binaryOutputs(kind, scratch: scratch) }
        var files = try exampleFiles(kind).map { exampleGarage.path + "/" + $0 }
        let dir = fixtures.appendingPathComponent("valid/\(kind)")
        if FileManager.default.fileExists(atPath: dir.path) {
            files += try contents(of: dir).map { dir.path + "/" + $0 }
        }
        return files
    }

    @Test(arguments: garageKinds)
    func bikecheckAgreesWithEveryFixture(kind: String) throws {
        for verdict in ["valid", "invalid"] {
            let dir = fixtures.appendingPathComponent("\(verdict)/\(kind)")
            guard FileManager.default.fileExists(atPath: dir.path) else { continue }
            for file in try contents(of: dir) {
                let garage = try temporaryDirectory()
                defer { try? FileManager.default.removeItem(at: garage) }
                try write("garage.yaml", "name: Fixture garage\ncurrency: EUR\n", in: garage)
                try write("bikes/grail.yaml", "name: Grail\n", in: garage)
                try write("templates/road-basics.yaml", "name: Road basics\nintervals:\n  chain-lube:\n    every: 10 h\n", in: garage)
                let destination =
                    switch kind {
                    case "garage": "garage.yaml"
                    case "bike": "bikes/\(file)"
                    case "gear": "gear/\(file)"
                    case "template": "templates/\(file)"
                    case "rides": "rides.yaml"
                    case "part": "parts/\(file)"
                    default: "activities/2026-03.json"
                    }
                let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
                try write(destination, text, in: garage)
                let loaded = GarageLoader.load(at: garage.path)
                let found = loaded.diagnostics.map { "\($0.location.file): \($0.id): \($0.message)" }
                if verdict == "valid" {
                    #expect(loaded.diagnostics.isEmpty, "bikecheck refuses valid/\(kind)/\(file): \(found)")
                } else {
                    #expect(loaded.hasErrors, "bikecheck accepts invalid/\(kind)/\(file), which the schema refuses")
                }
            }
        }
    }
}

// MARK: - Support

private let schemas = repositoryRoot.appendingPathComponent("schemas")
private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("SchemaFixtures")

/// The parts of `validate --format json` the test looks at before the schema does.
private struct ValidateOutput: Decodable {
    struct Record: Decodable {
        var severity: String
        struct Note: Decodable { var message: String }
        var notes: [Note]
        var help: String?
    }
    var diagnostics: [Record]
}

/// What `check-jsonschema --output-format json` prints.
private struct CheckReport: Decodable {
    struct Failure: Decodable {
        var filename: String
        var path: String
        var message: String
    }
    struct ParseFailure: Decodable {
        var filename: String
        var message: String
    }
    var errors: [Failure]
    var parse_errors: [ParseFailure]
}

private func contents(of dir: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { !$0.hasPrefix(".") }.sorted()
}

/// The example garage's files of one kind, relative to example-garage/.
private func exampleFiles(_ kind: String) throws -> [String] {
    switch kind {
    case "garage": return ["garage.yaml"]
    case "rides": return ["rides.yaml"]
    case "bike": return try contents(of: exampleGarage.appendingPathComponent("bikes")).map { "bikes/" + $0 }
    case "template": return try contents(of: exampleGarage.appendingPathComponent("templates")).map { "templates/" + $0 }
    case "part": return try contents(of: exampleGarage.appendingPathComponent("parts")).map { "parts/" + $0 }
    case "gear": return try contents(of: exampleGarage.appendingPathComponent("gear")).map { "gear/" + $0 }
    default: return try contents(of: exampleGarage.appendingPathComponent("activities")).map { "activities/" + $0 }
    }
}

private func write(_ relative: String, _ text: String, in root: URL) throws {
    let url = root.appendingPathComponent(relative)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try text.write(to: url, atomically: true, encoding: .utf8)
}

private func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("bikecheck-schema-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

extension CommandResult {
    var output: String { stdout + stderr }
}
