import BikeCheckKit
import Foundation
@testable import StravaKit
import Testing

/// How an import matches the archive's bikes to bike files, and what a re-import corrects.
@Suite struct ArchiveImportTests {
    func tempDirectory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.path
    }

    func archive(_ files: [String: String]) throws -> String {
        let dir = try tempDirectory()
        for (name, text) in files { try Data(text.utf8).write(to: URL(fileURLWithPath: dir + "/" + name)) }
        return dir
    }

    typealias Bike = ArchiveImport.GarageBike

    /// A pre-2019 export: gear by name only, no ids.
    static let legacyGrail = """
        id,date,name,type,description,elapsed_time,distance,commute,gear,filename
        501,2018-01-13 17:58:15,Evening Ride,Ride,,5446,27295.3,false,Grail,
        502,2018-04-13 07:59:44,Morning Ride,Ride,,3386,16447.6,false,Grail,activities/502.gpx

        """

    /// The current layout, both rows linking the gear name "Grail" to Strava bike 4242.
    static func currentGrail(shoe: String = "") -> String {
        [
            ArchiveFixtures.currentHeader,
            ArchiveFixtures.currentRow(
                id: "601", date: "May 9, 2026, 7:09:27 AM", name: "Gravel", type: "Gravel Ride", elapsed: "3600",
                distanceKm: "30.00", gear: "Grail", filename: "activities/1.fit.gz", elapsed2: "3600.0",
                moving: "3500.0", distanceM: "30000.0", bike: "4242.0"),
            ArchiveFixtures.currentRow(
                id: "602", date: "May 10, 2026, 7:09:27 AM", name: "Run", type: "Run", elapsed: "1800",
                distanceKm: "5.00", gear: "Pegasus", elapsed2: "1800.0", moving: "1800.0", distanceM: "5000.0",
                shoe: shoe),
        ].joined(separator: "\n") + "\n"
    }

    @Test func aBikeFileWhoseIdIsTheArchivesNameIsThatBikeNotANewOne() throws {
        // The case: 'Grail' from the archive, bikes/grail.yaml named otherwise.
        let path = try archive(["activities.csv": Self.legacyGrail, "bikes.csv": "name,brand,model\nGrail,Canyon,Grail CF\n"])
        let s = try ArchiveImport.run(
            path: path, garageRoot: try tempDirectory(),
            bikes: [Bike(id: "grail", name: "Canyon Grail CF SL", strava: "b4242")])
        #expect(s.unclaimedBikes.isEmpty, "no 'bike add grail-2' for the bike bikes/grail.yaml already is")
        #expect(s.bikes.map(\.outcome) == [.matched(file: "grail")])
        #expect(s.archive.activities.map(\.gearID) == ["b4242", "b4242"])
    }

    @Test func aBikeFileThatCouldNotBeLoadedIsKnownByItsIdAndNeverProposedAgain() throws {
        let path = try archive(["activities.csv": Self.legacyGrail])
        let s = try ArchiveImport.run(
            path: path, garageRoot: try tempDirectory(),
            bikes: [Bike(id: "grail", name: "", strava: nil, readable: false)])
        #expect(s.bikes.map(\.outcome) == [.unreadable(file: "grail")])
    }

    @Test func aBikeFileWithTheNameButNoStravaIdIsToldTheIdTheArchiveKnows() throws {
        let path = try archive(["activities.csv": Self.currentGrail(), "bikes.csv": "Bike Name,Bike Brand,Bike Model\nGrail,Canyon,Grail\n"])
        let s = try ArchiveImport.run(path: path, garageRoot: try tempDirectory(), bikes: [Bike(id: "gravel", name: "grail", strava: nil)])
        #expect(s.bikes.count == 1, "the run's shoes are not in bikes.csv: no bike")
        #expect(s.bikes.first?.outcome == .needsStrava(file: "gravel"))
        #expect(s.bikes.first?.gearID == "b4242")
        #expect(s.bikes.first?.rides == 1)
        #expect(s.unclaimedBikes.isEmpty)
    }

    @Test func aBikeFileNamedLikeTheArchiveBikeButWithOtherGearIsAConflictNotANewBike() throws {
        let path = try archive(["activities.csv": Self.currentGrail()])
        let s = try ArchiveImport.run(path: path, garageRoot: try tempDirectory(), bikes: [Bike(id: "grail", name: "Grail", strava: "b1")])
        // Without bikes.csv, and with no shoe id on the run, its gear name may be a bike.
        #expect(s.bikes.map(\.outcome) == [.conflict(file: "grail", fileGear: "b1"), .unclaimed(command: "bikecheck bike add pegasus --name Pegasus")])
        #expect(s.archive.activities.first?.gearID == "b4242", "the archive's own id is kept")
    }

    @Test func shoesAreNoBikes() throws {
        let path = try archive(["activities.csv": Self.currentGrail(shoe: "12345.0")])
        let s = try ArchiveImport.run(path: path, garageRoot: try tempDirectory(), bikes: [])
        #expect(s.bikes.map(\.name) == ["Grail"])
        #expect(s.archive.unlinkedGear.isEmpty)
        #expect(s.unclaimedBikes.first?.outcome == .unclaimed(command: "bikecheck bike add grail --name Grail --strava b4242"))
    }

    @Test func gearASyncLookedUpLinksANameByNameOrByBrandAndModel() throws {
        let garage = try tempDirectory()
        try SyncState(gear: ["b55": StravaGear(id: "b55", name: "Old name", brandName: "Canyon", modelName: "Grail CF")]).save(garage: garage)
        // A household rider's sync keeps its own state: its gear is known too.
        try SyncState(gear: ["b66": StravaGear(id: "b66", name: "Hack", nickname: "Zatona")]).save(garage: garage, rider: "sam")
        let legacy = """
            id,date,name,type,description,elapsed_time,distance,commute,gear,filename
            701,2018-01-13 17:58:15,One,Ride,,5446,27295.3,false,Renamed,
            702,2018-01-14 17:58:15,Two,Ride,,5446,27295.3,false,Zatona,

            """
        let path = try archive(["activities.csv": legacy, "bikes.csv": "name,brand,model\nRenamed,canyon,grail cf\nZatona,Peugeot,\n"])
        let s = try ArchiveImport.run(
            path: path, garageRoot: garage,
            bikes: [
                Bike(id: "allroad", name: "Allroad", strava: "b55"), Bike(id: "town", name: "Town", strava: "b66"),
            ])
        #expect(s.bikes.map(\.outcome) == [.matched(file: "allroad"), .matched(file: "town")])
        #expect(s.archive.activities.map(\.gearID) == ["b55", "b66"])
    }

    @Test func aReImportAfterTheRiderFixesTheNameGivesTheRidesTheirGear() throws {
        let garage = try tempDirectory()
        let path = try archive(["activities.csv": Self.legacyGrail])
        let first = try ArchiveImport.run(path: path, garageRoot: garage, bikes: [Bike(id: "allroad", name: "Canyon", strava: "b4242")])
        #expect(first.new == 2)
        #expect(first.unclaimedBikes.map(\.outcome) == [.unclaimed(command: "bikecheck bike add grail --name Grail")])
        #expect(ActivityCacheLoader.load(root: garage).activities.map(\.gearID) == [nil, nil])

        // The rider gives bikes/allroad.yaml the archive's name.
        let again = try ArchiveImport.run(path: path, garageRoot: garage, bikes: [Bike(id: "allroad", name: "Grail", strava: "b4242")])
        #expect(again.new == 0 && again.corrected == 2 && again.alreadyCached == 0)
        #expect(again.bikes.map(\.outcome) == [.matched(file: "allroad")])
        #expect(ActivityCacheLoader.load(root: garage).activities.map(\.gearID) == ["b4242", "b4242"])

        let third = try ArchiveImport.run(path: path, garageRoot: garage, bikes: [Bike(id: "allroad", name: "Grail", strava: "b4242")])
        #expect(third.corrected == 0 && third.alreadyCached == 2)
    }

    @Test func aReImportCorrectsWhatAnImportWroteAndLeavesWhatASyncWrote() throws {
        let garage = try tempDirectory()
        // 501 as the old import wrote it: no gear, marked manual. 502 as a sync wrote it.
        let imported = Activity(
            id: 501, name: "Evening Ride", sportType: "Ride", startDate: "2018-01-13T17:58:15Z",
            movingTime: 5446, elapsedTime: 5446, distance: 27295.3, manual: true)
        let synced = Activity(
            id: 502, name: "Morning Ride", sportType: "Ride", type: "Ride", startDate: "2018-04-13T07:59:44Z",
            startDateLocal: "2018-04-13T09:59:44Z", timezone: "(GMT+01:00) Europe/Paris", movingTime: 3000,
            elapsedTime: 3386, distance: 16447.6, gearID: nil, manual: true)
        #expect(ArchiveImport.cameFromArchive(imported) && !ArchiveImport.cameFromArchive(synced))
        try FileManager.default.createDirectory(atPath: garage + "/activities", withIntermediateDirectories: true)
        try Data(ActivityCacheFormat.encode([imported])).write(to: URL(fileURLWithPath: garage + "/activities/2018-01.json"))
        try Data(ActivityCacheFormat.encode([synced])).write(to: URL(fileURLWithPath: garage + "/activities/2018-04.json"))

        let s = try ArchiveImport.run(
            path: try archive(["activities.csv": Self.legacyGrail]), garageRoot: garage,
            bikes: [Bike(id: "grail", name: "Grail", strava: "b4242")])
        #expect(s.corrected == 1 && s.alreadyCached == 1 && s.new == 0)
        let byID = Dictionary(uniqueKeysWithValues: ActivityCacheLoader.load(root: garage).activities.map { ($0.id, $0) })
        #expect(byID[501]?.gearID == "b4242")
        #expect(byID[501]?.manual == false, "the export does not say an activity was entered by hand")
        #expect(byID[502] == synced, "what a sync wrote is left as it is")
    }

    @Test func aReImportKeepsAGearTheArchiveCannotNameNow() throws {
        let garage = try tempDirectory()
        let path = try archive(["activities.csv": Self.legacyGrail])
        _ = try ArchiveImport.run(path: path, garageRoot: garage, bikes: [Bike(id: "grail", name: "Grail", strava: "b4242")])
        let again = try ArchiveImport.run(path: path, garageRoot: garage, bikes: [Bike(id: "road", name: "Road", strava: "b4242")])
        #expect(again.corrected == 0)
        #expect(ActivityCacheLoader.load(root: garage).activities.map(\.gearID) == ["b4242", "b4242"])
    }
}

/// Strava's API and the bulk export are read with the cache's own limits: what either accepts
/// the cache can hold, and what the cache would refuse neither lets through.
@Suite struct SourcesHoldToTheCacheLimitsTests {
    static let cases: [(ActivityLimits.Field, Double)] = [
        (.distance, 0), (.distance, 100_000_000), (.distance, 100_000_001), (.distance, 200_000_000_000), (.distance, -1),
        (.movingTime, 2_592_000), (.movingTime, 2_592_001), (.elapsedTime, 2_592_000), (.elapsedTime, 2_592_001),
        (.totalElevationGain, -100_000_000), (.totalElevationGain, 100_000_001),
    ]

    @Test(arguments: cases)
    func theAPIDecoderAcceptsExactlyWhatTheCacheAccepts(field: ActivityLimits.Field, value: Double) throws {
        var fields: [String: String] = [
            "id": "7", "start_date": "\"2026-05-09T07:09:27Z\"", "sport_type": "\"Ride\"",
            "moving_time": "3600", "elapsed_time": "3700", "distance": "30000", "total_elevation_gain": "10",
        ]
        fields[field.rawValue] = String(value)
        let json = "[{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}]"
        let item = try #require(try JSONDecoder().decode([PageItem].self, from: Data(json.utf8)).first)
        #expect((item.activity != nil) == ActivityLimits.allows(value, field), "\(json)")
        if let a = item.activity { #expect(ActivityLimits.check(a) == nil) }
    }

    @Test(arguments: cases)
    func theArchiveReaderSkipsWithItsLineExactlyWhatTheCacheRefuses(field: ActivityLimits.Field, value: Double) throws {
        // Metres in the second Distance column, seconds in the second Elapsed Time column.
        var elapsed = "3700.0", moving = "3600.0", metres = "30000.0", elevation = "10.0"
        switch field {
        case .distance: metres = String(value)
        case .movingTime: moving = String(value)
        case .elapsedTime: elapsed = String(value)
        case .totalElevationGain: elevation = String(value)
        default: break
        }
        let csv =
            [
                ArchiveFixtures.currentHeader,
                ArchiveFixtures.currentRow(
                    id: "9", date: "May 9, 2026, 7:09:27 AM", name: "x", type: "Ride", elapsed: "3700",
                    distanceKm: "30.00", elapsed2: elapsed, moving: moving, distanceM: metres, elevation: elevation),
            ].joined(separator: "\n") + "\n"
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("limits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data(csv.utf8).write(to: dir.appendingPathComponent("activities.csv"))
        let archive = try StravaArchive.read(path: dir.path)
        let allowed = ActivityLimits.allows(value, field)
        #expect(archive.activities.count == (allowed ? 1 : 0))
        #expect(archive.skipped.map(\.line) == (allowed ? [] : [2]))
        if !allowed {
            #expect(archive.skipped.first?.reason == "activity 9: \(ActivityLimits.Violation(field: field, number: value))")
        }
    }
}
