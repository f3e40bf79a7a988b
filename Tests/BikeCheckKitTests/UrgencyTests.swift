@testable import BikeCheckKit
import Testing

@Suite struct UrgencyTests {
    @Test(arguments: [
        ("14d", 14), ("2w", 14), ("14 days", 14), ("2 weeks", 14), ("1 day", 1), ("0d", 0), ("0 days", 0), (" 7d ", 7), ("3650d", 3650),
    ])
    func dayWindowsReadDaysAndWeeks(text: String, days: Int) {
        #expect(DayWindow.parse(text) == days)
    }

    @Test(arguments: ["", "d", "14", "-1d", "3651d", "1 month", "2 h", "1.5d", "14x", "١٤d"])
    func dayWindowsRefuseEverythingElse(text: String) {
        #expect(DayWindow.parse(text) == nil)
    }

    @Test func bandsReadAsWrittenAndOrderMostUrgentFirst() {
        let written = ["overdue", "within:0d", "within:1d", "within:7d", "within:30d", "due-soon", "ok"]
        let bands = written.compactMap(UrgencyBand.init)
        #expect(bands.map(\.description) == written)
        #expect(bands == bands.sorted())
        #expect(UrgencyBand("7d") == .within(days: 7) && UrgencyBand("within:2w") == .within(days: 14))
        #expect(UrgencyBand("soon") == nil && UrgencyBand("within:") == nil)
    }

    @Test(arguments: ["overdue", "due-soon", "within:7d", "within:2w", "within:14 days"])
    func checkLevelsRead(text: String) {
        #expect(CheckLevel(text) != nil)
    }

    @Test(arguments: ["ok", "7d", "within", "within:7x", "due soon"])
    func checkLevelsRefuseOtherWords(text: String) {
        #expect(CheckLevel(text) == nil)
    }

    /// One interval, by state and forecast, as the planner leaves it.
    static func interval(_ state: IntervalState, due: Day?) -> IntervalStatus {
        IntervalStatus(
            id: "x", task: "x", component: nil, template: nil, state: state, progress: state == .overdue ? 1.2 : 0.5, since: Day("2026-01-01"),
            anchor: .bought, usage: Usage(), limits: [], due: due)
    }

    @Test func theBandIsTheNearestWindowHoldingTheForecastElseTheState() throws {
        let asOf = try #require(Day("2026-01-10"))
        func band(_ state: IntervalState, inDays days: Int?) -> UrgencyBand {
            UrgencyBand.of(Self.interval(state, due: days.map { asOf.adding(days: $0) }), asOf: asOf)
        }
        #expect(band(.overdue, inDays: nil) == .overdue)
        #expect(band(.ok, inDays: 0) == .within(days: 0))
        #expect(band(.ok, inDays: 1) == .within(days: 1))
        #expect(band(.ok, inDays: 2) == .within(days: 7))
        #expect(band(.dueSoon, inDays: 30) == .within(days: 30))
        #expect(band(.dueSoon, inDays: 31) == .dueSoon)
        #expect(band(.ok, inDays: 31) == .ok)
        #expect(band(.ok, inDays: nil) == .ok)
        #expect(UrgencyBand.of(Self.interval(.ok, due: asOf.adding(days: 9)), asOf: asOf, windows: [10]) == .within(days: 10))
        #expect(UrgencyBand.of(Self.interval(.ok, due: asOf.adding(days: 9)), asOf: asOf, windows: []) == .ok)
    }

    @Test func checkLevelsNestOverdueInsideDueSoonAndEveryWindow() throws {
        let asOf = try #require(Day("2026-01-10"))
        let overdue = Self.interval(.overdue, due: nil)
        let soonNoForecast = Self.interval(.dueSoon, due: nil)
        let forecastInFive = Self.interval(.ok, due: asOf.adding(days: 5))
        #expect(CheckLevel.overdue.isReached(by: overdue, asOf: asOf))
        #expect(!CheckLevel.overdue.isReached(by: soonNoForecast, asOf: asOf))
        #expect(CheckLevel.dueSoon.isReached(by: soonNoForecast, asOf: asOf) && CheckLevel.dueSoon.isReached(by: overdue, asOf: asOf))
        #expect(!CheckLevel.dueSoon.isReached(by: forecastInFive, asOf: asOf))
        #expect(CheckLevel.within(days: 5).isReached(by: forecastInFive, asOf: asOf))
        #expect(!CheckLevel.within(days: 4).isReached(by: forecastInFive, asOf: asOf))
        #expect(CheckLevel.within(days: 0).isReached(by: overdue, asOf: asOf))
        #expect(!CheckLevel.within(days: 30).isReached(by: soonNoForecast, asOf: asOf))
    }
}
