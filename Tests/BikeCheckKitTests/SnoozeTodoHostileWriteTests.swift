import Foundation
import Testing
@testable import BikeCheckKit

/// Snooze and to-do writes in the cases the golden files do not cover.
@Suite struct SnoozeTodoHostileWriteTests {
    @Test func aBackdatedServiceOlderThanTheLastKeepsTheSnoozeOfTheCurrentCycle() throws {
        // block.before.yaml: chain-lube last done 2026-10-25, snoozed until 2026-12-01.
        let (garage, _) = try SnoozeTodoWriteGoldenTests.garage(SnoozeTodoWriteGoldenTests.doneFolder, "block")
        let old = ServiceRecord(bike: "bike", intervals: ["chain-lube"], date: Day("2026-03-01"), note: "from a receipt")
        let change = try ServiceRecorder.plan(old, in: garage.context())
        let bike = try SnoozeTodoWriteGoldenTests.reread(garage, try #require(change.files.first?.after))
        #expect(bike.snoozes.map(\.interval.value.rawValue) == ["chain-lube", "bar-tape"])
        #expect(!change.summary.contains { $0.contains("no longer snoozed") }, "\(change.summary)")

        // The service of the current cycle (on or after the last) still ends the snooze.
        let current = ServiceRecord(bike: "bike", intervals: ["chain-lube"], date: Day("2026-11-16"))
        let next = try ServiceRecorder.plan(current, in: garage.context())
        let after = try SnoozeTodoWriteGoldenTests.reread(garage, try #require(next.files.first?.after))
        #expect(after.snoozes.map(\.interval.value.rawValue) == ["bar-tape"])
    }
}
