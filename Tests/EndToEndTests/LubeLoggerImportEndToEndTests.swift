import Foundation
import TestSupport
import Testing

/// `bikecheck import tracker lubelogger FILE --bike BIKE`: LubeLogger's CSV export of one
/// vehicle's service, repair and upgrade records into the bike's log.
@Suite struct LubeLoggerImportEndToEndTests {
    /// Built from LubeLogger's field list (Models/ImportModel.cs): five rows, one with a date in a
    /// day-first culture that cannot be told from the US order.
    static let sample = repositoryRoot.appendingPathComponent("Tests/EndToEndTests/Trackers/lubelogger-records.csv")

    static func garage() throws -> TemporaryFolder {
        let folder = try TemporaryFolder([
            "garage.yaml": "units: metric\ncurrency: EUR\n",
            "bikes/grail.yaml": """
            name: Grail   # the gravel bike
            intervals:
              chain-lube: {task: Lube the chain, every: 10 h}
            log:
              - {date: 2025-02-01, done: [chain-lube]}

            """,
        ])
        try FileManager.default.copyItem(at: sample, to: folder.url.appendingPathComponent("records.csv"))
        return folder
    }

    @Test func eachRecordIsALogEntryWithItsCostCategoryAndNoteAndASecondImportChangesNothing() throws {
        let folder = try Self.garage()
        let r = try folder.run(["import", "tracker", "lubelogger", "records.csv", "--bike", "grail"])
        #expect(r.status == 1, "one row could not be placed: \(r.stdout)\(r.stderr)")
        #expect(
            r.stderr
                == "records.csv:6:1: warning: not imported: 'A row with a day-first date': date '31/12/2025' is not YYYY-MM-DD or M/D/YYYY\n",
            "\(r.stderr)")
        #expect(r.stdout.contains("bike 'grail': 4 log entries added"), "\(r.stdout)")
        let validate = try folder.run(["validate"])
        #expect(validate.status == 0, "\(validate.stdout)\(validate.stderr)")
        let bike = try String(contentsOf: folder.url.appendingPathComponent("bikes/grail.yaml"), encoding: .utf8)
        #expect(bike.hasPrefix("name: Grail   # the gravel bike\n"), "\(bike)")
        #expect(
            bike.hasSuffix(
                """
                  - {date: 2025-02-01, done: [chain-lube]}
                  - {date: 2025-03-02, cost: 45.99, category: service, note: "Chain replaced: KMC X11, old one at 0.5 % stretch (part X11-93 from Bike24) at odometer 1250"}
                  - {date: 2025-03-15, cost: 1024.50, category: repair, note: "Brake pads: Front and rear at odometer 1400"}
                  - {date: 2025-04-01, cost: 15.00, category: upgrade, note: Bar tape (part BT-1 from Local shop ×2)}
                  - {date: 2025-05-10, cost: 0, category: service, note: Wash at odometer 2100}

                """), "\(bike)")

        // Counted by hand: 45.99 + 1024.50 + 15.00 + 0 (the wash) in the garage's currency, four entries.
        let costs = try folder.run(["costs", "--format", "json", "--as-of", "2026-01-01"])
        #expect(costs.status == 0, "\(costs.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(costs.stdout.utf8)) as? [String: Any])
        let rows = try #require(json["rows"] as? [[String: Any]])
        #expect(rows.count == 1 && rows[0]["services"] as? String == "1085.49" && rows[0]["entries"] as? Int == 4, "\(rows)")
        #expect(rows.first?["currency"] as? String == "EUR")

        let before = try Data(contentsOf: folder.url.appendingPathComponent("bikes/grail.yaml"))
        let again = try folder.run(["import", "tracker", "lubelogger", "records.csv", "--bike", "grail"])
        #expect(
            again.status == 1 && again.stdout.contains("nothing to import from lubelogger records.csv: the garage has all that could be placed"),
            "\(again.stdout)\(again.stderr)")
        #expect(try Data(contentsOf: folder.url.appendingPathComponent("bikes/grail.yaml")) == before)
    }

    @Test func aLubeLoggerFileNeedsItsBike() throws {
        let folder = try Self.garage()
        let r = try folder.run(["import", "tracker", "lubelogger", "records.csv"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--bike BIKE"), "\(r.stderr)")
    }
}
