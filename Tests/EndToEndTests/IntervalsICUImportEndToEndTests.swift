import Foundation
import StravaStandIn
import TestSupport
import Testing

/// `bikecheck import tracker intervals-icu FILE`: Intervals.icu's gear list (the JSON of
/// `GET /api/v1/athlete/{id}/gear`, its OpenAPI schemas `Gear` and `GearReminder`) into bikes,
/// gear, parts on their gear and intervals; with `--api`, the same list from Intervals.icu (a
/// stand-in on 127.0.0.1 that checks the key in the `Authorization` header).
@Suite(.serialized) struct IntervalsICUImportEndToEndTests {
    /// Built from the published field list: two bikes (one the garage has by its Strava id, one
    /// retired), a chain, a wheelset with tyres on it, a retired cassette and a power meter on no
    /// bike (components), running shoes, a trainer and a wetsuit; eight reminders by distance,
    /// time, days and activities, one with no limit at all.
    static let sample = repositoryRoot.appendingPathComponent("Tests/EndToEndTests/Trackers/intervals-icu-gear.json")

    static func garage() throws -> TemporaryFolder {
        let folder = try TemporaryFolder([
            "garage.yaml": "units: metric\ncurrency: EUR\n",
            "bikes/grail.yaml": """
            name: Grail   # the gravel bike
            strava: b1111111
            intervals:
              chain-lube: {task: Lube the chain, every: 10 h}

            """,
        ])
        try FileManager.default.copyItem(at: sample, to: folder.url.appendingPathComponent("gear.json"))
        return folder
    }

    /// Where the two records that cannot be placed are, and why.
    static let unplaced = """
        gear.json:131:7: warning: not imported: reminder 'Calibrate': it has no distance, time, days or activities to repeat by
        gear.json:135:3: warning: not imported: Wetsuit 'Orca Athlex': not cycling gear: bikecheck counts rides, and its wear comes from other sports

        """

    static func text(_ folder: TemporaryFolder, _ path: String) throws -> String {
        try String(contentsOf: folder.url.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func bikesGearPartsAndRemindersAreImportedAndASecondImportChangesNoByte() throws {
        let folder = try Self.garage()
        let r = try folder.run(["import", "tracker", "intervals-icu", "gear.json"])
        #expect(r.status == 1, "two records cannot be placed: \(r.stdout)\(r.stderr)")
        #expect(r.stderr == Self.unplaced, "\(r.stderr)")
        let validate = try folder.run(["validate"])
        #expect(validate.status == 0, "\(validate.stdout)\(validate.stderr)")

        // Counted by hand from the sample: 10 records. Bikes: the Grail is the garage's (b1111111),
        // the Tarmac new: 2 bike files. Gear: the shoes and the trainer (the wetsuit is not
        // cycling gear): 2. Parts: chain, wheelset, tyres, cassette, power meter: 5, with 4 mounts
        // (the power meter is on no gear). Intervals: Grail 3 (+ its own chain-lube), Tarmac 1,
        // chain 1, tyres 1, shoes 1, trainer 1 (Calibrate has no limit): 8 new. Log entries: the
        // two reminders with a last_reset (Grail's lube, the shoes): 2. Costs: Intervals.icu's gear
        // has no price or cost field, so none is written.
        let files = try snapshot(folder).keys.sorted()
        #expect(files.filter { $0.hasPrefix("bikes/") } == ["bikes/grail.yaml", "bikes/tarmac-sl7.yaml"], "\(files)")
        #expect(files.filter { $0.hasPrefix("gear/") } == ["gear/saucony-ride-17.yaml", "gear/wahoo-kickr.yaml"], "\(files)")
        #expect(
            files.filter { $0.hasPrefix("parts/") } == [
                "parts/dt-swiss-gr1600.yaml", "parts/favero-assioma.yaml", "parts/kmc-x11-chain.yaml", "parts/schwalbe-g-one-tyres.yaml",
                "parts/shimano-xt-cassette.yaml",
            ], "\(files)")
        let written = try files.filter { $0.hasSuffix(".yaml") && $0 != "garage.yaml" }.map { try Self.text(folder, $0) }.joined()
        #expect(written.components(separatedBy: "every:").count - 1 == 9, "8 imported intervals and the Grail's own: \(written)")
        #expect(written.components(separatedBy: "done:").count - 1 == 2, "\(written)")
        #expect(written.components(separatedBy: "{bike: ").count - 1 + written.components(separatedBy: "{part: ").count - 1 == 4, "\(written)")
        #expect(!written.contains("cost:") && !written.contains("price:"), "\(written)")
        #expect(r.stdout.hasPrefix("added bike 'tarmac-sl7' (Tarmac SL7), 1 interval in bikes/tarmac-sl7.yaml\n"), "\(r.stdout)")
        #expect(r.stdout.hasSuffix("bike 'grail': 1 key, 3 intervals, 1 log entry added (bikes/grail.yaml)\n"), "\(r.stdout)")
        // The tyres go wherever the wheelset goes.
        let parts = try folder.run(["part", "list", "--as-of", "2026-01-01"])
        #expect(parts.stdout.contains("schwalbe-g-one-tyres  on grail") && parts.stdout.contains("favero-assioma        on the shelf"), "\(parts.stdout)")

        #expect(
            try Self.text(folder, "bikes/grail.yaml") == """
                name: Grail   # the gravel bike
                strava: b1111111
                bought: 2024-03-01
                intervals:
                  chain-lube: {task: Lube the chain, every: 10 h}
                  clean-and-lube-chain:
                    task: Clean and lube chain
                    every: 300 km
                  annual-service:
                    task: Annual service
                    every: 365 days
                  check-bolts:
                    task: Check bolts
                    every: 20 rides
                log:
                  - date: 2025-05-01
                    done: [clean-and-lube-chain]
                    note: "Clean and lube chain: reset in Intervals.icu"

                """)
        let tarmac = try Self.text(folder, "bikes/tarmac-sl7.yaml")
        #expect(tarmac.contains("strava: b2222222\nbought: 2023-06-15\nretired: 2025-09-30\n"), "\(tarmac)")
        #expect(tarmac.contains("every: [5000 km, 100 h]"), "\(tarmac)")
        let shoes = try Self.text(folder, "gear/saucony-ride-17.yaml")
        #expect(shoes.contains("kind: shoes\nstrava: g3333333\nbought: 2025-10-01\n") && shoes.contains("every: 700 km"), "\(shoes)")
        let trainer = try Self.text(folder, "gear/wahoo-kickr.yaml")
        #expect(trainer.contains("kind: trainer\n") && !trainer.contains("strava:") && trainer.contains("every: 200 h"), "\(trainer)")
        // Tyres on the wheelset, from the wheelset's purchase (they have none of their own).
        let tyres = try Self.text(folder, "parts/schwalbe-g-one-tyres.yaml")
        #expect(tyres.contains("{part: dt-swiss-gr1600, from: 2024-03-01}") && tyres.contains("every: [50 h, 90 days]"), "\(tyres)")
        let cassette = try Self.text(folder, "parts/shimano-xt-cassette.yaml")
        #expect(cassette.contains("retired: 2025-04-01") && cassette.contains("{bike: grail, from: 2024-03-01, to: 2025-04-01}"), "\(cassette)")
        #expect(!(try Self.text(folder, "parts/favero-assioma.yaml")).contains("mounts:"))

        // A hand edit between imports survives, and the second import changes no byte.
        try folder.write("bikes/tarmac-sl7.yaml", tarmac.replacingOccurrences(of: "every: [5000 km, 100 h]", with: "every: [6000 km, 100 h]  # my shop's"))
        let before = try snapshot(folder)
        let again = try folder.run(["import", "tracker", "intervals-icu", "gear.json"])
        #expect(again.status == 1 && again.stdout.contains("nothing to import"), "\(again.stdout)\(again.stderr)")
        #expect(again.stderr == Self.unplaced, "\(again.stderr)")
        #expect(try snapshot(folder) == before)
        #expect(try Self.text(folder, "bikes/tarmac-sl7.yaml").contains("every: [6000 km, 100 h]  # my shop's"))
    }

    @Test func aDryRunShowsTheDiffAndWritesNothing() throws {
        let folder = try Self.garage()
        let before = try snapshot(folder)
        let r = try folder.run(["import", "tracker", "intervals-icu", "gear.json", "--dry-run"])
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect(
            r.stdout.contains("+++ b/gear/wahoo-kickr.yaml") && r.stdout.contains("+  check-bolts:\n+    task: Check bolts\n+    every: 20 rides\n"),
            "\(r.stdout)")
        #expect(try snapshot(folder) == before)
    }

    @Test func aFileThatIsNotJSONIsRefusedWithWhereAndNothingIsWritten() throws {
        let folder = try Self.garage()
        try folder.write("broken.json", "[\n  {\"id\": \"b1\", \"type\": \"Bike\" \"name\": \"Broken\"}\n]\n")
        let before = try snapshot(folder)
        let r = try folder.run(["import", "tracker", "intervals-icu", "broken.json"])
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        // The JSON reader's diagnostic: the object at 2:3 does not go on as one, noticed at 2:31.
        #expect(r.stderr.contains("broken.json:2:3: error: this '{' is never closed"), "\(r.stderr)")
        #expect(r.stderr.contains("broken.json:2:31") && r.stderr.contains("cannot read 'broken.json' as JSON"), "\(r.stderr)")
        #expect(try snapshot(folder) == before)

        try folder.write("object.json", "{\"id\": \"b1\", \"type\": \"Bike\"}\n")
        let object = try folder.run(["import", "tracker", "intervals-icu", "object.json"])
        #expect(object.status == 1 && object.stderr.contains("'object.json' is not an Intervals.icu gear list"), "\(object.stderr)")
    }

    @Test func componentsOnGearThatIsNotImportedAreListedDownTheChain() throws {
        let folder = try Self.garage()
        try folder.write(
            "kayak.json",
            """
            [
              {"id": "i1", "type": "Boat", "name": "Kayak", "component_ids": ["c1"]},
              {"id": "c1", "type": "Equipment", "name": "Seat", "component": true, "component_ids": ["c2"]},
              {"id": "c2", "type": "Equipment", "name": "Cushion", "component": true}
            ]

            """)
        let before = try snapshot(folder)
        let r = try folder.run(["import", "tracker", "intervals-icu", "kayak.json"])
        #expect(r.status == 1 && r.stdout.contains("nothing to import"), "\(r.stdout)\(r.stderr)")
        #expect(
            r.stderr == """
                kayak.json:2:3: warning: not imported: Boat 'Kayak': not cycling gear: bikecheck counts rides, and its wear comes from other sports
                kayak.json:3:3: warning: not imported: component 'Seat': it is on 'Kayak', which is not imported
                kayak.json:4:3: warning: not imported: component 'Cushion': it is on component 'seat', which is not imported

                """, "\(r.stderr)")
        #expect(try snapshot(folder) == before)
    }

    @Test func aGearListNeedsNoBike() throws {
        let folder = try Self.garage()
        let r = try folder.run(["import", "tracker", "intervals-icu", "gear.json", "--bike", "grail"])
        #expect(r.status == 2, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains("names its own bikes"), "\(r.stderr)")
    }

    // MARK: - From the API

    static let key = "icu-test-key-5f2a9c"

    /// Runs the binary off Swift's cooperative threads, which the stand-in's server needs to
    /// answer it (2 on a 2-core machine).
    static func run(_ folder: TemporaryFolder, _ arguments: [String], _ environment: [String: String]) async throws -> CommandResult {
        let root = folder.url
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<CommandResult, Error>, Never>) in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { try runBikecheck(arguments, in: root, environment: environment) })
            }
        }
        return try result.get()
    }

    /// The API's answer is the sample's bytes: the garage it makes is the file's, byte for byte.
    @Test func theAPIReadsTheSameGearWithTheKeyAndMakesTheSameGarageAsTheFile() async throws {
        let server = IntervalsICUStandIn(key: Self.key, gear: try Data(contentsOf: Self.sample), athletes: ["0", "i123456"])
        try await server.start()
        let environment = ["INTERVALS_ICU_API_KEY": Self.key, "BIKECHECK_INTERVALS_ICU_URL": await server.baseURL]

        let fromFile = try Self.garage()
        #expect(try fromFile.run(["import", "tracker", "intervals-icu", "gear.json"]).status == 1)
        let fromAPI = try Self.garage()
        let r = try await Self.run(fromAPI, ["import", "tracker", "intervals-icu", "--api"], environment)
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr == Self.unplaced.replacingOccurrences(of: "gear.json:", with: "intervals.icu/api/v1/athlete/0/gear:"), "\(r.stderr)")
        #expect(try snapshot(fromAPI) == (try snapshot(fromFile)))
        #expect(!r.stdout.contains(Self.key) && !r.stderr.contains(Self.key))
        let again = try await Self.run(fromAPI, ["import", "tracker", "intervals-icu", "--api"], environment)
        #expect(again.stdout.contains("nothing to import"), "\(again.stdout)\(again.stderr)")

        // Another athlete's gear (a coach's), by --athlete.
        let coached = try Self.garage()
        let other = try await Self.run(coached, ["import", "tracker", "intervals-icu", "--api", "--athlete", "i123456"], environment)
        #expect(other.status == 1 && other.stderr.contains("intervals.icu/api/v1/athlete/i123456/gear:131:7"), "\(other.stderr)")

        let requests = await server.requests
        #expect(
            requests.map(\.path) == ["/api/v1/athlete/0/gear", "/api/v1/athlete/0/gear", "/api/v1/athlete/i123456/gear"]
                && requests.allSatisfy { $0.method == "GET" && $0.headers["authorization"] == IntervalsICUStandIn.authorization(key: Self.key) },
            "\(requests)")
        await server.stop()
    }

    @Test func aKeyIntervalsICURefusesIsNamedByItsVariableAndNeverPrinted() async throws {
        let server = IntervalsICUStandIn(key: Self.key, gear: try Data(contentsOf: Self.sample))
        try await server.start()
        let folder = try Self.garage()
        let before = try snapshot(folder)
        let wrong = "wrong-key-81d7e0"
        let environment = ["INTERVALS_ICU_API_KEY": wrong, "BIKECHECK_INTERVALS_ICU_URL": await server.baseURL]
        let r = try await Self.run(folder, ["import", "tracker", "intervals-icu", "--api"], environment)
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.hasPrefix("error: Intervals.icu refused the API key in INTERVALS_ICU_API_KEY (HTTP 401)\n"), "\(r.stderr)")
        #expect(!r.stdout.contains(wrong) && !r.stderr.contains(wrong))
        #expect(try snapshot(folder) == before)
        #expect(await server.requests.map { $0.headers["authorization"] } == [IntervalsICUStandIn.authorization(key: wrong)])
        await server.stop()
    }

    @Test func theAPIWithoutAKeyOrWithAFileIsAUsageErrorAndAPlainHTTPAddressIsRefused() throws {
        let folder = try Self.garage()
        let before = try snapshot(folder)
        // Port 9 (discard): nothing there, and nothing may be sent anyway.
        let nowhere = ["INTERVALS_ICU_API_KEY": "", "BIKECHECK_INTERVALS_ICU_URL": "http://127.0.0.1:9"]
        let noKey = try folder.run(["import", "tracker", "intervals-icu", "--api"], environment: nowhere)
        #expect(noKey.status == 2 && noKey.stderr.contains("INTERVALS_ICU_API_KEY is not set"), "\(noKey.stderr)")
        var withKey = nowhere
        withKey["INTERVALS_ICU_API_KEY"] = Self.key
        for arguments in [
            ["intervals-icu", "--api", "gear.json"], ["intervals-icu", "--athlete", "i1", "gear.json"], ["lubelogger", "--api", "--bike", "grail"],
            ["intervals-icu"], ["intervals-icu", "--api", "--athlete", "../../x"],
        ] {
            let r = try folder.run(["import", "tracker"] + arguments, environment: withKey)
            #expect(r.status == 2, "\(arguments): \(r.stdout)\(r.stderr)")
        }
        withKey["BIKECHECK_INTERVALS_ICU_URL"] = "http://intervals.example.org"
        let clear = try folder.run(["import", "tracker", "intervals-icu", "--api"], environment: withKey)
        #expect(clear.status == 1 && clear.stderr.contains("would cross the network in the clear"), "\(clear.stderr)")
        #expect(!clear.stderr.contains(Self.key))
        #expect(try snapshot(folder) == before)
    }
}
