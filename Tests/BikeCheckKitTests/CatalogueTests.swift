import BikeCheckKit
import Diagnostics
import Foundation
import TestSupport
import Testing

/// The golden catalogue of user-facing diagnostics: each `Catalogue/*.case` file holds the garage
/// files of one mistake and exactly what `bikecheck validate` prints for it. The catalogue doubles
/// as documentation. Re-record with `BIKECHECK_RECORD=1 swift test --filter CatalogueTests` (the
/// run fails, as every recording run does), then read the diff.
@Suite struct CatalogueTests {
    static let folder = CatalogueCase.folder

    static var cases: [String] { CatalogueCase.names }

    @Test func theCatalogueIsNotEmpty() {
        #expect(Self.cases.count >= 20)
    }

    @Test(arguments: cases)
    func diagnosticsMatchTheCatalogue(_ name: String) throws {
        let url = Self.folder.appendingPathComponent(name + ".case")
        let text = try String(contentsOf: url, encoding: .utf8)
        let parsed = CatalogueCase(text)
        let garage = try TemporaryFolder()
        try parsed.write(into: garage)

        let started = Date()
        let loaded = GarageLoader.load(at: garage.url.path, options: .init(today: Day("2026-01-15")))
        let elapsed = Date().timeIntervalSince(started)
        let rendered = DiagnosticRenderer(sources: loaded.sources).render(loaded.diagnostics).string

        #expect(!loaded.diagnostics.isEmpty, "every catalogue case shows at least one diagnostic")
        #expect(elapsed < 5, "\(name) took \(elapsed) s")
        expectGolden(parsed.recorded(rendered), file: url)
    }
}
