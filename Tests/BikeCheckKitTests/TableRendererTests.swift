import BikeCheckKit
import Foundation
import Testing

@Suite struct TableRendererTests {
    let table = ReportTable(
        columns: [.init("bike", "BIKE"), .init("total", "TOTAL", numeric: true)],
        rows: [["grail, \"the gravel one\"", "45.99"], ["tarmac", "1200.00"]], footer: ["total EUR: 1245.99"])

    /// Numbers are written digit by digit (a million rows cannot afford a formatter each): the
    /// same text as `String(format: "%.Nf")` of the rounded value, as before.
    @Test func percentagesRoundHalfUpFromTheFourDecimalsButNeverReach100BelowOne() {
        // 2.3 * 100 is 229.99999999999997 in binary: the floor said 229.
        #expect(ReportNumber.percent(2.3) == 230)
        // 0.285 * 100 is 28.499999999999996: rounding the float said 28; half up from 28.50 is 29.
        #expect(ReportNumber.percent(0.285) == 29)
        #expect(ReportNumber.percent(0.0049) == 0)
        #expect(ReportNumber.percent(0.005) == 1)
        // 99.96 % is not overdue: it never shows as 100 %.
        #expect(ReportNumber.percent(0.9996) == 99)
        #expect(ReportNumber.percent(1) == 100)
        #expect(ReportNumber.percent(1.0049) == 100)
        #expect(ReportNumber.percent(0) == 0)
    }

    @Test func fixedNumbersAreWhatPrintfPrintsOfTheRoundedValue() {
        var values: [Double] = [0, -0.0, 0.04, -0.04, 0.05, -0.05, 0.15, 0.25, 2.675, 1e-9, 123_456.789, -98.76, 9.95, 99.95, 1e12 + 0.55]
        var x = 0.37
        for _ in 0..<2000 {
            x = (x * 7919.123).truncatingRemainder(dividingBy: 100_000) - 20_000
            values.append(x)
            values.append(x / 3600)
        }
        for v in values {
            for decimals in 0...2 {
                let scale = pow(10.0, Double(decimals))
                let rounded = (v * scale).rounded() / scale
                #expect(ReportNumber.fixed(v, decimals) == String(format: "%.\(decimals)f", rounded == 0 ? 0 : rounded), "\(v) \(decimals)")
            }
        }
    }

    /// A streamed table prints what the same rows as Strings print, in every format.
    @Test func streamedRowsRenderLikeRowsOfStrings() {
        let rows = [["grail", "12.5", "plain"], ["tarmac", "3.0", "tab\there, comma"], ["stumpy", "0.1", "Wald & Wiese ö"], ["x", "1", "quote \" and |"]]
        let stream = ReportTable.RowStream(count: rows.count) { k, cells in for c in rows[k] { cells.text(c) } }
        let columns: [ReportTable.Column] = [.init("bike", "BIKE"), .init("km", "KM", numeric: true), .init("name", "NAME")]
        let streamed = ReportTable(columns: columns, stream: stream, footer: ["total"])
        let plain = ReportTable(columns: columns, rows: rows, footer: ["total"])
        #expect(TableTextRenderer().render(streamed) == TableTextRenderer().render(plain))
        #expect(TableCSVRenderer.render(streamed) == TableCSVRenderer.render(plain))
        #expect(TableMarkdownRenderer.render(streamed) == TableMarkdownRenderer.render(plain))
        #expect(TableTextRenderer(width: 20).render(streamed) == TableTextRenderer(width: 20).render(plain))
    }

    /// Held rows (written once, the lines laid out from what was written) print what rows
    /// written twice and rows of Strings print: empty cells at a line's end, text ending in
    /// spaces, a line of empty cells, cells to escape.
    @Test func heldRowsRenderLikeRowsWrittenTwice() {
        let rows = [
            ["grail", "12.5", "plain", ""], ["tarmac", "", "ends in spaces  ", ""], ["stumpy", "0.1", "Wald ö\t", "x"], ["", "", "", ""],
            ["gravel", "7", "", ""],
        ]
        let columns: [ReportTable.Column] = [.init("bike", "BIKE"), .init("km", "KM", numeric: true), .init("name", "NAME"), .init("note", "NOTE")]
        let twice = ReportTable.RowStream(count: rows.count) { k, cells in for c in rows[k] { cells.text(c) } }
        var held = twice
        held.holdsRows = true
        let expected = TableTextRenderer().render(ReportTable(columns: columns, rows: rows))
        #expect(TableTextRenderer().render(ReportTable(columns: columns, stream: held)) == expected)
        #expect(TableTextRenderer().render(ReportTable(columns: columns, stream: twice)) == expected)
        #expect(expected.string.split(separator: "\n", omittingEmptySubsequences: false)[4] == "")
    }

    @Test func textAlignsNumbersRightAndTextLeft() {
        #expect(
            TableTextRenderer().render(table).string == """
                BIKE                       TOTAL
                grail, "the gravel one"    45.99
                tarmac                   1200.00
                total EUR: 1245.99

                """)
    }

    @Test func textFitsANarrowTerminalByCuttingTextNotNumbers() {
        let lines = TableTextRenderer(width: 20).render(table).string.split(separator: "\n")
        #expect(lines[1] == "grail, \"th…    45.99")
        #expect(lines.dropLast().allSatisfy { $0.count <= 20 })
    }

    @Test func csvQuotesFieldsAsRFC4180Says() {
        #expect(TableCSVRenderer.render(table).string == "bike,total\r\n\"grail, \"\"the gravel one\"\"\",45.99\r\ntarmac,1200.00\r\n")
    }

    @Test func markdownEscapesPipesAndRightAlignsNumbers() {
        let t = ReportTable(columns: [.init("bike", "BIKE"), .init("total", "TOTAL", numeric: true)], rows: [["a|b", "1.00"]])
        #expect(TableMarkdownRenderer.render(t).string == "| BIKE | TOTAL |\n| --- | ---: |\n| a\\|b | 1.00 |\n")
    }

    @Test func controlCharactersInCellsNeverReachTheTerminal() {
        let t = ReportTable(columns: [.init("bike", "BIKE")], rows: [["evil\u{1B}[31m"]])
        #expect(!TableTextRenderer().render(t).string.contains("\u{1B}"))
        #expect(!TableCSVRenderer.render(t).string.contains("\u{1B}"))
        #expect(!TableMarkdownRenderer.render(t).string.contains("\u{1B}"))
    }

    /// A held row is checked for bytes the terminal must not get eight at a time: an escape, a
    /// DEL, a C1 control or a letter beyond ASCII at any place in a cell, before or after the
    /// eighth byte, sends the row the escaping way, as rows of Strings go.
    @Test func heldRowsWithAnUnsafeByteAnywhereRenderLikeRowsOfStrings() {
        let columns: [ReportTable.Column] = [.init("bike", "BIKE"), .init("km", "KM", numeric: true), .init("name", "NAME")]
        for unsafe in ["\u{1B}", "\u{7F}", "\u{9B}", "ö", "\u{1F}"] {
            for at in 0...20 {
                var name = Array("abcdefghijklmnopqrstu").map(String.init)
                name.insert(unsafe, at: at)
                let rows = [["grail", "12.5", "plain ~ text"], ["gravel", "3", name.joined()], ["x", "1", "~"]]
                var stream = ReportTable.RowStream(count: rows.count) { k, cells in for c in rows[k] { cells.text(c) } }
                stream.holdsRows = true
                let held = TableTextRenderer().render(ReportTable(columns: columns, stream: stream))
                #expect(held == TableTextRenderer().render(ReportTable(columns: columns, rows: rows)), "\(unsafe.unicodeScalars.first!.value) at \(at)")
                #expect(!held.string.contains(unsafe) || unsafe == "ö")
            }
        }
    }

    /// The eight-at-a-time check says what a check of each byte says, for every byte value at
    /// every place of runs up to 24 bytes long.
    @Test func printableASCIIIsWhatEachByteSays() {
        for length in 1...24 {
            for at in 0..<length {
                for value in [0, 0x1F, 0x20, 0x41, 0x7E, 0x7F, 0x80, 0x9F, 0xA0, 0xC3, 0xFF] as [UInt8] {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length + 3)
                    bytes[1 + at] = value
                    let expected = value >= 0x20 && value < 0x7F
                    let said = bytes.withUnsafeBufferPointer { TableTextRenderer.printableASCII($0, 1..<(1 + length)) }
                    #expect(said == expected, "\(value) at \(at) of \(length)")
                }
            }
        }
    }

    /// What a room writes (numbers to 0 through 6 decimals, whole numbers, days, amounts, text)
    /// is what their Strings say, one after another, well past the room's first growth.
    @Test func aRoomWritesWhatTheStringsSay() throws {
        var room = ByteRoom()
        var expected = ""
        var x = 0.37
        for k in 0..<3000 {
            x = (x * 7919.123).truncatingRemainder(dividingBy: 100_000) - 20_000
            let decimals = k % 7, value = k % 5 == 0 ? x * 1e9 : x
            room.fixed(value, decimals)
            let scale = pow(10.0, Double(decimals))
            let rounded = (value * scale).rounded() / scale
            expected += String(format: "%.\(decimals)f", rounded == 0 ? 0 : rounded)
            let n = Int64(x * 1e6)
            room.integer(n)
            expected += String(n)
            let day = Day(ordinal: Int(x) * 3)
            room.day(day)
            expected += day.description
            room.put(utf8Of: " ü;")
            expected += " ü;"
        }
        for n in [Int64.min, -1, 0, 9, 10, Int64.max] {
            room.integer(n)
            expected += String(n)
        }
        for value in [Double.nan, .infinity, -1e300, 1e15, 999_999_999_999_999.4, -0.04] {
            room.fixed(value, 1)
            let rounded = (value * 10).rounded() / 10
            expected += String(format: "%.1f", rounded == 0 ? 0 : rounded)
        }
        for text in ["0", "0.5", "45.9", "0.125", "0.0001", "1000000000", "9999999999.9999", "-12.5", "25e2", "1e-7"] {
            let amount = try #require(Decimal(string: text))
            // An amount that is not a whole number of ten-thousandths is not written.
            let written = room.amount(amount)
            #expect(written == (text != "1e-7"), "\(text)")
            if written { expected += Money.format(amount, fractionDigits: Money.fractionDigits(of: amount)) }
        }
        for day in [Day(ordinal: 3_000_000), Day(ordinal: -800_000)] {
            room.day(day)
            expected += day.description
        }
        #expect(String(decoding: room.written, as: UTF8.self) == expected)
    }
}
