import BikeCheckKit
import Foundation
@testable import StravaKit
import StravaStandIn
import Testing

/// The sync's listing and deletion rules, in process against the stand-in.
@Suite(.serialized) struct StravaSyncTests {
    /// A logged-in client, an empty garage, and the stand-in; all removed afterwards.
    func withSync(_ body: (StravaStandIn, StravaClient, String) async throws -> Void) async throws {
        let server = StravaStandIn()
        try await server.start()
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("sync-config-\(UUID().uuidString)").path
        let garage = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: garage, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(atPath: garage)
            try? FileManager.default.removeItem(atPath: config)
        }
        let settings = StravaSettings(
            baseURL: URL(string: await server.baseURL)!, configDirectory: config,
            clientID: await server.clientID, clientSecret: await server.clientSecret,
            retryBaseMilliseconds: 1, maxAttempts: 2)
        let client = StravaClient(settings: settings)
        await server.authorize(code: "c")
        nonisolated(unsafe) let c = client
        _ = try await blocking { try c.exchange(code: "c", grantedScope: nil) }
        try await body(server, client, garage)
        await server.stop()
    }

    func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { c in DispatchQueue.global().async { c.resume(with: Result { try work() }) } }
    }

    func sync(_ client: StravaClient, _ garage: String, full: Bool, maxDelete: Int? = nil) async throws -> SyncSummary {
        nonisolated(unsafe) let c = client
        return try await blocking {
            let sync = StravaSync(garageRoot: garage, client: c, bikeFiles: [:])
            sync.maxDelete = maxDelete
            return try sync.run(full: full)
        }
    }

    func ride(_ id: Int64, at start: Int64) -> StandInActivity {
        StandInActivity(id: id, name: "Ride \(id)", sportType: "Ride", start: start, movingTime: 3600, elapsedTime: 3700, distance: 30_000)
    }

    @Test func aCompletedSyncNotesItselfAndOneThatStoppedDoesNot() async throws {
        try await withSync { server, client, garage in
            await server.setActivities([ride(1, at: 1_760_000_000)])
            #expect(LastSync.read(garage: garage) == nil)
            _ = try await sync(client, garage, full: false)
            let noted = try #require(LastSync.read(garage: garage), "the sync itself notes when it finished")
            #expect(abs(noted.timeIntervalSinceNow) < 120)

            try FileManager.default.removeItem(atPath: garage + "/.bikecheck/last-sync.json")
            await server.setActivities((1...250).map { ride(Int64($0), at: 1_760_000_000) })
            await #expect(throws: StravaError.self) { try await sync(client, garage, full: true) }
            #expect(LastSync.read(garage: garage) == nil, "a sync that stopped is not noted")
        }
    }

    @Test func moreActivitiesInOneSecondThanAPageHoldsStopTheListingWithoutDeleting() async throws {
        try await withSync { server, client, garage in
            let crowd = (1...250).map { ride(Int64($0), at: 1_760_000_000) }
            await server.setActivities(crowd + [ride(999, at: 1_750_000_000)])
            let error = await #expect(throws: StravaError.self) { try await sync(client, garage, full: true) }
            #expect(
                "\(error.map { "\($0)" } ?? "")".contains(
                    "more than 200 activities start at 2025-10-09T08:53:20Z; the listing cannot go past them; stopped, and deleted nothing"))
            #expect(ActivityCacheStore(garageRoot: garage).count == 200, "what was fetched is kept")
            #expect(SyncState.load(garage: garage).state.pending == nil, "the next run starts over instead of meeting the same wall")
        }
    }

    @Test(arguments: [
        ("[A,C,B]", "the activities Strava listed are not newest first (activity 2 at position 3)"),
        ("[D]", "after the 'before'"),
    ])
    func aPageOutOfOrderOrOutsideItsFilterStopsWithoutDeleting(shape: String, message: String) async throws {
        try await withSync { server, client, garage in
            let a = ride(3, at: 1_760_300_000), b = ride(2, at: 1_760_200_000), c = ride(1, at: 1_760_100_000)
            await server.setActivities((10...209).map { ride(Int64($0), at: 1_770_000_000 + Int64($0)) } + [a, b, c])
            let first = try await sync(client, garage, full: true)
            #expect(first.total.new == 203)
            let json = { (r: StandInActivity) -> String in
                #"{"id":\#(r.id),"start_date":"\#(r.startDate)","sport_type":"Ride","moving_time":1,"elapsed_time":1,"distance":1}"#
            }
            let d = ride(4, at: 1_780_000_000)
            let body =
                "["
                + shape.dropFirst().dropLast().split(separator: ",").map { ["A": json(a), "B": json(b), "C": json(c), "D": json(d)][String($0)]! }.joined(
                    separator: ",") + "]"
            await server.resetCounts()
            await server.answerListing(onRequest: 2, with: body)
            let error = await #expect(throws: StravaError.self) { try await sync(client, garage, full: true) }
            let text = error.map { "\($0)" } ?? ""
            #expect(text.contains(message) && text.hasSuffix("stopped, and deleted nothing"), "\(text)")
            #expect(ActivityCacheStore(garageRoot: garage).count == 203)
            #expect(await server.detailRequests.isEmpty)
        }
    }

    @Test func deletionsAreConfirmedOnTwentyCandidatesSpreadEvenly() async throws {
        try await withSync { server, client, garage in
            let all = (0..<120).map { ride(Int64(1000 + $0), at: 1_700_000_000 + Int64($0) * 86_400) }
            await server.setActivities(all)
            #expect(try await sync(client, garage, full: true).total.new == 120)
            // 100 deleted on Strava: the candidates, oldest first, are ids 1000…1099.
            await server.setActivities(Array(all.suffix(20)))
            await server.resetCounts()
            let summary = try await sync(client, garage, full: true, maxDelete: 100)
            #expect(summary.total.deleted == 100)
            #expect(summary.deletionsHeldBack == nil)
            let expected = (0..<20).map { Int64(1000 + $0 * 99 / 19) }
            #expect(await server.detailRequests == expected)
            #expect(ActivityCacheStore(garageRoot: garage).ids == Set(all.suffix(20).map(\.id)))
        }
    }

    @Test func aResumedFullSyncDeletesOnlyInsideTheSpanItListed() async throws {
        try await withSync { server, client, garage in
            let all = (0..<10).map { ride(Int64(500 + $0), at: 1_700_000_000 + Int64($0) * 86_400) }
            await server.setActivities(all)
            _ = try await sync(client, garage, full: true)
            // A full listing stopped at the cursor before all[5]; all[2] and all[8] are gone on Strava since.
            let cursor = all[5].start + 1
            try SyncState(pending: .init(mode: .full, before: cursor)).save(garage: garage)
            await server.setActivities(all.filter { $0.id != all[2].id && $0.id != all[8].id })
            await server.resetCounts()
            let summary = try await sync(client, garage, full: false)
            #expect(summary.full)
            #expect(summary.total.deleted == 1, "only the one before the cursor")
            #expect(summary.resumedBefore == cursor)
            #expect(
                summary.line.contains(
                    "resumed a full listing that had stopped, so deletions were checked only for activities before \(StravaSync.utc(cursor)) (run 'bikecheck sync --full' again for the rest)"
                ), "\(summary.line)")
            #expect(await server.log.first { $0.path == "/api/v3/athlete/activities" }?.query["before"] == String(cursor))
            let ids = ActivityCacheStore(garageRoot: garage).ids
            #expect(!ids.contains(all[2].id))
            #expect(ids.contains(all[8].id), "outside the span this run listed: kept until a full sync lists it")
            #expect(try await sync(client, garage, full: true).total.deleted == 1)
            #expect(!ActivityCacheStore(garageRoot: garage).ids.contains(all[8].id))
        }
    }

    @Test func anIncrementalSyncAfterACachedStartAheadOfTheClockStillAsksForThePast() async throws {
        try await withSync { server, client, garage in
            let now = Int64(Date().timeIntervalSince1970)
            await server.setActivities([ride(1, at: now - 86_400), ride(2, at: now + 30 * 86_400)])
            _ = try await sync(client, garage, full: true)
            await server.resetCounts()
            _ = try await sync(client, garage, full: false)
            let after = try #require(await server.log.first { $0.path == "/api/v3/athlete/activities" }?.query["after"].flatMap { Int64($0) })
            #expect(after <= now - StravaSync.overlap + 5, "Strava refuses an 'after' in the future")
        }
    }
}

@Suite struct SyncStateTests {
    func garage(_ state: String?) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/.bikecheck", withIntermediateDirectories: true)
        if let state { try Data(state.utf8).write(to: URL(fileURLWithPath: dir + "/.bikecheck/strava-sync.json")) }
        return dir
    }

    let now = Date(timeIntervalSince1970: 1_763_600_000)

    @Test func aStateThisBikecheckWroteIsReadBackAsWritten() throws {
        let dir = try garage(nil)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let nothing = SyncState.load(garage: dir, now: now)
        #expect(nothing.state == SyncState() && nothing.warning == nil)
        let state = SyncState(
            pending: .init(mode: .incremental, after: 1_763_000_000, before: 1_763_500_000),
            gear: ["b1003": StravaGear(id: "b1003", name: "Old Allez", retired: true), "b77": nil])
        try state.save(garage: dir)
        let loaded = SyncState.load(garage: dir, now: now)
        #expect(loaded.state == state)
        #expect(loaded.warning == nil)
    }

    @Test(arguments: [
        (#"{"pending":{"mode":"incremental","after":1763000000,"before":1763000000}}"#, "'before' 1763000000 is not after 'after' 1763000000"),
        (#"{"pending":{"mode":"incremental"}}"#, "an incremental listing without 'after'"),
        (#"{"pending":{"mode":"full","after":5}}"#, "a full listing with 'after' 5"),
        (#"{"pending":{"mode":"full","before":"soon"}}"#, "unexpected value at 'pending.before'"),
        (#"{"pending":{"mode":"full","before":1900000000}}"#, "'before' 1900000000 is not between 1970 and two years from now"),
        (#"{"pending":{"before":1}}"#, "missing field 'pending.mode'"),
        (#"{"gear":{"g2001":null}}"#, "gear id 'g2001' is not a Strava bike id"),
        (#"{"gear":{"b1\u001b[31m":null}}"#, "gear id (a value of 7 bytes with unusual characters) is not a Strava bike id"),
        (#"{"extra":1}"#, "unknown field 'extra'"),
        ("", "not valid JSON"),
    ])
    func anImplausibleStateIsDiscardedSayingWhy(text: String, reason: String) throws {
        let dir = try garage(text)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let loaded = SyncState.load(garage: dir, now: now)
        #expect(loaded.state == SyncState())
        #expect(
            loaded.warning?.message
                == "ignored the sync state in .bikecheck/strava-sync.json (\(reason)); the listing starts over and the activity cache is kept")
    }
}
