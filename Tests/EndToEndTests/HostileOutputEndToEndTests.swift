import Foundation
import StravaStandIn
import TestSupport
import Testing

/// Names, tasks, Strava's answers and archive fields that try to drive the terminal: an OSC that
/// sets the window title, a screen clear, a bell, a C1 CSI and a right-to-left override. None of
/// it may reach standard output or standard error as it is.
@Suite struct HostileOutputEndToEndTests {
    /// As a YAML double-quoted string (the escapes YAML itself decodes).
    static let yamlHostile = #""\e]0;pwned\a\e[2J\u009B31m\u202Egnp.exe""#
    /// The decoded text, for the stand-in and CSV files.
    static let hostile = "\u{1B}]0;pwned\u{7}\u{1B}[2J\u{9B}31m\u{202E}gnp.exe"

    static func expectNothingRaw(_ r: CommandResult, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for (stream, text) in [("stdout", r.stdout), ("stderr", r.stderr)] {
            for bad: Unicode.Scalar in ["\u{1B}", "\u{7}", "\u{9B}", "\u{202E}", "\u{2066}", "\u{200F}"] {
                #expect(
                    !text.unicodeScalars.contains(bad), "\(what): U+\(String(bad.value, radix: 16, uppercase: true)) reached \(stream)",
                    sourceLocation: sourceLocation)
            }
        }
    }

    @Test func garageNamesTasksAndRidesNeverReachTheTerminalRaw() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "name: \(Self.yamlHostile)\n",
            "bikes/grail.yaml": """
            name: \(Self.yamlHostile)
            bought: 2025-01-01
            templates: [evil]
            components:
              chain:
                installed: 2025-01-01
            intervals:
              lube:
                task: \(Self.yamlHostile)
                every: 300 km
            log:
              - date: 2025-02-01
                done: [lube]
                note: \(Self.yamlHostile)

            """,
            // Raw U+202E and U+2066 are printable in YAML: no escape needed to put them in a file.
            "bikes/stumpy.yaml": "name: raw \u{202E}right-to-left\u{2066} name\nbought: 2025-01-01\n",
            "templates/evil.yaml": """
            name: \(Self.yamlHostile)
            description: \(Self.yamlHostile)
            source: \(Self.yamlHostile)
            intervals:
              chain-check:
                task: \(Self.yamlHostile)
                every: 500 km
                replaces: chain

            """,
            "rides.yaml": "rides:\n  - {date: 2025-03-01, bike: grail, time: 1 h, distance: 20 km, name: \(Self.yamlHostile)}\n",
        ])
        for arguments in [
            ["bike", "list"], ["template", "list"], ["template", "show", "evil"], ["status", "--as-of", "2026-01-01"],
            ["validate"], ["bike", "list", "--format", "json"], ["template", "list", "--format", "json"],
            ["status", "--format", "json", "--as-of", "2026-01-01"],
            ["done", "stumpy", "nothing", "--dry-run"], ["template", "apply", "evil", "stumpy", "--dry-run"],
        ] {
            let r = try garage.run(arguments)
            Self.expectNothingRaw(r, arguments.joined(separator: " "))
        }
        let list = try garage.run(["bike", "list"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains(#"\u{1B}]0;pwned\u{7}\u{1B}[2J\u{9B}31m\u{202E}gnp.exe"#), "shown visibly: \(list.stdout)")
        let diff = try garage.run(["template", "apply", "evil", "stumpy", "--dry-run"])
        #expect(diff.stdout.contains(#"name: raw \u{202E}right-to-left\u{2066} name"#), "the diff's lines are escaped: \(diff.stdout)")
        // JSON keeps the value, escaped the JSON way.
        let json = try garage.run(["bike", "list", "--format", "json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(rows.first?["name"] as? String == Self.hostile)
    }

    @Test func diagnosticsQuoteHostileValuesVisibly() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            // A file name, an unknown key, a reference and a bad quantity, each hostile.
            "bikes/\u{1B}[31mx.yaml": "name: x\n",
            "bikes/grail.yaml": "name: g\n\(Self.yamlHostile): 1\ntemplates: [\(Self.yamlHostile)]\nintervals:\n  a:\n    every: \(Self.yamlHostile)\n",
            "bikes/rtl.yaml": "name: \u{202E}x\nbought: \u{202E}2025-01-01\n",
            "rides.yaml": "rides:\n  - {date: 2025-03-01, bike: \(Self.yamlHostile), time: 1 h}\n",
        ])
        let r = try garage.run(["validate"])
        #expect(r.status == 1)
        Self.expectNothingRaw(r, "validate")
        #expect(r.stderr.contains(#"\u{202E}"#), "\(r.stderr)")
        Self.expectNothingRaw(try garage.run(["validate", "--format", "json"]), "validate --format json")
        Self.expectNothingRaw(try garage.run(["status"]), "status")
    }

    @Test func archiveFieldsNeverReachTheTerminalRaw() throws {
        let header =
            "Activity ID,Activity Date,Activity Name,Activity Type,Activity Description,Elapsed Time,Distance,Max Heart Rate,Relative Effort,Commute,Activity Private Note,Activity Gear,Filename,Athlete Weight,Bike Weight,Elapsed Time,Moving Time,Distance"
        let h = Self.hostile
        let garage = try TemporaryFolder([
            "garage.yaml": "name: x\n",
            "export/activities.csv": header + "\n"
                + "17000000001,\"Mar 3, 2026, 6:12:00 AM\",\(h),Ride,\(h),3700,30.12,,,false,,\(h),,,,3700.0,3500.0,30120.5\n"
                + "17000000002,\(h),\(h),Ride,,1800,10.00,,,false,,\(h),,,,1800.0,1800.0,10000.0\n"
                + "17000000003,\"Mar 4, 2026, 6:12:00 AM\",x,\(h),,1800,\(h),,,false,,,,,,\(h),\(h),\(h)\n",
            "export/bikes.csv": "Bike Name,Bike Brand,Bike Model,Bike Default Sport Types\n\(h),Canyon,\(h),Ride\n",
        ])
        let r = try garage.run(["import", "strava-archive", "export"])
        #expect(r.status == 0, "\(r.stderr)")
        Self.expectNothingRaw(r, "import strava-archive")
        #expect(r.stdout.contains("from bikes.csv has no bike file"), "\(r.stdout)")
        #expect(r.stderr.contains("skipped"), "\(r.stderr)")
    }

    @Test func stravaAthleteAndGearNamesNeverReachTheTerminalRaw() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.setAthleteName(first: Self.hostile, last: "\u{202E}Rider")
        let bike = StandInGear(id: "b1001", name: Self.hostile, nickname: Self.hostile, distance: 1000, brandName: Self.hostile)
        await world.server.setBikes(athlete: [bike], all: [bike])
        await world.server.setActivities(
            StandInActivity.generate(count: 5, bikes: ["b1001"]).map {
                var a = $0
                a.name = Self.hostile
                return a
            })
        await world.server.authorize(code: "code-1")
        let login = try await world.pasteLogin(code: "code-1")
        #expect(login.status == 0, "\(login.stderr)")
        Self.expectNothingRaw(login, "login")
        #expect(login.stdout.contains(#"\u{1B}]0;pwned"#), "\(login.stdout)")
        let who = try await world.run(["whoami"])
        #expect(who.status == 0, "\(who.stderr)")
        Self.expectNothingRaw(who, "whoami")
        let sync = try await world.run(["sync"], extra: ["BIKECHECK_PROGRESS": "1"])
        #expect(sync.status == 0, "\(sync.stderr)")
        Self.expectNothingRaw(sync, "sync")
        #expect(sync.stdout.contains("has no bike file"), "\(sync.stdout)")
        Self.expectNothingRaw(try await world.run(["sync", "--format", "json"]), "sync --format json")
    }
}
