import Foundation
import TestSupport
import Testing

@Suite struct StatusEndToEndTests {
    static let bike = """
        name: Grail
        strava: b1
        bought: 2026-01-01
        intervals:
          lube:
            every: 2 h
          service:
            every: 12 months

        """
    static let activities = """
        [
        {"distance":30000,"id":1,"moving_time":9000,"sport_type":"Ride","gear_id":"b1","start_date":"2026-02-01T08:00:00Z"}
        ]

        """

    @Test func statusOnTheExampleGarageShowsEveryBikeAndExitsZero() throws {
        let r = try runBikecheck(["status", "--garage", exampleGarage.path, "--as-of", "2026-11-15"], in: repositoryRoot)
        #expect(r.status == 0, "\(r.stderr)")
        for bike in ["charger", "grail", "stumpy", "tarmac"] {
            #expect(r.stdout.contains("\n\(bike) · "), "missing \(bike) in:\n\(r.stdout)")
        }
        #expect(r.stderr.isEmpty)
        #expect(!r.stdout.contains("\u{1B}["), "no colour when NO_COLOR is set and stdout is not a terminal")
    }

    @Test func validateIsSilentOnTheExampleGarage() throws {
        let r = try runBikecheck(["validate", "--garage", exampleGarage.path], in: repositoryRoot)
        #expect(r.status == 0)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.isEmpty, "\(r.stderr)")
    }

    @Test func checkExitsOneWhenSomethingIsOverdue() throws {
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/grail.yaml": Self.bike, "activities/2026-02.json": Self.activities])
        let overdue = try garage.run(["status", "--check", "--as-of", "2026-02-02"])
        #expect(overdue.status == 1)
        #expect(overdue.stdout.contains("overdue  lube"))
        let fine = try garage.run(["status", "--check", "--as-of", "2026-01-15"])
        #expect(fine.status == 0, "\(fine.stdout)")
        let withoutCheck = try garage.run(["status", "--as-of", "2026-02-02"])
        #expect(withoutCheck.status == 0)
    }

    @Test func jsonStatusHasTheDocumentedShape() throws {
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/grail.yaml": Self.bike, "activities/2026-02.json": Self.activities])
        let r = try garage.run(["status", "--format", "json", "--as-of", "2026-02-02"])
        #expect(r.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(json["as_of"] as? String == "2026-02-02")
        let bikes = try #require(json["bikes"] as? [[String: Any]])
        let intervals = try #require(bikes.first?["intervals"] as? [[String: Any]])
        #expect(intervals.first?["id"] as? String == "lube")
        #expect(intervals.first?["state"] as? String == "overdue")
        #expect(intervals.first?["progress"] as? Double == 1.25)
        let usage = try #require(intervals.first?["usage"] as? [String: Any])
        #expect(usage["moving_time"] as? Double == 9000)
        // Same inputs, same bytes.
        #expect(try garage.run(["status", "--format", "json", "--as-of", "2026-02-02"]).stdout == r.stdout)
    }

    @Test func aBrokenGarageGetsDiagnosticsNotAStatus() throws {
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/grail.yaml": "name: Grail\nbought: 2025-02-30\n"])
        let r = try garage.run(["status"])
        #expect(r.status == 1)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("bikes/grail.yaml:2:9: error: '2025-02-30' is not a real date"))
        #expect(r.stderr.hasSuffix("1 error\nstatus leaves out grail: errors in their files or templates (above)\n"), "\(r.stderr)")
    }

    @Test func validateReportsEveryProblemAndExitsOne() throws {
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "bikes/a.yaml": "name: A\nbougth: 2025-01-01\n",
            "bikes/b.yaml": "name: [B]\n",
            "templates/t.yaml": "name: T\nintervals:\n  x:\n    every: 10 hrs\n",
        ])
        let r = try garage.run(["validate"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("bikes/a.yaml:2:1: error: unknown key 'bougth'"))
        #expect(r.stderr.contains("bikes/b.yaml:1:7: error:"))
        #expect(r.stderr.contains("templates/t.yaml:4:12: error: unknown unit 'hrs'"))
        #expect(r.stderr.hasSuffix("3 errors\n"))

        let json = try garage.run(["validate", "--format", "json"])
        #expect(json.status == 1)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(parsed["errors"] as? Int == 3)
        let first = try #require((parsed["diagnostics"] as? [[String: Any]])?.first)
        #expect(first["id"] as? String == "unknown-key")
        #expect((first["start"] as? [String: Int])?["line"] == 2)
    }

    @Test func warningsFailOnlyWithStrict() throws {
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\ncounts: [Ride, GravleRide]\n"])
        let relaxed = try garage.run(["validate"])
        #expect(relaxed.status == 0)
        #expect(relaxed.stderr.contains("warning: 'GravleRide' is not a Strava sport type; did you mean 'GravelRide'?"))
        #expect(try garage.run(["validate", "--strict"]).status == 1)
    }

    @Test func theGarageIsFoundUpwardFromTheWorkingDirectoryOrFromTheEnvironment() throws {
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/grail.yaml": Self.bike])
        let nested = garage.root.appendingPathComponent("bikes")
        let upward = try runBikecheck(["status", "--as-of", "2026-01-02"], in: nested)
        #expect(upward.status == 0, "\(upward.stderr)")
        #expect(upward.stdout.contains("grail · Grail"))

        let elsewhere = FileManager.default.temporaryDirectory
        let fromEnv = try runBikecheck(["status", "--as-of", "2026-01-02"], in: elsewhere, environment: ["BIKECHECK_GARAGE": garage.path])
        #expect(fromEnv.stdout.contains("grail · Grail"))
    }

    @Test func usageErrorsExitTwo() throws {
        let empty = try TemporaryFolder()
        let noGarage = try runBikecheck(["status"], in: empty.root)
        #expect(noGarage.status == 2)
        #expect(noGarage.stderr.contains("no garage.yaml"))

        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/grail.yaml": Self.bike])
        let unknownBike = try garage.run(["status", "grial"])
        #expect(unknownBike.status == 2)
        #expect(unknownBike.stderr.contains("error: no bike 'grial'; did you mean 'grail'?\n"), "\(unknownBike.stderr)")
        let farOff = try garage.run(["status", "zzzzzz"])
        #expect(farOff.status == 2)
        #expect(farOff.stderr.contains("error: no bike 'zzzzzz'\n  help: bikes: grail\n"), "\(farOff.stderr)")
        #expect(try garage.run(["status", "--as-of", "2026-02-30"]).status == 2)
        #expect(try garage.run(["status", "--format", "yaml"]).status == 2)
    }

    @Test func colourIsUsedOnlyWhenAskedOrOnATerminal() throws {
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/grail.yaml": Self.bike, "activities/2026-02.json": Self.activities])
        let always = try garage.run(["status", "--color", "always", "--as-of", "2026-02-02"])
        #expect(always.stdout.contains("\u{1B}[1;31moverdue"))
        let never = try garage.run(["status", "--color", "never", "--as-of", "2026-02-02"])
        #expect(!never.stdout.contains("\u{1B}["))
    }
}

@Suite struct HelpTextTests {
    @Test func statusHelpStatesTheAnchorAsTheREADMEDoes() throws {
        let r = try runBikecheck(["status", "--help"], in: exampleGarage)
        let text = r.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(
            text.contains("the later of its last service and its component's (re)install, else the day the bike was bought, else its first counted ride"),
            "\(r.stdout)")
    }

    @Test func rootHelpListsEveryReasonForExitOne() throws {
        let r = try runBikecheck(["--help"], in: exampleGarage)
        let text = r.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(
            text.contains(
                "1 problems found: errors in the garage, overdue (or the level asked for) with status --check, a notify channel that failed, a write refused, a sync stopped"
            ), "\(r.stdout)")
    }
}
