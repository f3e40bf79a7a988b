import Foundation
import TestSupport
import Testing
@testable import BikeCheckKit

/// garage.yaml's `stale_after:` and `quiet_after:` read spans of days the way `repeat:` and
/// `bands:` do.
@Suite struct StalenessSettingsTests {
    static func settings(_ yaml: String) throws -> (GarageSettings, [String]) {
        let garage = try TemporaryFolder(["garage.yaml": Array(yaml.utf8)])
        let loaded = GarageLoader.load(at: garage.root, options: .init(activities: .skip, today: Day("2026-11-20")))
        return (loaded.garage.settings, loaded.diagnostics.map(\.message))
    }

    @Test func staleAfterAndQuietAfterTakeDaysAndWeeksWrittenShortAsRepeatAndBandsDo() throws {
        let (short, problems) = try Self.settings("stale_after: 10d\nquiet_after: 3w\nnotify: {ntfy: {topic: t}, repeat: 2w, bands: [7d]}\n")
        #expect(problems.isEmpty, "\(problems)")
        #expect(short.staleAfter == 10 && short.quietAfter == 21)
        let (long, longProblems) = try Self.settings("stale_after: 10 days\nquiet_after: 3 weeks\n")
        #expect(longProblems.isEmpty && long.staleAfter == 10 && long.quietAfter == 21, "\(longProblems)")
        let (_, bad) = try Self.settings("stale_after: 10h\n")
        #expect(bad == ["stale_after '10 h' is not a number of days"], "\(bad)")
    }
}

extension StalenessSettingsTests {
    @Test func aShortSpanTooLongOrZeroSaysTheRangeAndDoesNotOverflow() throws {
        let (_, problems) = try Self.settings("stale_after: 99999999999999999999d\nquiet_after: 0w\n")
        #expect(
            problems == ["stale_after '99999999999999999999d' should be 1 to 3650 days", "quiet_after '0w' should be 1 to 3650 days"], "\(problems)")
    }
}
