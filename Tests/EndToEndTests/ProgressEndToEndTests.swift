import Foundation
import StravaStandIn
import TestSupport
import Testing

/// Long work's progress line: on a real pseudo-terminal (python3's pty module), within a second
/// of the start; nothing when piped or with `--quiet`; and a summary a rider can act on.
@Suite(.serialized) struct ProgressEndToEndTests {
    /// Runs the real binary with a pseudo-terminal as stdin, stdout and stderr: everything it
    /// wrote, its exit status, and the seconds from the start to the first byte of `marker`.
    static func onTerminal(_ arguments: [String], in directory: URL, environment: [String: String], marker: String) throws -> (
        output: String, status: Int32, firstMarker: Double?
    ) {
        let script = """
            import json, os, pty, sys, time
            marker = sys.argv[1].encode()
            start = time.monotonic()
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(sys.argv[2], sys.argv[2:])
            out, first = b"", None
            while True:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
                if first is None and marker in out:
                    first = time.monotonic() - start
            _, status = os.waitpid(pid, 0)
            print(json.dumps({"output": out.decode("utf-8", "replace"), "status": os.waitstatus_to_exitcode(status), "first": first}))
            """
        var env = environment
        env["NO_COLOR"] = "1"
        env["BIKECHECK_GARAGE"] = ""
        env["COLUMNS"] = "200"
        let r = try runProcess(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, marker, bikecheckBinary.path] + arguments, in: directory,
            environment: env)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stderr)")
        return (object["output"] as? String ?? "", Int32(object["status"] as? Int ?? -1), object["first"] as? Double)
    }

    @Test func importFilesShowsOneUpdatingLineOnATerminalAndGroupsRidesWithoutABikeByDevice() throws {
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/grail.yaml": "name: Grail\n"])
        for (i, serial) in ["3980001234", "3980001234", "3980005555"].enumerated() {
            try rideFilesTool(["fit", "rides/\(i).fit", "--serial", serial, "--start", "2026-05-0\(i + 1)T06:30:00Z"], in: garage.url)
        }
        try rideFilesTool(["gpx", "rides/commute.gpx", "--start", "2026-05-09T17:00:00Z"], in: garage.url)

        let tty = try Self.onTerminal(["import", "files", "rides"], in: garage.url, environment: [:], marker: "import: ")
        #expect(tty.status == 0, "\(tty.output)")
        // The line is up before the first file is read (0 of 4), whatever the machine's load.
        #expect(tty.firstMarker != nil, "no progress line: \(tty.output)")
        let start = try #require(tty.output.range(of: "\r\u{1B}[Kimport: 0 of 4 files"), "\(tty.output.debugDescription)")
        #expect(start.upperBound <= (tty.output.range(of: "imported 4 of 4")?.lowerBound ?? start.upperBound))
        #expect(tty.output.contains("\r\u{1B}[Kimported 4 of 4"), "the line is cleared before the summary: \(tty.output.debugDescription)")
        #expect(tty.output.contains("imported 4 of 4 ride files"), "the summary stays")

        // The summary: one line per device, with the line to add; not one line per file.
        try FileManager.default.removeItem(at: garage.url.appendingPathComponent("activities"))
        let piped = try garage.run(["import", "files", "rides"])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(!piped.stderr.contains("\r") && !piped.stderr.contains("import:"), "no progress when piped: \(piped.stderr.debugDescription)")
        let lines = piped.stderr.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "warning: 4 rides have no bike:",
                "  2 rides recorded by device 3980001234 (such as rides/0.fit): add 'devices: [3980001234]' to bikes/grail.yaml, then import the files again",
                "  1 ride recorded by device 3980005555 (rides/2.fit): add 'devices: [3980005555]' to bikes/grail.yaml, then import the files again",
                "  1 ride that names no device (rides/commute.gpx): import them again with --bike BIKE",
            ], "\(piped.stderr)")

        let quiet = try Self.onTerminal(["import", "files", "rides", "--quiet"], in: garage.url, environment: [:], marker: "import: ")
        #expect(quiet.status == 0, "\(quiet.output)")
        #expect(quiet.firstMarker == nil && !quiet.output.contains("\r\u{1B}[K"), "\(quiet.output.debugDescription)")
    }

    @Test func aFirstSyncShowsItsPagesOnATerminalAndNothingWhenPiped() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.setActivities(
            (0..<450).map { i in
                StandInActivity(
                    id: 8_000_000 + Int64(i), name: "Ride \(i)", sportType: "Ride", start: 1_700_000_000 + Int64(i) * 40_000,
                    movingTime: 3600, elapsedTime: 3700, distance: 20_000)
            })
        try await world.login()
        // Strava holds its first page back 4 s: the line must show while bikecheck waits for it,
        // not once the answer came (a bound on time alone fails on a loaded machine).
        world.server.hostile.arm(.delay(seconds: 4), on: "/api/v3/athlete/activities")
        let env = await world.environment
        let root = world.garage.root
        let tty = try await withCheckedThrowingContinuation { c in
            DispatchQueue.global().async { c.resume(with: Result { try Self.onTerminal(["sync"], in: root, environment: env, marker: "sync: ") }) }
        }
        #expect(tty.status == 0, "\(tty.output)")
        #expect(world.server.hostile.fired == ["/api/v3/athlete/activities"], "Strava held back its first page")
        let first = try #require(tty.firstMarker, "no progress line: \(tty.output)")
        #expect(first < 4.0, "the progress line appeared after \(first) s, not while Strava held its first page back")
        #expect(tty.output.contains("sync: asking Strava for activities"), "\(tty.output.debugDescription)")
        #expect(!tty.output.contains("sync: page 1") || tty.output.contains("\r\u{1B}[Ksync: page"), "\(tty.output.debugDescription)")
        #expect(tty.output.contains("450 new"), "\(tty.output)")

        let piped = try await world.run(["sync", "--full"])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stderr.isEmpty, "no progress when piped: \(piped.stderr.debugDescription)")
    }

    @Test func anArchiveImportShowsItsProgressOnATerminalAndSumsUpRidesWithoutGearByDevice() throws {
        let rows = ["3980001234", "3980001234", "3980007777"].enumerated().map { i, _ in
            #"1700000002\#(i),"May \#(i + 1), 2026, 6:30:00 AM",Dawn \#(i),Ride,,3600,25.18,,,false,,,activities/1700000002\#(i).fit,,,3600.0,3600.0,25180.0,,,123.0"#
        }
        let csv = ImportEndToEndTests.header + "\n" + rows.joined(separator: "\n") + "\n"
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/grail.yaml": "name: Grail\n", "export/activities.csv": csv])
        for (i, serial) in ["3980001234", "3980001234", "3980007777"].enumerated() {
            try rideFilesTool(
                ["fit", "export/activities/1700000002\(i).fit", "--serial", serial, "--start", "2026-05-0\(i + 1)T06:30:00Z"], in: garage.url)
        }
        let tty = try Self.onTerminal(["import", "strava-archive", "export"], in: garage.url, environment: [:], marker: "import: ")
        #expect(tty.status == 0, "\(tty.output)")
        // The line is up before the archive is read, whatever the machine's load.
        #expect(tty.firstMarker != nil, "no progress line: \(tty.output)")
        let start = try #require(tty.output.range(of: "\r\u{1B}[Kimport: reading the archive…"), "\(tty.output.debugDescription)")
        #expect(start.upperBound <= (tty.output.range(of: "imported ")?.lowerBound ?? start.upperBound), "\(tty.output.debugDescription)")

        let piped = try garage.run(["import", "strava-archive", "export"])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(!piped.stderr.contains("\r") && !piped.stderr.contains("import:"), "\(piped.stderr.debugDescription)")
        #expect(
            piped.stderr.split(separator: "\n").map(String.init) == [
                "warning: 3 rides have no bike:",
                "  2 rides recorded by device 3980001234: add 'devices: [3980001234]' to bikes/grail.yaml, then import the archive again",
                "  1 ride recorded by device 3980007777: add 'devices: [3980007777]' to bikes/grail.yaml, then import the archive again",
            ], "\(piped.stderr)")

        // The line it gave, added: the rides move on the next import.
        try garage.write("bikes/grail.yaml", "name: Grail\ndevices: [3980001234, 3980007777]\n")
        let again = try garage.run(["import", "strava-archive", "export"])
        #expect(again.stdout.contains("put 3 rides without gear on bikes by the device"), "\(again.stdout)")
        #expect(again.stderr.isEmpty, "\(again.stderr)")
    }
}
