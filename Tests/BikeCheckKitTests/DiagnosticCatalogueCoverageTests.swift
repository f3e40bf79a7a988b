import Foundation
import TestSupport
import Testing

/// Every diagnostic id bikecheck can produce is documented in the README's table and shown by at
/// least one golden catalogue case, so a new id cannot arrive without its example and its line.
@Suite struct DiagnosticCatalogueCoverageTests {
    /// Ids made where a diagnostic is built (`.error("id"`, `warning("id"`, `report("id"`,
    /// `Diagnostic(severity, "id"`), found in the sources.
    static let ids: [String: String] = {
        let pattern = try! NSRegularExpression(
            pattern: #"(?:\.error|\.warning|\berror|\bwarning|\breport|\bDiagnostic)\(\s*(?:severity,\s*|\.error,\s*|\.warning,\s*)?"([a-z0-9]+(?:-[a-z0-9]+)+)""#)
        var found: [String: String] = [:]
        let sources = repositoryRoot.appendingPathComponent("Sources")
        for case let url as URL in FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)! where url.pathExtension == "swift" {
            let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let id = String(text[Range(match.range(at: 1), in: text)!])
                found[id] = found[id] ?? url.lastPathComponent
            }
        }
        return found
    }()

    /// Ids that `validate` cannot show, because only a write makes them: each still has its line
    /// in the README, and tests of the writes that make them.
    static let madeByWritesOnly: Set<String> = ["yaml-edit-refused", "yaml-edit-unsafe"]

    @Test func theSourcesWereScanned() {
        #expect(Self.ids.count >= 40, "found only \(Self.ids.count) ids: the pattern no longer matches how diagnostics are built")
        #expect(Self.ids["cache-syntax"] != nil && Self.ids["too-many-problems"] != nil && Self.ids["unknown-key"] != nil)
    }

    @Test func everyIdIsInTheReadmeTable() throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let missing = Self.ids.keys.filter { !readme.contains("`\($0)`") }.sorted()
        #expect(missing.isEmpty, "not in README.md's table of diagnostic ids: \(missing)")
    }

    @Test func everyIdValidateCanShowHasAGoldenCatalogueCase() throws {
        let folder = repositoryRoot.appendingPathComponent("Tests/BikeCheckKitTests/Catalogue")
        let cases = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".case") }
            .map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }.joined()
        let missing = Self.ids.keys.filter { !Self.madeByWritesOnly.contains($0) && !cases.contains("[\($0)]") }.sorted()
        #expect(missing.isEmpty, "no catalogue case shows: \(missing)")
    }
}
