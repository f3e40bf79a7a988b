import Foundation
import TestSupport
import Testing

/// Stale data through the built binary: a sync that stopped running, and a bike on Strava that
/// has gone quiet while another is ridden, warn on standard error and in the JSON, as of the
/// `--as-of` day, and never change the exit code.
@Suite struct StalenessEndToEndTests {
    /// One cached activity, as sync writes it.
    static func activity(_ id: Int, _ day: String, gear: String) -> String {
        """
        {"distance":20000,"gear_id":"\(gear)","id":\(id),"moving_time":3600,"name":"Ride","sport_type":"Ride",\
        "start_date":"\(day)T08:00:00Z","start_date_local":"\(day)T09:00:00Z","trainer":false,"type":"Ride"}
        """
    }

    /// Grail (b1) ridden through 2026-03-20; Stumpy (b2) last ridden 2025-12-01; a sync noted
    /// on 2026-03-21.
    static func garage(settings: String = "", noted: Bool = true) throws -> TemporaryFolder {
        var files = [
            "garage.yaml": "name: Test\n\(settings)",
            "bikes/grail.yaml": "name: Grail\nstrava: b1\nbought: 2025-01-01\nintervals:\n  chain-lube: {every: 10 h}\n",
            "bikes/stumpy.yaml": "name: Stumpy\nstrava: b2\nbought: 2025-01-01\nintervals:\n  chain-lube: {every: 10 h}\n",
            "activities/2025-12.json": "[\n\(activity(1, "2025-12-01", gear: "b2"))\n]\n",
            "activities/2026-01.json": "[\n\(activity(2, "2026-01-05", gear: "b1"))\n]\n",
            "activities/2026-03.json": "[\n\(activity(3, "2026-03-02", gear: "b1")),\n\(activity(4, "2026-03-20", gear: "b1"))\n]\n",
        ]
        if noted { files[".bikecheck/last-sync.json"] = "{\"finished\":\"2026-03-21T08:00:00Z\"}\n" }
        return try TemporaryFolder(files)
    }

    static func warnings(_ garage: TemporaryFolder, asOf: String) throws -> [[String: Any]] {
        let r = try garage.run(["status", "--format", "json", "--as-of", asOf])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        return try #require(report["warnings"] as? [[String: Any]])
    }

    @Test func aBikeOnStravaWithNoRideForLongWarnsWhileAnotherIsRidden() throws {
        let garage = try Self.garage()
        let r = try garage.run(["status", "--check", "--as-of", "2026-03-25"])
        #expect(r.status == 0, "a warning is not a failure: \(r.stderr)")
        #expect(
            r.stderr
                == "warning: bike 'stumpy' (Strava gear b2) has had no ride since 2025-12-01, 114 days before 2026-03-25, while 'grail' has [quiet-bike]\n"
                + "  help: check that its rides on Strava carry this gear id, or retire the bike; quiet_after in garage.yaml sets the limit (60 days)\n")
        #expect(r.stdout.contains("stumpy · Stumpy"), "the status itself is unchanged: \(r.stdout)")
        let warnings = try Self.warnings(garage, asOf: "2026-03-25")
        #expect(warnings.count == 1)
        #expect(warnings.first?["kind"] as? String == "quiet-bike" && warnings.first?["bike"] as? String == "stumpy")
        #expect(warnings.first?["since"] as? String == "2025-12-01")
        // Within the limit on 2026-01-30 (60 days after its last ride), and a retired bike is never quiet.
        #expect(try Self.warnings(garage, asOf: "2026-01-30").isEmpty)
        // A ride entered by hand counts as a ride too.
        try garage.write("rides.yaml", "rides:\n  - {date: 2026-03-01, bike: stumpy, time: 1h}\n")
        #expect(try Self.warnings(garage, asOf: "2026-03-25").isEmpty)
        try FileManager.default.removeItem(at: garage.root.appendingPathComponent("rides.yaml"))
        try garage.write("bikes/stumpy.yaml", "name: Stumpy\nstrava: b2\nbought: 2025-01-01\nretired: 2026-01-10\n")
        #expect(try Self.warnings(garage, asOf: "2026-03-25").isEmpty)
    }

    @Test func aSyncOlderThanStaleAfterWarnsAsOfTheDayAskedAndTheThresholdIsSettable() throws {
        let garage = try Self.garage(settings: "quiet_after: 400 days\n")
        let late = try garage.run(["status", "--check", "--as-of", "2026-04-10"])
        #expect(late.status == 0)
        #expect(
            late.stderr
                == "warning: the last Strava sync was on 2026-03-21, 20 days before 2026-04-10: usage since then is missing [stale-sync]\n"
                + "  help: run 'bikecheck sync' (and check the job that runs it); stale_after in garage.yaml sets the limit (14 days)\n")
        let warnings = try Self.warnings(garage, asOf: "2026-04-10")
        #expect(warnings.map { $0["kind"] as? String } == ["stale-sync"] && warnings.first?["since"] as? String == "2026-03-21")
        // Fourteen days on is still fresh; a day before the sync knows nothing newer.
        #expect(try Self.warnings(garage, asOf: "2026-04-04").isEmpty)
        #expect(try Self.warnings(garage, asOf: "2026-03-01").isEmpty)
        try garage.write("garage.yaml", "name: Test\nquiet_after: 400 days\nstale_after: 4 weeks\n")
        #expect(try Self.warnings(garage, asOf: "2026-04-10").isEmpty)
        let json = try garage.run(["status", "--format", "json", "--as-of", "2026-05-01"])
        try garage.write("status.json", json.stdout)
        if let check = try checkJSONSchema(
            ["--schemafile", repositoryRoot.appendingPathComponent("schemas/status.schema.json").path, garage.path + "/status.json"], in: garage.root)
        {
            #expect(check.status == 0, "\(check.stdout)")
        }
    }

    @Test func withNoSyncOnRecordTheNewestCachedActivityStandsIn() throws {
        let garage = try Self.garage(settings: "quiet_after: 400 days\n", noted: false)
        let warnings = try Self.warnings(garage, asOf: "2026-04-10")
        #expect(warnings.count == 1)
        #expect(
            warnings.first?["message"] as? String
                == "no Strava sync on record, and the newest cached activity is from 2026-03-20, 21 days before 2026-04-10")
        #expect(try Self.warnings(garage, asOf: "2026-04-03").isEmpty)
        // A record that is not what sync writes says nothing; the cache stands in again.
        try garage.write(".bikecheck/last-sync.json", "{\"finished\": 12}\n")
        #expect(try Self.warnings(garage, asOf: "2026-04-10").first?["kind"] as? String == "stale-sync")
    }

    /// Every bike quiet and a sync that ran yesterday: the newest ride is two years old, and that
    /// is stale data, said once for the garage (the quiet-bike check has no bike to compare with).
    @Test func aGarageWhoseNewestRideIsOlderThanQuietAfterWarnsThoughEveryBikeIsQuietAndASyncRan() throws {
        let garage = try Self.garage()
        try garage.write(".bikecheck/last-sync.json", "{\"finished\":\"2028-03-24T12:00:00Z\"}\n")
        let r = try garage.run(["status", "--as-of", "2028-03-25"])
        #expect(
            r.stderr.contains(
                "warning: no bike on Strava has had a ride since 2026-03-20, 736 days before 2028-03-25, though the last Strava sync was on 2028-03-24 [quiet-garage]\n"
                    + "  help: run 'bikecheck sync'; if it ran, check that your rides on Strava carry the bikes' gear ids, or retire the bikes no longer ridden; quiet_after in garage.yaml sets the limit (60 days)\n"
            ), "\(r.stderr)")
        let warnings = try Self.warnings(garage, asOf: "2028-03-25")
        #expect(warnings.map { $0["kind"] as? String } == ["quiet-garage"], "\(warnings)")
        #expect(warnings.first?["since"] as? String == "2026-03-20" && warnings.first?["bike"] == nil)
        let json = try garage.run(["status", "--format", "json", "--as-of", "2028-03-25"])
        try garage.write("status.json", json.stdout)
        if let check = try checkJSONSchema(
            ["--schemafile", repositoryRoot.appendingPathComponent("schemas/status.schema.json").path, garage.path + "/status.json"], in: garage.root)
        {
            #expect(check.status == 0, "\(check.stdout)")
        }
        // Within quiet_after of the newest ride, only a bike gone quiet warns; a hand-entered ride is a
        // ride too.
        #expect(try Self.warnings(garage, asOf: "2026-05-19").map { $0["kind"] as? String } == ["quiet-bike"])
        try garage.write("rides.yaml", "rides:\n  - {date: 2028-03-01, bike: stumpy, time: 1h}\n")
        let ridden = try Self.warnings(garage, asOf: "2028-03-25")
        #expect(ridden.map { "\($0["kind"] ?? "")/\($0["bike"] ?? "")" } == ["quiet-bike/grail"], "\(ridden)")
        try FileManager.default.removeItem(at: garage.root.appendingPathComponent("rides.yaml"))
        // Bikes bought within quiet_after have not had the time; retired bikes are not asked.
        try garage.write("bikes/grail.yaml", "name: Grail\nstrava: b1\nbought: 2028-03-01\n")
        try garage.write("bikes/stumpy.yaml", "name: Stumpy\nstrava: b2\nbought: 2025-01-01\nretired: 2027-01-01\n")
        let none = try Self.warnings(garage, asOf: "2028-03-25")
        #expect(none.isEmpty, "\(none)")
    }
}
