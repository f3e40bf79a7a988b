import Foundation
import TestSupport
import Testing

/// What the binary loads and keeps between runs: no networking library for offline commands,
/// and an activity index that makes a warm status read no JSON without changing its answer.
@Suite struct StartUpEndToEndTests {
    @Test func theBinaryDoesNotLinkLibcurl() throws {
        // Commands that never talk to Strava (--help, status, validate, the writes) start without
        // libcurl and the libraries it pulls in; the Strava commands load it on first use.
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/ldd"), [bikecheckBinary.path], in: repositoryRoot)
        #expect(result.status == 0)
        #expect(result.stdout.contains("libc.so"), "ldd listed the binary's libraries")
        #expect(!result.stdout.contains("libcurl"), "\(result.stdout)")
        // FlyingFox (report --serve) is in a library of its own, loaded only to serve.
        #expect(!result.stdout.contains("FoundationNetworking") && !result.stdout.contains("BikeCheckReportHTTP"), "\(result.stdout)")
        // Nor the XML parser of TCX and GPX files (FoundationXML, libxml2): a library of its own.
        #expect(!result.stdout.contains("FoundationXML") && !result.stdout.contains("libxml2"), "\(result.stdout)")
    }

    @Test func versionLoadsNeitherTheServersLibraryNorFoundationNetworkingButServeDoes() throws {
        // What the dynamic loader opens at run time (LD_DEBUG=files lists each file it loads), not
        // only what the binary names (ldd): a library loaded by another would show here.
        let loaded = { (arguments: [String], timeout: TimeInterval) in
            let r = try runBikecheck(arguments, in: repositoryRoot, environment: ["LD_DEBUG": "files"], timeout: timeout)
            // A dlopened file is named by its whole path: the name is what follows the last "/".
            return Set(r.stderr.matches(of: #/file=(?:\S*/)?([^\s/]+)/#).map { String($0.1) })
        }
        let version = try loaded(["--version"], 20)
        #expect(version.contains("libFoundation.so"), "the loader listed what it loaded: \(version.sorted())")
        for library in [
            "libFoundationNetworking.so", "libBikeCheckReportHTTP.so", "libcurl.so.4", "libFoundationXML.so", "libxml2.so.2", "libBikeCheckRideXML.so",
        ] {
            #expect(!version.contains(library), "--version loaded \(library)")
        }
        // A serve with an address that is not one loads the server's library, then stops.
        let serve = try loaded(["report", "--serve", "--address", "not-an-ip", "--port", "0", "--garage", repositoryRoot.path + "/example-garage"], 20)
        #expect(serve.contains("libBikeCheckReportHTTP.so") && serve.contains("libFoundationNetworking.so"), "\(serve.sorted())")
        #expect(!serve.contains("libFoundationXML.so"), "\(serve.sorted())")
        // Reading a GPX file loads the XML parser's library, and FoundationXML with it.
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n"])
        try rideFilesTool(["gpx", "rides/c.gpx", "--start", "2026-05-05T17:00:00Z"], in: garage.url)
        let gpx = try loaded(["import", "files", garage.path + "/rides/c.gpx", "--garage", garage.path], 20)
        #expect(gpx.contains("libBikeCheckRideXML.so") && gpx.contains("libFoundationXML.so"), "\(gpx.sorted())")
    }

    @Test func statusAndValidateGiveTheSameAnswersWithTheActivityIndexColdWarmAndDamaged() throws {
        let bike = "name: Grail\nstrava: b1\nbought: 2026-01-01\nintervals:\n  lube:\n    every: 2 h\n"
        let ride = { (id: Int, day: String) in
            "{\"distance\":30000,\"id\":\(id),\"moving_time\":3600,\"sport_type\":\"Ride\",\"gear_id\":\"b1\",\"start_date\":\"\(day)T08:00:00Z\"}"
        }
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n", "bikes/grail.yaml": bike,
            "activities/2026-02.json": "[\n\(ride(1, "2026-02-01"))\n]\n",
            // A problem the index must not hide on a warm run: an activity of March in April's file.
            "activities/2026-04.json": "[\n\(ride(2, "2026-03-05"))\n]\n",
        ])
        Thread.sleep(forTimeInterval: 0.07)  // settled files can be indexed
        let index = garage.path + "/.bikecheck/activity-index"
        var outputs: [String] = []
        for pass in ["cold", "warm", "damaged"] {
            if pass == "damaged" {
                for name in try FileManager.default.contentsOfDirectory(atPath: index) {
                    let path = index + "/" + name
                    var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                    bytes[bytes.count - 1] ^= 0xFF
                    try bytes.write(to: URL(fileURLWithPath: path))
                }
            }
            let status = try garage.run(["status", "--as-of", "2026-04-10"])
            #expect(status.status == 0, "\(pass): \(status.stderr)")
            let validate = try garage.run(["validate"])
            #expect(validate.stderr.contains("cache-misplaced"), "\(pass): \(validate.stderr)")
            outputs.append(status.stdout + status.stderr + "\n--\n" + validate.stdout + validate.stderr)
            if pass == "cold" { #expect(try FileManager.default.contentsOfDirectory(atPath: index).sorted() == ["2026-02.json.idx", "2026-04.json.idx"]) }
        }
        #expect(outputs[1] == outputs[0])
        #expect(outputs[2] == outputs[0])
        #expect(outputs[0].contains("lube"))
    }
}
