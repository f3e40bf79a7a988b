import BikeCheckKit
import Foundation
import TestSupport
import Testing

@Suite struct MoneyTests {
    @Test(
        arguments: [
            ("45.99", "45.99", nil), ("45", "45.00", nil), ("0.10", "0.10", nil), ("45.99 EUR", "45.99", "EUR"),
            ("1899  USD", "1899.00", "USD"), ("+3.5", "3.50", nil), ("0.1250", "0.125", nil), ("12.30000", "12.30", nil),
        ] as [(String, String, String?)])
    func amountsAreReadFromTheirDigits(_ text: String, _ shown: String, _ currency: String?) throws {
        let money = try Money.parse(text).get()
        #expect(Money.format(money.amount, fractionDigits: Money.fractionDigits(of: money.amount)) == shown)
        #expect(money.currency == currency)
    }

    @Test(arguments: [
        ("45,99", Money.ParseError.notAnAmount), ("€45", .notAnAmount), ("1e3", .notAnAmount), ("", .notAnAmount), (".5", .notAnAmount),
        ("5.", .notAnAmount), ("45 usd", .notAnAmount), ("45 EUR EUR", .notAnAmount), ("-12", .negative), ("0.12345", .tooPrecise),
        ("1000000000.01", .tooLarge), ("99999999999", .tooLarge), ("nan", .notAnAmount), ("inf", .notAnAmount),
    ])
    func notAmountsSayWhy(_ text: String, _ error: Money.ParseError) {
        #expect(throws: error) { try Money.parse(text).get() }
    }

    @Test func tenCentsAndTwentyCentsAreThirtyCents() throws {
        // In binary floating point 0.1 + 0.2 is 0.30000000000000004.
        #expect(0.1 + 0.2 != 0.3 as Double)
        let sum = try Money.parseAmount("0.10").get() + Money.parseAmount("0.20").get()
        #expect(try sum == Money.parseAmount("0.30").get())
        #expect(Money.format(sum) == "0.30")
    }

    @Test func aThousandTenCentCostsAreExactlyOneHundred() throws {
        var sum = Decimal(0)
        for _ in 0..<1000 { sum += try Money.parseAmount("0.10").get() }
        #expect(sum == 100)
        #expect(Money.format(sum) == "100.00")
    }

    @Test func formattingIsFixedPointWithoutGrouping() {
        #expect(Money.format(Decimal(string: "1234567.5", locale: Locale(identifier: "en_US_POSIX"))!) == "1234567.50")
        #expect(Money.format(0) == "0.00")
        #expect(Money.format(Decimal(string: "0.005", locale: Locale(identifier: "en_US_POSIX"))!, fractionDigits: 3) == "0.005")
        #expect(Money.format(-5) == "-5.00")
        #expect(Money.format(7, fractionDigits: 0) == "7")
    }

    @Test func theLoaderKeepsCostsExactWithTheirCurrencyAndCategory() throws {
        let garage = try TemporaryFolder()
        try garage.write("garage.yaml", "currency: EUR\n")
        try garage.write(
            "bikes/grail.yaml",
            """
            name: Grail
            price: 1899.90
            intervals:
              chain-lube:
                every: 10 h
            log:
              - date: 2025-10-02
                done: chain-lube
                cost: 0.10
                category: consumables
              - date: 2025-10-03
                done: chain-lube
                cost: 0.20
              - date: 2025-10-04
                done: chain-lube
                cost: 45 USD

            """)
        let loaded = GarageLoader.load(at: garage.url.path, options: .init(today: Day("2026-01-15")))
        let bike = try #require(loaded.garage.bike(BikeID("grail"))).bike
        #expect(bike.price?.value == Money(Decimal(string: "1899.9", locale: Locale(identifier: "en_US_POSIX"))!, "EUR"))
        let costs = bike.log.compactMap(\.cost?.value)
        #expect(costs.map(\.currency) == ["EUR", "EUR", "USD"])
        #expect(try costs[0].amount + costs[1].amount == Money.parseAmount("0.3").get())
        #expect(bike.log.map(\.category) == ["consumables", nil, nil])
        #expect(loaded.diagnostics.map(\.id) == ["foreign-currency"])
    }

    /// An amount's ten-thousandths are read from the `Decimal`'s own fields on this platform
    /// (`DecimalWords.readable`), and they are what `NSDecimalNumber`'s Double gives: amounts of
    /// every length of significand, sign and exponent, read from text, parsed as costs, and sums
    /// as `Decimal` adds them (not compact).
    @Test func tenThousandthsReadFromTheDecimalsFieldsAreTheDoublesOnes() throws {
        #expect(DecimalWords.readable)
        var amounts = DecimalWords.samples
        for text in [
            "0", "0.10", "45.90", "45.9", "0.0001", "0.00001", "1000000000", "9999999999.9999", "99999999999999e-4", "100000000000000e-4",
            "18446744073709551615", "18446744073709551616e-4", "-12.5", "-0.0001", "1e-7", "25e2", "1e10", "1e14", "12345678901234567890123456789",
        ] {
            amounts.append(try #require(Decimal(string: text)))
        }
        for text in ["0.10", "45.99", "1899", "0.1250", "12.30000", "999999999.9999", "0", "000.5"] { amounts.append(try Money.parseAmount(text[...]).get()) }
        var x: UInt64 = 12345
        for _ in 0..<3000 {
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let significand = x >> (x % 64)
            amounts.append(Decimal(sign: x & 1 == 0 ? .plus : .minus, exponent: Int((x >> 8) % 24) - 10, significand: Decimal(significand)))
        }
        let some = amounts.count
        for k in 0..<some where k % 7 == 0 { amounts.append(amounts[k] + amounts[(k * 31) % some]) }
        var wrong: [Decimal] = []
        for a in amounts where DecimalWords.words(a) != ReportNumber.tenThousandthsThroughDouble(a) { wrong.append(a) }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
        #expect(DecimalWords.words(Decimal(string: "45.99")!) == 459_900 && DecimalWords.words(Decimal(string: "-0.0001")!) == -1)
    }
}
