import Foundation
import TestSupport
import Testing

/// `bikecheck import tracker dreeve FILE`: statistics-for-strava's gear-maintenance.yaml into
/// parts on the gear they are attached to, with their maintenance tasks as intervals.
@Suite struct DreeveImportEndToEndTests {
    /// Built from statistics-for-strava's documented keys (docs/configuration/gear-maintenance.md,
    /// src/Domain/Gear/Maintenance/GearMaintenanceConfig.php, Task/IntervalUnit.php): five
    /// components on two bikes (one the garage has), seven tasks in all four units and two that
    /// are not, one component on two bikes and one on gear that is no Strava gear id.
    static let sample = repositoryRoot.appendingPathComponent("Tests/EndToEndTests/Trackers/dreeve-gear-maintenance.yaml")

    static func garage() throws -> TemporaryFolder { try trackerGarage(with: sample, as: "gear-maintenance.yaml") }

    @Test func componentsArePartsOnTheirGearWithTheirTasksAsIntervalsAndASecondImportChangesNoByte() throws {
        let folder = try Self.garage()
        let r = try folder.run(["import", "tracker", "dreeve", "gear-maintenance.yaml"])
        #expect(r.status == 1, "four records cannot be placed: \(r.stdout)\(r.stderr)")
        let unplaced = r.stderr.split(separator: "\n").filter { $0.contains("not imported:") }
        #expect(
            unplaced == [
                "gear-maintenance.yaml:56:9: warning: not imported: component 'pedals' on 'b202': a part sits on one bike at a time: mounted on 'grail' only; add a dated mount by hand for when it moved",
                "gear-maintenance.yaml:70:9: warning: not imported: component 'brake-pads' on 'my old bike': no bike in the garage has this Strava gear id, id or name, and it is not a bike's Strava gear id (b…) to add one by",
                "gear-maintenance.yaml:76:17: warning: not imported: task 'Replace the pads' of 'brake-pads': unit 'weeks' is not one of statistics-for-strava's: km, mi, hours, days",
                "gear-maintenance.yaml:80:18: warning: not imported: task 'Check the wear' of 'brake-pads': interval value '0' is not a number above 0",
            ], "\(r.stderr)")
        let validate = try folder.run(["validate"])
        #expect(validate.status == 0, "\(validate.stdout)\(validate.stderr)")

        // Counted by hand from the sample: one new bike (b202, the fork's; b101 is the garage's
        // grail); five parts; mounts: chain, cassette, pedals on grail, fork on b202 = 4 (the
        // pedals' second gear and the brake pads' are not); intervals: lubed, replaced, cleaned,
        // lowers, greased = 5 (the pads' two are not).
        let files = try snapshot(folder)
        #expect(files.keys.filter { $0.hasPrefix("bikes/") }.sorted() == ["bikes/b202.yaml", "bikes/grail.yaml"])
        #expect(
            files.keys.filter { $0.hasPrefix("parts/") }.sorted() == [
                "parts/brake-pads.yaml", "parts/cassette.yaml", "parts/chain.yaml", "parts/fork.yaml", "parts/pedals.yaml",
            ])
        #expect(
            r.stdout == """
                added bike 'b202' (b202) in bikes/b202.yaml
                added part 'chain' (KMC X11 chain) with 1 mount, 2 intervals in parts/chain.yaml
                added part 'cassette' (Shimano 105 cassette) with 1 mount, 1 interval in parts/cassette.yaml
                added part 'fork' (Fox 34 fork) with 1 mount, 1 interval in parts/fork.yaml
                added part 'pedals' (Shimano XT pedals) with 1 mount, 1 interval in parts/pedals.yaml
                added part 'brake-pads' (Brake pads), on no bike, in parts/brake-pads.yaml

                """, "\(r.stdout)")
        let chain = String(decoding: try #require(files["parts/chain.yaml"]), as: UTF8.self)
        #expect(
            chain.hasSuffix(
                """
                name: KMC X11 chain
                price: 45.99
                intervals:
                  lubed:
                    task: Lube
                    every: 300 km
                  replaced:
                    task: Replace
                    every: 3000 km
                mounts:
                  - {bike: grail, from: 1970-01-01}

                """), "\(chain)")
        let fork = String(decoding: try #require(files["parts/fork.yaml"]), as: UTF8.self)
        #expect(fork.contains("price: 899.00 USD\n") && fork.contains("every: 50 h\n"), "\(fork)")
        let pedals = String(decoding: try #require(files["parts/pedals.yaml"]), as: UTF8.self)
        #expect(pedals.contains("every: 600 mi\n"), "\(pedals)")
        #expect(String(decoding: try #require(files["bikes/b202.yaml"]), as: UTF8.self).contains("strava: b202\n"))
        #expect(String(decoding: try #require(files["bikes/grail.yaml"]), as: UTF8.self) == "name: Grail   # the gravel bike\nstrava: b101\n")

        // Counted by hand: parts bought in EUR 45.99 (chain) + 119.99 (pedals) = 165.98; the
        // fork's 899.00 USD apart; no services (the file holds no history).
        let costs = try folder.run(["costs", "--format", "json", "--as-of", "2026-01-01"])
        #expect(costs.status == 0, "\(costs.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(costs.stdout.utf8)) as? [String: Any])
        let totals = try #require(json["totals"] as? [[String: Any]], "\(costs.stdout)")
        let eur = try #require(totals.first { $0["currency"] as? String == "EUR" })
        let usd = try #require(totals.first { $0["currency"] as? String == "USD" })
        #expect(eur["purchases"] as? String == "165.98" && eur["services"] as? String == "0.00" && eur["entries"] as? Int == 0, "\(eur)")
        #expect(usd["purchases"] as? String == "899.00", "\(usd)")

        let again = try folder.run(["import", "tracker", "dreeve", "gear-maintenance.yaml"])
        #expect(again.status == 1 && again.stdout.contains("nothing to import"), "\(again.stdout)\(again.stderr)")
        #expect(try snapshot(folder) == files)
    }

    @Test func aHandEditMadeBetweenImportsSurvives() throws {
        let folder = try Self.garage()
        _ = try folder.run(["import", "tracker", "dreeve", "gear-maintenance.yaml"])
        let path = folder.url.appendingPathComponent("parts/chain.yaml")
        let edited = try String(contentsOf: path, encoding: .utf8).replacingOccurrences(of: "every: 300 km", with: "every: 250 km  # it rains here")
        try edited.write(to: path, atomically: true, encoding: .utf8)
        let before = try snapshot(folder)
        let again = try folder.run(["import", "tracker", "dreeve", "gear-maintenance.yaml"])
        #expect(again.status == 1 && again.stdout.contains("nothing to import"), "\(again.stdout)\(again.stderr)")
        #expect(try snapshot(folder) == before)
    }

    @Test func aDryRunShowsTheChangeAndWritesNothing() throws {
        let folder = try Self.garage()
        let before = try snapshot(folder)
        let r = try folder.run(["import", "tracker", "dreeve", "gear-maintenance.yaml", "--dry-run"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stdout.contains("+++ b/parts/chain.yaml") && r.stdout.contains("+++ b/bikes/b202.yaml"), "\(r.stdout)")
        #expect(try snapshot(folder) == before)
    }

    @Test func aMalformedFileIsRefusedAtItsPlaceAndNothingIsWritten() throws {
        let folder = try Self.garage()
        try folder.write("broken.yaml", "components:\n  - tag: chain\n    attachedTo: [b101\n")
        try folder.write("other.yaml", "enabled: true\nhashtagPrefix: sfs\n")
        let before = try snapshot(folder)
        let broken = try folder.run(["import", "tracker", "dreeve", "broken.yaml"])
        #expect(broken.status != 0 && broken.stderr.contains("broken.yaml:3:17: error: this '[' is never closed"), "\(broken.stderr)")
        let other = try folder.run(["import", "tracker", "dreeve", "other.yaml"])
        #expect(other.status != 0 && other.stderr.contains("is not a statistics-for-strava gear maintenance file"), "\(other.stderr)")
        #expect(try snapshot(folder) == before)
    }
}
