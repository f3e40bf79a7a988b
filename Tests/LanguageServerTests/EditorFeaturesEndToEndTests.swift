import Foundation
import TestSupport
import Testing

/// Completion, go-to-definition, outline and hover on a copy of example-garage.
@Suite struct EditorFeaturesEndToEndTests {
    let garage: TemporaryFolder
    let client: LSPClient

    init() throws {
        garage = try TemporaryFolder()
        try garage.copyExampleGarage()
        client = try LSPClient(in: garage.url)
        client.start(root: garage.url)
    }

    func uri(_ file: String) -> String { garage.url.appendingPathComponent(file).absoluteString }

    /// Opens `file` with `text` and returns the position of `|` in it (removed).
    func open(_ file: String, marked text: String) -> [String: Int] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let line = lines.firstIndex { $0.contains("|") }!
        let character = lines[line].prefix { $0 != "|" }.utf16.count
        client.open(uri(file), text.replacingOccurrences(of: "|", with: ""))
        return ["line": line, "character": character]
    }

    func labels(_ response: [String: Any]?) -> [String] {
        ((response?["result"] as? [[String: Any]]) ?? []).compactMap { $0["label"] as? String }
    }

    @Test func templateIdsCompleteInTemplates() throws {
        let position = open("bikes/new.yaml", marked: "name: New\ntemplates: [road-basics, |]\n")
        let got = labels(client.request("textDocument/completion", ["textDocument": ["uri": uri("bikes/new.yaml")], "position": position]))
        #expect(got.contains("mtb-basics") && got.contains("fox-36") && got.contains("tubeless"))
    }

    @Test func intervalIdsOfTheBikeCompleteInDoneAndReplaceWhatIsTyped() throws {
        let text = try garage.read("bikes/tarmac.yaml") + "  - date: 2026-11-15\n    done: [chain-l|]\n"
        let position = open("bikes/tarmac.yaml", marked: text)
        let response = client.request("textDocument/completion", ["textDocument": ["uri": uri("bikes/tarmac.yaml")], "position": position])
        #expect(labels(response) == ["chain-lube"])
        let edit = ((response?["result"] as? [[String: Any]])?.first?["textEdit"] as? [String: Any])
        #expect(numbers(edit?["range"]) == [position["line"]!, position["character"]! - 7, position["line"]!, position["character"]!])
    }

    /// `readings:` maps interval ids to measurements: its keys complete as `done:`'s ids do, and
    /// hovering one shows the interval's status line, with what was measured.
    @Test func intervalIdsCompleteInReadingsAndHoverShowsTheMeasurement() throws {
        let text = try garage.read("bikes/grail.yaml") + "  - date: 2026-11-15\n    readings: {chain-r|: 0.5 %}\n"
        let position = open("bikes/grail.yaml", marked: text)
        let response = client.request("textDocument/completion", ["textDocument": ["uri": uri("bikes/grail.yaml")], "position": position])
        #expect(labels(response) == ["chain-replace"])

        let file = try garage.read("bikes/grail.yaml")
        client.open(uri("bikes/grail.yaml"), file)
        let lines = file.split(separator: "\n", omittingEmptySubsequences: false)
        let readingLine = try #require(lines.firstIndex { $0.contains("readings: {chain-replace: 0.25 %}") })
        let hover = client.request(
            "textDocument/hover", ["textDocument": ["uri": uri("bikes/grail.yaml")], "position": ["line": readingLine, "character": 20]])
        let value = ((hover?["result"] as? [String: Any])?["contents"] as? [String: Any])?["value"] as? String ?? ""
        #expect(value.contains("chain-replace") && value.contains("measured 0.4 / 0.75 %"), "\(value)")
    }

    @Test func bikeIdsCompleteInAPartsMounts() throws {
        let position = open("parts/spare.yaml", marked: "name: Spare wheels\nmounts:\n  - {bike: |, from: 2026-01-01}\n")
        let got = labels(client.request("textDocument/completion", ["textDocument": ["uri": uri("parts/spare.yaml")], "position": position]))
        // Gear too: a part may be mounted on it (a belt on a trainer).
        #expect(got == ["charger", "grail", "running-shoes", "stumpy", "tarmac"])
    }

    @Test func componentsOfTheBikeCompleteInAnIntervalsComponent() throws {
        let text = try garage.read("bikes/tarmac.yaml").replacingOccurrences(
            of: "\nlog:\n", with: "\nintervals:\n  wax:\n    component: |\n    every: 5 h\nlog:\n")
        let position = open("bikes/tarmac.yaml", marked: text)
        let got = labels(client.request("textDocument/completion", ["textDocument": ["uri": uri("bikes/tarmac.yaml")], "position": position]))
        #expect(got == ["chain", "tyres"])
    }

    @Test func definitionGoesToTheTemplateFileAndToWhereAnIntervalIsDefined() throws {
        let text = try garage.read("bikes/tarmac.yaml")
        client.open(uri("bikes/tarmac.yaml"), text)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let templatesLine = lines.firstIndex { $0.hasPrefix("templates:") }!
        let toTemplate = client.request(
            "textDocument/definition", ["textDocument": ["uri": uri("bikes/tarmac.yaml")], "position": ["line": templatesLine, "character": 14]])
        #expect((toTemplate?["result"] as? [String: Any])?["uri"] as? String == uri("templates/road-basics.yaml"))

        let doneLine = lines.firstIndex { $0.contains("done: [chain-lube]") }!
        let toInterval = client.request(
            "textDocument/definition", ["textDocument": ["uri": uri("bikes/tarmac.yaml")], "position": ["line": doneLine, "character": 14]])
        let location = toInterval?["result"] as? [String: Any]
        #expect(location?["uri"] as? String == uri("templates/road-basics.yaml"))
        let template = try garage.read("templates/road-basics.yaml").split(separator: "\n", omittingEmptySubsequences: false)
        let definedAt = numbers(location?["range"]).first ?? -1
        #expect(definedAt >= 0 && definedAt < template.count && template[definedAt].contains("chain-lube"), "line \(definedAt)")
    }

    @Test func hoverOnAnIntervalShowsItsStatusLineAndOnATemplateItsIntervals() throws {
        let text = try garage.read("bikes/tarmac.yaml")
        client.open(uri("bikes/tarmac.yaml"), text)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let doneLine = lines.firstIndex { $0.contains("done: [brake-pads]") }!
        let hover = client.request("textDocument/hover", ["textDocument": ["uri": uri("bikes/tarmac.yaml")], "position": ["line": doneLine, "character": 14]])
        let value = ((hover?["result"] as? [String: Any])?["contents"] as? [String: Any])?["value"] as? String ?? ""
        let status = try runBikecheck(["status", "tarmac", "--garage", garage.path], in: garage.url).stdout
        let statusLine = status.split(separator: "\n").first { $0.contains(" brake-pads ") }?.trimmingCharacters(in: .whitespaces)
        #expect(statusLine != nil && value.contains(statusLine!), "\(value) vs \(statusLine ?? "none")")

        let templatesLine = lines.firstIndex { $0.hasPrefix("templates:") }!
        let onTemplate = client.request(
            "textDocument/hover", ["textDocument": ["uri": uri("bikes/tarmac.yaml")], "position": ["line": templatesLine, "character": 14]])
        let listed = ((onTemplate?["result"] as? [String: Any])?["contents"] as? [String: Any])?["value"] as? String ?? ""
        #expect(listed.contains("`chain-lube`") && listed.contains("`brake-pads`"))
    }

    func hoverText(_ file: String, line marker: String, word: String) throws -> String {
        let text = try garage.read(file)
        client.open(uri(file), text)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let line = try #require(lines.firstIndex { $0.contains(marker) })
        let character = try #require(lines[line].range(of: word)).lowerBound.utf16Offset(in: lines[line]) + 1
        let hover = client.request("textDocument/hover", ["textDocument": ["uri": uri(file)], "position": ["line": line, "character": character]])
        return ((hover?["result"] as? [String: Any])?["contents"] as? [String: Any])?["value"] as? String ?? ""
    }

    @Test func hoverOnAGearFilesNameShowsItsKindAndWhatStatusSaysOfIt() throws {
        let value = try hoverText("gear/running-shoes.yaml", line: "name: Saucony", word: "name")
        let status = try runBikecheck(["status", "running-shoes", "--garage", garage.path], in: garage.url)
        let statusLine = status.stdout.split(separator: "\n").first { $0.contains(" replace ") }?.trimmingCharacters(in: .whitespaces)
        #expect(value.hasPrefix("**Saucony Ride 17** (shoes `running-shoes`)"), "\(value)")
        #expect(statusLine != nil && value.contains(statusLine!), "\(value) vs \(statusLine ?? "none")")
    }

    @Test func hoverOnABikeInAPartsMountsShowsItsNameAndWhatStatusSaysOfIt() throws {
        let value = try hoverText("parts/race-wheels.yaml", line: "{bike: tarmac", word: "tarmac")
        let status = try runBikecheck(["status", "tarmac", "--garage", garage.path], in: garage.url)
        #expect(status.status == 0 && status.stdout.contains("brake-pads"))
        #expect(value.hasPrefix("**Specialized Tarmac SL7** (bike `tarmac`)"), "\(value)")
        #expect(value.contains("```text\n" + status.stdout.trimmingCharacters(in: .newlines) + "\n```"), "\(value)")
    }

    @Test func hoverOnAPartsNameShowsWhereItIsMountedAndItsIntervalsAsStatusAndPartShowDo() throws {
        let value = try hoverText("parts/race-wheels.yaml", line: "name: DT Swiss", word: "Swiss")
        let status = try runBikecheck(["status", "race-wheels", "--garage", garage.path], in: garage.url).stdout
        let show = try runBikecheck(["part", "show", "race-wheels", "--garage", garage.path], in: garage.url).stdout
        #expect(show.contains("(on tarmac") && status.contains("hub-service"))
        #expect(value.hasPrefix("**DT Swiss ARC 1100 wheelset** (part `race-wheels`)"), "\(value)")
        #expect(value.contains("```text\n" + status.trimmingCharacters(in: .newlines) + "\n```"), "\(value)")
        #expect(value.contains("```text\n" + show.trimmingCharacters(in: .newlines) + "\n```"), "\(value)")
        // Elsewhere in the file, a date is not a bike.
        #expect(try hoverText("parts/race-wheels.yaml", line: "bought:", word: "2025").isEmpty)
    }

    @Test func theOutlineListsComponentsAndLogEntries() throws {
        client.open(uri("bikes/tarmac.yaml"), try garage.read("bikes/tarmac.yaml"))
        let result = client.request("textDocument/documentSymbol", ["textDocument": ["uri": uri("bikes/tarmac.yaml")]])?["result"] as? [[String: Any]]
        let names = result?.compactMap { $0["name"] as? String } ?? []
        #expect(Array(names.prefix(3)) == ["name", "strava", "bought"])
        let components = result?.first { $0["name"] as? String == "components" }?["children"] as? [[String: Any]]
        #expect(components?.compactMap { $0["name"] as? String } == ["chain", "tyres"])
        let log = result?.first { $0["name"] as? String == "log" }?["children"] as? [[String: Any]]
        #expect(log?.first?["name"] as? String == "2025-05-03")
    }

    @Test func theDidYouMeanOfADiagnosticIsAQuickFix() throws {
        let text = try garage.read("bikes/tarmac.yaml").replacingOccurrences(of: "templates: [road-basics]", with: "templates: [road-basic]")
        let from = client.count
        client.open(uri("bikes/tarmac.yaml"), text)
        // The fix travels as data on the diagnostic, not only in its English.
        let published = client.diagnostics(for: uri("bikes/tarmac.yaml"), after: from)
        #expect((published?.first?["data"] as? [String: Any])?["replacement"] as? String == "road-basics", "\(published ?? [])")
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix("templates:") }!
        let response = client.request(
            "textDocument/codeAction",
            ["textDocument": ["uri": uri("bikes/tarmac.yaml")], "range": lspRange(line, 14, line, 14), "context": ["diagnostics": [Any]()]])
        let actions = response?["result"] as? [[String: Any]] ?? []
        #expect(actions.count == 1)
        #expect(actions.first?["title"] as? String == "change 'road-basic' to 'road-basics'")
        let changes = documentEdits(actions.first, uri("bikes/tarmac.yaml"))
        #expect(changes?.first?["newText"] as? String == "road-basics")
        #expect(numbers(changes?.first?["range"]) == [line, 12, line, 22])
    }

    @Test func aSuggestionForPartOfTheRangeIsNoQuickFix() throws {
        // `8 hourz` is the diagnostic's range; its did-you-mean names a unit, which is not what
        // replaces the whole value (reading the message's English offered "change '8 hourz' to
        // 'hours'", which would lose the number).
        let text = "name: New\nintervals:\n  wax:\n    every: 8 hourz\n"
        try garage.write("templates/units.yaml", text)
        let from = client.count
        client.open(uri("templates/units.yaml"), text)
        let published = client.diagnostics(for: uri("templates/units.yaml"), after: from)
        #expect((published?.first?["message"] as? String)?.hasPrefix("unknown unit 'hourz' in '8 hourz'; did you mean '") == true, "\(published ?? [])")
        #expect(published?.first?["data"] == nil)
        let response = client.request(
            "textDocument/codeAction",
            ["textDocument": ["uri": uri("templates/units.yaml")], "range": lspRange(3, 12, 3, 12), "context": ["diagnostics": [Any]()]])
        #expect((response?["result"] as? [[String: Any]])?.isEmpty == true, "\(response ?? [:])")
    }

    @Test func unitsCompleteAfterANumberInEvery() throws {
        let position = open("templates/new.yaml", marked: "name: New\nintervals:\n  wax:\n    every: 10 |\n")
        let got = labels(client.request("textDocument/completion", ["textDocument": ["uri": uri("templates/new.yaml")], "position": position]))
        #expect(["h", "km", "mi", "months", "rides"].allSatisfy(got.contains), "\(got)")
        let inList = open("templates/other.yaml", marked: "name: Other\nintervals:\n  wax:\n    every: [3000 km, 6 mo|]\n")
        let months = labels(client.request("textDocument/completion", ["textDocument": ["uri": uri("templates/other.yaml")], "position": inList]))
        #expect(months == ["month", "months"])
        // A number elsewhere is not a quantity.
        let task = open("templates/third.yaml", marked: "name: Third\nintervals:\n  wax:\n    task: Replace 2 |\n")
        #expect(labels(client.request("textDocument/completion", ["textDocument": ["uri": uri("templates/third.yaml")], "position": task])).isEmpty)
    }
}
