import Foundation
import TestSupport
import Testing
@testable import BikeCheckKit

@Suite struct EmbeddedSchemasTests {
    @Test func theEmbeddedSchemasAreTheRepositorysSchemas() throws {
        #expect(
            EmbeddedSchemas.files.map(\.name) == [
                "garage.schema.json", "bike.schema.json", "gear.schema.json", "template.schema.json", "rides.schema.json", "part.schema.json",
            ])
        for file in EmbeddedSchemas.files {
            let url = repositoryFolder.appendingPathComponent("schemas/\(file.name)")
            let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
            #expect(file.text == text, "\(file.name) is stale: run scripts/embed-schemas")
        }
    }

    @Test func initHooksEveryNewFileUpToItsSchema() throws {
        let garage = try TemporaryFolder([:])
        let change = try GarageInitializer.plan(at: garage.root, name: nil)
        let byPath = Dictionary(uniqueKeysWithValues: change.files.map { ($0.path, String(decoding: $0.after, as: UTF8.self)) })
        #expect(byPath["garage.yaml"]?.hasPrefix("# yaml-language-server: $schema=.schemas/garage.schema.json\n") == true)
        #expect(byPath["templates/road.yaml"]?.hasPrefix("# yaml-language-server: $schema=../.schemas/template.schema.json\n") == true)
        #expect(byPath[".schemas/bike.schema.json"] == EmbeddedSchemas.files[1].text)
    }
}
