import Foundation
import Testing
@testable import BikeCheckKit

/// Golden files for YAML after `done`: `NAME.before.yaml` is a hand-written bike, `NAME.after.yaml`
/// what bikecheck writes. Set BIKECHECK_RECORD_GOLDEN=1 to re-record after a deliberate change.
@Suite struct WriteGoldenTests {
    static let folder = testsFolder.appendingPathComponent("Golden/done")
    static let cases = goldenCases(in: folder)

    @Test func thereAreGoldenCases() { #expect(Self.cases.count >= 5) }

    @Test(arguments: cases)
    func doneWritesWhatTheGoldenFileSays(name: String) throws {
        let before = [UInt8](try Data(contentsOf: Self.folder.appendingPathComponent("\(name).before.yaml")))
        var files = try exampleTemplates()
        files["bikes/bike.yaml"] = before
        let garage = try ScratchGarage(files)
        let record = ServiceRecord(bike: "bike", intervals: ["chain-lube"], date: Day("2026-11-16"), cost: "9.90", note: "Ünïcode note: yes")
        let change = try ServiceRecorder.plan(record, in: garage.context())
        let after = try #require(change.files.first?.after)

        // Only lines were added, apart from an empty `log: []` that had to become `log:`.
        let removed = try expectGolden(after, before: before, name: name, in: Self.folder)
        #expect(removed.allSatisfy { $0.hasPrefix("log: []") }, "\(removed)")
        #expect(removed.count <= 1)
    }
}
