import Foundation
import TestSupport
import Testing

/// Each report in each format on example-garage, as of a fixed day, against a golden file.
/// Re-record with `BIKECHECK_RECORD=1 swift test --filter ReportGoldenTests` (the run fails, as every recording run does), then read the diff.
@Suite struct ReportGoldenTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/Reports")

    static let reports: [(String, [String])] = [
        ("costs-by-bike", ["costs"]), ("costs-by-year", ["costs", "--by", "year"]), ("costs-by-month", ["costs", "--by", "month", "--since", "2026-01-01"]),
        ("costs-by-category", ["costs", "--by", "category"]),
        ("usage-by-month", ["usage", "grail", "--since", "2026-06-01"]), ("usage-by-year", ["usage", "--per", "year"]),
        ("history", ["history", "--since", "2025-06-01"]), ("history-interval", ["history", "grail", "--interval", "chain-lube"]),
        ("rides-interval", ["rides", "grail", "--interval", "chain-lube"]),
        ("rides-span", ["rides", "tarmac", "--since", "2026-01-01", "--until", "2026-01-31"]),
        // A part as the subject: the wheelset went from grail to tarmac on 2026-05-01.
        ("usage-part", ["usage", "race-wheels"]), ("history-part", ["history", "race-wheels"]),
        ("rides-part", ["rides", "race-wheels", "--since", "2026-04-24", "--until", "2026-05-08"]),
        ("costs-part", ["costs", "race-wheels", "grail"]),
    ]
    static let formats = [("text", "txt"), ("json", "json"), ("csv", "csv"), ("markdown", "md")]

    static var cases: [String] { reports.flatMap { r in formats.map { "\(r.0).\($0.1)" } } }

    /// The same reports for a rider with `units: imperial`: miles, feet of climb, per 1000 mi
    /// (JSON is SI, the same as metric's: `UnitsEndToEndTests`).
    static let imperialReports = ["costs-by-bike", "usage-by-month", "history-interval", "rides-interval"]
    static var imperialCases: [String] { imperialReports.flatMap { r in formats.filter { $0.0 != "json" }.map { "\(r)-imperial.\($0.1)" } } }

    @Test(arguments: cases)
    func reportMatchesItsGoldenFile(_ name: String) throws {
        try Self.check(name, garage: exampleGarage)
    }

    @Test(arguments: imperialCases)
    func anImperialRidersReportMatchesItsGoldenFile(_ name: String) throws {
        let garage = try TemporaryFolder(copying: true)
        try garage.write("garage.yaml", try garage.read("garage.yaml").replacingOccurrences(of: "\nunits: metric\n", with: "\nunits: imperial\n"))
        try Self.check(name, garage: garage.root, report: name.replacingOccurrences(of: "-imperial.", with: "."))
    }

    /// Runs the report `report` (else `name`) names in the format its extension names, against the file `name`.
    static func check(_ name: String, garage: URL, report reportName: String? = nil) throws {
        let report = Self.reports.first { (reportName ?? name).hasPrefix($0.0 + ".") }!
        let format = Self.formats.first { name.hasSuffix("." + $0.1) }!
        // JSON names the garage's commit: run on a copy outside git (example-garage sits in this
        // repository, whose commit moves), where it is null.
        let copy = format.0 == "json" && garage == exampleGarage ? try TemporaryFolder(copying: true) : nil
        let r = try runBikecheck(report.1 + ["--garage", (copy?.root ?? garage).path, "--as-of", "2026-11-15", "--format", format.0], in: repositoryRoot)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        expectGolden(r.stdout, file: Self.folder.appendingPathComponent(name))
    }

    @Test func aNameThatIsNeitherABikeNorAPartIsAUsageErrorWithDidYouMean() throws {
        for command in ["usage", "costs", "history", "rides"] {
            let r = try runBikecheck([command, "race-wheel", "--garage", exampleGarage.path, "--as-of", "2026-11-15"], in: repositoryRoot)
            #expect(r.status == 2 && r.stdout.isEmpty, "\(command): \(r.status)")
            #expect(
                r.stderr
                    == "error: no bike or part 'race-wheel'; did you mean 'race-wheels'?\n  help: bikes: charger, grail, stumpy, tarmac; gear: running-shoes; parts: race-tyres, race-wheels, spare-chain\n",
                "\(command): \(r.stderr)")
        }
    }

    @Test func anIntervalNoneOfTheSubjectsHasIsAUsageErrorWithDidYouMean() throws {
        for (arguments, message) in [
            (["history", "--interval", "chain-lub"], "error: no interval 'chain-lub' on any bike or part; did you mean 'chain-lube'?\n"),
            (["history", "grail", "--interval", "chain-lub"], "error: no interval 'chain-lub' on grail; did you mean 'chain-lube'?\n"),
            (["history", "race-wheels", "--interval", "hub-servce"], "error: no interval 'hub-servce' on race-wheels; did you mean 'hub-service'?\n"),
            (["rides", "race-wheels", "--interval", "hub-servce"], "error: no interval 'hub-servce' on race-wheels; did you mean 'hub-service'?\n"),
            (
                ["history", "grail", "--interval", "hub-service"],
                "error: no interval 'hub-service' on grail\n  help: 'hub-service' is an interval of part race-wheels: bikecheck history race-wheels --interval hub-service\n"
            ),
            // A part's interval, with no part named: the rides listed are the bikes'.
            (
                ["rides", "--interval", "hub-service"],
                "error: no interval 'hub-service' on any bike\n  help: 'hub-service' is an interval of part race-wheels: bikecheck rides race-wheels --interval hub-service\n"
            ),
        ] {
            let r = try runBikecheck(arguments + ["--garage", exampleGarage.path, "--as-of", "2026-11-15"], in: repositoryRoot)
            #expect(r.status == 2 && r.stdout.isEmpty, "\(arguments): \(r.status) \(r.stdout)")
            #expect(r.stderr.hasPrefix(message), "\(arguments): \(r.stderr)")
        }
        // An interval a subject has, done or not in the range, is no error.
        let none = try runBikecheck(
            ["history", "grail", "--interval", "chain-lube", "--since", "2026-11-14", "--garage", exampleGarage.path, "--as-of", "2026-11-15"],
            in: repositoryRoot)
        #expect(none.status == 0, "\(none.stderr)")
    }

    @Test func aNameThatIsABikeAndAPartIsTheBikeAndTheReportSaysSo() throws {
        let garage = try TemporaryFolder(copying: true)
        try garage.write("parts/grail.yaml", "name: Spare grail wheels\nbought: 2025-01-01\nprice: 10\n")
        let bike = try garage.run(["history", "grail", "--as-of", "2026-11-15", "--format", "json"])
        #expect(bike.status == 0, "\(bike.stderr)")
        #expect(!bike.stdout.contains("\"kind\" : \"part\"") && bike.stdout.contains("\"kind\" : \"bike\""), "\(bike.stdout)")
        for command in ["history", "costs", "usage", "rides"] {
            let r = try garage.run([command, "grail", "--as-of", "2026-11-15"])
            #expect(r.status == 0, "\(command): \(r.stderr)")
            #expect(
                r.stderr == "note: 'grail' is the bike; part 'grail' has the same id: rename parts/grail.yaml to name the part\n",
                "\(command): \(r.stderr)")
        }
    }
}
