import Foundation
import TestSupport
import Testing

/// Hostile or mangled files cost little to report: excerpts show a window of a long line, messages
/// quote a bounded prefix of a value, and each file shows at most 50 diagnostics and a count.
@Suite struct DiagnosticLimitsEndToEndTests {
    static func diagnosticCount(_ stderr: String) -> Int {
        stderr.split(separator: "\n").filter { $0.contains(": error: ") || $0.contains(": warning: ") }.count
    }

    @Test func aLongOneLineLogIsReportedInAFewSeconds() throws {
        // 600 KB on one line, 110,000 wrong entries: rendering each excerpt from the whole line
        // made this minutes of work. About a second now; the bound is for the minutes, with room
        // for a machine busy with other builds (the figure itself is scripts/bench's to measure).
        let log = (0..<110_000).map(String.init).joined(separator: ",")
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/x.yaml": "name: x\nlog: [\(log)]\n"])
        let started = Date()
        let r = try runBikecheck(["validate"], in: garage.root, timeout: 120)
        let elapsed = Date().timeIntervalSince(started)
        #expect(r.status == 1)
        #expect(elapsed < 25, "validate took \(elapsed) s")
        #expect(Self.diagnosticCount(r.stderr) == 51, "50 shown and one count")
        let located = r.stderr.hasPrefix("bikes/x.yaml:2:")
        #expect(located, "\(r.stderr.prefix(200))")
        let counted = r.stderr.contains("error: and 109950 more problems in this file [too-many-problems]")
        #expect(counted, "\(r.stderr.suffix(600))")
        #expect(r.stderr.utf8.count < 60_000, "\(r.stderr.utf8.count) bytes")
        let summary = String(r.stderr.suffix(20))
        #expect(summary.hasSuffix("51 errors\n"), "\(summary)")
    }

    @Test func aHugeValueIsNeverEchoedWhole() throws {
        let huge = String(repeating: "1", count: 1_000_000)
        let garage = try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "bikes/x.yaml": "name: x\nintervals:\n  a:\n    every: \"\(huge) km\"\n  b:\n    every: \(huge)x\n",
        ])
        let r = try runBikecheck(["validate"], in: garage.root, timeout: 120)
        #expect(r.status == 1)
        #expect(r.stderr.utf8.count < 5_000, "\(r.stderr.utf8.count) bytes of diagnostics")
        let echoed = r.stderr.contains(String(repeating: "1", count: 200))
        #expect(!echoed, "the value was echoed")
        let json = try runBikecheck(["validate", "--format", "json"], in: garage.root, timeout: 120)
        #expect(json.stdout.utf8.count < 5_000, "\(json.stdout.utf8.count) bytes of JSON")
    }

    @Test func manyUnknownKeysGiveFiftyDiagnosticsAndACount() throws {
        let keys = (0..<20_000).map { "key\($0): 1\n" }.joined()
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/x.yaml": "name: x\n" + keys])
        let r = try runBikecheck(["validate"], in: garage.root, timeout: 120)
        #expect(Self.diagnosticCount(r.stderr) == 51)
        let counted = r.stderr.contains("bikes/x.yaml:52:1: error: and 19950 more problems in this file [too-many-problems]")
        #expect(counted, "\(r.stderr.suffix(400))")
        let json = try runBikecheck(["validate", "--format", "json"], in: garage.root, timeout: 120)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((object["diagnostics"] as? [Any])?.count == 51)
    }

    @Test func aLongOneLineCacheFileShowsAWindowOfItsLine() throws {
        // 3 MB of cache on one line with a problem in every activity: each position was found by
        // walking the line from its start, and each excerpt copied the whole line.
        let one = #"{"id":ID,"name":"Ride","sport_type":"Ride","start_date":"2026-01-05T06:00:00Z","moving_time":-5,"distance":1.5}"#
        let body = (1...20_000).map { one.replacingOccurrences(of: "ID", with: String($0)) }.joined(separator: ",")
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "activities/2026-01.json": "[" + body + "]"])
        let started = Date()
        let r = try runBikecheck(["validate"], in: garage.root, timeout: 120)
        #expect(Date().timeIntervalSince(started) < 8)
        #expect(Self.diagnosticCount(r.stderr) == 51)
        let counted = r.stderr.contains("more problems in this file [too-many-problems]")
        #expect(counted, "\(r.stderr.suffix(400))")
        #expect(r.stderr.utf8.count < 60_000, "\(r.stderr.utf8.count) bytes")
    }
}

extension DiagnosticLimitsEndToEndTests {
    /// Every file was read whole, whatever its size: a sparse 200 GB file aborted `status` and
    /// `validate` (rc 134, "failed to allocate"). Each is now a located `file-too-large`.
    @Test(arguments: ["garage.yaml", "bikes/grail.yaml", "parts/spare-chain.yaml", "templates/tubeless.yaml", "rides.yaml", "activities/2026-01.json"])
    func aSparse200GBFileIsALocatedFileTooLargeNotAnAbort(_ file: String) throws {
        let garage = try TemporaryFolder(copying: true)
        let handle = try FileHandle(forWritingTo: garage.root.appendingPathComponent(file))
        try handle.truncate(atOffset: 200 << 30)
        try handle.close()
        for command in ["validate", "status"] {
            let r = try garage.run([command, "--color", "never"])
            #expect(r.status == 1, "\(command): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains("\(file):1:1: error: the file is 200 GiB, more than"), "\(command): \(r.stderr)")
            #expect(r.stderr.contains("[file-too-large]"), "\(command): \(r.stderr)")
        }
    }

    /// An index file is derived: one too large is not trusted, and the answer comes from the cache.
    @Test func aSparse200GBIndexFileIsRebuiltNotRead() throws {
        let garage = try TemporaryFolder(copying: true)
        // Month files changed in the last 50 ms are read from JSON and not indexed yet
        // (`ActivityIndex.settleTime`): let the copies settle, so the first run makes the index.
        Thread.sleep(forTimeInterval: 0.1)
        let before = try garage.run(["status", "--format", "json"])
        #expect(before.status == 0, "\(before.stderr)")
        let index = garage.root.appendingPathComponent(".bikecheck/activity-index")
        let files = try FileManager.default.contentsOfDirectory(atPath: index.path).filter { $0.hasSuffix(".idx") }
        try #require(!files.isEmpty)
        for name in files {
            let handle = try FileHandle(forWritingTo: index.appendingPathComponent(name))
            try handle.truncate(atOffset: 200 << 30)
            try handle.close()
        }
        let after = try garage.run(["status", "--format", "json"])
        #expect(after.status == 0 && after.stdout == before.stdout, "\(after.stderr)")
    }
}
