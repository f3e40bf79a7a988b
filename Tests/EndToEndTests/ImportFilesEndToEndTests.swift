import BikeCheckKit
import Foundation
import StravaStandIn
import TestSupport
import Testing

/// `bikecheck import files` with the real binary: FIT files fit-tool wrote, GPX, a broken file, a
/// ride Strava already has, and a full sync against the stand-in afterwards.
@Suite struct ImportFilesEndToEndTests {
    /// Writes a ride file with the tool script (fit-tool for FIT).
    static func make(_ arguments: [String], in folder: TemporaryFolder) throws { try rideFilesTool(arguments, in: folder.url) }

    static let grail = "name: Grail   # a comment\ndevices: [3980001234]\nbought: 2026-01-01\nintervals:\n  chain:\n    every: 10 h\n"

    /// Every month file of the cache, name → bytes.
    static func cache(_ garage: TemporaryFolder) throws -> [String: Data] {
        let folder = garage.root.appendingPathComponent("activities")
        var out: [String: Data] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasSuffix(".json") {
            out[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return out
    }

    static func activities(_ garage: TemporaryFolder) throws -> [[String: Any]] {
        try cache(garage).keys.sorted().flatMap { name in
            (try JSONSerialization.jsonObject(with: cache(garage)[name]!) as? [[String: Any]]) ?? []
        }
    }

    @Test func aFolderOfRidesGoesOnTheirDevicesBikeAndASecondImportChangesNothing() throws {
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/grail.yaml": Self.grail])
        try Self.make(["fit", "rides/a.fit", "--serial", "3980001234", "--stop-from", "1200"], in: garage)
        try Self.make(["fit", "rides/b.fit", "--serial", "3980001234", "--start", "2026-05-03T06:30:00Z", "--sub-sport", "6"], in: garage)
        try Self.make(["gpx", "rides/c.gpx", "--start", "2026-05-05T17:00:00Z"], in: garage)
        let a = try Data(contentsOf: garage.root.appendingPathComponent("rides/a.fit"))
        try garage.writeBytes("rides/broken.fit", Array(a.prefix(300)))

        let first = try garage.run(["import", "files", "rides"])
        #expect(first.status == 1, "a file could not be read: \(first.stdout)\(first.stderr)")
        #expect(first.stderr.contains("rides/broken.fit: byte "), "\(first.stderr)")
        #expect(first.stdout.contains("3 new"), "\(first.stdout)")
        #expect(first.stderr.contains("rides/c.gpx"), "the GPX names no device, so it needs a bike: \(first.stderr)")
        let rides = try Self.activities(garage)
        #expect(rides.count == 3)
        #expect(rides.allSatisfy { ($0["id"] as? Int64 ?? 0) >= 1 << 62 })
        #expect(rides.filter { $0["gear_id"] as? String == "bike:grail" }.count == 2)
        #expect(rides.first { $0["source"] as? String == "fit" && $0["trainer"] as? Bool == true } != nil, "indoor cycling is a trainer ride")
        #expect(rides.first { $0["source"] as? String == "gpx" }?["gear_id"] is NSNull)

        let before = try Self.cache(garage)
        let again = try garage.run(["import", "files", "rides"])
        #expect(again.stdout.contains("0 new, 0 changed, 3 already imported"), "\(again.stdout)")
        #expect(try Self.cache(garage) == before, "a second import changes no byte")

        // The GPX onto the bike by hand: its gear changes, nothing else.
        let onto = try garage.run(["import", "files", "rides/c.gpx", "--bike", "grail"])
        #expect(onto.status == 0 && onto.stdout.contains("1 changed"), "\(onto.stdout)\(onto.stderr)")
        #expect(try Self.activities(garage).filter { $0["gear_id"] as? String == "bike:grail" }.count == 3)

        // Status counts the two outdoor rides (the trainer ride does not wear the chain).
        let status = try garage.run(["status", "--as-of", "2026-05-10", "--format", "json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        let chain = try #require(((json["bikes"] as? [[String: Any]])?.first?["intervals"] as? [[String: Any]])?.first)
        let usage = try #require(chain["usage"] as? [String: Any])
        let outdoor = rides.filter { $0["trainer"] as? Bool != true }.reduce(0.0) { $0 + ($1["moving_time"] as? Double ?? 0) }
        #expect(usage["rides"] as? Int == 2, "\(usage)")
        #expect(usage["moving_time"] as? Double == outdoor, "\(usage)")
        let listed = try garage.run(["rides", "grail", "--as-of", "2026-05-10"])
        #expect(listed.stdout.contains(" file "), "rides says where a ride came from: \(listed.stdout)")
    }

    @Test func aBinaryWithoutTheXMLLibraryBesideItSaysWhereItMustBeAndStillImportsFIT() throws {
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/grail.yaml": Self.grail])
        try Self.make(["fit", "rides/a.fit", "--serial", "3980001234"], in: garage)
        try Self.make(["gpx", "rides/c.gpx", "--start", "2026-05-05T17:00:00Z"], in: garage)
        let alone = garage.root.appendingPathComponent("alone/bikecheck")
        try FileManager.default.createDirectory(at: alone.deletingLastPathComponent(), withIntermediateDirectories: true)
        try copyExecutable(bikecheckBinary, to: alone)
        let folder = try #require(
            realpath(alone.deletingLastPathComponent().path, nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            })
        let r = try runProcess(
            alone, ["import", "files", "rides", "--bike", "grail"], in: garage.root, environment: ["NO_COLOR": "1", "BIKECHECK_GARAGE": ""])
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("1 new"), "the FIT file needs no library: \(r.stdout)")
        #expect(
            r.stderr.contains("rides/c.gpx: TCX and GPX files are read by \(folder)/libBikeCheckRideXML.so, and it is missing"), "\(r.stderr)")
    }

    @Test func aTCXLapTimeOutOfRangeIsABadFileNamedAtItsLineAndTheOthersImport() throws {
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/grail.yaml": Self.grail])
        try Self.make(["gpx", "rides/c.gpx", "--start", "2026-05-05T17:00:00Z"], in: garage)
        for (name, value) in [("rides/huge.tcx", "1e19"), ("rides/negative.tcx", "-1e19")] {
            try garage.write(
                name,
                """
                <?xml version="1.0"?>
                <TrainingCenterDatabase><Activities><Activity Sport="Biking"><Id>2026-05-01T08:00:00Z</Id>
                <Lap StartTime="2026-05-01T08:00:00Z">
                <TotalTimeSeconds>\(value)</TotalTimeSeconds><DistanceMeters>25000</DistanceMeters></Lap></Activity></Activities></TrainingCenterDatabase>

                """)
        }
        let run = try garage.run(["import", "files", "rides"])
        #expect(run.status == 1, "two bad files: \(run.status) \(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("rides/huge.tcx: line 4: <TotalTimeSeconds> 1e+19 is out of range"), "\(run.stderr)")
        #expect(run.stderr.contains("rides/negative.tcx: line 4"), "\(run.stderr)")
        #expect(run.stdout.contains("1 new"), "the good file is imported: \(run.stdout)")
        #expect(try Self.activities(garage).count == 1)
    }

    @Test func aRideStravaAlreadyHasCountsOnce() throws {
        // Strava's copy starts a minute later and is 2 % longer: the same ride.
        let strava =
            #"{"distance":25600,"gear_id":"b1001","id":9000000001,"moving_time":3500,"sport_type":"Ride","start_date":"2026-05-01T06:31:00Z","trainer":false}"#
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n", "bikes/grail.yaml": Self.grail + "strava: b1001\n",
            "activities/2026-05.json": "[\n\(strava)\n]\n",
        ])
        try Self.make(["fit", "rides/a.fit", "--serial", "3980001234"], in: garage)
        let r = try garage.run(["import", "files", "rides/a.fit"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("0 new") && r.stdout.contains("activity 9000000001"), "\(r.stdout)")
        #expect(try Self.activities(garage).count == 1)
    }

    @Test func aRideStravaHasWithoutGearTakesTheBikeOfTheFilesDevice() throws {
        let strava =
            #"{"distance":25600,"id":9000000001,"moving_time":3500,"sport_type":"Ride","start_date":"2026-05-01T06:31:00Z","trainer":false}"#
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n", "bikes/grail.yaml": Self.grail, "activities/2026-05.json": "[\n\(strava)\n]\n",
        ])
        try Self.make(["fit", "rides/a.fit", "--serial", "3980001234"], in: garage)
        let r = try garage.run(["import", "files", "rides/a.fit"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("activity 9000000001, which now has this ride's bike"), "\(r.stdout)")
        let rides = try Self.activities(garage)
        #expect(rides.count == 1)
        #expect(rides.first?["id"] as? Int64 == 9_000_000_001 && rides.first?["gear_id"] as? String == "bike:grail", "\(rides)")
        #expect(rides.first?["device"] as? Int == 3_980_001_234)
    }

    /// A wheelset with a power meter moves from the Grail to the Tarmac on 1 May.
    static let wheels = """
        name: Power wheels
        devices: [3980005678]
        mounts:
          - {bike: grail, from: 2026-04-01, to: 2026-04-30}
          - {bike: tarmac, from: 2026-05-01}
        """ + "\n"

    @Test func aPartsDevicePutsItsRideOnTheBikeThePartWasMountedOnThatDay() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n", "bikes/grail.yaml": Self.grail, "bikes/tarmac.yaml": "name: Tarmac\n", "parts/wheels.yaml": Self.wheels,
        ])
        try Self.make(["fit", "rides/april.fit", "--serial", "3980005678", "--start", "2026-04-20T06:30:00Z"], in: garage)
        try Self.make(["fit", "rides/may.fit", "--serial", "3980005678", "--start", "2026-05-03T06:30:00Z"], in: garage)
        try Self.make(["fit", "rides/march.fit", "--serial", "3980005678", "--start", "2026-03-10T06:30:00Z"], in: garage)
        let v = try garage.run(["validate"])
        #expect(v.status == 0, "a part may list a device: \(v.stdout)\(v.stderr)")
        let r = try garage.run(["import", "files", "rides"])
        #expect(r.status == 0 && r.stdout.contains("3 new"), "\(r.stdout)\(r.stderr)")
        #expect(
            r.stderr.contains("1 ride recorded by device 3980005678 (rides/march.fit), which part 'wheels' lists"),
            "the wheels were on no bike in March: \(r.stderr)")
        #expect(!r.stderr.contains("april.fit") && !r.stderr.contains("may.fit"), "\(r.stderr)")
        let gear = Dictionary(try Self.activities(garage).map { (($0["name"] as? String) ?? "", $0["gear_id"] as? String) }) { a, _ in a }
        #expect(gear == ["april": "bike:grail", "may": "bike:tarmac", "march": nil], "\(gear)")
    }

    @Test func aDeviceABikeAndAPartBothClaimIsAnError() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n", "bikes/grail.yaml": Self.grail, "bikes/tarmac.yaml": "name: Tarmac\n",
            "parts/wheels.yaml": Self.wheels.replacingOccurrences(of: "3980005678", with: "3980001234"),
        ])
        let v = try garage.run(["validate"])
        #expect(v.status == 1, "\(v.stdout)\(v.stderr)")
        #expect(
            (v.stdout + v.stderr).contains("bike 'grail' and part 'wheels' both claim device 3980001234 [duplicate-device]"), "\(v.stdout)\(v.stderr)")
    }

    @Test func aDeviceTwoBikesClaimIsAnErrorAndAnUnknownBikeAUsageError() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n", "bikes/grail.yaml": Self.grail, "bikes/tarmac.yaml": "name: Tarmac\ndevices: 3980001234\n",
        ])
        let v = try garage.run(["validate"])
        #expect(v.status == 1 && (v.stdout + v.stderr).contains("[duplicate-device]"), "\(v.stdout)\(v.stderr)")
        let r = try garage.run(["import", "files", "nothing.fit", "--bike", "grial"])
        #expect(r.status == 2 && r.stderr.contains("did you mean 'grail'"), "\(r.stderr)")
    }

    @Test func aFullSyncNeverDeletesImportedRides() async throws {
        let world = try await StravaWorld(garageFiles: ["bikes/grail.yaml": StravaEndToEndTests.grailFile + "devices: [3980001234]\n"])
        defer { Task { await world.stop() } }
        await world.server.setActivities(StandInActivity.generate(count: 30))
        await world.server.setBikes(athlete: StravaEndToEndTests.bikes, all: StravaEndToEndTests.bikes)
        try await world.login()
        try Self.make(["fit", "a.fit", "--serial", "3980001234", "--start", "2025-11-01T06:30:00Z"], in: world.garage)
        let imported = try await world.run(["import", "files", "a.fit"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let full = try await world.run(["sync", "--full"])
        #expect(full.status == 0, "\(full.stderr)")
        let rides = try Self.activities(world.garage)
        #expect(rides.contains { $0["source"] as? String == "fit" }, "the imported ride is still cached")
        #expect(rides.count == 31 - 0, "30 from Strava and the imported one: \(rides.count)")
    }

    @Test func aRideImportedBeforeStravaHasItCountsOnceAsStravasCopyAndKeepsItsBike() async throws {
        // The Grail has a Strava gear id, but Strava's copy of this ride names no bike.
        let world = try await StravaWorld(garageFiles: ["bikes/grail.yaml": StravaEndToEndTests.grailFile + "devices: [3980001234]\n"])
        defer { Task { await world.stop() } }
        try Self.make(["fit", "a.fit", "--serial", "3980001234", "--start", "2025-11-01T06:30:00Z"], in: world.garage)
        let imported = try await world.run(["import", "files", "a.fit"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let file = try #require(try Self.activities(world.garage).first)
        let distance = try #require(file["distance"] as? Double)
        #expect(file["gear_id"] as? String == "bike:grail")

        // Strava's copy: 70 s later, 3 % longer, no gear; and one other ride of the same morning.
        let start = try #require(Timestamps.epoch("2025-11-01T06:31:10Z"))
        var copy = StandInActivity(
            id: 9_100_000_001, name: "Morning Ride", sportType: "Ride", start: start, movingTime: 3500, elapsedTime: 3600, distance: distance * 1.03)
        copy.gearID = nil
        let other = StandInActivity(
            id: 9_100_000_002, name: "Later", sportType: "Ride", start: start + 3 * 3600, movingTime: 3500, elapsedTime: 3600, distance: distance,
            gearID: "b1001")
        await world.server.setActivities([copy, other])
        await world.server.setBikes(athlete: StravaEndToEndTests.bikes, all: StravaEndToEndTests.bikes)
        try await world.login()
        let sync = try await world.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("1 ride imported from files also came from Strava"), "\(sync.stdout)")

        for run in ["after the sync", "after a full sync"] {
            let rides = try Self.activities(world.garage)
            #expect(rides.map { $0["id"] as? Int64 } == [9_100_000_001, 9_100_000_002], "\(run): one copy of the ride, Strava's: \(rides)")
            #expect(rides.first?["gear_id"] as? String == "bike:grail", "\(run): it keeps the bike its device gave it: \(rides)")
            #expect(rides.first?["device"] as? Int == 3_980_001_234, "\(run)")
            if run == "after the sync" {
                let full = try await world.run(["sync", "--full"])
                #expect(full.status == 0 && full.stdout.contains("0 deleted"), "\(full.stdout)\(full.stderr)")
            }
        }
        let again = try await world.run(["import", "files", "a.fit"])
        #expect(again.stdout.contains("0 new") && again.stdout.contains("activity 9100000001"), "importing it again adds nothing: \(again.stdout)")
        #expect(try Self.activities(world.garage).count == 2)
    }

    @Test func anArchivesRideWithoutGearGoesOnTheBikeOfTheDeviceInItsOriginalFile() throws {
        // The export's ride has no gear; its original FIT names the Edge the Grail lists.
        let csv =
            ImportEndToEndTests.header + "\n"
            + #"17000000009,"May 1, 2026, 6:30:00 AM",Dawn,Ride,,3600,25.18,,,false,,,activities/17000000009.fit.gz,,,3600.0,3600.0,25180.0,,,123.0"#
            + "\n"
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/grail.yaml": Self.grail, "export/activities.csv": csv])
        try Self.make(["fit", "export/activities/17000000009.fit", "--serial", "3980001234"], in: garage)
        let gz = try runProcess(URL(fileURLWithPath: "/bin/gzip"), ["export/activities/17000000009.fit"], in: garage.url)
        #expect(gz.status == 0, "\(gz.stderr)")
        let r = try garage.run(["import", "strava-archive", "export"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("put 1 ride without gear on bikes by the device in their original file"), "\(r.stdout)")
        let ride = try #require(try Self.activities(garage).first)
        #expect(ride["gear_id"] as? String == "bike:grail")
        #expect(ride["device"] as? Int == 3_980_001_234)
    }
}
