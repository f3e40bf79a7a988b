/// Exports written for the tests in the layouts Strava's real archives use (see the reference
/// notes): the current 103-column English layout with its duplicated column names, a German
/// export of the same layout, and the pre-2019 layout.
enum ArchiveFixtures {
    static let currentHeader =
        "Activity ID,Activity Date,Activity Name,Activity Type,Activity Description,Elapsed Time,Distance,Max Heart Rate,Relative Effort,Commute,Activity Private Note,Activity Gear,Filename,Athlete Weight,Bike Weight,Elapsed Time,Moving Time,Distance,Max Speed,Average Speed,Elevation Gain,Elevation Loss,Elevation Low,Elevation High,Max Grade,Average Grade,Average Positive Grade,Average Negative Grade,Max Cadence,Average Cadence,Max Heart Rate,Average Heart Rate,Max Watts,Average Watts,Calories,Max Temperature,Average Temperature,Relative Effort,Total Work,Number of Runs,Uphill Time,Downhill Time,Other Time,Perceived Exertion,Type,Start Time,Weighted Average Power,Power Count,Prefer Perceived Exertion,Perceived Relative Effort,Commute,Total Weight Lifted,From Upload,Grade Adjusted Distance,Weather Observation Time,Weather Condition,Weather Temperature,Apparent Temperature,Dewpoint,Humidity,Weather Pressure,Wind Speed,Wind Gust,Wind Bearing,Precipitation Intensity,Sunrise Time,Sunset Time,Moon Phase,Bike,Gear,Precipitation Probability,Precipitation Type,Cloud Cover,Weather Visibility,UV Index,Weather Ozone,Jump Count,Total Grit,Average Flow,Flagged,Average Elapsed Speed,Dirt Distance,Newly Explored Distance,Newly Explored Dirt Distance,Activity Count,Total Steps,Carbon Saved,Pool Length,Training Load,Intensity,Average Grade Adjusted Pace,Timer Time,Total Cycles,Recovery,With Pet,Competition,Long Run,For a Cause,With Kid,Downhill Distance,Total Sets,Total Reps,Media"

    /// A row of the current layout: 103 fields, the named ones set.
    static func currentRow(
        id: String, date: String, name: String, type: String, description: String = "",
        elapsed: String, distanceKm: String, commute: String = "false", gear: String = "",
        filename: String = "", elapsed2: String, moving: String, distanceM: String,
        elevation: String = "", bike: String = "", shoe: String = "", commute2: String = "0.0"
    ) -> String {
        var f = [String](repeating: "", count: 103)
        f[0] = id; f[1] = date; f[2] = name; f[3] = type; f[4] = description; f[5] = elapsed; f[6] = distanceKm
        f[9] = commute; f[11] = gear; f[12] = filename; f[15] = elapsed2; f[16] = moving; f[17] = distanceM
        f[20] = elevation; f[50] = commute2; f[68] = bike; f[69] = shoe
        return f.map(quote).joined(separator: ",")
    }

    static func quote(_ s: String) -> String {
        s.contains(",") || s.contains("\"") || s.contains("\n") ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }

    static var current: String {
        [
            currentHeader,
            currentRow(
                id: "18000000001", date: "May 9, 2026, 7:09:27 AM", name: "Long one, with \"friends\" 😁", type: "Ride",
                description: "Training load 525\n-- from the head unit", elapsed: "17944", distanceKm: "104.13",
                gear: "Standert Triebwerk", filename: "activities/19000000001.fit.gz", elapsed2: "17944.0",
                moving: "13905.0", distanceM: "104132.0", elevation: "329.0", bike: "16540971.0"),
            currentRow(
                id: "18000000002", date: "May 12, 2026, 3:38:01 PM", name: "Zwift - Tempus Fugit", type: "Virtual Ride",
                description: "🗺️ Watopia", elapsed: "2731", distanceKm: "24.02", filename: "activities/19000000002.fit.gz",
                elapsed2: "2731.0", moving: "2731.0", distanceM: "24022.1", elevation: "38.0"),
            currentRow(
                id: "18000000003", date: "Jun 1, 2026, 6:00:00 PM", name: "Commute home", type: "E-Bike Ride",
                elapsed: "1800", distanceKm: "9.50", commute: "true", gear: "Standert Triebwerk",
                elapsed2: "1800.0", moving: "1700.0", distanceM: "9500.4", commute2: "1.0"),
            currentRow(
                id: "18000000004", date: "Jun 2, 2026, 7:00:00 AM", name: "Trail run", type: "Run",
                elapsed: "3600", distanceKm: "10.00", elapsed2: "3600.0", moving: "3500.0", distanceM: "10000.0"),
        ].joined(separator: "\n") + "\n"
    }

    static let german = """
        Aktivitäts-ID,Aktivitätsdatum,Name der Aktivität,Aktivitätsart,Beschreibung der Aktivität,Verstrichene Zeit,Distanz,Maximale Herzfrequenz,Relative Leistung,Pendeln,Private Notiz zur Aktivität,Ausrüstung für Aktivität,Dateiname,Sportlergewicht,Fahrradgewicht,Verstrichene Zeit,Bewegungszeit,Distanz,Maximale Geschwindigkeit,Durchschnittsgeschwindigkeit,Höhenmeter bergauf
        8200000001,"09.12.2022, 15:24:49",2022-12-09 16:24,Radfahrt,,3000,"9,44",,,false,,Rennrad,activities/1.fit.gz,,,3000.0,2900.0,"9440,5",,,"120,0"

        """

    static let legacy = """
        id,date,name,type,description,elapsed_time,distance,commute,gear,filename
        193569569,2014-09-12 16:54:28,Evening Ride,Ride,,9462,43057.4,false,,activities/193569569.gpx
        1355454211,2018-01-13 17:58:15,Evening Ride,Ride,"",5446,27295.3,false,Zatona,activities/1355454211.gpx
        1505583398,2018-04-13 07:59:44,"Morning Ride, windy",Ride,"",3386,16447.6,false,Bar2o2a,

        """

    static let legacyBikes = "name,brand,model\nZatona,Peugeot,Urban Sport II\nBar2o2a,B-TWIN,TRIBAN-540\n"
    static let currentBikes = "Bike Name,Bike Brand,Bike Model,Bike Default Sport Types\nStandert Triebwerk,Standert,Triebwerk,Ride\nCommuter,Gazelle,,\n"
}
