import Foundation
import TestSupport
import Testing

/// `bikecheck import tracker quiver FILE`: Quiver's garage export (`quiver-garage`, version 4)
/// into bikes, parts with their mounts, intervals and log entries.
@Suite struct QuiverImportEndToEndTests {
    /// Built from Quiver's published export format (getquiver.app/data-format: the top level,
    /// Bike and Setup objects, the names of the lists); the component, reminder, service log and
    /// assignment fields as docs/imports.md says this reader expects them. Three bikes (one the
    /// garage has), six components, four reminders, seven service log entries, four assignments;
    /// four records that cannot be placed.
    static let sample = repositoryRoot.appendingPathComponent("Tests/EndToEndTests/Trackers/quiver-garage.json")

    static func garage() throws -> TemporaryFolder { try trackerGarage(with: sample, as: "quiver.json") }

    @Test func bikesPartsRemindersAndServicesAreImportedAndASecondImportChangesNoByte() throws {
        let folder = try Self.garage()
        let r = try folder.run(["import", "tracker", "quiver", "quiver.json"])
        #expect(r.status == 1, "four records cannot be placed: \(r.stdout)\(r.stderr)")
        let unplaced = r.stderr.split(separator: "\n").filter { $0.contains("not imported:") }
        // The nameless tyre, the service of a component the export lacks, the 13th month, the
        // assignment naming no component: each at its place in the file.
        #expect(
            unplaced == [
                "quiver.json:70:40: warning: not imported: 'Bar tape': names component 'cp_gone', which the export does not have",
                "quiver.json:94:9: warning: not imported: component 'cp_nameless': should have an id and a name",
                "quiver.json:102:54: warning: not imported: 'Spoke replaced': date '2024-13-01' is not a date (YYYY-MM-DD)",
                "quiver.json:129:5: warning: not imported: component assignment: should name its component_id",
            ], "\(r.stderr)")
        let validate = try folder.run(["validate"])
        #expect(validate.status == 0, "\(validate.stdout)\(validate.stderr)")

        // Counted by hand from the sample: bikes Grail (the garage's), Stumpy and Winter hack (new);
        // parts: Grail's chain, cassette, race wheels and tyre, Stumpy's fork (the nameless tyre
        // is not imported) = 5; intervals: lube and replace the chain, Grail's full service,
        // the fork's lowers = 4; log entries: sl_1, sl_2, sl_3, sl_5, sl_7 = 5 (sl_4 and sl_6 not).
        let files = try snapshot(folder)
        #expect(files.keys.filter { $0.hasPrefix("bikes/") }.sorted() == ["bikes/grail.yaml", "bikes/stumpy.yaml", "bikes/winter-hack.yaml"])
        #expect(
            files.keys.filter { $0.hasPrefix("parts/") }.sorted() == [
                "parts/grail-gp5000-front-tyre.yaml", "parts/grail-kmc-x11.yaml", "parts/grail-race-wheels.yaml",
                "parts/grail-shimano-105-cassette.yaml", "parts/stumpy-fox-34-fork.yaml",
            ])
        #expect(
            r.stdout == """
                added bike 'stumpy' (Stumpy), 1 log entry in bikes/stumpy.yaml
                added bike 'winter-hack' (Winter hack) in bikes/winter-hack.yaml
                added part 'grail-kmc-x11' (KMC X11) with 1 mount, 2 intervals, 2 log entries in parts/grail-kmc-x11.yaml
                added part 'grail-shimano-105-cassette' (Shimano 105 cassette) with 1 mount in parts/grail-shimano-105-cassette.yaml
                added part 'grail-race-wheels' (Race wheels) with 1 mount in parts/grail-race-wheels.yaml
                added part 'grail-gp5000-front-tyre' (GP5000 front tyre) with 1 mount in parts/grail-gp5000-front-tyre.yaml
                added part 'stumpy-fox-34-fork' (Fox 34 fork) with 1 mount, 1 interval, 1 log entry in parts/stumpy-fox-34-fork.yaml
                bike 'grail': 1 key, 1 interval, 1 log entry added (bikes/grail.yaml)

                """, "\(r.stdout)")
        let chain = String(decoding: try #require(files["parts/grail-kmc-x11.yaml"]), as: UTF8.self)
        #expect(chain.contains("price: 45.99\n"), "\(chain)")
        #expect(chain.contains("mounts:\n  - {bike: grail, from: 2025-03-01}\n"), "\(chain)")
        #expect(chain.contains("  replace-the-chain:\n    task: Replace the chain\n    every: [3000 km, 12 months]\n"), "\(chain)")
        #expect(
            chain.contains("  - date: 2025-04-01\n    done: [lube-the-chain]\n    category: lube\n    note: Chain lubed at 820 km\n"), "\(chain)")
        let race = String(decoding: try #require(files["parts/grail-race-wheels.yaml"]), as: UTF8.self)
        #expect(race.contains("{bike: grail, from: 2024-05-01, tag: race}"), "\(race)")
        let grail = String(decoding: try #require(files["bikes/grail.yaml"]), as: UTF8.self)
        #expect(grail.hasPrefix("name: Grail   # the gravel bike\nstrava: b101\n"), "the hand-written lines stay: \(grail)")
        let fork = String(decoding: try #require(files["parts/stumpy-fox-34-fork.yaml"]), as: UTF8.self)
        #expect(fork.contains("cost: 35.50 USD"), "a cost in another currency keeps it: \(fork)")

        // Counted by hand: services in EUR 45.99 (sl_1) + 120.00 (sl_3) + 24.00 (sl_7) = 189.99 in
        // 3 entries (sl_2 has no cost); parts bought 45.99 (the chain) + 1299 (race wheels) =
        // 1344.99; sl_5's 35.50 USD apart, never summed with the rest.
        let costs = try folder.run(["costs", "--format", "json", "--as-of", "2026-01-01"])
        #expect(costs.status == 0, "\(costs.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(costs.stdout.utf8)) as? [String: Any])
        let totals = try #require(json["totals"] as? [[String: Any]], "\(costs.stdout)")
        let eur = try #require(totals.first { $0["currency"] as? String == "EUR" })
        let usd = try #require(totals.first { $0["currency"] as? String == "USD" })
        #expect(eur["services"] as? String == "189.99" && eur["purchases"] as? String == "1344.99" && eur["entries"] as? Int == 3, "\(eur)")
        #expect(usd["services"] as? String == "35.50" && usd["entries"] as? Int == 1, "\(usd)")

        // Again: not one byte changes.
        let again = try folder.run(["import", "tracker", "quiver", "quiver.json"])
        #expect(again.status == 1 && again.stdout.contains("nothing to import"), "\(again.stdout)\(again.stderr)")
        #expect(try snapshot(folder) == files)
    }

    @Test func aHandEditMadeBetweenImportsSurvives() throws {
        let folder = try Self.garage()
        _ = try folder.run(["import", "tracker", "quiver", "quiver.json"])
        let path = folder.url.appendingPathComponent("parts/grail-kmc-x11.yaml")
        let edited = try String(contentsOf: path, encoding: .utf8).replacingOccurrences(of: "name: KMC X11", with: "name: KMC X11 (gold)  # my words")
        try edited.write(to: path, atomically: true, encoding: .utf8)
        let before = try snapshot(folder)
        let again = try folder.run(["import", "tracker", "quiver", "quiver.json"])
        #expect(again.status == 1 && again.stdout.contains("nothing to import"), "\(again.stdout)\(again.stderr)")
        #expect(try snapshot(folder) == before)
        #expect(try String(contentsOf: path, encoding: .utf8).contains("name: KMC X11 (gold)  # my words\n"))
    }

    @Test func aDryRunShowsTheChangeAndWritesNothing() throws {
        let folder = try Self.garage()
        let before = try snapshot(folder)
        let r = try folder.run(["import", "tracker", "quiver", "quiver.json", "--dry-run"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stdout.contains("+++ b/bikes/stumpy.yaml") && r.stdout.contains("+++ b/parts/stumpy-fox-34-fork.yaml"), "\(r.stdout)")
        #expect(try snapshot(folder) == before)
    }

    @Test func aMalformedExportIsRefusedAtItsPlaceAndNothingIsWritten() throws {
        let folder = try Self.garage()
        try folder.write("broken.json", "{\n  \"format\": \"quiver-garage\",\n  \"version\": 4,\n  \"bikes\": [ {\"id\": \"a\", \"name\": \"A\"\n}\n")
        try folder.write("newer.json", "{\"format\": \"quiver-garage\", \"version\": 5, \"bikes\": []}\n")
        let before = try snapshot(folder)
        let broken = try folder.run(["import", "tracker", "quiver", "broken.json"])
        #expect(broken.status != 0 && broken.stderr.contains("broken.json:"), "\(broken.stderr)")
        #expect(broken.stderr.contains("broken.json:4:12: error: this '[' is never closed"), "\(broken.stderr)")
        #expect(broken.stderr.contains("end the array with ']'") && broken.stderr.contains("cannot read 'broken.json' as JSON"), "\(broken.stderr)")
        let newer = try folder.run(["import", "tracker", "quiver", "newer.json"])
        #expect(newer.status != 0 && newer.stderr.contains("version 5: this bikecheck reads versions 1 to 4"), "\(newer.stderr)")
        #expect(try snapshot(folder) == before)
    }
}
