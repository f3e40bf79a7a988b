import Foundation
import StravaStandIn
import TestSupport
import Testing

/// Gear that is not a bike (`gear/ID.yaml`): shoes synced from the stand-in Strava with their
/// `g…` gear id, a trainer and a helmet worn on every bike's rides, and what validate says of a
/// gear file that is wrong.
@Suite struct GearEndToEndTests {
    static let grail = "name: Grail\nstrava: b1001\nbought: 2025-01-01\n"
    static let stumpy = "name: Stumpy\nstrava: b1002\nbought: 2025-01-01\n"
    static let shoes = """
        name: Trail shoes
        kind: shoes
        strava: g2001
        bought: 2025-01-01
        intervals:
          replace:
            task: Replace the shoes
            every: [800 km, 100 h]

        """
    static let trainer = """
        name: Smart trainer
        kind: trainer
        bought: 2025-01-01
        intervals:
          belt:
            task: Check the belt
            every: 50 h

        """
    static let helmet = """
        name: Helmet
        kind: helmet
        bought: 2025-01-01
        price: 80 EUR
        intervals:
          replace:
            task: Replace the helmet
            every: [100 h, 3 years]

        """

    /// 2025-06-02 00:00 UTC, and a day.
    static let june = Int64(1_748_822_400)
    static let day = Int64(86_400)

    /// The activities the stand-in serves: rides, runs, walks and hikes on two bikes and two
    /// pairs of shoes (one without a file), indoors and out, with gear and without.
    static func activities() -> [StandInActivity] {
        func a(_ id: Int64, _ sport: String, _ gear: String?, seconds: Int, metres: Double, trainer: Bool = false) -> StandInActivity {
            var out = StandInActivity(
                id: id, name: "\(sport) \(id)", sportType: sport, start: june + id * day, movingTime: seconds, elapsedTime: seconds + 60,
                distance: metres, gearID: gear)
            out.trainer = trainer
            return out
        }
        return [
            a(1, "Ride", "b1001", seconds: 3_600, metres: 30_000),
            a(2, "Run", "g2001", seconds: 1_800, metres: 5_000),
            a(3, "TrailRun", "g2001", seconds: 3_600, metres: 9_000),
            a(4, "Walk", "g2001", seconds: 2_400, metres: 3_000),
            // A ride recorded with the shoes' gear id: not a sport the shoes count.
            a(5, "Ride", "g2001", seconds: 7_200, metres: 40_000),
            // A run with no gear counts for no shoes.
            a(6, "Run", nil, seconds: 1_500, metres: 4_000),
            // Another pair's hike.
            a(7, "Hike", "g2002", seconds: 5_000, metres: 8_000),
            // A treadmill run in the shoes: it wears them.
            a(8, "Run", "g2001", seconds: 1_200, metres: 4_000, trainer: true),
            // Indoor rides: a VirtualRide on the Grail, a ride flagged trainer on the Stumpy.
            a(9, "VirtualRide", "b1001", seconds: 3_000, metres: 25_000),
            a(10, "Ride", "b1002", seconds: 2_700, metres: 20_000, trainer: true),
            // A VirtualRide with no gear counts for no bike, so for no trainer either.
            a(11, "VirtualRide", nil, seconds: 1_000, metres: 10_000),
            a(12, "MountainBikeRide", "b1002", seconds: 5_400, metres: 35_000),
        ]
    }

    /// A garage with two bikes and the gear given, synced from the stand-in; `expect`: what the
    /// sync's summary must say.
    func syncedWorld(gear: [String: String], rides: String? = nil, expect said: String? = nil) async throws -> StravaWorld {
        var files = ["bikes/grail.yaml": Self.grail, "bikes/stumpy.yaml": Self.stumpy]
        for (k, v) in gear { files[k] = v }
        if let rides { files["rides.yaml"] = rides }
        let world = try await StravaWorld(garageFiles: files)
        await world.server.setActivities(Self.activities())
        try await world.login()
        let sync = try await world.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        if let said { #expect(sync.stdout.contains(said), "\(sync.stdout)") }
        return world
    }

    /// `status --format json`'s used figures of one subject's interval, by measure.
    func used(_ world: StravaWorld, _ subject: String, _ interval: String) async throws -> [String: Double] {
        let r = try await world.run(["status", subject, "--as-of", "2025-07-01", "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let bike = try #require((object["bikes"] as? [[String: Any]])?.first { $0["id"] as? String == subject })
        let status = try #require((bike["intervals"] as? [[String: Any]])?.first { $0["id"] as? String == interval })
        var out: [String: Double] = [:]
        for limit in status["limits"] as? [[String: Any]] ?? [] {
            if let measure = limit["measure"] as? String, let used = limit["used"] as? Double { out[measure] = used }
        }
        return out
    }

    @Test func shoesSyncedWithTheirGearIDCountRunsWalksAndHikesOnly() async throws {
        // The shoes' activities (2, 3, 4, 5 and 8) are theirs in the sync's summary.
        let world = try await syncedWorld(gear: ["gear/trail-shoes.yaml": Self.shoes], expect: "trail-shoes: 5 new")
        defer { Task { await world.stop() } }
        let validate = try await world.run(["validate"])
        #expect(validate.status == 0, "\(validate.stdout)\(validate.stderr)")
        // Counted: the run 2, the trail run 3, the walk 4 and the treadmill run 8; not the ride 5
        // on their gear id, the run 6 with no gear, nor the other pair's hike 7.
        let shoes = try await used(world, "trail-shoes", "replace")
        #expect(shoes["time"] == Double(1_800 + 3_600 + 2_400 + 1_200))
        // (Metres from JSON, which may carry a last-digit difference.)
        #expect(abs((shoes["distance"] ?? 0) - (5_000 + 9_000 + 3_000 + 4_000)) < 0.001, "\(shoes)")
        // The bike's count is as before: its ride 1 only (the VirtualRide 9 is indoors).
        let rides = try await world.run(["rides", "trail-shoes", "--as-of", "2025-07-01", "--format", "json"])
        #expect(rides.status == 0, "\(rides.stderr)")
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(rides.stdout.utf8)) as? [String: Any])
        let verdicts = ((listed["rides"] as? [[String: Any]]) ?? []).map { ($0["activity"] as? Int ?? 0, $0["verdict"] as? String ?? "") }
        #expect(verdicts.filter { $0.1 == "counted" }.map(\.0).sorted() == [2, 3, 4, 8], "\(verdicts)")
        #expect(verdicts.filter { $0.1 == "sport-type" }.map(\.0) == [5], "\(verdicts)")
        let text = try await world.run(["status", "--as-of", "2025-07-01"])
        #expect(text.stdout.contains("trail-shoes · Trail shoes (shoes)"), "\(text.stdout)")
        #expect(text.stdout.contains("21 / 800 km"), "\(text.stdout)")
        let list = try await world.run(["bike", "list"])
        #expect(list.stdout.contains("trail-shoes  Trail shoes  (shoes)  strava g2001"), "\(list.stdout)")
        // A pair of shoes' own day off is no sign of a stale sync.
        #expect(!text.stderr.contains("quiet-bike"), "\(text.stderr)")
        // `done` takes the gear's id, and writes to its file.
        let done = try await world.run(["done", "trail-shoes", "replace", "--date", "2025-06-20"])
        #expect(done.status == 0, "\(done.stderr)")
        let file = try world.garage.read("gear/trail-shoes.yaml")
        #expect(file.hasPrefix(Self.shoes) && file.contains("2025-06-20") && file.dropFirst(Self.shoes.count).contains("replace"), "\(file)")
    }

    @Test func aTrainerCountsTheIndoorRidesOfEveryBikeAndAHelmetTheOutdoorOnes() async throws {
        let world = try await syncedWorld(
            gear: ["gear/kickr.yaml": Self.trainer, "gear/helmet.yaml": Self.helmet],
            rides: "rides:\n  - {date: 2025-06-20, bike: stumpy, time: 1h, distance: 20 km}\n")
        defer { Task { await world.stop() } }
        // The trainer: the VirtualRide 9 on the Grail and the trainer ride 10 on the Stumpy; not
        // the VirtualRide 11 with no gear, nor an outdoor ride, nor the hand-entered one.
        let trainer = try await used(world, "kickr", "belt")
        #expect(trainer["time"] == Double(3_000 + 2_700))
        // The helmet: the outdoor rides of both bikes (1 and 12) and the hand-entered ride.
        let helmet = try await used(world, "helmet", "replace")
        #expect(helmet["time"] == Double(3_600 + 5_400 + 3_600))
        let usage = try await world.run(["usage", "kickr", "helmet", "--as-of", "2025-07-01", "--format", "json"])
        #expect(usage.status == 0, "\(usage.stderr)")
        #expect(usage.stdout.contains("\"kickr\""), "\(usage.stdout)")
        // The garage's riding in the costs is each ride once: the bikes' (1, 12 and the hand
        // ride), not again as the helmet's or the trainer's.
        let costs = try await world.run(["costs", "--by", "category", "--as-of", "2025-07-01", "--format", "json"])
        #expect(costs.status == 0, "\(costs.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(costs.stdout.utf8)) as? [String: Any])
        let purchase = try #require((report["rows"] as? [[String: Any]])?.first { $0["group"] as? String == "purchase" })
        #expect(abs((purchase["distance"] as? Double ?? 0) - (30_000 + 35_000 + 20_000)) < 0.001, "\(purchase)")
    }

    @Test func aTrainerWithDevicesCountsOnlyTheRidesImportedOntoIt() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": Array("name: T\n".utf8), "bikes/grail.yaml": Array(Self.grail.utf8),
            "gear/kickr.yaml": Array((Self.trainer + "devices: [3980001234]\n").utf8),
            "rides.yaml": Array("rides:\n  - {date: 2025-06-20, bike: grail, time: 1h, distance: 20 km, sport: VirtualRide}\n".utf8),
        ])
        let r = try runBikecheck(["status", "kickr", "--as-of", "2025-07-01", "--format", "json"], in: garage.url)
        #expect(r.status == 0, "\(r.stderr)")
        // Not the Grail's rides: with devices, the trainer's rides are those imported onto it.
        #expect(r.stdout.contains("\"used\" : 0") || r.stdout.contains("\"used\": 0"), "\(r.stdout)")
    }

    @Test func aRidersHelmetCountsTheirBikesAndTheSharedOnesNotAnotherRiders() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": Array("name: T\nriders: {alex: {}, sam: {}}\n".utf8),
            "bikes/grail.yaml": Array("name: Grail\nrider: alex\n".utf8),
            "bikes/stumpy.yaml": Array("name: Stumpy\nrider: sam\n".utf8),
            "bikes/cargo.yaml": Array("name: Cargo\n".utf8),
            "gear/lid.yaml": Array((Self.helmet.replacingOccurrences(of: "price: 80 EUR\n", with: "") + "rider: alex\n").utf8),
            "rides.yaml": Array(
                """
                rides:
                  - {date: 2025-06-01, bike: grail, time: 1h}
                  - {date: 2025-06-02, bike: stumpy, time: 2h}
                  - {date: 2025-06-03, bike: cargo, time: 30 min}

                """.utf8),
        ])
        let r = try runBikecheck(["rides", "lid", "--as-of", "2025-07-01", "--format", "json"], in: garage.url)
        #expect(r.status == 0, "\(r.stderr)")
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let days = ((listed["rides"] as? [[String: Any]]) ?? []).compactMap { $0["day"] as? String }
        // Alex's Grail and the shared Cargo; not Sam's Stumpy.
        #expect(days == ["2025-06-01", "2025-06-03"], "\(r.stdout)")
    }

    @Test func calendarAndNotifyCarryGearAsTheyCarryABike() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": Array("name: T\nnotify:\n  ntfy: {url: \"http://127.0.0.1:9\", topic: bikes}\n".utf8),
            "bikes/grail.yaml": Array("name: Grail\n".utf8),
            "gear/shoes.yaml": Array(
                Self.shoes.replacingOccurrences(of: "strava: g2001\n", with: "").replacingOccurrences(of: "[800 km, 100 h]", with: "[35 km, 100 h]").utf8),
            "rides.yaml": Array(
                """
                rides:
                  - {date: 2025-06-01, bike: shoes, time: 1h, distance: 10 km, sport: Run}
                  - {date: 2025-06-08, bike: shoes, time: 2h, distance: 21 km, sport: Run}
                  - {date: 2025-06-09, bike: shoes, time: 1h, distance: 12 km, sport: Ride}
                  - {date: 2025-06-10, bike: grail, time: 3h, distance: 90 km}

                """.utf8),
        ])
        // The two runs count: 10 + 21 = 31 km of 35 (89 %), 3 h of 100 (3 %); not the ride in
        // the shoes, nor the Grail's ride.
        let notify = try runBikecheck(["notify", "--dry-run", "--as-of", "2025-07-01"], in: garage.url)
        #expect(notify.status == 0, "\(notify.stderr)")
        #expect(notify.stdout.hasPrefix("ntfy: would send 1 reminder\n  shoes: replace  due within 30 days ("), "\(notify.stdout)")
        #expect(notify.stdout.contains(", 89%)  Replace the shoes\n"), "\(notify.stdout)")
        let calendar = try runBikecheck(["calendar", "--as-of", "2025-07-01"], in: garage.url)
        #expect(calendar.status == 0, "\(calendar.stderr)")
        let unfolded = calendar.stdout.replacingOccurrences(of: "\r\n ", with: "").replacingOccurrences(of: "\n ", with: "")
        #expect(unfolded.contains("UID:bike/shoes/replace@bikecheck"), "\(calendar.stdout)")
        #expect(unfolded.contains("SUMMARY:Trail shoes: Replace the shoes"), "\(calendar.stdout)")
        #expect(unfolded.contains("35 km: 89 %\\, 100 h: 3 %."), "\(calendar.stdout)")
    }

    @Test func validateLocatesABadKindAnIDABikeHasAndABadGearID() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": Array("name: T\n".utf8),
            "bikes/grail.yaml": Array("name: Grail\nstrava: g2001\n".utf8),
            "gear/grail.yaml": Array("name: Grail shoes\nkind: shoes\n".utf8),
            "gear/lid.yaml": Array("name: Helmet\nkind: helmt\nstrava: x12\n".utf8),
            "gear/mat.yaml": Array("name: Mat\n".utf8),
        ])
        let r = try runBikecheck(["validate"], in: garage.url)
        #expect(r.status == 1)
        let out = r.stdout + r.stderr
        #expect(
            out.contains("gear/lid.yaml:2:7: error: kind should be shoes, trainer, helmet or other, found 'helmt'; did you mean 'helmet'? [bad-value]"),
            "\(out)")
        #expect(out.contains("gear/lid.yaml:3:9: error: 'x12' is not a Strava gear id [bad-gear-id]"), "\(out)")
        #expect(
            out.contains("gear/grail.yaml:1:1: error: gear/grail.yaml and bikes/grail.yaml both define 'grail': bikes and gear share their ids [duplicate-id]"),
            "\(out)")
        #expect(out.contains("bikes/grail.yaml:2:9: error: 'g2001' is not a Strava bike gear id [bad-gear-id]"), "\(out)")
        #expect(out.contains("g… is a Strava shoe id: shoes go in gear/ with kind: shoes"), "\(out)")
        #expect(out.contains("gear/mat.yaml:1:1: error: gear 'mat' is missing required key 'kind'"), "\(out)")
    }
}
