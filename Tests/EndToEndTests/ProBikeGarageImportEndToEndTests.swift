import Foundation
import TestSupport
import Testing

/// `bikecheck import tracker probikegarage FILE`: ProBikeGarage's bikes, components,
/// installations (on a bike or on a component: tyres on a wheelset), reminders and services.
@Suite struct ProBikeGarageImportEndToEndTests {
    /// Built from the field list of ProBikeGarage's API (as mfa/probikegarage-to-sqlite reads it:
    /// bikes with strava_bike, components with initial_usage, installations with target_type,
    /// added_at, removed_at and included/excluded_ride_tags) and, for reminders, services and
    /// purchases, the fields docs/imports.md describes. Three bikes (the road bike the garage has,
    /// by its Strava gear id), five components, the wheelset with its tyres moved from the road
    /// bike to the gravel bike on 2025-03-01, race wheels for #race rides, three reminders, four
    /// services; an installation, a reminder and a service that cannot be placed.
    static let sample = repositoryRoot.appendingPathComponent("Tests/EndToEndTests/Trackers/probikegarage-export.json")

    /// Six rides: the road bike (b101) on 01-10 (40 km, 1.5 h), 02-10 (60 km, 2 h) and 03-10
    /// (30 km, 1 h); the gravel bike (b202) on 02-15 (50 km, 2 h), 03-15 (70 km, 3 h) and 04-05,
    /// "Crit #race" (45 km, 1.5 h). All in 2025.
    static func garage() throws -> TemporaryFolder {
        let rides: [(String, String, Int, Int, String)] = [
            ("2025-01-10", "b101", 40_000, 5400, "Morning ride"), ("2025-02-10", "b101", 60_000, 7200, "Long ride"),
            ("2025-03-10", "b101", 30_000, 3600, "Spin"), ("2025-02-15", "b202", 50_000, 7200, "Gravel loop"),
            ("2025-03-15", "b202", 70_000, 10800, "Big gravel day"), ("2025-04-05", "b202", 45_000, 5400, "Crit #race"),
        ]
        var months: [String: [String]] = [:]
        for (n, (day, gear, metres, seconds, name)) in rides.enumerated() {
            months[String(day.prefix(7)), default: []].append(
                #"{"distance":\#(metres),"id":\#(n + 1),"moving_time":\#(seconds),"name":"\#(name)","sport_type":"Ride","gear_id":"\#(gear)","start_date":"\#(day)T08:00:00Z","start_date_local":"\#(day)T09:00:00Z","trainer":false}"#
            )
        }
        var files = [
            "garage.yaml": "units: metric\ncurrency: EUR\n",
            "bikes/road.yaml": "name: Road bike   # hand-written\nstrava: b101\n",
        ]
        for (month, items) in months { files["activities/\(month).json"] = "[\n" + items.joined(separator: ",\n") + "\n]\n" }
        let folder = try TemporaryFolder(files)
        try FileManager.default.copyItem(at: sample, to: folder.url.appendingPathComponent("pbg.json"))
        return folder
    }

    /// Every file of the garage but its local state, by path.
    static func snapshot(_ folder: TemporaryFolder) throws -> [String: Data] {
        var out: [String: Data] = [:]
        let root = folder.url.standardizedFileURL.path
        let walker = FileManager.default.enumerator(atPath: root)
        while let relative = walker?.nextObject() as? String {
            guard !relative.hasPrefix(".bikecheck"), !relative.hasPrefix(".git") else { continue }
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isFolder), !isFolder.boolValue {
                out[relative] = try Data(contentsOf: URL(fileURLWithPath: root + "/" + relative))
            }
        }
        return out
    }

    static func json(_ r: CommandResult) throws -> [String: Any] {
        #expect(r.status == 0, "\(r.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }

    @Test func theExportImportsWithItsMountsRemindersAndServicesAndASecondImportChangesNoByte() throws {
        let folder = try Self.garage()
        let before = try Self.snapshot(folder)
        let dry = try folder.run(["import", "tracker", "probikegarage", "pbg.json", "--dry-run"])
        #expect(dry.status == 1, "\(dry.stdout)\(dry.stderr)")
        #expect(dry.stdout.contains("+++ b/parts/continental-gp5000-tyres.yaml"), "\(dry.stdout)")
        #expect(try Self.snapshot(folder) == before, "--dry-run writes nothing")

        let r = try folder.run(["import", "tracker", "probikegarage", "pbg.json"])
        #expect(r.status == 1, "three records have no place: \(r.stdout)\(r.stderr)")
        #expect(
            r.stderr == """
                pbg.json:151:5: warning: not imported: installation 'i-7': its component 'c0a80001-0000-4000-8000-00000000dead' is not in the export
                pbg.json:187:5: warning: not imported: reminder 'Wash': it has no distance, moving_time, rides or days to count
                pbg.json:233:5: warning: not imported: service 'Brake bleed': the bike or component it is for ('c0a80001-0000-4000-8000-00000000dead') is not in the export

                """, "\(r.stderr)")
        #expect(try folder.run(["validate"]).status == 0)

        // Bikes: the road bike matched by b101 (gains its purchase), two new ones.
        let road = try String(contentsOf: folder.url.appendingPathComponent("bikes/road.yaml"), encoding: .utf8)
        #expect(
            road == """
                name: Road bike   # hand-written
                strava: b101
                bought: 2023-04-01
                price: 2499
                log:
                  - date: 2025-02-20
                    cost: 120.00
                    category: service
                    note: "Full service: Bar tape and cables"

                """, "\(road)")
        let bikes = try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("bikes").path).sorted()
        #expect(bikes == ["gravel-bike.yaml", "old-commuter.yaml", "road.yaml"])
        let commuter = try String(contentsOf: folder.url.appendingPathComponent("bikes/old-commuter.yaml"), encoding: .utf8)
        #expect(commuter.contains("bought: 2016-05-01\nretired: 2024-10-01\n"), "\(commuter)")
        let parts = try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("parts").path).sorted()
        #expect(
            parts == [
                "continental-gp5000-tyres.yaml", "dt-swiss-e1800-wheelset.yaml", "fox-32-fork.yaml", "kmc-x11-chain.yaml", "zipp-303-race-wheels.yaml",
            ])
        let wheels = try String(contentsOf: folder.url.appendingPathComponent("parts/dt-swiss-e1800-wheelset.yaml"), encoding: .utf8)
        // Removed on 2025-03-01 and put on the gravel bike that day: the road bike's mount ends the day before.
        #expect(
            wheels.contains(
                "mounts:\n  - {bike: road, from: 2025-01-01, to: 2025-02-28}\n  - {bike: gravel-bike, from: 2025-03-01, unless_tag: [race]}\n"), "\(wheels)")
        let tyres = try String(contentsOf: folder.url.appendingPathComponent("parts/continental-gp5000-tyres.yaml"), encoding: .utf8)
        #expect(tyres.contains("distance: 500 km\nhours: 20\n"), "\(tyres)")
        #expect(tyres.contains("  check-tyres:\n    task: Check tyres\n    every: [500 km, 180 days]\n"), "\(tyres)")
        #expect(tyres.contains("  - {part: dt-swiss-e1800-wheelset, from: 2025-01-01}\n"), "\(tyres)")
        #expect(tyres.hasSuffix("log:\n  - date: 2025-02-01\n    done: [check-tyres]\n    note: Check tyres\n"), "\(tyres)")
        let race = try String(contentsOf: folder.url.appendingPathComponent("parts/zipp-303-race-wheels.yaml"), encoding: .utf8)
        #expect(race.contains("{bike: gravel-bike, from: 2025-01-01, tag: race}"), "\(race)")
        let fork = try String(contentsOf: folder.url.appendingPathComponent("parts/fox-32-fork.yaml"), encoding: .utf8)
        #expect(fork.contains("  fork-lower-service:\n    task: Fork lower service\n    every: [50 h, 365 days]\n"), "\(fork)")
        #expect(fork.contains("cost: 89.90 USD"), "\(fork)")

        // Usage, counted by hand from the six rides (metres):
        // - wheelset: road 01-10 40 km + 02-10 60 km (to 02-28), gravel from 03-01 but not #race:
        //   03-15 70 km → 170 km; 1.5 + 2 + 3 = 6.5 h.
        // - tyres, on the wheelset wherever it goes: 500 km before tracking + 170 km = 670 km;
        //   20 h + 6.5 h = 26.5 h.
        // - chain, road bike: 40 + 60 + 30 = 130 km. Race wheels, #race only: 45 km.
        // - fork, gravel bike: 50 + 70 + 45 = 165 km; 10 h before + 2 + 3 + 1.5 = 16.5 h.
        let list = try Self.json(folder.run(["part", "list", "--as-of", "2025-04-30", "--format", "json"]))
        let rows = try #require(list["parts"] as? [[String: Any]])
        var distance: [String: Double] = [:]
        var hours: [String: Double] = [:]
        for p in rows {
            guard let id = p["id"] as? String else { continue }
            distance[id] = p["distance"] as? Double
            hours[id] = (p["moving_time"] as? Double).map { $0 / 3600 }
        }
        #expect(
            distance == [
                "dt-swiss-e1800-wheelset": 170_000, "continental-gp5000-tyres": 670_000, "kmc-x11-chain": 130_000, "zipp-303-race-wheels": 45_000,
                "fox-32-fork": 165_000,
            ], "\(rows)")
        #expect(hours["continental-gp5000-tyres"] == 26.5 && hours["dt-swiss-e1800-wheelset"] == 6.5 && hours["fox-32-fork"] == 16.5, "\(rows)")

        // Status: the tyres' check, done on 02-01, counts 02-10 on the road bike (60 km) and
        // 03-15 on the gravel bike (70 km) through the wheelset: 130 km of 500.
        let status = try folder.run(["status", "gravel-bike", "--as-of", "2025-04-30", "--format", "json"])
        #expect(status.status == 0, "\(status.stderr)")
        let check = try #require(Self.interval("check-tyres", in: status.stdout), "\(status.stdout)")
        let usage = try #require(check["usage"] as? [String: Any], "\(check)")
        #expect(usage["distance"] as? Double == 130_000 && usage["rides"] as? Int == 2, "\(check)")
        #expect(check["part"] as? String == "continental-gp5000-tyres", "\(check)")

        // Costs, by hand: services 120.00 EUR (the road bike's) and 89.90 USD (the fork's, in its
        // own currency), one entry each (the chain's and the tyres' services are done: only, no
        // cost); purchases in EUR 2499 (road bike) + 650 (wheelset) + 89.98 (tyres) + 32.50
        // (chain) + 1200 (race wheels) = 4471.48, so 4591.48 EUR in all.
        let costs = try Self.json(folder.run(["costs", "--format", "json", "--as-of", "2025-12-31"]))
        let totals = try #require(costs["totals"] as? [[String: Any]])
        let eur = totals.first { $0["currency"] as? String == "EUR" }, usd = totals.first { $0["currency"] as? String == "USD" }
        #expect(eur?["services"] as? String == "120.00" && eur?["purchases"] as? String == "4471.48" && eur?["total"] as? String == "4591.48", "\(totals)")
        #expect(eur?["entries"] as? Int == 1 && usd?["services"] as? String == "89.90" && usd?["entries"] as? Int == 1, "\(totals)")
        // Four log entries in all: the road bike's, the chain's, the tyres' and the fork's.
        let logged = try Self.snapshot(folder).filter { $0.key.hasSuffix(".yaml") }.values.map { String(decoding: $0, as: UTF8.self) }
        #expect(logged.map { $0.components(separatedBy: "\n  - date: ").count - 1 }.reduce(0, +) == 4)

        // Again: no byte changes. Then a hand edit, and again: it stays.
        let imported = try Self.snapshot(folder)
        let again = try folder.run(["import", "tracker", "probikegarage", "pbg.json"])
        #expect(again.status == 1 && again.stdout.contains("nothing to import"), "\(again.stdout)\(again.stderr)")
        #expect(try Self.snapshot(folder) == imported)
        let chain = folder.url.appendingPathComponent("parts/kmc-x11-chain.yaml")
        let edited = try String(contentsOf: chain, encoding: .utf8).replacingOccurrences(
            of: "name: KMC X11 chain", with: "name: KMC X11 chain   # the gold one")
        try edited.write(to: chain, atomically: true, encoding: .utf8)
        let third = try folder.run(["import", "tracker", "probikegarage", "pbg.json"])
        #expect(third.status == 1 && third.stdout.contains("nothing to import"), "\(third.stdout)\(third.stderr)")
        #expect(try String(contentsOf: chain, encoding: .utf8) == edited)
    }

    /// The interval of this id in status's JSON, wherever it is nested.
    static func interval(_ id: String, in text: String) -> [String: Any]? {
        func find(_ v: Any) -> [String: Any]? {
            if let d = v as? [String: Any] {
                if d["id"] as? String == id || d["interval"] as? String == id { return d }
                for x in d.values { if let f = find(x) { return f } }
            } else if let a = v as? [Any] {
                for x in a { if let f = find(x) { return f } }
            }
            return nil
        }
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8))).flatMap(find)
    }

    @Test func aFileThatIsNotJSONIsRefusedWithItsPlaceAndNothingIsWritten() throws {
        let folder = try Self.garage()
        try folder.write("broken.json", "{\n  \"bikes\": [\n    {\"id\": \"1\" \"name\": \"Road bike\"}\n  ]\n}\n")
        let before = try Self.snapshot(folder)
        let r = try folder.run(["import", "tracker", "probikegarage", "broken.json"])
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        // The JSON reader's diagnostic: the object on line 3 (column 5) does not go on as an
        // object should, noticed at column 16, the second key where a comma should come first.
        #expect(r.stderr.contains("cannot read 'broken.json' as JSON"), "\(r.stderr)")
        #expect(r.stderr.contains("broken.json:3:5: error: this '{' is never closed"), "\(r.stderr)")
        #expect(r.stderr.contains("broken.json:3:16") && r.stderr.contains("or put a ',' before its next member"), "\(r.stderr)")
        #expect(try Self.snapshot(folder) == before)
    }

    /// The files the API serves, as mfa/probikegarage-to-sqlite saves them: the detailed bikes
    /// (each with its components) and a component's details with its installations.
    @Test func theAPIsOwnFilesImportTooTyresOnAWheelsetOnTheRoadBike() throws {
        let folder = try Self.garage()
        try folder.write(
            "api/bikes.json",
            #"[{"id": "B1", "name": "Road bike", "strava_bike": {"id": "b101"}, "components": [{"id": "C1", "name": "Wheels", "type": "wheelset"}]}]"#)
        try folder.write(
            "api/wheels.json",
            #"{"component": {"id": "C1", "name": "Wheels", "type": "wheelset"}, "installations": [{"id": "I1", "component_id": "C1", "target_type": "bike", "target_id": "B1", "bike_id": "B1", "added_at": "2025-01-01T00:00:00Z", "removed_at": "0001-01-01T00:00:00Z"}]}"#
        )
        try folder.write(
            "api/tyres.json",
            #"{"component": {"id": "C2", "name": "Tyres", "type": "tire"}, "installations": [{"id": "I2", "component_id": "C2", "target_type": "component", "target_id": "C1", "bike_id": null, "added_at": "2025-02-01T00:00:00Z", "removed_at": "0001-01-01T00:00:00Z"}]}"#
        )
        let r = try folder.run(["import", "tracker", "probikegarage", "api/bikes.json", "api/wheels.json", "api/tyres.json"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let tyres = try String(contentsOf: folder.url.appendingPathComponent("parts/tyres.yaml"), encoding: .utf8)
        #expect(tyres.hasSuffix("mounts:\n  - {part: wheels, from: 2025-02-01}\n"), "\(tyres)")
        // The road bike's rides from 02-01: 60 + 30 km; the wheels' from 01-01: 40 + 60 + 30 km.
        let list = try Self.json(folder.run(["part", "list", "--as-of", "2025-04-30", "--format", "json"]))
        let rows = try #require(list["parts"] as? [[String: Any]])
        let distance = Dictionary(uniqueKeysWithValues: rows.compactMap { p in (p["id"] as? String).map { ($0, p["distance"] as? Double ?? -1) } })
        #expect(distance == ["wheels": 130_000, "tyres": 90_000], "\(rows)")
    }
}
