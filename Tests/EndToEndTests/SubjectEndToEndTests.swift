import Foundation
import TestSupport
import Testing

/// Which subject a name means, answered once (`Garage.subjects(named:)`) for status, the reports
/// and the writes; and the report options every report shares.
@Suite struct SubjectEndToEndTests {
    @Test(arguments: [
        ["status", "grial"], ["costs", "grial"], ["done", "grial", "chain-lube"], ["snooze", "grial", "chain-lube", "--until", "2026-12-01"],
    ])
    func anUnknownNameIsTheSameUsageErrorEverywhere(arguments: [String]) throws {
        let garage = try TemporaryFolder(copying: true)
        let r = try garage.run(arguments + ["--dry-run"].filter { _ in ["done", "snooze"].contains(arguments[0]) })
        #expect(r.status == 2)
        // The writes said "no bike 'grial'" with the bikes only; a part could be meant too.
        #expect(
            r.stderr
                == "error: no bike or part 'grial'; did you mean 'grail'?\n  help: bikes: charger, grail, stumpy, tarmac; gear: running-shoes; parts: race-tyres, race-wheels, spare-chain\n",
            "\(r.stderr)")
    }

    @Test func aNameABikeAndAPartShareIsTheBikeAndStatusSaysSoAsTheReportsDo() throws {
        let garage = try TemporaryFolder(copying: true)
        try garage.write("parts/grail.yaml", "name: Spare grail wheels\nbought: 2025-01-01\nprice: 10\n")
        let r = try garage.run(["status", "grail", "--as-of", "2026-11-15"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\ngrail · "), "\(r.stdout)")
        #expect(
            r.stderr.hasPrefix("note: 'grail' is the bike; part 'grail' has the same id: rename parts/grail.yaml to name the part\n"), "\(r.stderr)")
    }

    @Test func aWriteToAPartWhoseFileHasErrorsIsRefusedForThemNotCalledMissing() throws {
        let garage = try TemporaryFolder(copying: true)
        try garage.write("parts/spare-chain.yaml", "name: [unclosed\n")
        let r = try garage.run(["done", "spare-chain", "chain-lube", "--dry-run"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("error: 'parts/spare-chain.yaml' has errors; fix them before bikecheck writes to it\n"), "\(r.stderr)")
    }

    // Every command with the report options (`ReportOptions`), each of which names them in
    // `checkedOptions` (Formats.swift): one left out would run without the check.
    @Test(arguments: [["costs"], ["usage"], ["history"], ["rides"], ["export", "ledger"]])
    func aSinceAfterTheAsOfDayIsAUsageError(command: [String]) throws {
        let r = try runBikecheck(command + ["--garage", exampleGarage.path, "--since", "2027-01-01", "--as-of", "2026-11-15"], in: repositoryRoot)
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.hasPrefix("error: --since 2027-01-01 is after --as-of 2026-11-15\n  help: "), "\(r.stderr)")
    }

    @Test func asOfIsDeclaredOnceForEveryCommandThatTakesIt() throws {
        let folder = repositoryRoot.appendingPathComponent("Sources/bikecheck")
        var declarations: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            declarations += Array(repeating: file, count: text.components(separatedBy: "customLong(\"as-of\")").count - 1)
        }
        #expect(declarations == ["ReportOptions.swift"])
        for command in [["status"], ["costs"], ["calendar"], ["report"], ["notify"], ["part", "list"]] {
            let help = try runBikecheck(command + ["--help"], in: repositoryRoot).stdout
            #expect(help.contains("--as-of <date>          Compute as of this date, YYYY-MM-DD (default: today)"), "\(command): \(help)")
        }
    }
}
