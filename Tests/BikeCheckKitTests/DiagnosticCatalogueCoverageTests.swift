import BikeCheckKit
import Diagnostics
import Foundation
import LocatedYAML
import TestSupport
import Testing

/// Every diagnostic id is a typed constant in its module's list (`DiagnosticID.all`), documented
/// in the manual (docs/) and shown by at least one golden catalogue case, so a new id cannot
/// arrive without its example and its line.
@Suite struct DiagnosticCatalogueCoverageTests {
    /// Ids that `validate` cannot show, because only a write (or a merge) makes them: each still has
    /// its line in docs/writes.md (docs/git.md), and tests of what makes them.
    static let madeByWritesOnly: Set<String> = ["yaml-edit-refused", "yaml-edit-unsafe", "merge-conflict"]

    static var ids: [String] { DiagnosticID.all.map(\.rawValue) }

    @Test func idsAreKebabCaseAndListedOnce() {
        #expect(Self.ids.count == Set(Self.ids).count, "an id is listed twice")
        for id in Self.ids {
            #expect(id.range(of: #"^[a-z0-9]+(-[a-z0-9]+)*$"#, options: .regularExpression) != nil, "\(id)")
        }
    }

    /// Diagnostics are built with the constants, never a string literal id (which no list
    /// would know of).
    @Test func noDiagnosticIsBuiltWithAStringID() throws {
        let pattern = try NSRegularExpression(
            pattern: #"(?:\.error|\.warning|\berror|\bwarning|\breport|\bDiagnostic)\(\s*(?:severity,\s*|\.error,\s*|\.warning,\s*)?"[a-z0-9]+(?:-[a-z0-9]+)+""#
        )
        var found: [String] = []
        let sources = repositoryRoot.appendingPathComponent("Sources")
        for case let url as URL in FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)! where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            if pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil { found.append(url.lastPathComponent) }
        }
        #expect(found.isEmpty, "diagnostics built with a string id in: \(found)")
    }

    /// The manual is docs/, a page per topic: most ids are in docs/diagnostics.md's table, the
    /// others on the page of what makes them (a part's mounts in docs/garage.md, stale data in
    /// docs/commands.md, a write refused in docs/writes.md).
    @Test func everyIdIsInTheManual() throws {
        let docs = repositoryRoot.appendingPathComponent("docs")
        let manual = try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }
            .map { try String(contentsOf: docs.appendingPathComponent($0), encoding: .utf8) }.joined()
        let missing = Self.ids.filter { !manual.contains("`\($0)`") }.sorted()
        #expect(missing.isEmpty, "not in docs/*.md: \(missing)")
    }

    @Test func everyIdValidateCanShowHasAGoldenCatalogueCase() throws {
        let folder = repositoryRoot.appendingPathComponent("Tests/BikeCheckKitTests/Catalogue")
        let cases = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".case") }
            .map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }.joined()
        let missing = Self.ids.filter { !Self.madeByWritesOnly.contains($0) && !cases.contains("[\($0)]") }.sorted()
        #expect(missing.isEmpty, "no catalogue case shows: \(missing)")
    }
}
