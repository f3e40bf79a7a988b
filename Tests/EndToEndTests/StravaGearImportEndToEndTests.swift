import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// `bikecheck import tracker strava-gear`: strava-gear's rules.yaml (aliases, hashtag swaps,
/// usage before tracking, a dozen dated swaps) into a garage with no parts; then `part list` on
/// the same rides gives strava-gear's own components report, to the metre and second.
@Suite struct StravaGearImportEndToEndTests {
    static let rules = """
        # strava-gear rules: four bikes, two by alias
        aliases:
          Road bike: b101
          Gravel bike: b102
        components:
          chain-a: {name: KMC X11 chain, kms: 300, hours: 12.5}
          chain-b: KMC X11 chain (spare)
          chain-c:
          wheels-1: {name: Everyday wheels, kms: 2000}
          wheels-2: Gravel wheels
          race-wheels: {name: DT Swiss ARC 1100, hours: 40}
          wet-tyres: {name: Wet tyres}
          cassette: {name: Cassette, kms: 150.5, hours: 7}
          shelf-pedals: {name: Spare pedals, kms: 50}
          stem-a: {name: Gravel stem, kms: 120, hours: 4}
          bar-tape: Lizard Skins bar tape
        rules:
          - Road bike: {chain: chain-a, wheels: wheels-1, cassette: cassette}
            Gravel bike: {chain: chain-b, wheels: wheels-2, stem: stem-a}
            b103: {chain: chain-c}
          - since: 2024-03-01
            '#race': {wheels: race-wheels}
          - since: 2024-04-15
            b104: {chain: chain-b}
            Gravel bike: {chain: chain-c}
            b103: {chain: null}
          - since: 2024-05-01
            b103: {bar-tape: bar-tape}
          - since: 2024-06-01
            '#wet': {tyres: wet-tyres}
          - since: 2024-07-20
            Road bike: {chain: chain-b}
            b104: {chain: chain-a}
          - since: 2024-09-02
            Gravel bike: {wheels: wheels-1}
            Road bike: {wheels: wheels-2}
          - since: 2024-11-11
            '#race': {wheels: null}
          - since: 2025-01-05
            b103: {cassette: cassette}
          - since: 2025-02-14
            Road bike: {chain: chain-c}
            Gravel bike: {chain: chain-b}
          - since: 2025-03-01
            '#race': {wheels: race-wheels}
          - since: 2025-05-05
            b104: {chain: null}
            b103: {chain: chain-a}
          - since: 2025-06-30
            Road bike: {wheels: wheels-1, cassette: cassette}
            Gravel bike: {wheels: wheels-2}
          - since: 2025-08-08
            '#wet': {tyres: null}
            b104: {tyres: wet-tyres}
          - since: 2025-10-10
            Road bike: {chain: chain-a}
            b103: {chain: chain-c}
          - since: 2026-02-02
            Gravel bike: {chain: null}
            b104: {chain: chain-b}

        """

    /// Four bikes and a few thousand rides from 2024 to 2026 (some on a trainer, some tagged
    /// `#race` or `#wet`, some on shoes or with no gear).
    static func garage() throws -> TemporaryFolder {
        var rng = SeededGenerator(seed: 34)
        let gear = ["b101", "b102", "b103", "b104"]
        var activities: [Activity] = []
        var csv = "name,gear_id,start_date,moving_time,distance,total_elevation_gain\n"
        let first = Day("2024-01-01")!, last = Day("2026-10-31")!
        var id: Int64 = 1
        for ordinal in first.ordinal...last.ordinal {
            for _ in 0..<rng.next(4) {
                let day = Day(ordinal: ordinal)
                let roll = rng.next(100)
                let gearID: String? = roll < 3 ? nil : roll < 5 ? "g7" : gear[rng.next(gear.count)]
                let time = 1800 + rng.next(12_600)
                let distance = Double(time * (50 + rng.next(50))) / 10
                let start = "\(day)T\(String(format: "%02d", 6 + rng.next(12))):\(String(format: "%02d", rng.next(60))):00Z"
                // Tags only on bikes: strava-gear would count a tagged ride on no bike for the tag's parts.
                let tag = rng.next(20)
                var name = "ride \(id)"
                if gearID?.hasPrefix("b") == true {
                    if tag == 0 {
                        name += " #race"
                    } else if tag == 1 {
                        name = "#wet " + name
                    } else if tag == 2 {
                        name += " #race #wet"
                    } else if tag == 3 {
                        name += " #racecar"
                    }
                }
                activities.append(
                    Activity(
                        id: id, name: name, sportType: "Ride", startDate: start, startDateLocal: start,
                        movingTime: time, elapsedTime: time, distance: distance, gearID: gearID, trainer: rng.next(10) == 0))
                csv += "\(name),\(gearID ?? ""),\(start),\(time),\(distance),0\n"
                id += 1
            }
        }
        let folder = try TemporaryFolder([
            "garage.yaml": "units: metric\ncounts: [Ride]\ntrainer: true\n",
            // One bike by the alias's name, one by its gear id; b103 and b104 the import adds.
            "bikes/road.yaml": "name: Road bike\nstrava: b101\n",
            "bikes/gravel.yaml": "name: Gravel bike\nstrava: b102\n",
            "strava-gear/rules.yaml": rules,
            "strava-gear/activities.csv": csv,
        ])
        for (month, items) in Dictionary(grouping: activities, by: \.monthKey) {
            try folder.write("activities/\(month).json", ActivityCacheFormat.encode(items))
        }
        return folder
    }

    static func partFiles(_ folder: TemporaryFolder) throws -> [String: String] {
        let dir = folder.url.appendingPathComponent("parts")
        var out: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
            out[name] = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("bikes").path) {
            out["bikes/" + name] = try String(contentsOf: folder.url.appendingPathComponent("bikes/" + name), encoding: .utf8)
        }
        return out
    }

    @Test func importedRulesGiveStravaGearsComponentTotals() throws {
        guard FileManager.default.isExecutableFile(atPath: StravaGearCrossCheckTests.stravaGear.path) else {
            Issue.record("strava-gear is not installed: run scripts/bootstrap (it installs it in .build-tools/strava-gear)")
            return
        }
        let folder = try Self.garage()
        let dry = try folder.run(["import", "tracker", "strava-gear", "strava-gear/rules.yaml", "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("+++ b/parts/race-wheels.yaml") && dry.stdout.contains("tag: race"), "\(dry.stdout)")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("parts").path))

        let imported = try folder.run(["import", "tracker", "strava-gear", "strava-gear/rules.yaml"])
        #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
        #expect(imported.stdout.contains("added bike 'b103'"), "\(imported.stdout)")
        let validate = try folder.run(["validate"])
        #expect(validate.status == 0, "\(validate.stdout)\(validate.stderr)")
        let road = try String(contentsOf: folder.url.appendingPathComponent("bikes/road.yaml"), encoding: .utf8)
        #expect(road == "name: Road bike\nstrava: b101\n", "the garage's bike is matched, not rewritten")

        // Two components never leave their bike: they are its components, not parts.
        let gravel = try String(contentsOf: folder.url.appendingPathComponent("bikes/gravel.yaml"), encoding: .utf8)
        #expect(gravel == "name: Gravel bike\nstrava: b102\ncomponents:\n  stem:\n    name: Gravel stem\n    distance: 120 km\n    hours: 4\n", "\(gravel)")
        let b103 = try String(contentsOf: folder.url.appendingPathComponent("bikes/b103.yaml"), encoding: .utf8)
        #expect(b103.contains("components:\n  bar-tape:\n    name: Lizard Skins bar tape\n    installed: 2024-05-01\n"), "\(b103)")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("parts/stem-a.yaml").path))
        try StravaGearCrossCheckTests.expectSamePartTotals(folder.url, parts: 9, components: ["stem-a": "gravel/stem", "bar-tape": "b103/bar-tape"])

        // Again: nothing changes. Then a hand edit, and again: it stays.
        let before = try Self.partFiles(folder)
        let again = try folder.run(["import", "tracker", "strava-gear", "strava-gear/rules.yaml"])
        #expect(again.status == 0 && again.stdout.contains("nothing to import"), "\(again.stdout)\(again.stderr)")
        #expect(try Self.partFiles(folder) == before)
        // The bike's component edited by hand stays as the rider has it.
        let gravelPath = folder.url.appendingPathComponent("bikes/gravel.yaml")
        try gravel.replacingOccurrences(of: "name: Gravel stem", with: "name: Gravel stem, 90 mm  # shorter").write(
            to: gravelPath, atomically: true, encoding: .utf8)
        let path = folder.url.appendingPathComponent("parts/chain-a.yaml")
        let edited = try String(contentsOf: path, encoding: .utf8).replacingOccurrences(of: "name: KMC X11 chain", with: "name: KMC X11 chain  # the gold one")
        try edited.write(to: path, atomically: true, encoding: .utf8)
        let third = try folder.run(["import", "tracker", "strava-gear", "strava-gear/rules.yaml", "--dry-run"])
        #expect(third.status == 0 && third.stdout.isEmpty && third.stderr.contains("nothing would change"), "\(third.stdout)\(third.stderr)")
        #expect(try String(contentsOf: path, encoding: .utf8) == edited)
        #expect(try String(contentsOf: gravelPath, encoding: .utf8).contains("name: Gravel stem, 90 mm  # shorter"))

        // The reverse: the garage's parts as rules.yaml give strava-gear the same totals.
        let exported = try folder.run(["export", "strava-gear"])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.contains("\"#race\": {wheels: race-wheels}"), "\(exported.stdout)")
        try folder.write("strava-gear/rules.yaml", exported.stdout)
        try StravaGearCrossCheckTests.expectSamePartTotals(folder.url, parts: 9)
    }

    @Test func recordsWithNoPlaceAreListedWithWhereAndWhyAndExitOne() throws {
        let folder = try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "bikes/road.yaml": "name: Road bike\nstrava: b101\n",
            "rules.yaml": """
            components:
              chain-a: {name: Chain, miles: 3}
            rules:
              - b101: {chain: chain-a}
                my shoes: {laces: laces-1}
              - since: 2024-05-01T12:30:00
                '#gear_id=b101': {chain: chain-a}

            """,
        ])
        let r = try folder.run(["import", "tracker", "strava-gear", "rules.yaml"])
        #expect(r.status == 1)
        // In the file's order.
        let lines = r.stderr.split(separator: "\n").map { String($0.prefix(13)) }
        #expect(lines == ["rules.yaml:2:", "rules.yaml:5:", "rules.yaml:6:", "rules.yaml:7:"], "\(r.stderr)")
        #expect(r.stderr.contains("rules.yaml:2:26: warning: not imported: component 'chain-a': unknown key 'miles'"), "\(r.stderr)")
        #expect(r.stderr.contains("rules.yaml:5:5: warning: not imported: bike 'my shoes'"), "\(r.stderr)")
        #expect(r.stderr.contains("rules.yaml:7:5: warning: not imported: rule for '#gear_id=b101'"), "\(r.stderr)")
        #expect(r.stderr.contains("rules.yaml:6:12: warning: rule since 2024-05-01T12:30:00: bikecheck's mounts are whole days"), "\(r.stderr)")
        // What could be placed is written: chain-a never leaves the road bike, so it is its chain.
        let road = try String(contentsOf: folder.url.appendingPathComponent("bikes/road.yaml"), encoding: .utf8)
        #expect(road == "name: Road bike\nstrava: b101\ncomponents:\n  chain:\n    name: Chain\n", "\(road)")
        #expect(FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("parts/laces-1.yaml").path))
    }

    @Test func aComponentImportedOntoItsBikeThatNowMovesBecomesAPartWithAWarning() throws {
        // What the first import made of chain-a; the rules since move it to another bike.
        let folder = try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "bikes/road.yaml": "name: Road bike\nstrava: b101\ncomponents:\n  chain:\n    name: Chain\n",
            "bikes/gravel.yaml": "name: Gravel bike\nstrava: b102\n",
            "rules.yaml": """
            components:
              chain-a: {name: Chain}
            rules:
              - b101: {chain: chain-a}
              - since: 2025-03-01
                b102: {chain: chain-a}

            """,
        ])
        let r = try folder.run(["import", "tracker", "strava-gear", "rules.yaml"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stderr.contains(
                "rules.yaml:2:3: warning: component 'chain-a': it now leaves bike 'road', so it is a part; its component 'chain' of the same name is counted too until you remove it"
            ), "\(r.stderr)")
        let part = try String(contentsOf: folder.url.appendingPathComponent("parts/chain-a.yaml"), encoding: .utf8)
        #expect(part.contains("  - {bike: road, from: 1970-01-01, to: 2025-02-28}\n  - {bike: gravel, from: 2025-03-01}\n"), "\(part)")
        #expect(try String(contentsOf: folder.url.appendingPathComponent("bikes/road.yaml"), encoding: .utf8).contains("  chain:\n    name: Chain\n"))
    }
}
