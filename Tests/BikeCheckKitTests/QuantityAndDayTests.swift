import BikeCheckKit
import Testing

@Suite struct QuantityAndDayTests {
    @Test(arguments: [
        ("10 h", Measure.time, 36000.0), ("90 min", .time, 5400), ("1.5h", .time, 5400), ("1500 km", .distance, 1_500_000),
        ("900 mi", .distance, 900 * 1609.344), ("30 days", .days, 30), ("2 weeks", .days, 14), ("6 months", .months, 6),
        ("1 year", .months, 12), ("25 rides", .rides, 25), ("1 ride", .rides, 1),
    ])
    func quantitiesParseToBaseUnits(_ text: String, _ measure: Measure, _ amount: Double) throws {
        let q = try Quantity.parse(text).get()
        #expect(q.measure == measure)
        #expect(abs(q.amount - amount) < 1e-6)
    }

    @Test(arguments: [
        ("10 hrs", Quantity.ParseError.unknownUnit("hrs")), ("10", .missingUnit), ("often", .badNumber), ("-5 h", .notPositive),
        ("0 km", .notPositive), ("", .badNumber), ("h 10", .badNumber),
    ])
    func badQuantitiesSayWhy(_ text: String, _ error: Quantity.ParseError) {
        #expect(throws: error) { try Quantity.parse(text).get() }
    }

    @Test(arguments: [("1h30", 5400.0), ("1:30", 5400), ("1:30:15", 5415), ("90 min", 5400), ("1 h 30 min", 5400), ("2 h", 7200), ("45min", 2700)])
    func rideTimesParse(_ text: String, _ seconds: Double) {
        #expect(Quantity.parseDuration(text) == seconds)
    }

    @Test(arguments: ["", "1:75", "1h75", "fast", "0:00", "-1 h", "3 km"])
    func badRideTimesAreRefused(_ text: String) {
        #expect(Quantity.parseDuration(text) == nil)
    }

    @Test func everyDayRoundTripsThroughItsComponents() {
        // 1900 to 2100 covers every leap-year rule that matters (1900 no, 2000 yes, 2100 no).
        var previous: Day?
        for ordinal in Day.ordinal(year: 1900, month: 1, day: 1)...Day.ordinal(year: 2100, month: 12, day: 31) {
            let day = Day(ordinal: ordinal)
            let (y, m, d) = day.components
            #expect(Day(year: y, month: m, day: d) == day)
            if let p = previous { #expect(p < day) }
            previous = day
            if ordinal % 997 == 0 { #expect(Day(day.description) == day) }
        }
    }

    @Test(arguments: [
        ("2026-01-31", 1, "2026-02-28"), ("2024-01-31", 1, "2024-02-29"), ("2026-01-31", 3, "2026-04-30"),
        ("2026-11-15", 3, "2027-02-15"), ("2026-03-31", -1, "2026-02-28"), ("2026-05-10", 12, "2027-05-10"),
    ])
    func addingMonthsClampsToTheMonthsLastDay(_ from: String, _ months: Int, _ to: String) {
        #expect(Day(from)?.adding(months: months) == Day(to))
    }

    @Test(arguments: ["2025-02-29", "2025-13-01", "2025-00-10", "2025-1-01", "25-01-01", "2025/01/01", "2025-01-01T00:00"])
    func impossibleOrMisshapenDatesAreRefused(_ text: String) {
        #expect(Day(text) == nil)
    }
}
