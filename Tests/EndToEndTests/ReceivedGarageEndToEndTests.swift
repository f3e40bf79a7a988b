import Foundation
import TestSupport
import Testing

/// A garage received from someone else, `.git/` and all: its git configuration runs nothing when
/// bikecheck reads it, and no value on the command line reaches git as an option
/// (docs/security.md).
@Suite struct ReceivedGarageEndToEndTests {
    static let bike = "name: Grail\nbought: 2025-01-01\ncomponents:\n  chain:\n    installed: 2025-01-01\nintervals:\n  chain:\n    every: 10 h\n"

    /// A committed garage whose `.git/config` names commands that write a file in `marks` when
    /// they run: a file-system monitor and a content filter on every YAML file.
    static func hostileGarage() throws -> (garage: TemporaryFolder, marks: TemporaryFolder) {
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\ncurrency: EUR\n", "bikes/grail.yaml": Self.bike])
        let marks = try TemporaryFolder()
        try git(["init", "--quiet"], in: garage.root)
        try git(["add", "-A"], in: garage.root)
        try git(["commit", "--quiet", "-m", "garage"], in: garage.root)
        let monitor = marks.url.appendingPathComponent("monitor.sh")
        try Data("#!/bin/sh\ntouch '\(marks.path)/fsmonitor-ran'\nexit 1\n".utf8).write(to: monitor)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: monitor.path)
        try git(["config", "core.fsmonitor", monitor.path], in: garage.root)
        try git(["config", "filter.evil.clean", "sh -c 'touch \(marks.path)/filter-ran; cat'"], in: garage.root)
        try git(["config", "filter.evil.smudge", "sh -c 'touch \(marks.path)/filter-ran; cat'"], in: garage.root)
        try garage.write(".git/info/attributes", "*.yaml filter=evil\n")
        // Newer times than the index's: git must read the files again (through the filter).
        let later = Date().addingTimeInterval(5)
        for file in ["garage.yaml", "bikes/grail.yaml"] {
            try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: garage.path + "/" + file)
        }
        return (garage, marks)
    }

    @Test func readingAReceivedGarageRunsNoCommandItsGitConfigNames() throws {
        let (garage, marks) = try Self.hostileGarage()
        for arguments in [
            ["status", "--format", "json"], ["report", "--html", "--output", "out.html"], ["costs"], ["history", "--format", "json"],
            ["status", "--rev", "HEAD"],
        ] {
            let r = try garage.run(arguments + ["--as-of", "2026-01-01"])
            #expect(r.status == 0, "\(arguments): \(r.stderr)")
            let ran = (try? FileManager.default.contentsOfDirectory(atPath: marks.path))?.filter { $0.hasSuffix("-ran") } ?? []
            #expect(ran.isEmpty, "\(arguments) ran \(ran)")
        }
        // The reports still name the commit they describe.
        let json = try garage.run(["status", "--format", "json", "--as-of", "2026-01-01"])
        #expect(json.stdout.contains(#""commit" : ""#), "\(json.stdout.suffix(200))")
    }

    @Test func aRevisionThatLooksLikeAnOptionNeverReachesGitAsOne() throws {
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/grail.yaml": Self.bike])
        try git(["init", "--quiet"], in: garage.root)
        try git(["add", "-A"], in: garage.root)
        try git(["commit", "--quiet", "-m", "garage"], in: garage.root)
        let target = garage.path + "/planted"
        for command in [["status"], ["history"], ["costs"], ["report"], ["calendar"], ["validate"]] {
            let r = try garage.run(command + ["--rev=--output=\(target)"])
            #expect(r.status != 0, "\(command): \(r.stdout)")
            let planted = (try FileManager.default.contentsOfDirectory(atPath: garage.path)).filter { $0.hasPrefix("planted") }
            #expect(planted.isEmpty, "\(command) let git write \(planted)")
        }
    }

    /// A derived-cache entry forged with a recomputed checksum changes what `status` says: the
    /// caches are checked against damage, not forgery. Keying them to content would cost what
    /// they save and stop no one who can write `.bikecheck/` (the garage files are beside it),
    /// so the threat model says write access to `.bikecheck/` is trusted, and how to read a
    /// copied garage without its caches.
    @Test func theThreatModelSaysWriteAccessToTheLocalStateIsTrusted() throws {
        let page = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/security.md"), encoding: .utf8)
        #expect(page.contains("So write access to `.bikecheck/` is trusted like write access to the garage."))
        #expect(page.contains("delete\n  its `.bikecheck/`") && page.contains("BIKECHECK_NO_CACHE=1"))
        for suite in [
            "ReceivedGarageEndToEndTests", "DecompressionBombEndToEndTests", "RideFileValueFuzzTests", "LSPLimitsEndToEndTests", "KilledRunEndToEndTests",
        ] {
            #expect(page.contains(suite), "\(suite) holds a protection the page lists")
        }
    }
}
