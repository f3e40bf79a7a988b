import Foundation
import Testing
@testable import BikeCheckKit

/// Golden files for `part mount`: `NAME.before.yaml` is a hand-written part, `NAME.after.yaml`
/// what bikecheck writes when it moves the part to the tarmac on 2026-11-16. Set
/// BIKECHECK_RECORD_GOLDEN=1 to re-record after a deliberate change.
@Suite struct PartWriteGoldenTests {
    static let folder = testsFolder.appendingPathComponent("Golden/mount")
    static let cases: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        .filter { $0.hasSuffix(".before.yaml") }.map { String($0.dropLast(".before.yaml".count)) }.sorted()

    @Test func thereAreGoldenCases() { #expect(Self.cases.count >= 5) }

    @Test(arguments: cases)
    func mountWritesWhatTheGoldenFileSays(name: String) throws {
        let before = [UInt8](try Data(contentsOf: Self.folder.appendingPathComponent("\(name).before.yaml")))
        var files = try exampleTemplates()
        files["bikes/grail.yaml"] = Array("name: Grail\n".utf8)
        files["bikes/tarmac.yaml"] = Array("name: Tarmac\n".utf8)
        files["parts/wheels.yaml"] = before
        let garage = try ScratchGarage(files)
        let change = try PartEditor.mount("wheels", on: "tarmac", date: Day("2026-11-16"), in: garage.context())
        let after = try #require(change.files.first?.after)

        let goldenURL = Self.folder.appendingPathComponent("\(name).after.yaml")
        if ProcessInfo.processInfo.environment["BIKECHECK_RECORD_GOLDEN"] == "1" {
            try Data(after).write(to: goldenURL)
        }
        let golden = [UInt8](try Data(contentsOf: goldenURL))
        #expect(after == golden, "\(name): got\n\(String(decoding: after, as: UTF8.self))")

        // Only the open mount's line (or an empty list) changes; everything else is added lines.
        let ops = UnifiedDiff.script(UnifiedDiff.lines(before), UnifiedDiff.lines(after))
        let removed = ops.filter { $0.kind == .removed }.map { String(decoding: $0.text, as: UTF8.self) }
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
