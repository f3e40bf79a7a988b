@testable import BikeCheckKit
import Diagnostics
import Foundation
import LocatedYAML
import Testing

/// The one JSON reader of the tracker imports (the YAML reader, JSON being YAML's flow style)
/// reads the JSON the trackers write, with every record's place, and words a broken file's
/// diagnostics in JSON's terms.
@Suite struct TrackerJSONTests {
    enum Reader: TrackerJSONReader {}

    static func source(_ text: String) -> ImportPlan.Source { ImportPlan.Source(path: "export.json", bytes: Array(text.utf8)) }

    @Test func escapesTabsBetweenTokensAndExponentsReadAsJSONReadersReadThem() throws {
        // Tab-indented, tabs after ':' and ',', a tab before the value itself, no space after ':'.
        let text =
            "\t{\n\t\"bikes\":\t[\n\t\t{\"id\":\t\"b\\/1\",\t\"name\": \"Caf\\u00e9 \\\"racer\\\"\\tbike\",\n\t\t \"km\": 1.5e3, \"neg\":-2E-2, \"big\": 1E+2, \"none\": null}\n\t]\n}\n"
        let root = try Reader.openJSON(Self.source(text))
        guard case .mapping(let top) = root, case .mapping(let bike)? = Reader.items(top["bikes"]).first else {
            Issue.record("no bike in \(root)")
            return
        }
        #expect(Reader.text(bike["id"]) == "b/1")
        #expect(Reader.text(bike["name"]) == "Café \"racer\"\tbike")
        #expect(Reader.number(bike["km"]) == 1500)
        #expect(Reader.number(bike["neg"]) == -0.02)
        #expect(Reader.number(bike["big"]) == 100)
        #expect(Reader.number(bike["name"]) == nil, "a string is not a number")
        #expect(Reader.isNull(bike["none"]) && Reader.isNull(bike["missing"]) && !Reader.isNull(bike["id"]))
        // The record's place: its '{' on line 3, after two tabs.
        let at = Reader.at(.mapping(bike), in: Self.source(text))
        #expect(at.range?.start.line == 3 && at.range?.start.column == 3, "\(at)")
    }

    @Test func aBrokenFileIsRefusedWithTheReadersDiagnosticInJSONsWords() throws {
        do {
            _ = try Reader.openJSON(Self.source("{\n  \"bikes\": [\n    {\"id\": \"1\"}\n}\n"), help: "export it again")
            Issue.record("a broken file was read")
        } catch {
            #expect(error.message == "cannot read 'export.json' as JSON" && error.help == "export it again", "\(error)")
            let first = try #require(error.diagnostics.first)
            #expect(first.message == "this '[' is never closed", "\(first)")
            #expect(first.help?.contains("end the array with ']'") == true, "\(first)")
            #expect(first.location.range?.start.line == 2 && first.location.range?.start.column == 12, "\(first)")
        }
    }
}
