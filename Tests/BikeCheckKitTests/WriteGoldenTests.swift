import Foundation
import Testing
@testable import BikeCheckKit

/// Golden files for YAML after `done`: `NAME.before.yaml` is a hand-written bike, `NAME.after.yaml`
/// what bikecheck writes. Set BIKECHECK_RECORD_GOLDEN=1 to re-record after a deliberate change.
@Suite struct WriteGoldenTests {
    static let folder = testsFolder.appendingPathComponent("Golden/done")
    static let cases: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        .filter { $0.hasSuffix(".before.yaml") }.map { String($0.dropLast(".before.yaml".count)) }.sorted()

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

        let goldenURL = Self.folder.appendingPathComponent("\(name).after.yaml")
        if ProcessInfo.processInfo.environment["BIKECHECK_RECORD_GOLDEN"] == "1" {
            try Data(after).write(to: goldenURL)
        }
        let golden = [UInt8](try Data(contentsOf: goldenURL))
        #expect(after == golden, "\(name): got\n\(String(decoding: after, as: UTF8.self))")

        // Only lines were added, apart from an empty `log: []` that had to become `log:`.
        let ops = UnifiedDiff.script(UnifiedDiff.lines(before), UnifiedDiff.lines(after))
        let removed = ops.filter { $0.kind == .removed }.map { String(decoding: $0.text, as: UTF8.self) }
        #expect(removed.allSatisfy { $0.hasPrefix("log: []") }, "\(removed)")
        #expect(removed.count <= 1)
    }
}
