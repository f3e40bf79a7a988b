import ArgumentParser
import BikeCheckKit

extension LedgerExport.Dialect: ExpressibleByArgument {}

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "The service log's costs as a hledger/Ledger or Beancount journal.",
        discussion: """
            One transaction per cost and purchase price that costs counts: the date, the bike or \
            part as payee, the tasks and note as narration, Expenses:Bikes:CATEGORY (from the entry's \
            category; Purchase for prices, Uncategorised when none) in the cost's currency, \
            balanced against Assets:Bikecheck (rename it with an alias in your journal). The same \
            garage and --as-of give the same bytes, so the file can be regenerated and included.

            Example:
              bikecheck export beancount --since 2025-01-01 > bikes.beancount
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "ledger (hledger, Ledger) or beancount.")
    var dialect: LedgerExport.Dialect

    @Argument(help: ArgumentHelp("Bikes and parts to export (default: every bike and every part).", valueName: "bike-or-part"))
    var bikes: [String] = []

    @Option(help: ArgumentHelp("Costs from this date (YYYY-MM-DD).", valueName: "date"))
    var since: Day?

    @Option(name: .customLong("as-of"), help: ArgumentHelp("Costs up to this date (default: today).", valueName: "date"))
    var asOf: Day?

    func run() throws {
        let day = asOf ?? today()
        let (loaded, selection) = try ReportOutput.load(global, names: bikes)
        let export = LedgerExport.build(loaded.garage, only: selection.bikes, parts: selection.parts, asOf: day, since: since, dialect: dialect)
        for line in export.skipped { Terminal.standardError.write("warning: left out: \(line)\n") }
        switch format {
        case .text: Terminal.standardOutput.write("\(lines: export.text)")
        }
    }
}
