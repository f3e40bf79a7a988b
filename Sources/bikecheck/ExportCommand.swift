import ArgumentParser
import BikeCheckKit
import Diagnostics

/// What `export` writes: a journal of the costs, or the parts' mounts as strava-gear's rules.
enum ExportFormat: String, CaseIterable, ExpressibleByArgument {
    case ledger, beancount
    case stravaGear = "strava-gear"
}

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "The service log's costs as a hledger/Ledger or Beancount journal, or the parts as strava-gear's rules.",
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

            strava-gear writes the parts as liskin/strava-gear's rules.yaml (the reverse of 'import tracker \
            strava-gear'), so one tool can be checked with the other: bikes with Strava gear as aliases, \
            each part a component with its usage before tracking, a rule for each day a mount starts or \
            ends. A mount on a bike with no Strava gear is named on standard error, and export exits 1.

            Example:
              bikecheck export beancount --since 2025-01-01 > bikes.beancount
              bikecheck export strava-gear > rules.yaml
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "ledger (hledger, Ledger), beancount or strava-gear.")
    var dialect: ExportFormat

    @OptionGroup var query: ReportOptions

    func run() throws {
        let (loaded, asked) = try query.load(global)
        if dialect == .stravaGear {
            let (text, leftOut) = StravaGearRules.export(loaded.garage)
            Terminal.standardOutput.write("\(lines: text)")
            guard !leftOut.isEmpty else { return }
            ErrorStyle.write(leftOut.map { Warning("left out: \($0.message)", at: $0.location) })
            throw ExitCode(1)
        }
        let export = LedgerExport.build(loaded.garage, query: asked, dialect: dialect == .beancount ? .beancount : .ledger)
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
