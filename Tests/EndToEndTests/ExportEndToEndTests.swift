import Foundation
import TestSupport
import Testing

/// `export ledger|beancount` checked by the real tools: hledger (Debian's package) and bean-check
/// (PyPI's beancount, in .build-tools/venv) accept the journals, and their balances of the expense
/// accounts equal `costs --format json`'s totals. A missing tool fails the test, never skips it.
@Suite struct ExportEndToEndTests {
    static let hledger = URL(fileURLWithPath: "/usr/bin/hledger")
    static let beanCheck = toolsPython.deletingLastPathComponent().appendingPathComponent("bean-check")

    static func require(_ tool: URL, _ what: String) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: tool.path) else {
            Issue.record("\(what) is not installed at \(tool.path): run scripts/bootstrap")
            return false
        }
        return true
    }

    /// `costs --format json`'s totals, as `CURRENCY AMOUNT` lines.
    static func costTotals(_ garage: TemporaryFolder) throws -> [String] {
        let r = try garage.run(["costs", "--as-of", "2026-11-15", "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        struct Report: Decodable { struct Total: Decodable { var currency: String?; var total: String }; var totals: [Total] }
        return try JSONDecoder().decode(Report.self, from: Data(r.stdout.utf8)).totals.map { "\($0.currency ?? "-") \($0.total)" }
    }

    static func mixedGarage() throws -> TemporaryFolder {
        try TemporaryFolder([
            "garage.yaml": "currency: EUR\n",
            "bikes/grail.yaml": """
            name: Grail "the gravel one"; 2x
            bought: 2025-01-02
            price: 1999.99
            intervals:
              chain-lube:
                every: 10 h
            log:
              - date: 2025-03-01
                done: chain-lube
                cost: 0.10
                category: chain & lube
                note: "a \\"sachet\\"; 2  spaces \\\\ backslash"
              - date: 2025-03-02
                done: chain-lube
                cost: 0.20
                category: chain & lube
              - date: 2025-04-01
                done: chain-lube
                cost: 45 USD
              - date: 2025-04-02
                done: chain-lube

            """,
        ])
    }

    @Test(arguments: [false, true])
    func hledgerAcceptsTheLedgerExportAndItsExpensesEqualCosts(mixed: Bool) throws {
        guard Self.require(Self.hledger, "hledger (Debian package)") else { return }
        let garage = mixed ? try Self.mixedGarage() : try TemporaryFolder(copying: true)
        let export = try garage.run(["export", "ledger", "--as-of", "2026-11-15"])
        #expect(export.status == 0, "\(export.stderr)")
        try garage.write("bikes.journal", export.stdout)
        let check = try runProcess(Self.hledger, ["-f", "bikes.journal", "check", "--strict"], in: garage.root)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let balance = try runProcess(
            Self.hledger, ["-f", "bikes.journal", "balance", "Expenses", "--no-total", "--flat", "-N", "--layout", "bare", "-O", "csv"], in: garage.root)
        #expect(balance.status == 0, "\(balance.stdout)\(balance.stderr)")
        // Sum each currency over the expense accounts, exactly, from hledger's own figures.
        var sums: [String: Decimal] = [:]
        for line in balance.stdout.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            guard fields.count >= 3, let amount = Decimal(string: fields[2], locale: Locale(identifier: "en_US_POSIX")) else { continue }
            sums[fields[1], default: 0] += amount
        }
        let fromHledger = sums.keys.sorted().map { "\($0) \(format(sums[$0]!))" }
        #expect(fromHledger == (try Self.costTotals(garage)), "\(balance.stdout)")
        let again = try garage.run(["export", "ledger", "--as-of", "2026-11-15"])
        #expect(again.stdout == export.stdout, "the export is deterministic")
    }

    @Test(arguments: [false, true])
    func beanCheckAcceptsTheBeancountExportAndItsExpensesEqualCosts(mixed: Bool) throws {
        guard Self.require(Self.beanCheck, "bean-check (PyPI beancount)") else { return }
        let garage = mixed ? try Self.mixedGarage() : try TemporaryFolder(copying: true)
        let export = try garage.run(["export", "beancount", "--as-of", "2026-11-15"])
        #expect(export.status == 0, "\(export.stderr)")
        try garage.write("bikes.beancount", export.stdout)
        let check = try runProcess(Self.beanCheck, ["bikes.beancount"], in: garage.root)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        // Beancount's own loader sums the expense postings per currency, as decimals.
        let script = """
            import sys
            from collections import defaultdict
            from beancount import loader
            from beancount.core import data
            entries, errors, _ = loader.load_file(sys.argv[1])
            assert not errors, errors
            sums = defaultdict(lambda: 0)
            for e in entries:
                if isinstance(e, data.Transaction):
                    for p in e.postings:
                        if p.account.startswith("Expenses:"):
                            sums[p.units.currency] += p.units.number
            for c in sorted(sums): print(c, "%.2f" % sums[c])
            """
        let sums = try runProcess(toolsPython, ["-c", script, "bikes.beancount"], in: garage.root)
        #expect(sums.status == 0, "\(sums.stdout)\(sums.stderr)")
        #expect(sums.stdout.split(separator: "\n").map(String.init) == (try Self.costTotals(garage)))
    }

    private func format(_ d: Decimal) -> String {
        var value = d, rounded = Decimal()
        NSDecimalRound(&rounded, &value, 2, .plain)
        let s = "\(rounded)"
        guard let dot = s.firstIndex(of: ".") else { return s + ".00" }
        return s + String(repeating: "0", count: max(0, 3 - s.distance(from: dot, to: s.endIndex)))
    }
}
