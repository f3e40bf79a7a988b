import Foundation
import TestSupport
import Testing

/// Costs from the command line as in the files, through the built binary: `done --cost` and
/// `--category` write what the log would hold, `init` writes a `currency:`, and `export` exits 1
/// when it leaves a cost out.
@Suite struct CostsCommandLineEndToEndTests {
    static let grail = """
        name: Grail
        bought: 2025-01-02
        intervals:
          chain-lube:
            every: 10 h
        log:
          - date: 2025-03-01
            done: [chain-lube]
            cost: 5
            category: consumables

        """

    @Test func doneWritesACostInAnotherCurrencyAndACategoryAsTheFileHoldsThem() throws {
        let garage = try TemporaryFolder(["garage.yaml": "currency: EUR\n", "bikes/grail.yaml": Self.grail])
        let r = try garage.run(["done", "grail", "chain-lube", "--date", "2025-04-01", "--cost", "45 USD", "--category", "parts"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try garage.read("bikes/grail.yaml") == Self.grail + "  - date: 2025-04-01\n    done: [chain-lube]\n    cost: 45 USD\n    category: parts\n")
        // The warning the file now gives, said by the write as validate says it.
        let warning = "cost 45.00 USD is not in the garage's currency EUR [foreign-currency]"
        #expect(r.stderr.hasPrefix("warning: grail: \(warning)\n  help: "), "\(r.stderr)")
        #expect(!r.stdout.contains("warning"), "\(r.stdout)")
        let json = try garage.run(["done", "grail", "chain-lube", "--date", "2025-04-02", "--cost", "5 USD", "--dry-run", "--format", "json"])
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(report?["warnings"] as? [String] == ["grail: cost 5.00 USD is not in the garage's currency EUR [foreign-currency]"], "\(json.stdout)")
        let validate = try garage.run(["validate"])
        #expect(validate.status == 0 && validate.stderr.contains("bikes/grail.yaml:13:11: warning: \(warning)"), "\(validate.stderr)")
        // Costs count it in USD, apart, in its category.
        let costs = try garage.run(["costs", "--by", "category", "--as-of", "2025-12-31", "--format", "csv"])
        #expect(costs.status == 0, "\(costs.stderr)")
        #expect(costs.stdout.contains("parts,USD,45.00,"), "\(costs.stdout)")
        #expect(costs.stdout.contains("consumables,EUR,5.00,"), "\(costs.stdout)")
        // In the garage's currency, the same command warns of nothing.
        let home = try garage.run(["done", "grail", "chain-lube", "--date", "2025-05-01", "--cost", "12.50 EUR", "--category", "labour"])
        #expect(home.status == 0 && !home.stdout.contains("warning"), "\(home.stdout)\(home.stderr)")
    }

    /// The command line reads a cost with the files' parser: what a file refuses, `--cost` refuses
    /// with the same sentence and help.
    @Test(arguments: ["45 usd", "45 EURO", "45,99", "1.23456", "€45", "2000000000"])
    func aCostTheFileRefusesIsRefusedWithTheFilesMessage(cost: String) throws {
        let garage = try TemporaryFolder(["garage.yaml": "currency: EUR\n", "bikes/grail.yaml": Self.grail])
        let r = try garage.run(["done", "grail", "chain-lube", "--date", "2025-04-01", "--cost", cost])
        #expect(r.status == 2, "\(r.stdout)\(r.stderr)")
        #expect(try garage.read("bikes/grail.yaml") == Self.grail, "nothing written")
        try garage.write("bikes/grail.yaml", Self.grail.replacingOccurrences(of: "cost: 5", with: "cost: \(cost)"))
        let validate = try garage.run(["validate"])
        #expect(validate.status == 1)
        let fileMessage = try #require(validate.stderr.firstMatch(of: #/error: (cost .*) \[[a-z-]+\]\n/#)?.1, "\(validate.stderr)")
        #expect(r.stderr.hasPrefix("error: \(fileMessage)\n"), "\(r.stderr) vs \(fileMessage)")
        if let help = validate.stderr.firstMatch(of: #/= help: (.*)\n/#)?.1 {
            #expect(r.stderr.contains("  help: \(help)\n"), "\(r.stderr)")
        }
    }

    @Test func aDifferentCategoryForAServiceAlreadyLoggedIsRefused() throws {
        let garage = try TemporaryFolder(["garage.yaml": "currency: EUR\n", "bikes/grail.yaml": Self.grail])
        let r = try garage.run(["done", "grail", "chain-lube", "--date", "2025-03-01", "--cost", "5", "--category", "labour"])
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains("already in the log (bikes/grail.yaml:7); nothing was written"), "\(r.stderr)")
        // The same entry again is nothing to do.
        let same = try garage.run(["done", "grail", "chain-lube", "--date", "2025-03-01", "--cost", "5 EUR", "--category", "consumables"])
        #expect(same.status == 0 && same.stdout.contains("nothing to do"), "\(same.stdout)\(same.stderr)")
        #expect(try garage.read("bikes/grail.yaml") == Self.grail)
    }

    /// `init` writes the currency asked for, else the locale's, with a comment that says how to
    /// change it; the file passes bikecheck and the JSON Schema; a bad code is a usage error.
    @Test func initWritesTheCurrencyAskedForElseTheLocales() throws {
        let folder = try TemporaryFolder()
        let locale = ["LC_ALL": "de_DE.UTF-8", "LC_MONETARY": "", "LANG": ""]
        let asked = try runBikecheck(["init", "asked", "--currency", "GBP"], in: folder.url, environment: locale)
        #expect(asked.status == 0, "\(asked.stderr)")
        let fromLocale = try runBikecheck(["init", "local"], in: folder.url, environment: locale)
        #expect(fromLocale.status == 0, "\(fromLocale.stderr)")
        let us = try runBikecheck(["init", "us"], in: folder.url, environment: ["LC_ALL": "", "LC_MONETARY": "", "LANG": "en_US.UTF-8"])
        #expect(us.status == 0, "\(us.stderr)")
        for (name, code) in [("asked", "GBP"), ("local", "EUR"), ("us", "USD")] {
            let root = folder.url.appendingPathComponent(name)
            let text = try String(decoding: Data(contentsOf: root.appendingPathComponent("garage.yaml")), as: UTF8.self)
            #expect(
                text.hasSuffix("# its own (cost: 45.99 USD). To change it, write your currency's code, e.g. currency: GBP.\ncurrency: \(code)\n"), "\(text)")
            #expect(text.contains("# Costs written without a currency code (cost: 45.99) are in this currency"), "\(text)")
            let validate = try runBikecheck(["validate", "--garage", root.path], in: folder.url)
            #expect(validate.status == 0 && validate.stderr.isEmpty, "\(validate.stderr)")
            if let schema = try checkJSONSchema(
                ["--schemafile", root.appendingPathComponent(".schemas/garage.schema.json").path, root.appendingPathComponent("garage.yaml").path],
                in: folder.url)
            {
                #expect(schema.status == 0, "\(schema.stdout)\(schema.stderr)")
            }
        }
        // A cost with no code of its own now counts in the export.
        let local = folder.url.appendingPathComponent("local")
        try Data(Self.grail.utf8).write(to: local.appendingPathComponent("bikes/grail.yaml"))
        let export = try runBikecheck(["export", "ledger", "--garage", local.path, "--as-of", "2025-12-31"], in: folder.url)
        #expect(export.status == 0 && export.stdout.contains("5.00 EUR"), "\(export.stdout)\(export.stderr)")

        for bad in ["eur", "EURO", "€", ""] {
            let r = try runBikecheck(["init", "bad", "--currency", bad], in: folder.url)
            #expect(r.status == 2, "\(bad): \(r.stderr)")
            #expect(r.stderr.contains("error: currency '\(bad)' should be a currency code of three capital letters"), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("bad").path))
        }
    }

    /// The export names every cost it left out, where it is written, and exits 1; the journal it
    /// prints is still whole. With nothing left out it exits 0.
    @Test func exportExitsOneNamingEachCostItLeftOut() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "name: No currency\n",
            "bikes/grail.yaml": Self.grail + "  - date: 2025-04-01\n    done: [chain-lube]\n    cost: 45 USD\n",
            "parts/wheels.yaml": "name: Wheels\nprice: 300\n",
        ])
        for dialect in ["ledger", "beancount"] {
            let r = try garage.run(["export", dialect, "--as-of", "2025-12-31"])
            #expect(r.status == 1, "\(dialect): \(r.stderr)")
            #expect(r.stdout.contains("45.00 USD"), "the journal has the costs it could write: \(r.stdout)")
            #expect(
                r.stderr
                    == "bikes/grail.yaml:9:11: warning: left out: grail: cost 5.00 has no currency (add 'currency:' to garage.yaml)\n"
                    + "parts/wheels.yaml:2:8: warning: left out: wheels: price 300.00 has no date (add 'bought:')\n"
                    + "2 costs left out of the journal\n", "\(r.stderr)")
        }
        try garage.write("garage.yaml", "currency: EUR\n")
        try garage.write("parts/wheels.yaml", "name: Wheels\nprice: 300\nbought: 2025-02-01\n")
        let clean = try garage.run(["export", "beancount", "--as-of", "2025-12-31"])
        #expect(clean.status == 0 && clean.stderr.isEmpty, "\(clean.stderr)")
        // A price without a day is left out too, by its line.
        try garage.write("parts/wheels.yaml", "name: Wheels\nprice: 300\n")
        let undated = try garage.run(["export", "ledger", "--as-of", "2025-12-31"])
        #expect(
            undated.status == 1 && undated.stderr.hasPrefix("parts/wheels.yaml:2:8: warning: left out: wheels: price 300.00 has no date"), "\(undated.stderr)")
    }
}
