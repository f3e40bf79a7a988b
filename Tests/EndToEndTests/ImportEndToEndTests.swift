import BikeCheckKit
import Foundation
import TestSupport
import Testing

@Suite struct ImportEndToEndTests {
    static let header = "Activity ID,Activity Date,Activity Name,Activity Type,Activity Description,Elapsed Time,Distance,Max Heart Rate,Relative Effort,Commute,Activity Private Note,Activity Gear,Filename,Athlete Weight,Bike Weight,Elapsed Time,Moving Time,Distance,Max Speed,Average Speed,Elevation Gain"

    static let activities = header + "\n" + [
        #"17000000001,"Mar 3, 2026, 6:12:00 AM","Early, cold",Ride,"Frost on the bars"#
            + "\n" + #"and a flat",3700,30.12,,,false,,Grail,activities/1.fit.gz,,,3700.0,3500.0,30120.5,,,210.0"#,
        #"17000000002,"Mar 31, 2026, 11:30:00 PM",Late one,Gravel Ride,,1800,10.00,,,false,,Grail,,,,1800.0,1800.0,10000.0,,,40.0"#,
        #"17000000003,"Apr 2, 2026, 5:00:00 PM",Run,Run,,2400,8.00,,,false,,,,,,2400.0,2300.0,8000.0,,,12.0"#,
    ].joined(separator: "\n") + "\n"

    @Test func anExportFolderIsImportedIntoMonthFilesAndAgainChangesNothing() throws {
        let garage = try TempGarage([
            "garage.yaml": "name: Import test\n",
            "bikes/grail.yaml": "name: Grail\nstrava: b4242\n",
            "export/activities.csv": Self.activities,
            "export/bikes.csv": "Bike Name,Bike Brand,Bike Model,Bike Default Sport Types\nGrail,Canyon,Grail,Ride\nHack,Steel,,Ride\n",
        ])
        let r = try garage.run(["import", "strava-archive", "export"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("imported 3 activities from the Strava archive (current layout): 3 new, 0 already cached"), "\(r.stdout)")
        #expect(r.stdout.contains("bike 'Hack' from bikes.csv has no bike file"))
        #expect(r.stdout.contains("bikecheck bike add hack --name Hack\n"), "\(r.stdout)")
        #expect(!r.stdout.contains("'Grail' from bikes.csv"), "Grail has a bike file")
        let march = try garage.read("activities/2026-03.json")
        #expect(march.contains("\"distance\":30120.5"))
        #expect(march.contains("\"gear_id\":\"b4242\""), "gear named like the bike file links to its Strava id")
        #expect(march.contains("Frost on the bars") == false, "descriptions are not cached")
        #expect(march.contains("\"sport_type\":\"GravelRide\""))
        #expect(try garage.read("activities/2026-04.json").contains("\"sport_type\":\"Run\""))
        let validate = try garage.run(["validate"])
        #expect(validate.status == 0, "\(validate.stderr)")

        try git(["init", "-q"], in: garage.root)
        try git(["add", "-A"], in: garage.root)
        try git(["commit", "-qm", "import"], in: garage.root)
        let again = try garage.run(["import", "strava-archive", garage.path + "/export"])
        #expect(again.status == 0)
        #expect(again.stdout.contains("0 new, 3 already cached"))
        #expect(try git(["status", "--porcelain"], in: garage.root).isEmpty)
    }

    @Test func aMissingArchiveIsAClearError() throws {
        let garage = try TempGarage(["garage.yaml": "name: x\n"])
        let r = try garage.run(["import", "strava-archive", "nowhere.zip"])
        #expect(r.status == 1)
        #expect(r.stderr == "error: no such file or folder '\(garage.path)/nowhere.zip'\n")
    }
}
