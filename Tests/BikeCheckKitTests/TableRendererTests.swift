import BikeCheckKit
import Testing

@Suite struct TableRendererTests {
    let table = ReportTable(
        columns: [.init("bike", "BIKE"), .init("total", "TOTAL", numeric: true)],
        rows: [["grail, \"the gravel one\"", "45.99"], ["tarmac", "1200.00"]], footer: ["total EUR: 1245.99"])

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
}
