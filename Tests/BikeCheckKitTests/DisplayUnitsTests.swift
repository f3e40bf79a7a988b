@testable import BikeCheckKit
import Foundation
import Testing

/// The one place SI figures become what a rider reads (`UnitSystem` in Rendering/DisplayUnits.swift).
@Suite struct DisplayUnitsTests {
    /// A limit as the planner makes it from what the file says, with `used` metres (or seconds).
    static func limit(_ written: String, used: Double) throws -> LimitStatus {
        guard case .success(let q) = Quantity.parse(written) else { throw CancellationError() }
        return LimitStatus(
            every: q.text, measure: q.measure, unit: q.unit, unitSize: q.unitSize, limit: q.amount, used: used, progress: used / q.amount, due: nil)
    }

    @Test(arguments: [
        // A limit in the rider's units, or not a distance, reads as written.
        ("1500 km", UnitSystem.metric, 1_276_300.0, "1276", "1500 km"),
        ("900 miles", .imperial, 160_934.4, "100", "900 miles"),
        ("10 h", .imperial, 6.8 * 3600, "6.8", "10 h"),
        ("6 months", .imperial, 1.8, "1.8", "6 months"),
        // A distance in the other unit reads in the rider's, the written form beside it.
        ("1500 km", .imperial, 160_934.4, "100", "932 mi (1500 km)"),
        ("900 mi", .metric, 482_803.2, "483", "1448 km (900 mi)"),
        ("+3 mi", .metric, 1000, "1", "4.8 km (+3 mi)"),
        (".5 km", .imperial, 160.9344, "0.1", "0.3 mi (.5 km)"),
    ])
    func aLimitReadsInTheRidersUnits(_ written: String, _ units: UnitSystem, _ used: Double, _ usedText: String, _ limitText: String) throws {
        let limit = try Self.limit(written, used: used)
        #expect(units.usedText(limit) == usedText)
        #expect(units.limitText(limit) == limitText)
    }

    @Test func distancesClimbAndCostsPer1000AreInTheRidersUnits() {
        #expect(UnitSystem.metric.distanceText(160_934.4) == "160.9" && UnitSystem.imperial.distanceText(160_934.4) == "100.0")
        #expect(UnitSystem.metric.climbText(304.8) == "305" && UnitSystem.imperial.climbText(304.8) == "1000")
        // 1040 over 300 mi (482.8032 km), to the cent; nothing ridden, no rate.
        #expect(UnitSystem.imperial.per1000(1040, metres: 482_803.2) == Decimal(string: "3466.67"))
        #expect(UnitSystem.metric.per1000(1040, metres: 482_803.2) == Decimal(string: "2154.09"))
        #expect(UnitSystem.metric.per1000(1040, metres: 0) == nil)
    }
}
