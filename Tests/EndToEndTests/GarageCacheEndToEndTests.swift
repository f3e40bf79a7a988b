@testable import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// The garage cache (`.bikecheck/garage-cache/`) never changes an answer: every status and report
/// path prints byte for byte what it prints with the caches bypassed (`BIKECHECK_NO_CACHE=1`), with
/// the cache cold, warm, and damaged in each way it can be (one test per damage). The garage has
/// problems, so diagnostics with excerpts (of files read from the cache too) are part of it.
@Suite struct GarageCacheEndToEndTests {
    static let asOf = ["--as-of", "2026-11-15"]
    /// Every status and report path, in text and JSON.
    static let commands: [[String]] = [
        ["status"] + asOf, ["--format", "json", "status"] + asOf, ["status", "grail", "--check"] + asOf, ["part", "list"] + asOf,
        ["--format", "json", "part", "list"] + asOf, ["part", "show", "race-wheels"] + asOf, ["usage"] + asOf,
        ["--format", "json", "usage"] + asOf, ["costs"] + asOf, ["--format", "json", "costs"] + asOf, ["history"] + asOf,
        ["--format", "json", "history"] + asOf, ["rides"] + asOf, ["rides", "grail", "--interval", "chain-lube"] + asOf,
        ["--format", "json", "rides", "loaner"] + asOf, ["calendar"] + asOf, ["report"] + asOf, ["export", "ledger"] + asOf,
        ["export", "beancount"] + asOf, ["validate"], ["--format", "json", "validate"],
    ]

    /// The example garage and a bike with problems: warnings with excerpts of its own file, and
    /// notes with excerpts of another (a template's, read from the cache only to be shown).
    static let extra = [
        "bikes/loaner.yaml": """
        name: Loaner
        strava: b9999001
        bought: 2025-06-01
        counts: [Ride, GravelRdie]
        templates: [road-basics]
        log:
          - date: 2026-03-01
            done: [chain-lube]
            cost: 30 USD
          - date: 2024-03-01
            done: [chain-lube]

        """
    ]

    /// A garage whose files have settled (see `ActivityIndex.settleTime`), so a run caches them.
    static func garage() throws -> TemporaryFolder {
        let garage = try TemporaryFolder(extra, copying: true)
        Thread.sleep(forTimeInterval: ActivityIndex.settleTime + 0.02)
        return garage
    }

    /// What every path prints: exit status, standard output and standard error. `before` runs
    /// before each command: a damage every path meets, not only the first (which mends it).
    static func outputs(_ garage: TemporaryFolder, bypass: Bool = false, before: () throws -> Void = {}) throws -> [String] {
        try commands.map { command in
            try before()
            let r = try garage.run(command, environment: bypass ? ["BIKECHECK_NO_CACHE": "1"] : [:])
            return "\(command.joined(separator: " ")): \(r.status)\n\(r.stdout)\n--\n\(r.stderr)"
        }
    }

    /// Writes these cache entries over the garage's.
    static func put(_ entries: [String: Data], in garage: TemporaryFolder) throws {
        for (name, bytes) in entries { try bytes.write(to: URL(fileURLWithPath: cache(garage) + "/" + name)) }
    }

    /// The answers of the garage as it is made, from its YAML alone: shared by the tests that
    /// damage only the cache.
    static let reference = Result { try outputs(garage(), bypass: true) }

    static func cache(_ garage: TemporaryFolder) -> String { garage.path + "/.bikecheck/garage-cache" }

    static func entries(_ garage: TemporaryFolder) throws -> [String: Data] {
        let folder = cache(garage)
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where !name.hasPrefix(".") {
            out[name] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
        }
        return out
    }

    func expectSame(_ got: [String], _ want: [String], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(got.count == want.count, sourceLocation: sourceLocation)
        for (g, w) in zip(got, want) where g != w {
            Issue.record("\(what): differs from the YAML's answer:\n\(g)\n== expected ==\n\(w)", sourceLocation: sourceLocation)
        }
    }

    @Test func everyPathPrintsTheSameWithTheCacheColdWarmAndBypassed() throws {
        let garage = try Self.garage()
        let want = try Self.reference.get()
        #expect(
            want.contains { $0.contains("[unknown-sport-type]") && $0.contains("templates/road-basics.yaml:9:16: note:") && $0.contains("component: chain") },
            "the garage has problems to show, with excerpts")
        var cold: [String] = [], warm: [String] = []
        for command in Self.commands {
            try? FileManager.default.removeItem(atPath: Self.cache(garage))
            let c = try garage.run(command), w = try garage.run(command)
            cold.append("\(command.joined(separator: " ")): \(c.status)\n\(c.stdout)\n--\n\(c.stderr)")
            warm.append("\(command.joined(separator: " ")): \(w.status)\n\(w.stdout)\n--\n\(w.stderr)")
        }
        expectSame(cold, want, "cold")
        expectSame(warm, want, "warm")
        expectSame(try Self.outputs(garage, bypass: true), want, "bypassed")
        // An entry for each of the garage's 18 YAML files, and the same bytes when made again.
        let entries = try Self.entries(garage)
        #expect(entries.count == 18, "\(entries.keys.sorted())")
        #expect(entries["bikes+loaner.yaml.cache"] != nil)
        try FileManager.default.removeItem(atPath: Self.cache(garage))
        _ = try garage.run(["status"] + Self.asOf)
        #expect(try Self.entries(garage) == entries, "entries are deterministic")
    }

    @Test func bypassingTheCachesNeitherReadsNorMakesTheGarageCache() throws {
        let garage = try Self.garage()
        _ = try garage.run(["status"] + Self.asOf, environment: ["BIKECHECK_NO_CACHE": "1"])
        #expect(!FileManager.default.fileExists(atPath: Self.cache(garage)))
    }

    /// Damages to the cache entries: the garage's files are as made, so the answer is the
    /// reference. Each damaged entry is made anew by the run that meets it, so the damage is
    /// done again before every command.
    static let entryDamages = ["truncated", "flipped byte", "another garage's", "another version's"]

    @Test(arguments: entryDamages)
    func aDamagedEntryIsNotTrustedAndIsMadeAgain(_ damage: String) throws {
        let garage = try Self.garage()
        _ = try garage.run(["status"] + Self.asOf)
        let pristine = try Self.entries(garage)
        #expect(pristine.count == 18)
        let loaner = "bikes+loaner.yaml.cache"
        var damaged: [String: Data] = [:]
        switch damage {
        case "truncated", "flipped byte":
            for (name, bytes) in pristine {
                var bytes = bytes
                if damage == "truncated" { bytes.removeLast(bytes.count / 3) } else { bytes[bytes.count / 2] ^= 0x10 }
                damaged[name] = bytes
            }
        case "another garage's":
            // The same file in another garage, where the bike has another name.
            let other = try TemporaryFolder(Self.extra.mapValues { $0.replacingOccurrences(of: "Loaner", with: "Foreign") }, copying: true)
            Thread.sleep(forTimeInterval: ActivityIndex.settleTime + 0.02)
            _ = try other.run(["status"] + Self.asOf)
            damaged[loaner] = try Data(contentsOf: URL(fileURLWithPath: Self.cache(other) + "/" + loaner))
        case "another version's":
            // A valid entry for this very file, made by another bikecheck, with another answer.
            let key = try #require(ActivityIndex.key(garage.path + "/bikes/loaner.yaml"))
            let cache = GarageCache(root: garage.path)
            var entry: GarageCache.Entry<Bike> = try #require(
                GarageCache.decode([UInt8](pristine[loaner]!), relative: "bikes/loaner.yaml", context: "EUR", key: key, garage: cache.garage)
            )
            entry.file.value?.name = "Old Version"
            let bytes = try #require(
                GarageCache.encode(
                    entry.file, relative: "bikes/loaner.yaml", context: "EUR", key: key, garage: cache.garage, source: entry.source, version: "0.0.1"))
            damaged[loaner] = Data(bytes)
        default: Issue.record("unknown damage \(damage)")
        }
        #expect(!damaged.isEmpty && damaged.allSatisfy { pristine[$0.key] != $0.value }, "the damage changes entries")
        let got = try Self.outputs(garage) { try Self.put(damaged, in: garage) }
        expectSame(got, try Self.reference.get(), damage)
        #expect(try Self.entries(garage) == pristine, "each damaged entry was made again")
    }

    /// Changes to the garage's files after their entries were made: the answer is the new YAML's.
    /// The entries made from the old file are put back before every command, so each path meets
    /// the stale entry, not one the first run made anew.
    static let fileChanges = ["stale", "replaced", "same size, in place, old modification time put back"]

    @Test(arguments: fileChanges)
    func aFileChangedSinceItsEntryIsParsedAgain(_ change: String) throws {
        let garage = try Self.garage()
        _ = try garage.run(["status"] + Self.asOf)
        let old = try Self.entries(garage)
        let path = garage.path + "/bikes/loaner.yaml"
        let text = Self.extra["bikes/loaner.yaml"]!
        switch change {
        case "stale":
            try garage.write("bikes/loaner.yaml", text.replacingOccurrences(of: "Loaner", with: "Loaner Two") + "  - {date: 2026-04-01, done: [chain-lube]}\n")
        case "replaced":
            // What an editor or a write does: a new file renamed over the old one.
            try AtomicFile.write(Array(text.replacingOccurrences(of: "Loaner", with: "Lender").utf8), to: path)
        default:
            // Only the change time tells: same size, same inode, the old modification time.
            let before = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as! Date
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.write(contentsOf: Data(text.replacingOccurrences(of: "Loaner", with: "Lender").utf8))
            try handle.close()
            try FileManager.default.setAttributes([.modificationDate: before], ofItemAtPath: path)
        }
        let got = try Self.outputs(garage) { try Self.put(old, in: garage) }
        #expect(got[0].contains(change == "stale" ? "Loaner Two" : "Lender"), "\(got[0])")
        expectSame(got, try Self.outputs(garage, bypass: true), change)
        #expect(try Self.entries(garage) != old, "the stale entry was made anew")
    }
}
