import BikeCheckKit
import Foundation
import StravaStandIn
import TestSupport
import Testing

/// Many syncs against a changing stand-in, with faults injected and processes killed at random:
/// no round may lose an activity that is still on Strava or leave a cache file half-written, and
/// a final full sync must leave the cache equal to the server's set. A few rounds in every run;
/// `BIKECHECK_SOAK=1 swift test --filter soak` for 60 (`BIKECHECK_SOAK=N` for N, `BIKECHECK_SOAK_SEED`).
@Suite(.serialized) struct StravaSyncSoakTests {
    /// Runs the binary and kills it with SIGKILL after `killAfter` seconds unless it ended first.
    func run(_ world: StravaWorld, _ arguments: [String], killAfter: TimeInterval?) async throws -> (status: Int32, killed: Bool) {
        let env = await world.environment
        let process = Process()
        process.executableURL = bikecheckBinary
        process.arguments = arguments
        process.currentDirectoryURL = world.garage.root
        process.environment = ProcessInfo.processInfo.environment.merging(env) { _, new in new }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let started = Date()
        var killed = false
        while process.isRunning {
            if let killAfter, Date().timeIntervalSince(started) >= killAfter {
                kill(process.processIdentifier, SIGKILL)
                killed = true
                break
            }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        await withCheckedContinuation { c in
            DispatchQueue.global().async {
                process.waitUntilExit(); c.resume()
            }
        }
        return (process.terminationStatus, killed)
    }

    @Test func soakSyncsWithFaultsAndKillsLoseNothingAndEndEqualToTheServer() async throws {
        let rounds = Soak.rounds(quick: 4, long: 60)
        let seed = Soak.seed
        var random = SeededGenerator(seed: seed)
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        var server = StandInActivity.generate(count: 3_000)
        await world.server.setActivities(server)
        try await world.login()
        let roomy = (1_000_000, 10_000_000)
        await world.server.setRateLimit(limit: roomy, readLimit: roomy, usage: (0, 0), readUsage: (0, 0))
        var nextID: Int64 = 9_500_000_000
        var figures = (kills: 0, faults: 0, stopped: 0, added: 0, removed: 0, changed: 0, fullSyncs: 0)

        for round in 0..<rounds {
            let cachedBefore = Set(ActivityCacheLoader.load(root: world.garage.path).activities.map(\.id))
            // The rider's changes on Strava: some new rides, some deleted, some with other gear.
            for _ in 0..<random.next(30) {
                let newest = server.map(\.start).max() ?? 1_763_600_000
                let start = random.next(3) == 0 ? newest + Int64(random.next(86_400)) : newest - Int64(random.next(3_000 * 86_400))
                server.append(
                    StandInActivity(
                        id: nextID, name: "Soak \(nextID)", sportType: "Ride", start: start, movingTime: 3600,
                        elapsedTime: 3700, distance: 25_000, gearID: "b1001"))
                nextID += 1
                figures.added += 1
            }
            for _ in 0..<random.next(30) where !server.isEmpty {
                server.remove(at: random.next(server.count))
                figures.removed += 1
            }
            for _ in 0..<random.next(10) where !server.isEmpty {
                let i = random.next(server.count)
                server[i].gearID = server[i].gearID == "b1001" ? "b1002" : "b1001"
                figures.changed += 1
            }
            await world.server.setActivities(server)
            await world.server.resetCounts()
            // A fault in this round's listing (or none).
            let n = 1 + random.next(16)
            switch random.next(7) {
            case 0: await world.server.inject(status: 503, onRequest: n, to: "/api/v3/athlete/activities")
            case 1: await world.server.inject(status: 429, onRequest: n, to: "/api/v3/athlete/activities")
            case 2: await world.server.answerListing(onRequest: n, with: "[]")
            case 3: await world.server.answerListing(onRequest: n, with: #"[{"id":1,"start_date":"2020-01-01T00:00:00Z","moving_time":"abc"}]"#)
            case 4:
                let doomed = Set((0..<random.next(40)).compactMap { _ in server.isEmpty ? nil : server[random.next(server.count)].id })
                server.removeAll { doomed.contains($0.id) }
                figures.removed += doomed.count
                await world.server.changeActivities(beforeRequest: n) { $0.removeAll { doomed.contains($0.id) } }
            default: break
            }
            figures.faults += 1
            let full = random.next(3) == 0
            if full { figures.fullSyncs += 1 }
            let killAfter: TimeInterval? = random.next(2) == 0 ? Double(random.next(400)) / 1000 : nil
            // An injected 429 stops the sync (--max-wait 0), as a fault should.
            let r = try await run(world, (full ? ["sync", "--full"] : ["sync"]) + ["--max-wait", "0"], killAfter: killAfter)
            if r.killed { figures.kills += 1 } else if r.status != 0 { figures.stopped += 1 }
            // A fault that did not fire this round may fire in a later one: so much the better.

            let loaded = ActivityCacheLoader.load(root: world.garage.path)
            #expect(loaded.diagnostics.filter { $0.severity == .error }.isEmpty, "round \(round) (seed \(seed)): \(loaded.diagnostics.prefix(3))")
            let cachedAfter = Set(loaded.activities.map(\.id))
            let onServer = Set(server.map(\.id))
            let lost = cachedBefore.intersection(onServer).subtracting(cachedAfter)
            #expect(lost.isEmpty, "round \(round) (seed \(seed)): \(lost.count) activities still on Strava were deleted from the cache")
        }

        // No more faults: full syncs (resuming or not) end with the cache equal to the server's set.
        // Status faults still pending fire at most once each.
        await world.server.setActivities(server)
        await world.server.clearListingFaults()
        var last = try await world.run(["sync", "--full"])
        for _ in 0..<8 where last.status != 0 || last.stdout.contains("deleted nothing") || last.stdout.contains("resumed a full listing") {
            await world.server.resetCounts()
            last = try await world.run(["sync", "--full"])
        }
        #expect(last.status == 0, "\(last.stderr)")
        let cache = world.cachedActivities()
        #expect(Set(cache.map(\.id)) == Set(server.map(\.id)), "seed \(seed): \(last.stdout)")
        let gearByID = Dictionary(uniqueKeysWithValues: server.map { ($0.id, $0.gearID) })
        #expect(cache.allSatisfy { gearByID[$0.id] == $0.gearID }, "seed \(seed)")
        Soak.report(
            "seed \(seed): \(rounds) rounds, \(figures.kills) kills, \(figures.stopped) syncs stopped by a fault, \(figures.fullSyncs) full; on Strava \(figures.added) added, \(figures.removed) deleted, \(figures.changed) gear changes; final cache \(cache.count) = server \(server.count)"
        )
    }
}
