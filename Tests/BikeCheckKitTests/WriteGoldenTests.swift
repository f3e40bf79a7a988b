import Foundation
import TestSupport
import Testing
@testable import BikeCheckKit

/// Golden files for YAML after `done`: `NAME.before.yaml` is a hand-written bike, `NAME.after.yaml`
/// what bikecheck writes. Set BIKECHECK_RECORD=1 to re-record after a deliberate change.
@Suite struct WriteGoldenTests {
    static let folder = testsFolder.appendingPathComponent("Golden/done")
    static let cases = goldenCases(in: folder)

    @Test func thereAreGoldenCases() { #expect(Self.cases.count >= 5) }

    @Test(arguments: cases)
    func doneWritesWhatTheGoldenFileSays(name: String) throws {
        let before = [UInt8](try Data(contentsOf: Self.folder.appendingPathComponent("\(name).before.yaml")))
        var files = try exampleTemplates()
        files["bikes/bike.yaml"] = before
        let garage = try TemporaryFolder(files)
        let record = ServiceRecord(bike: "bike", intervals: ["chain-lube"], date: Day("2026-11-16"), cost: "9.90", note: "Ünïcode note: yes")
        let change = try ServiceRecorder.plan(record, in: garage.context())
        let after = try #require(change.files.first?.after)

        // Only lines were added, apart from an empty `log: []` that had to become `log:`.
        let removed = try expectGolden(after, before: before, name: name, in: Self.folder)
        #expect(removed.allSatisfy { $0.hasPrefix("log: []") }, "\(removed)")
        #expect(removed.count <= 1)
    }
}

/// Golden files for YAML after `done --cost "45.99 USD" --category …`: the cost as the rider typed
/// it, with its currency code, and the category in the entry's key order; nothing else changes.
@Suite struct DoneCostGoldenTests {
    static let folder = testsFolder.appendingPathComponent("Golden/done-cost")

    @Test func thereAreGoldenCases() { #expect(goldenCases(in: Self.folder).count >= 5) }

    @Test(arguments: goldenCases(in: folder))
    func doneWithACostInACurrencyAndACategoryWritesWhatTheGoldenFileSays(name: String) throws {
        let before = [UInt8](try Data(contentsOf: Self.folder.appendingPathComponent("\(name).before.yaml")))
        var files = try exampleTemplates()
        files["garage.yaml"] = Array("name: test\ncurrency: EUR\n".utf8)
        files["bikes/bike.yaml"] = before
        let garage = try TemporaryFolder(files)
        let record = ServiceRecord(bike: "bike", intervals: ["chain-lube"], date: Day("2026-11-16"), cost: "45.99  USD", category: "chain & lube")
        let change = try ServiceRecorder.plan(record, in: garage.context())
        let after = try #require(change.files.first?.after)
        let removed = try expectGolden(after, before: before, name: name, in: Self.folder)
        #expect(removed.allSatisfy { $0.hasPrefix("log: []") }, "\(removed)")
        // Read back as the file reads it: the cost in USD, apart from the garage's EUR (the
        // warning the file gives, which the write says too), and the category.
        try garage.write("bikes/bike.yaml", after)
        let loaded = GarageLoader.load(at: garage.root, options: .init(activities: .skip, today: Day("2026-11-20")))
        let problems = loaded.diagnostics.filter { $0.location.file == "bikes/bike.yaml" }
        #expect(problems.map(\.id) == ["foreign-currency"], "\(problems.map(\.message))")
        let entry = try #require(loaded.garage.bike(BikeID("bike"))?.bike.log.last { $0.date == Day("2026-11-16") })
        #expect(entry.cost?.value == Money(Decimal(string: "45.99")!, "USD"))
        #expect(entry.category == "chain & lube")
        #expect(change.warnings.map(\.message) == ["bike: cost 45.99 USD is not in the garage's currency EUR [foreign-currency]"], "\(change.warnings)")
        #expect(!change.summary.contains { $0.contains("warning") }, "\(change.summary)")
    }
}
