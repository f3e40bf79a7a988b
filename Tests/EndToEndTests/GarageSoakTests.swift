import BikeCheckKit
import Foundation
import StravaStandIn
import TestSupport
import Testing

/// Random kills and faults across syncs and writes running at the same time, with the real
/// binary, real processes and the stand-in Strava. Every run of the suite does a few rounds;
/// `BIKECHECK_SOAK=1 swift test --filter GarageSoak` does 200 (`BIKECHECK_SOAK=N` for N). At the
/// end the cache must hold exactly what Strava has, and every write must either be in its file or
/// have been reported as failed (a killed write may be either; a half-written file never).
@Suite(.serialized) struct GarageSoakTests {
    static var rounds: Int { Soak.rounds(quick: 4, long: 200) }

    static let bike = """
        # yaml-language-server: $schema=../schemas/bike.schema.json
        name: Canyon Grail   # a comment that must survive every write
        strava: b1001
        bought: 2024-01-01
        intervals:
          chain-lube:
            task: Lube the chain
            every: 10 h
        log: []
        """ + "\n"

    @Test func killsAndFaultsAcrossSyncsAndWritesLoseNothing() async throws {
        let world = try await StravaWorld(garageFiles: ["bikes/grail.yaml": Self.bike, "rides.yaml": "rides: []\n"])
        defer { Task { await world.stop() } }
        let seed = Soak.seed
        var random = SeededGenerator(seed: seed)
        var serverActivities = StandInActivity.generate(count: 900)
        await world.server.setActivities(serverActivities)
        await world.server.setBikes(athlete: StravaEndToEndTests.bikes, all: StravaEndToEndTests.bikes)
        try await world.login()
        var nextID: Int64 = 9_100_000_000
        var stats = (syncs: 0, killedSyncs: 0, failedSyncs: 0, writes: 0, killedWrites: 0, failedWrites: 0, faults: 0)
        /// Notes the writes said they made; each must be in its file at the end.
        var confirmed: [String] = []
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
            let sync = try Spawned(["sync"] + (full ? ["--full"] : []), in: world.garage.root, environment: environment)
            var writes: [(note: String, process: Spawned)] = []
            for k in 0..<2 {
                let note = "soak \(round).\(k)"
                // A day of its own for each write: one service a day is all `done` records.
                let date = Day(ordinal: Day("2025-01-01")!.ordinal + 2 * round + k).description
                let arguments =
                    round % 2 == 0
                    ? ["done", "grail", "chain-lube", "--date", date, "--note", note]
                    : ["ride", "add", "grail", "--date", date, "--time", "1h", "--name", note]
                writes.append((note, try Spawned(arguments, in: world.garage.root, environment: environment)))
            }
            if random.next(3) == 0 { sync.kill(afterMilliseconds: random.next(400)) }
            for w in writes where random.next(4) == 0 { w.process.kill(afterMilliseconds: random.next(150)) }
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
            for output in outputs {
                #expect(!output.contains("Fatal error") && !output.contains("Illegal instruction"), "\(output)")
            }

            // Whatever was killed, every file is whole: the garage validates.
            let validate = try world.garage.run(["validate", "--garage", world.garage.path])
            #expect(validate.status == 0, "round \(round): \(validate.stderr)")
        }

        // A last sync with no faults: the cache is exactly Strava's set, with Strava's gear.
        await world.server.resetCounts()
        await world.server.setRateLimit(limit: (600, 30_000), readLimit: (300, 30_000), usage: (0, 0), readUsage: (0, 0))
        let last = try await world.run(["sync", "--full"])
        #expect(last.status == 0, "the last sync failed: \(last.stderr.suffix(600))")
        let cached = Dictionary(world.cachedActivities().map { ($0.id, $0.gearID) }, uniquingKeysWith: { a, _ in a })
        let expected = Dictionary(serverActivities.filter { !$0.malformed }.map { ($0.id, $0.gearID) }, uniquingKeysWith: { a, _ in a })
        let missing = expected.keys.filter { cached[$0] == nil }.sorted()
        let extra = cached.keys.filter { expected[$0] == nil }.sorted()
        let wrongGear = expected.keys.filter { cached[$0] != nil && cached[$0]! != expected[$0]! }.sorted()
        #expect(
            missing.isEmpty && extra.isEmpty && wrongGear.isEmpty,
            "the cache differs from Strava's \(expected.count): \(missing.count) missing \(missing.prefix(5)), \(extra.count) extra \(extra.prefix(5)), \(wrongGear.count) with the wrong gear"
        )

        // Every write that said it was done is in its file.
        let files = try world.garage.read("bikes/grail.yaml") + world.garage.read("rides.yaml")
        let lost = confirmed.filter { !files.contains($0) }
        #expect(lost.isEmpty, "\(lost.count) of \(confirmed.count) writes were reported done but are not in the garage: \(lost.prefix(5))")
        #expect(try world.garage.read("bikes/grail.yaml").contains("# a comment that must survive every write"))

        Soak.report(
            "seed \(seed): \(Self.rounds) rounds in \(Int(Date().timeIntervalSince(started))) s: \(stats.syncs) syncs (\(stats.killedSyncs) killed, "
                + "\(stats.failedSyncs) stopped by a fault), \(stats.writes) writes (\(stats.killedWrites) killed, \(stats.failedWrites) refused), "
                + "\(stats.faults) faults injected; \(confirmed.count) confirmed writes all present; cache = Strava's \(expected.count) activities")
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
