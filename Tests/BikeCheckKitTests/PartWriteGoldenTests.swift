import Foundation
import TestSupport
import Testing
@testable import BikeCheckKit

/// Golden files for `part mount`: `NAME.before.yaml` is a hand-written part, `NAME.after.yaml`
/// what bikecheck writes when it moves the part to the tarmac on 2026-11-16. Set
/// BIKECHECK_RECORD=1 to re-record after a deliberate change.
@Suite struct PartWriteGoldenTests {
    static let folder = testsFolder.appendingPathComponent("Golden/mount")
    static let cases = goldenCases(in: folder)

    @Test func thereAreGoldenCases() { #expect(Self.cases.count >= 5) }

    @Test(arguments: cases)
    func mountWritesWhatTheGoldenFileSays(name: String) throws {
        let before = [UInt8](try Data(contentsOf: Self.folder.appendingPathComponent("\(name).before.yaml")))
        var files = try exampleTemplates()
        files["bikes/grail.yaml"] = Array("name: Grail\n".utf8)
        files["bikes/tarmac.yaml"] = Array("name: Tarmac\n".utf8)
        files["parts/wheels.yaml"] = before
        let garage = try TemporaryFolder(files)
        let change = try PartEditor.mount("wheels", on: "tarmac", date: Day("2026-11-16"), in: garage.context())
        let after = try #require(change.files.first?.after)

        // Only the open mount's line (or an empty list) changes; everything else is added lines.
        let removed = try expectGolden(after, before: before, name: name, in: Self.folder)
        #expect(removed.count <= 1, "\(removed)")
        #expect(removed.allSatisfy { $0.contains("grail") || $0.contains("to:") || $0.hasPrefix("mounts:") }, "\(removed)")

        // The written garage loads without errors, with the part on the tarmac from that day.
        try garage.write("parts/wheels.yaml", after)
        let loaded = GarageLoader.load(at: garage.root, options: .init(activities: .skip))
        #expect(!loaded.hasErrors, "\(loaded.diagnostics.map(\.message))")
        let part = try #require(loaded.garage.part(PartID("wheels"))?.part)
        #expect(part.mount(on: Day("2026-11-16")!)?.bike.value == BikeID("tarmac"))
        #expect(part.mount(on: Day("2026-11-15")!)?.bike.value != BikeID("tarmac"))
        #expect(change.message.hasPrefix("wheels: "))
    }
}
