import Foundation
import TestSupport
import Testing

/// `BIKECHECK_NO_CACHE=1` reads everything from the garage's own files, bypassing the derived
/// caches: the output is byte for byte what the fast paths give, and no index is made.
/// `BIKECHECK_TIMINGS=1` adds one line on standard error and changes nothing else.
@Suite struct CacheBypassEndToEndTests {
    static let asOf = ["--as-of", "2026-11-15"]
    static let commands: [[String]] = [
        ["status"] + asOf, ["--format", "json", "status"] + asOf, ["validate"], ["usage"] + asOf, ["history"] + asOf,
        ["costs"] + asOf, ["rides"] + asOf, ["report"] + asOf,
    ]

    @Test(arguments: commands)
    func bypassingTheCachesGivesByteIdenticalOutput(_ command: [String]) throws {
        let garage = try TemporaryFolder(copying: true)
        let cold = try garage.run(command)
        let warm = try garage.run(command)
        #expect(FileManager.default.fileExists(atPath: garage.path + "/.bikecheck/activity-index"), "the fast path made its index")
        let bypassed = try garage.run(command, environment: ["BIKECHECK_NO_CACHE": "1"])
        #expect(warm.status == 0)
        for other in [cold, bypassed] {
            #expect(other.status == warm.status)
            #expect(other.stdout == warm.stdout)
            #expect(other.stderr == warm.stderr)
        }
    }

    @Test func bypassingTheCachesNeitherReadsNorMakesTheIndex() throws {
        let garage = try TemporaryFolder(copying: true)
        let index = garage.path + "/.bikecheck/activity-index"
        _ = try garage.run(["status", "--as-of", "2026-11-15"], environment: ["BIKECHECK_NO_CACHE": "1"])
        #expect(!FileManager.default.fileExists(atPath: index))
        _ = try garage.run(["status", "--as-of", "2026-11-15"], environment: ["BIKECHECK_NO_CACHE": "0"])
        #expect(FileManager.default.fileExists(atPath: index), "0 leaves the caches on")
    }

    @Test func timingsGoToStandardErrorStageByStage() throws {
        let garage = try TemporaryFolder(copying: true)
        let plain = try garage.run(["status", "--as-of", "2026-11-15"])
        let timed = try garage.run(["status", "--as-of", "2026-11-15"], environment: ["BIKECHECK_TIMINGS": "1"])
        #expect(timed.stdout == plain.stdout)
        let lines = timed.stderr.split(separator: "\n").filter { $0.hasPrefix("timings: ") }
        #expect(lines.count == 1, "\(timed.stderr)")
        for stage in ["read", "compose", "decode", "resolve", "check", "activities", "total"] {
            #expect(lines.first?.contains(" \(stage) ") == true, "\(stage) in \(lines)")
        }
        #expect(!plain.stderr.contains("timings:"))
        let bypassed = try garage.run(["status", "--as-of", "2026-11-15"], environment: ["BIKECHECK_TIMINGS": "1", "BIKECHECK_NO_CACHE": "1"])
        #expect(bypassed.stderr.contains("(index: 0 month files)"), "\(bypassed.stderr)")
    }
}
