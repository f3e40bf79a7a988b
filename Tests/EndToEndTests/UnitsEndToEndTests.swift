import Foundation
import TestSupport
import Testing

/// `units:` in garage.yaml is what the rider reads: the same garage, imperial and metric, in
/// every text, CSV, Markdown, HTML and calendar output, against figures worked out by hand; JSON
/// is SI for both.
///
/// The garage: one bike bought 2026-01-01 for 1000 EUR, three Strava rides of exactly 100 mi
/// (160934.4 m), 5 h and 1000 ft (304.8 m) of climb on 02-10, 03-10 and 04-10; a chain replaced
/// on 03-01 (40 EUR) and again on 03-20, every `1500 km`; tyres every `900 mi`; a wheelset
/// mounted since the day the bike was bought. As of 2026-04-20.
@Suite struct UnitsEndToEndTests {
    static let asOf = ["--as-of", "2026-04-20"]

    static func garage(_ units: String) throws -> TemporaryFolder {
        var files = [
            "garage.yaml": "units: \(units)\ncurrency: EUR\n",
            "bikes/grail.yaml": """
            name: Grail
            strava: b1
            bought: 2026-01-01
            price: 1000
            intervals:
              chain-replace:
                task: Replace the chain
                every: 1500 km
              tyres:
                task: Replace tyres
                every: 900 mi
            log:
              - date: 2026-03-01
                done: [chain-replace]
                cost: 40
              - date: 2026-03-20
                done: [chain-replace]

            """,
            "parts/wheels.yaml": "name: Wheels\nmounts:\n  - {bike: grail, from: 2026-01-01}\n",
        ]
        for month in ["02", "03", "04"] {
            files["activities/2026-\(month).json"] =
                "[\n{\"distance\":160934.4,\"elapsed_time\":19000,\"gear_id\":\"b1\",\"id\":10\(month),\"moving_time\":18000,\"name\":\"Hundred\",\"sport_type\":\"Ride\",\"start_date\":\"2026-\(month)-10T08:00:00Z\",\"start_date_local\":\"2026-\(month)-10T09:00:00Z\",\"total_elevation_gain\":304.8,\"trainer\":false,\"type\":\"Ride\"}\n]\n"
        }
        return try TemporaryFolder(files)
    }

    /// Standard output of a command that must succeed quietly.
    static func output(_ garage: TemporaryFolder, _ arguments: [String]) throws -> String {
        let r = try garage.run(arguments + asOf)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(arguments): \(r.status) \(r.stderr)")
        return r.stdout
    }

    @Test func statusReadsLimitsInTheRidersUnitsWithTheWrittenOneBeside() throws {
        // Chain: 100 mi since 03-20 of 1500 km = 932.06 mi, 10.73 %: 11 % (half up); tyres: 300 mi of 900 mi.
        let imperial = try Self.output(Self.garage("imperial"), ["status"])
        #expect(imperial.contains("  ok  tyres          33%            300 / 900 mi  Replace tyres  since 2026-01-01"), "\(imperial)")
        #expect(imperial.contains("  ok  chain-replace  11%  100 / 932 mi (1500 km)  Replace the chain  since 2026-03-20"), "\(imperial)")
        // Metric: 160.9 km of 1500 km; 482.8 km of 900 mi = 1448.4 km.
        let metric = try Self.output(Self.garage("metric"), ["status"])
        #expect(metric.contains("  ok  tyres          33%  483 / 1448 km (900 mi)  Replace tyres"), "\(metric)")
        #expect(metric.contains("  ok  chain-replace  11%           161 / 1500 km  Replace the chain"), "\(metric)")
    }

    @Test func usageIsInMilesAndFeetInTextCSVAndMarkdown() throws {
        let garage = try Self.garage("imperial")
        #expect(
            try Self.output(garage, ["usage", "grail"]) == """
                BIKE   MONTH    RIDES  HOURS     MI  CLIMB FT  ODOMETER MI
                grail  2026-02      1    5.0  100.0      1000        100.0
                grail  2026-03      1    5.0  100.0      1000        200.0
                grail  2026-04      1    5.0  100.0      1000        300.0
                grail: 3 rides, 15.0 h, 300.0 mi, odometer 300.0 mi

                """)
        #expect(
            try Self.output(garage, ["usage", "grail", "--format", "csv"])
                == "bike,month,rides,moving_time_h,distance_mi,elevation_ft,odometer_mi\r\ngrail,2026-02,1,5.0,100.0,1000,100.0\r\n"
                + "grail,2026-03,1,5.0,100.0,1000,200.0\r\ngrail,2026-04,1,5.0,100.0,1000,300.0\r\n")
        let markdown = try Self.output(garage, ["usage", "grail", "--format", "markdown"])
        #expect(markdown.hasPrefix("| BIKE | MONTH | RIDES | HOURS | MI | CLIMB FT | ODOMETER MI |\n"), "\(markdown)")
        #expect(markdown.contains("| grail | 2026-04 | 1 | 5.0 | 100.0 | 1000 | 300.0 |\n"), "\(markdown)")
        #expect(markdown.hasSuffix("\ngrail: 3 rides, 15.0 h, 300.0 mi, odometer 300.0 mi\n"), "\(markdown)")
    }

    @Test func costsArePer1000MilesForAnImperialRiderAndPer1000KmForAMetricOne() throws {
        // 1040 EUR over 300 mi: 3466.67 per 1000 mi; over 482.8032 km: 2154.09 per 1000 km.
        let imperial = try Self.garage("imperial")
        #expect(
            try Self.output(imperial, ["costs", "grail"]) == """
                BIKE   CUR  SERVICES  PURCHASES    TOTAL  ENTRIES     MI  HOURS  PER 1000 MI  PER HOUR
                grail  EUR     40.00    1000.00  1040.00        1  300.0   15.0      3466.67     69.33
                total EUR: 1040.00 (services 40.00, purchases 1000.00, 1 entry)

                """)
        #expect(
            try Self.output(imperial, ["costs", "grail", "--format", "csv"]).hasPrefix(
                "bike,currency,services,purchases,total,entries,distance_mi,moving_time_h,per_1000_mi,per_hour\r\ngrail,EUR,40.00,1000.00,1040.00,1,300.0,15.0,3466.67,69.33\r\n"
            ))
        #expect(
            try Self.output(imperial, ["costs", "grail", "--format", "markdown"]).contains(
                "| grail | EUR | 40.00 | 1000.00 | 1040.00 | 1 | 300.0 | 15.0 | 3466.67 | 69.33 |"))
        let metric = try Self.output(Self.garage("metric"), ["costs", "grail", "--format", "csv"])
        #expect(metric.hasSuffix("per_1000_km,per_hour\r\ngrail,EUR,40.00,1000.00,1040.00,1,482.8,15.0,2154.09,69.33\r\n"), "\(metric)")
    }

    @Test func historyAndRidesAreInMiles() throws {
        let garage = try Self.garage("imperial")
        let history = try Self.output(garage, ["history", "grail"])
        #expect(history.contains("2026-03-20  grail  Replace the chain (after 100.0 mi / 5.0 h since 2026-03-01)"), "\(history)")
        let markdown = try Self.output(garage, ["history", "grail", "--format", "markdown"])
        #expect(markdown.contains("| Replace the chain (after 100.0 mi / 5.0 h since 2026-03-01) |"), "\(markdown)")
        #expect(
            try Self.output(garage, ["rides", "grail"]) == """
                BIKE   DATE        SOURCE  ACTIVITY  SPORT  HOURS     MI  COUNTS  NAME
                grail  2026-02-10  strava  1002      Ride     5.0  100.0  yes     Hundred
                grail  2026-03-10  strava  1003      Ride     5.0  100.0  yes     Hundred
                grail  2026-04-10  strava  1004      Ride     5.0  100.0  yes     Hundred
                grail: 3 counted (15.0 h, 300.0 mi), 0 not counted

                """)
        #expect(
            try Self.output(garage, ["rides", "grail", "--format", "csv"]).hasPrefix(
                "bike,date,source,activity,sport,moving_time_h,distance_mi,counts,name\r\ngrail,2026-02-10,strava,1002,Ride,5.0,100.0,yes,Hundred\r\n"))
    }

    @Test func partListAndShowAreInMilesAndTheirJSONSaysItIsSI() throws {
        let garage = try Self.garage("imperial")
        #expect(try Self.output(garage, ["part", "list"]).contains("\n  wheels  on grail  300 mi  15.0 h  3 rides  2026-02-10 – 2026-04-10  Wheels\n"))
        #expect(try Self.output(garage, ["part", "show", "wheels"]).contains("\n    grail  2026-01-01 – now  300 mi  15.0 h  3 rides  "))
        let json = try Self.output(garage, ["part", "list", "--format", "json"])
        #expect(json.contains("\n  \"units\" : \"si\"\n") && json.contains("\n  \"display_units\" : \"imperial\",\n"), "\(json)")
        #expect(json.contains("\"distance\" : 482803.2"), "metres, whatever the rider reads: \(json)")
    }

    @Test func theHTMLReportIsInMilesThroughout() throws {
        let page = try Self.output(Self.garage("imperial"), ["report"])
        for expected in [
            "<th scope=\"col\" class=\"n\">Per 1000 mi</th>", "<td class=\"n\">3466.67</td>", "100 of 932 mi (1500 km)", "300 of 900 mi",
            "Distance (mi)", "Odometer (mi)", "2026-01-01 to now: 300 mi</li>",
        ] {
            #expect(page.contains(expected), "\(expected)")
        }
        // The only kilometres left are the limit as the file writes it.
        #expect(!page.replacingOccurrences(of: "(1500 km)", with: "").contains("km"))
        let metric = try Self.output(Self.garage("metric"), ["report"])
        for expected in ["Per 1000 km</th>", "<td class=\"n\">2154.09</td>", "161 of 1500 km", "483 of 1448 km (900 mi)", "Distance (km)"] {
            #expect(metric.contains(expected), "\(expected)")
        }
    }

    @Test func calendarEventsGiveLimitsInTheRidersUnits() throws {
        let calendar = try Self.output(Self.garage("imperial"), ["calendar"])
        // Folded at 75 octets: join the lines again.
        let unfolded = calendar.replacingOccurrences(of: "\r\n ", with: "")
        #expect(unfolded.contains("as of 2026-04-20: 932 mi (1500 km): 11 %."), "\(unfolded)")
        #expect(unfolded.contains("as of 2026-04-20: 900 mi: 33 %."), "\(unfolded)")
    }

    @Test func templateShowGivesLimitsInTheRidersUnits() throws {
        let garage = try Self.garage("imperial")
        try garage.write("templates/road.yaml", "name: Road\nintervals:\n  chain-replace:\n    task: Replace the chain\n    every: [3000 km, 12 months]\n")
        // 3000 km is 1864.1 mi.
        let r = try garage.run(["template", "show", "road"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(r.stdout.contains("  chain-replace  every 1864 mi (3000 km) or 12 months  Replace the chain\n"), "\(r.stdout)")
    }

    @Test(arguments: [
        ["status"], ["part", "list"], ["part", "show", "wheels"], ["usage"], ["costs"], ["history"], ["rides", "grail"],
    ])
    func jsonIsSIAndHasTheSameNumbersForAMetricAndAnImperialRider(_ command: [String]) throws {
        let imperial = try Self.output(Self.garage("imperial"), command + ["--format", "json"])
        let metric = try Self.output(Self.garage("metric"), command + ["--format", "json"])
        #expect(imperial.contains("\n  \"units\" : \"si\""), "\(imperial)")
        #expect(imperial.contains("\n  \"display_units\" : \"imperial\","), "\(imperial)")
        #expect(imperial.replacingOccurrences(of: "\"display_units\" : \"imperial\"", with: "\"display_units\" : \"metric\"") == metric)
    }
}
