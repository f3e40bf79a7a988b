import ArgumentParser
import BikeCheckKit
import Diagnostics

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

            A cost that cannot be a transaction (no currency: neither the cost nor garage.yaml \
            names one; a price without a 'bought:' day) is left out of the journal and named on \
            standard error with its file and line, and export exits 1, so a script that writes \
            the journal notices; it exits 0 when every cost is in it.

            Example:
              bikecheck export beancount --since 2025-01-01 > bikes.beancount
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "ledger (hledger, Ledger) or beancount.")
    var dialect: LedgerExport.Dialect

    @OptionGroup var query: ReportOptions

    func run() throws {
        let (loaded, selection) = try query.load(global)
        let export = LedgerExport.build(
            loaded.garage, only: selection.bikes, parts: selection.parts, asOf: query.day(loaded), since: query.since, dialect: dialect)
        switch format {
        case .text: Terminal.standardOutput.write("\(lines: export.text)")
        }
        // The journal is written whole all the same; a cost it does not have is a problem found.
        guard !export.skipped.isEmpty else { return }
        ErrorStyle.write(export.skipped.map { Warning("left out: \($0.message)", at: $0.location) })
        let count = export.skipped.count
        Terminal.standardError.write("\(count) cost\(count == 1 ? "" : "s") left out of the journal\n")
        throw ExitCode(1)
    }
}
