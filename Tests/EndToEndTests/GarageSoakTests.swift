import BikeCheckKit
import Foundation
import StravaStandIn
import TestSupport
import Testing

/// Random kills and faults across syncs, writes, `notify` and `template update` running at the
/// same time, with the real binary, real processes, the stand-in Strava, a webhook receiver on
/// loopback and a club's template repository in git. Every run of the suite does a few rounds;
/// `BIKECHECK_SOAK=1 swift test --filter GarageSoak` does 200 (`BIKECHECK_SOAK=N` for N). At the
/// end the cache must hold exactly what Strava has, and every write must either be in its file or
/// have been reported as failed (a killed write may be either; a half-written file never); the
/// notify state is always valid JSON, and the template never falls behind an update that said
/// it was done.
@Suite(.serialized) struct GarageSoakTests {
    static var rounds: Int { Soak.rounds(quick: 4, long: 200) }

    static let bike = """
        # yaml-language-server: $schema=../schemas/bike.schema.json
        name: Canyon Grail   # a comment that must survive every write
        strava: b1001
        bought: 2020-01-01
        intervals:
          chain-lube:
            task: Lube the chain
            every: 10 h
        log: []
        """ + "\n"

    /// The club's template at `version`: only its description changes, so every update merges.
    static func template(_ version: Int) -> String {
        "name: Soak template\ndescription: version \(version)\nintervals:\n  wash:\n    task: Wash the bike\n    every: 1 week\n"
    }

    /// The version in the garage's copy of the club's template.
    static func templateVersion(_ text: String) -> Int? {
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("description: version ") }
        guard lines.count == 1 else { return nil }
        return Int(lines[0].dropFirst("description: version ".count))
    }

    @Test func killsAndFaultsAcrossSyncsWritesNotifyAndTemplateUpdatesLoseNothing() async throws {
        let receiver = NotifyReceiver()
        try await receiver.start()
        let hooks = await receiver.baseURL + "/hooks/soak"
        let world = try await StravaWorld(garageFiles: [
            "garage.yaml": "name: Test garage\nnotify:\n  webhook: {url: \(hooks)}\n  repeat: 7 days\n",
            "bikes/grail.yaml": Self.bike, "rides.yaml": "rides: []\n",
        ])
        defer {
            Task {
                await world.stop(); await receiver.stop()
            }
        }
        let club = try Club()
        try club.publish(["templates/soak.yaml": Self.template(0)])
        let imported = try world.garage.run(["template", "import", club.bare.path, "soak", "--garage", world.garage.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let notifyState = world.garage.path + "/.bikecheck/notify-state.json"
        let seed = Soak.seed
        var random = SeededGenerator(seed: seed)
        var serverActivities = StandInActivity.generate(count: 900)
        await world.server.setActivities(serverActivities)
        await world.server.setBikes(athlete: StravaEndToEndTests.bikes, all: StravaEndToEndTests.bikes)
        try await world.login()
        var nextID: Int64 = 9_100_000_000
        var stats = (syncs: 0, killedSyncs: 0, failedSyncs: 0, writes: 0, killedWrites: 0, failedWrites: 0, faults: 0)
        var others = (notifies: 0, killedNotifies: 0, failedNotifies: 0, updates: 0, killedUpdates: 0, refusedUpdates: 0)
        var fileRuns = (imports: 0, killedImports: 0, refusedImports: 0, merges: 0, killedMerges: 0, mergedWhole: 0)
        /// Names of the rides `import files` said it imported: each must be in the cache at the end.
        var confirmedImports: [String] = []
        let merges = try TemporaryFolder()
        /// Notes the writes said they made; each must be in its file at the end.
        var confirmed: [String] = []
        /// The newest template version an update said it brought in: the copy never goes back before it.
        var confirmedVersion = 0
        let environment = await world.environment
        let started = Date()

        for round in 0..<Self.rounds {
            // Strava changes between syncs: new rides, deleted ones, gear moved.
            for _ in 0..<random.next(4) {
                let base = serverActivities[random.next(serverActivities.count)]
                var fresh = base
                fresh.id = nextID
                nextID += 1
                fresh.start += Int64(random.next(86_400 * 30))
                serverActivities.append(fresh)
            }
            for _ in 0..<random.next(3) where !serverActivities.isEmpty { serverActivities.remove(at: random.next(serverActivities.count)) }
            if random.next(3) == 0, !serverActivities.isEmpty {
                let k = random.next(serverActivities.count)
                serverActivities[k].gearID = serverActivities[k].gearID == "b1001" ? "b1002" : "b1001"
            }
            await world.server.setActivities(serverActivities)
            await world.server.resetCounts()
            // A fresh rate-limit window each round: 429s come from the injected faults.
            await world.server.setRateLimit(limit: (600, 30_000), readLimit: (300, 30_000), usage: (0, 0), readUsage: (0, 0))

            // A fault on some request of this round.
            if random.next(2) == 0 {
                let status = [500, 502, 503, 429][random.next(4)]
                await world.server.inject(status: status, onRequest: 1 + random.next(4), to: "/api/v3/athlete/activities")
                stats.faults += 1
            }

            // A sync and two writes to one file at the same time, any of them killed at a random moment.
            let full = random.next(3) == 0
            let sync = try Spawned(["sync", "--max-wait", "0"] + (full ? ["--full"] : []), in: world.garage.root, environment: environment)
            var writes: [(note: String, process: Spawned)] = []
            for k in 0..<2 {
                let note = "soak \(round).\(k)"
                // A day of its own for each write: one service a day is all `done` records.
                // From 2020, so that 500 rounds' days are all past (a future day is refused).
                let date = Day(ordinal: Day("2020-01-01")!.ordinal + 2 * round + k).description
                let arguments =
                    round % 2 == 0
                    ? ["done", "grail", "chain-lube", "--date", date, "--note", note]
                    : ["ride", "add", "grail", "--date", date, "--time", "1h", "--name", note]
                writes.append((note, try Spawned(arguments, in: world.garage.root, environment: environment)))
            }
            // The club publishes a new version; an update and a notify (a week later each round) run too.
            try club.publish(["templates/soak.yaml": Self.template(round + 1)], message: "version \(round + 1)")
            let update = try Spawned(["template", "update", "soak"], in: world.garage.root, environment: environment)
            let asOf = Day(ordinal: Day("2026-01-01")!.ordinal + 8 * round).description
            let notify = try Spawned(["notify", "--as-of", asOf], in: world.garage.root, environment: environment)
            if random.next(3) == 0 { sync.kill(afterMilliseconds: random.next(400)) }
            for w in writes where random.next(4) == 0 { w.process.kill(afterMilliseconds: random.next(150)) }
            if random.next(3) == 0 { update.kill(afterMilliseconds: random.next(400)) }
            if random.next(3) == 0 { notify.kill(afterMilliseconds: random.next(300)) }
            // A ride file imported (a day of its own, years from any Strava ride) and a merge through
            // the merge driver (as git runs it), each killed now and then.
            let ride = "soak-import-\(round)"
            let start = Day(ordinal: Day("2031-01-01")!.ordinal + round).description
            try world.garage.write(
                "incoming/\(ride).gpx",
                "<?xml version=\"1.0\"?>\n<gpx><trk><type>cycling</type><trkseg>\n"
                    + (0..<3).map { "<trkpt lat=\"47.\($0)\" lon=\"8.0\"><ele>400</ele><time>\(start)T08:0\($0):00Z</time></trkpt>\n" }.joined()
                    + "</trkseg></trk></gpx>\n")
            let importing = try Spawned(["import", "files", "incoming/\(ride).gpx", "--bike", "grail"], in: world.garage.root, environment: environment)
            let mergeBase = "name: Merged\nbought: 2024-01-01\nintervals:\n  chain-lube:\n    every: 10 h\nlog:\n  - date: 2025-01-01\n    done: [chain-lube]\n"
            let (ours, theirs) = ("merge ours \(round)", "merge theirs \(round)")
            let oursText = mergeBase + "  - date: 2025-02-01\n    done: [chain-lube]\n    note: \(ours)\n"
            for (name, text) in [
                ("base", mergeBase), ("ours", oursText), ("theirs", mergeBase + "  - date: 2025-03-01\n    done: [chain-lube]\n    note: \(theirs)\n"),
            ] {
                try merges.write("\(round)/\(name)", text)
            }
            let folder = merges.path + "/\(round)/"
            let merge = try Spawned(
                ["git", "merge-driver", folder + "base", folder + "ours", folder + "theirs", "bikes/merged.yaml"], in: merges.url, environment: environment)
            if random.next(3) == 0 { importing.kill(afterMilliseconds: random.next(300)) }
            if random.next(3) == 0 { merge.kill(afterMilliseconds: random.next(200)) }
            let imported = await importing.finish()
            fileRuns.imports += 1
            if imported.killed {
                fileRuns.killedImports += 1
            } else if imported.status == 0 {
                confirmedImports.append(ride)
            } else {
                fileRuns.refusedImports += 1
                #expect(imported.stderr.contains("error"), "a refused import says so: \(imported.stderr)")
            }
            let merged = await merge.finish()
            fileRuns.merges += 1
            if merged.killed { fileRuns.killedMerges += 1 } else { #expect(merged.status == 0, "round \(round): \(merged.stderr)") }
            // Killed or not, the merge's result is our file as it was, or the whole merge.
            let result = try merges.read("\(round)/ours")
            let whole = result.contains(ours) && result.contains(theirs)
            if whole { fileRuns.mergedWhole += 1 }
            #expect(result == oursText || whole, "round \(round): the merge left a partial file:\n\(result)")
            #expect(merged.killed || whole, "round \(round): a finished merge has both sides")
            let syncResult = await sync.finish()
            stats.syncs += 1
            if syncResult.killed { stats.killedSyncs += 1 } else if syncResult.status != 0 { stats.failedSyncs += 1 }
            var outputs = [syncResult.stdout + syncResult.stderr]
            for w in writes {
                let result = await w.process.finish()
                stats.writes += 1
                outputs.append(result.stdout + result.stderr)
                if result.killed {
                    stats.killedWrites += 1
                } else if result.status == 0 {
                    confirmed.append(w.note)
                } else {
                    stats.failedWrites += 1
                    #expect(result.stderr.contains("error"), "a failed write says so: \(result.stderr)")
                }
            }
            let updated = await update.finish()
            others.updates += 1
            outputs.append(updated.stdout + updated.stderr)
            if updated.killed {
                others.killedUpdates += 1
            } else if updated.status == 0 {
                confirmedVersion = round + 1
            } else {
                others.refusedUpdates += 1
                #expect(updated.stderr.contains("error"), "a refused update says so: \(updated.stderr)")
            }
            let notified = await notify.finish()
            others.notifies += 1
            outputs.append(notified.stdout + notified.stderr)
            if notified.killed { others.killedNotifies += 1 } else if notified.status != 0 { others.failedNotifies += 1 }
            for output in outputs {
                #expect(!output.contains("Fatal error") && !output.contains("Illegal instruction"), "\(output)")
            }

            // Whatever was killed: the notify state is whole JSON, and the template is one
            // version, never older than the last update that said it was done.
            if let state = FileManager.default.contents(atPath: notifyState) {
                #expect((try? JSONSerialization.jsonObject(with: state)) != nil, "round \(round): notify-state.json is not JSON")
            }
            let version = Self.templateVersion(try world.garage.read("templates/soak.yaml"))
            #expect(
                version != nil && version! >= confirmedVersion,
                "round \(round): template version \(version.map(String.init) ?? "?") after update to \(confirmedVersion) was done")

            // Whatever was killed, every file is whole: the garage validates.
            let validate = try world.garage.run(["validate", "--garage", world.garage.path])
            #expect(validate.status == 0, "round \(round): \(validate.stderr)")
        }

        // A last sync with no faults (a fault armed for a request the round never made is dropped):
        // the cache is exactly Strava's set, with Strava's gear.
        await world.server.clearInjectedFaults()
        await world.server.resetCounts()
        await world.server.setRateLimit(limit: (600, 30_000), readLimit: (300, 30_000), usage: (0, 0), readUsage: (0, 0))
        let last = try await world.run(["sync", "--full"])
        #expect(last.status == 0, "the last sync failed: \(last.stderr.suffix(600))")
        let cached = Dictionary(world.cachedActivities().map { ($0.id, $0.gearID) }, uniquingKeysWith: { a, _ in a })
        let expected = Dictionary(serverActivities.filter { !$0.malformed }.map { ($0.id, $0.gearID) }, uniquingKeysWith: { a, _ in a })
        let missing = expected.keys.filter { cached[$0] == nil }.sorted()
        // Rides imported from files stay (a sync never deletes them): they are not Strava's.
        let extra = cached.keys.filter { expected[$0] == nil && $0 < 1 << 62 }.sorted()
        let wrongGear = expected.keys.filter { cached[$0] != nil && cached[$0]! != expected[$0]! }.sorted()
        #expect(
            missing.isEmpty && extra.isEmpty && wrongGear.isEmpty,
            "the cache differs from Strava's \(expected.count): \(missing.count) missing \(missing.prefix(5)), \(extra.count) extra \(extra.prefix(5)), \(wrongGear.count) with the wrong gear"
        )

        // Every import that said it was done is in the cache.
        let names = Set(world.cachedActivities().map(\.name))
        let lostImports = confirmedImports.filter { !names.contains($0) }
        #expect(lostImports.isEmpty, "\(lostImports.count) of \(confirmedImports.count) imports were reported done but are not in the cache")

        // Nothing a killed run left stays after one more run: no scratch folder, no temporary file.
        _ = try world.garage.run(["status", "--garage", world.garage.path])
        let scratch = (try? FileManager.default.contentsOfDirectory(atPath: world.garage.path + "/.bikecheck/tmp")) ?? []
        #expect(scratch.isEmpty, "left in .bikecheck/tmp: \(scratch)")
        let litter = leftoverTemporaries(world.garage).filter { !$0.hasPrefix(".bikecheck/garage-cache") && !$0.hasPrefix(".bikecheck/activity-index") }
        #expect(litter.isEmpty, "left by killed runs: \(litter)")

        // Every write that said it was done is in its file.
        let files = try world.garage.read("bikes/grail.yaml") + world.garage.read("rides.yaml")
        let lost = confirmed.filter { !files.contains($0) }
        #expect(lost.isEmpty, "\(lost.count) of \(confirmed.count) writes were reported done but are not in the garage: \(lost.prefix(5))")
        #expect(try world.garage.read("bikes/grail.yaml").contains("# a comment that must survive every write"))

        // Every message the webhook received was whole JSON (a killed notify sends all of one or none of it).
        let messages = await receiver.requests(to: "/hooks/soak")
        let broken = messages.filter { (try? JSONSerialization.jsonObject(with: $0.body)) == nil }
        #expect(broken.isEmpty, "\(broken.count) of \(messages.count) webhook messages were not JSON")
        let finalVersion = Self.templateVersion(try world.garage.read("templates/soak.yaml")) ?? -1

        Soak.report(
            "seed \(seed): \(Self.rounds) rounds in \(Int(Date().timeIntervalSince(started))) s: \(stats.syncs) syncs (\(stats.killedSyncs) killed, "
                + "\(stats.failedSyncs) stopped by a fault), \(stats.writes) writes (\(stats.killedWrites) killed, \(stats.failedWrites) refused), "
                + "\(stats.faults) faults injected; \(confirmed.count) confirmed writes, \(lost.count) lost; cache = Strava's \(expected.count) activities "
                + "(\(missing.count) missing, \(extra.count) extra, \(wrongGear.count) wrong gear); \(others.notifies) notifies (\(others.killedNotifies) killed, "
                + "\(others.failedNotifies) failed), \(messages.count) webhook messages, all JSON: \(broken.isEmpty); \(others.updates) template updates "
                + "(\(others.killedUpdates) killed, \(others.refusedUpdates) refused), template at version \(finalVersion), last confirmed \(confirmedVersion)")
        let importFigures =
            "\(fileRuns.imports) imports (\(fileRuns.killedImports) killed, \(fileRuns.refusedImports) refused), "
            + "\(confirmedImports.count) confirmed, \(lostImports.count) lost"
        let mergeFigures = "\(fileRuns.merges) merges through the driver (\(fileRuns.killedMerges) killed), \(fileRuns.mergedWhole) whole, the rest untouched"
        Soak.report("seed \(seed): \(importFigures); \(mergeFigures); litter: \(scratch.count + litter.count)")
    }
}

/// A real `bikecheck` process that a test can kill at a chosen moment.
final class Spawned: @unchecked Sendable {
    let process = Process()
    let out: URL, err: URL
    private let lock = NSLock()
    private var wasKilled = false

    init(_ arguments: [String], in directory: URL, environment: [String: String]) throws {
        process.executableURL = bikecheckBinary
        process.arguments = arguments + ["--garage", directory.path]
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        env["NO_COLOR"] = "1"
        process.environment = env
        out = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-out-\(UUID().uuidString)")
        err = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        try? FileManager.default.removeItem(at: out)
        try? FileManager.default.removeItem(at: err)
    }

    /// SIGKILL after a delay, if it is still running then.
    func kill(afterMilliseconds ms: Int) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(ms)) { [self] in
            lock.lock()
            defer { lock.unlock() }
            if process.isRunning {
                wasKilled = true
                Foundation.kill(process.processIdentifier, SIGKILL)
            }
        }
    }

    /// Waits (off the cooperative pool, so the in-process stand-in keeps serving) for the end.
    func finish(timeout: TimeInterval = 60) async -> (status: Int32, killed: Bool, stdout: String, stderr: String) {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [self] in
                let deadline = Date().addingTimeInterval(timeout)
                while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
                if process.isRunning {
                    Foundation.kill(process.processIdentifier, SIGKILL)
                    Issue.record("bikecheck \(process.arguments ?? []) did not finish within \(timeout) s")
                }
                process.waitUntilExit()
                lock.lock()
                // A kill that landed after the process had exited on its own does not count.
                let killed = wasKilled && process.terminationReason == .uncaughtSignal
                lock.unlock()
                continuation.resume(
                    returning: (
                        process.terminationStatus, killed,
                        String(decoding: (try? Data(contentsOf: out)) ?? Data(), as: UTF8.self),
                        String(decoding: (try? Data(contentsOf: err)) ?? Data(), as: UTF8.self)
                    ))
            }
        }
    }
}
