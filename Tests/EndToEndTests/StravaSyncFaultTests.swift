import BikeCheckKit
import Foundation
import StravaStandIn
import TestSupport
import Testing

/// Faults a sync must survive without losing a cached activity: anomalous pages, deletions while
/// it pages, malformed fields, corrupt state, and month files or folders bikecheck did not write.
@Suite(.serialized) struct StravaSyncFaultTests {
    static let listPath = "/api/v3/athlete/activities"

    /// A world whose cache holds `count` activities, synced from the stand-in.
    func syncedWorld(_ count: Int, garageFiles: [String: String] = [:]) async throws -> (StravaWorld, [StandInActivity]) {
        let world = try await StravaWorld(garageFiles: garageFiles)
        let activities = StandInActivity.generate(count: count)
        await world.server.setActivities(activities)
        try await world.login()
        let first = try await world.run(["sync"])
        #expect(first.status == 0, "\(first.stderr)")
        await world.server.resetCounts()
        return (world, activities)
    }

    func monthFiles(_ world: StravaWorld) throws -> [String: String] {
        var out: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: world.garage.path + "/activities") {
            out[name] = try? world.garage.read("activities/" + name)
        }
        return out
    }

    @Test func aFullSyncWhosePage2IsEmptyDeletesNothingAndSaysWhy() async throws {
        let (world, activities) = try await syncedWorld(1_234)
        defer { Task { await world.stop() } }
        let before = try monthFiles(world)
        await world.server.answerListing(onRequest: 2, with: "[]")
        let r = try await world.run(["sync", "--full"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("0 new, 0 changed, 0 deleted"), "\(r.stdout)")
        let oldest = activities[0]
        #expect(
            r.stdout.contains(
                "deleted nothing: kept 1034 cached activities missing from the listing, as Strava still has activity \(oldest.id) (\(oldest.startDate)) though the listing left it out"
            ), "\(r.stdout)")
        #expect(world.cachedActivities().count == 1_234)
        #expect(try monthFiles(world) == before)
        // One look was enough to know the listing was wrong.
        #expect(await world.server.detailRequests == [oldest.id])

        // The same in JSON, for machines.
        await world.server.resetCounts()
        await world.server.answerListing(onRequest: 2, with: "[]")
        let json = try await world.run(["sync", "--full", "--format", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let held = try #require(object["deletions_held_back"] as? [String: Any])
        #expect(held["count"] as? Int == 1034)
        #expect((held["reason"] as? String)?.contains("Strava still has activity") == true)
        #expect(world.cachedActivities().count == 1_234)
    }

    @Test func aPageOfOneItemWithoutAReadableIDDeletesNothing() async throws {
        let (world, _) = try await syncedWorld(450)
        defer { Task { await world.stop() } }
        await world.server.answerListing(onRequest: 2, with: #"[{"name":"\#(String(repeating: "x", count: 100_000))","id":"not a number"}]"#)
        let r = try await world.run(["sync", "--full"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("skipped 1 activity that could not be read (left as cached)"), "\(r.stdout)")
        #expect(
            r.stdout.contains(
                "deleted nothing: kept 250 cached activities missing from the listing, as an activity Strava listed could not be read, not even its id"),
            "\(r.stdout)")
        #expect(await world.server.detailRequests.isEmpty)
        #expect(world.cachedActivities().count == 450)

        // With a readable id (of no cached activity) the short page still ends the listing; Strava's
        // answer for the oldest missing one shows the listing was not complete.
        await world.server.resetCounts()
        await world.server.answerListing(onRequest: 2, with: #"[{"id":17,"start_date":null}]"#)
        let withID = try await world.run(["sync", "--full"])
        #expect(withID.status == 0, "\(withID.stderr)")
        #expect(withID.stdout.contains("skipped 1 activity that could not be read (left as cached): 17"), "\(withID.stdout)")
        #expect(
            withID.stdout.contains("deleted nothing: kept 250 cached activities missing from the listing, as Strava still has activity"), "\(withID.stdout)")
        #expect(world.cachedActivities().count == 450)
    }

    @Test func activitiesDeletedBetweenPageRequestsHideNoOthersAndGoOnALaterFullSync() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        let activities = StandInActivity.generate(count: 1_000)
        await world.server.setActivities(activities)
        try await world.login()
        // While the first sync pages, the rider deletes every other one of the 200 newest (page 1, already listed).
        let newest = activities.sorted { $0.start > $1.start }.prefix(200)
        let early = Set(newest.enumerated().filter { $0.offset % 2 == 0 }.map(\.element.id))
        await world.server.changeActivities(beforeRequest: 3) { list in list.removeAll { early.contains($0.id) } }
        let first = try await world.run(["sync"])
        #expect(first.status == 0, "\(first.stderr)")
        var onServer = Set(activities.map(\.id)).subtracting(early)
        let cached = Set(world.cachedActivities().map(\.id))
        #expect(onServer.isSubset(of: cached), "\(onServer.subtracting(cached).count) activities still on Strava were never listed")
        #expect(cached.subtracting(onServer) == early, "listed before they were deleted")

        // A full sync during which the 50 oldest are deleted (before the listing reaches them)
        // removes those and the earlier ones, after Strava confirms them gone.
        await world.server.resetCounts()
        let late = Set(activities.prefix(50).map(\.id))
        await world.server.changeActivities(beforeRequest: 3) { list in list.removeAll { late.contains($0.id) } }
        // 150 of 1,000 is more than a full sync deletes unasked: the rider allows them.
        let full = try await world.run(["sync", "--full", "--max-delete", "150"])
        #expect(full.status == 0, "\(full.stderr)")
        #expect(full.stdout.contains("0 new, 0 changed, 150 deleted"), "\(full.stdout)")
        onServer.subtract(late)
        #expect(Set(world.cachedActivities().map(\.id)) == onServer)
        // 20 looks, spread over the 150 from the oldest to the newest.
        let asked = await world.server.detailRequests
        #expect(asked.count == 20)
        #expect(Set(asked).isSubset(of: early.union(late)))
        #expect(asked.first == activities[0].id)
        #expect(asked.last == newest.first?.id)
    }

    @Test func aFailedOrRefusedConfirmationKeepsTheCache() async throws {
        let (world, activities) = try await syncedWorld(30)
        defer { Task { await world.stop() } }
        let gone = activities[3]
        await world.server.update { $0.removeAll { $0.id == gone.id } }
        for n in 1...4 { await world.server.inject(status: 503, onRequest: n, to: "/api/v3/activities/\(gone.id)") }
        let down = try await world.run(["sync", "--full"])
        #expect(down.status == 0, "\(down.stderr)")
        #expect(
            down.stdout.contains(
                "deleted nothing: kept 1 cached activity missing from the listing, as Strava could not confirm that activity \(gone.id) is gone (Strava answered HTTP 503"
            ), "\(down.stdout)")
        #expect(world.cachedActivities().count == 30)

        // No budget left for the look: kept, and said so.
        await world.server.setRateLimit(limit: (200, 2000), readLimit: (100, 1000), usage: (0, 0), readUsage: (98, 500))
        let limited = try await world.run(["sync", "--full", "--max-wait", "0"])
        #expect(limited.status == 0, "\(limited.stderr)")
        #expect(
            limited.stdout.contains("as Strava could not confirm that activity \(gone.id) is gone (stopped at Strava's 15-minute rate limit"),
            "\(limited.stdout)")
        #expect(world.cachedActivities().count == 30)

        await world.server.setRateLimit(limit: (200, 2000), readLimit: (100, 1000), usage: (0, 0), readUsage: (0, 0))
        let fine = try await world.run(["sync", "--full"])
        #expect(fine.stdout.contains("0 new, 0 changed, 1 deleted"), "\(fine.stdout)")
        #expect(world.cachedActivities().count == 29)
    }

    // MARK: - Deletions on weak evidence

    @Test func aServerThatListsNothingAndAnswers404EmptiesNothingUntilTheRiderConfirms() async throws {
        let (world, activities) = try await syncedWorld(1_234)
        defer { Task { await world.stop() } }
        let before = try monthFiles(world)
        // A gateway or a token without activity:read_all: an empty listing, and 404 for every activity that exists.
        for a in activities { await world.server.answerDetail(of: a.id, with: 404) }
        for json in [false, true] {
            await world.server.resetCounts()
            await world.server.answerListing(onRequest: 1, with: "[]")
            let r = try await world.run(["sync", "--full"] + (json ? ["--format", "json"] : []))
            #expect(r.status == 1, "held-back deletions need the rider: \(r.stderr)")
            #expect(
                r.stderr.contains(
                    "warning: held back the deletion of 1234 cached activities Strava no longer lists (Strava listed no activities at all)\n  help: if they are really gone from Strava, delete them with: bikecheck sync --full --max-delete 1234"
                ), "\(r.stderr)")
            if json {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
                let held = try #require(object["deletions_held_back"] as? [String: Any])
                #expect(held["count"] as? Int == 1234)
                #expect(held["confirm_max_delete"] as? Int == 1234)
            } else {
                #expect(
                    r.stdout.contains(
                        "0 new, 0 changed, 0 deleted; deleted nothing: kept 1234 cached activities missing from the listing, as Strava listed no activities at all"
                    ),
                    "\(r.stdout)")
            }
            #expect(await world.server.detailRequests.count == 20, "the 404s were asked for, and were not enough")
            #expect(world.cachedActivities().count == 1_234)
            #expect(try monthFiles(world) == before)
        }

        // The rider deleted everything on Strava after all, and says so.
        await world.server.clearListingFaults()
        await world.server.setActivities([])
        let confirmed = try await world.run(["sync", "--full", "--max-delete", "1234"])
        #expect(confirmed.status == 0, "\(confirmed.stderr)")
        #expect(confirmed.stdout.contains("0 new, 0 changed, 1234 deleted"), "\(confirmed.stdout)")
        #expect(world.cachedActivities().isEmpty)
    }

    @Test func aFullSyncDeletesAFewUnaskedButHoldsBackMoreThanItsShare() async throws {
        let (world, activities) = try await syncedWorld(1_234)
        defer { Task { await world.stop() } }
        // Room for five full syncs in one rate-limit window.
        await world.server.setRateLimit(limit: (600, 30_000), readLimit: (300, 30_000), usage: (0, 0), readUsage: (0, 0))
        // 123 (10 % of 1,234) deleted on Strava: the rider is not asked.
        let few = Set(activities.shuffled().prefix(123).map(\.id))
        await world.server.update { $0.removeAll { few.contains($0.id) } }
        let small = try await world.run(["sync", "--full"])
        #expect(small.status == 0, "\(small.stderr)")
        #expect(small.stdout.contains("0 new, 0 changed, 123 deleted"), "\(small.stdout)")
        #expect(!small.stderr.contains("warning"), "\(small.stderr)")
        #expect(world.cachedActivities().count == 1_111)

        // 200 more of the 1,111 left: more than 111, so none go, and the rider is told how to confirm.
        let many = Set(activities.filter { !few.contains($0.id) }.shuffled().prefix(200).map(\.id))
        await world.server.update { $0.removeAll { many.contains($0.id) } }
        let before = try monthFiles(world)
        let held = try await world.run(["sync", "--full"])
        #expect(held.status == 1)
        #expect(
            held.stdout.contains(
                "0 deleted; deleted nothing: kept 200 cached activities missing from the listing, as a full sync deletes at most 111 unasked (10 % of the 1111 cached, at least 20)"
            ), "\(held.stdout)")
        #expect(held.stderr.contains("delete them with: bikecheck sync --full --max-delete 200"), "\(held.stderr)")
        #expect(try monthFiles(world) == before)

        // A limit below the count still holds them all; the count itself lets them go.
        let short = try await world.run(["sync", "--full", "--max-delete", "199"])
        #expect(short.status == 1)
        #expect(short.stdout.contains("kept 200 cached activities missing from the listing, as --max-delete allows 199"), "\(short.stdout)")
        #expect(world.cachedActivities().count == 1_111)
        let allowed = try await world.run(["sync", "--full", "--max-delete", "200"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowed.stdout.contains("0 new, 0 changed, 200 deleted"), "\(allowed.stdout)")
        #expect(Set(world.cachedActivities().map(\.id)) == Set(activities.map(\.id)).subtracting(few).subtracting(many))

        let negative = try await world.run(["sync", "--full", "--max-delete=-1"])
        #expect(negative.status == 2)
        #expect(negative.stderr.contains("--max-delete must be 0 or more, not -1"), "\(negative.stderr)")
    }

    // MARK: - Temporaries of a killed sync

    @Test func aKilledSyncsTemporaryMonthFileIsRemovedByTheNextAndTheRidersFilesAreNot() async throws {
        let (world, _) = try await syncedWorld(30)
        defer { Task { await world.stop() } }
        let folder = world.garage.path + "/activities"
        let stale = ".2025-10.json.bikecheck-Ab12Cd"
        let ridersOwn = [".notes.json.bikecheck-Ab12Cd", "notes.txt", ".2025-10.json.bak", ".2025-10.json.bikecheck-toolong1"]
        try world.garage.write("activities/" + stale, "[\n{\"commute\":false,\"dist")  // a write cut off by kill -9
        for name in ridersOwn { try world.garage.write("activities/" + name, "mine\n") }
        let outside = try TemporaryFolder(["target": "kept\n"])
        try FileManager.default.createSymbolicLink(atPath: folder + "/.2025-09.json.bikecheck-Zz99Yy", withDestinationPath: outside.path + "/target")

        // While another bikecheck holds the sync lock, nothing is removed: the temporary may be its own.
        let fd = open(world.garage.path + "/.bikecheck/sync.lock", O_RDWR | O_CREAT, 0o644)
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        let refused = try await world.run(["sync"])
        flock(fd, LOCK_UN)
        close(fd)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder + "/" + stale))

        let r = try await world.run(["sync"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/" + stale))
        for name in ridersOwn { #expect(try world.garage.read("activities/" + name) == "mine\n", "\(name)") }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder + "/.2025-09.json.bikecheck-Zz99Yy") == outside.path + "/target")
        #expect(try outside.read("target") == "kept\n")
        #expect(world.cachedActivities().count == 30)
    }

    /// A minimal SummaryActivity with one field replaced.
    static func activityJSON(_ a: StandInActivity, _ replace: (String, String)? = nil) -> String {
        let local = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(a.start + Int64(a.utcOffset))))
        var fields = [
            ("id", "\(a.id)"), ("name", "\"" + a.name.replacingOccurrences(of: "\"", with: "\\\"") + "\""),
            ("start_date_local", "\"\(local)\""), ("timezone", "\"\(a.timezone)\""), ("sport_type", "\"\(a.sportType)\""), ("type", "\"\(a.type)\""),
            ("start_date", "\"\(a.startDate)\""), ("moving_time", "\(a.movingTime)"), ("elapsed_time", "\(a.elapsedTime)"),
            ("distance", "\(a.distance)"), ("total_elevation_gain", "\(a.elevationGain)"),
            ("gear_id", a.gearID.map { "\"\($0)\"" } ?? "null"),
        ]
        if let replace, let i = fields.firstIndex(where: { $0.0 == replace.0 }) { fields[i].1 = replace.1 }
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    @Test func malformedFieldsFromStravaKeepTheCachedValues() async throws {
        let (world, activities) = try await syncedWorld(4)
        defer { Task { await world.stop() } }
        let before = try monthFiles(world)
        let cached = Dictionary(uniqueKeysWithValues: world.cachedActivities().map { ($0.id, $0) })
        let newestFirst = activities.sorted { $0.start > $1.start }
        let page =
            "["
            + [
                Self.activityJSON(newestFirst[0], ("moving_time", "\"abc\"")),
                Self.activityJSON(newestFirst[1], ("moving_time", "1e999")),
                Self.activityJSON(newestFirst[2], ("distance", "\"12 km\"")),
                Self.activityJSON(newestFirst[3]),
            ].joined(separator: ",") + "]"
        for full in [false, true] {
            await world.server.resetCounts()
            await world.server.answerListing(onRequest: 1, with: page)
            let r = try await world.run(full ? ["sync", "--full"] : ["sync"])
            #expect(r.status == 0, "\(r.stderr)")
            let ids = newestFirst.prefix(3).map(\.id).sorted().map(String.init).joined(separator: ", ")
            #expect(r.stdout.contains("0 new, 0 changed, 0 deleted; skipped 3 activities that could not be read (left as cached): \(ids)"), "\(r.stdout)")
            #expect(Dictionary(uniqueKeysWithValues: world.cachedActivities().map { ($0.id, $0) }) == cached)
            #expect(try monthFiles(world) == before)
        }
    }

    @Test(arguments: [
        ("not json at all {", "not valid JSON"),
        (#"{"pending":{"mode":"full","next_page":2,"seen":[]},"gear":{}}"#, "unknown field 'pending.next_page'"),
        (#"{"pending":{"mode":"full","next_page":6000,"seen":[1,2,3]},"gear":{}}"#, "unknown field 'pending.next_page'"),
        (#"{"pending":{"mode":"incremental","after":99999999999},"gear":{}}"#, "'after' 99999999999 is not between 1970 and now"),
        (#"{"pending":{"mode":"full","before":-5},"gear":{}}"#, "'before' -5 is not between 1970 and two years from now"),
        (#"{"pending":{"mode":"sideways"},"gear":{}}"#, "unexpected value at 'pending.mode'"),
        (#"{"pending":null,"gear":{"b1":{"id":"b2","name":"x"}}}"#, "gear 'b1' holds gear 'b2'"),
        (#"[1,2]"#, "unexpected value at the top level"),
    ])
    func aCorruptSyncStateIsDiscardedWithAWarningAndTheCacheKept(state: String, reason: String) async throws {
        let (world, activities) = try await syncedWorld(250)
        defer { Task { await world.stop() } }
        try world.garage.write(".bikecheck/strava-sync.json", state)
        let r = try await world.run(["sync"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stderr.contains(
                "warning: ignored the sync state in .bikecheck/strava-sync.json (\(reason)); the listing starts over and the activity cache is kept"),
            "\(r.stderr)")
        #expect(r.stdout.contains("0 deleted"), "\(r.stdout)")
        #expect(Set(world.cachedActivities().map(\.id)) == Set(activities.map(\.id)))
        // The next sync finds a good state and says nothing.
        let again = try await world.run(["sync"])
        #expect(again.status == 0 && again.stderr.isEmpty, "\(again.stderr)")
    }

    @Test func aSymlinkedActivitiesFolderIsRefusedAndNothingIsWrittenOrDeletedThroughIt() async throws {
        let world = try await StravaWorld()
        defer { Task { await world.stop() } }
        await world.server.setActivities(StandInActivity.generate(count: 20))
        try await world.login()
        let elsewhere = try TemporaryFolder(["2025-01.json": "[]\n", "2025-02.json": "my own\n", "notes.txt": "x\n"])
        try FileManager.default.createSymbolicLink(atPath: world.garage.path + "/activities", withDestinationPath: elsewhere.path)
        await world.server.resetCounts()
        for arguments in [["sync", "--full"], ["sync"]] {
            let r = try await world.run(arguments)
            #expect(r.status == 1)
            #expect(r.stderr.contains("cannot write 'activities': it is a symbolic link (to '\(elsewhere.path)')"), "\(r.stderr)")
            #expect(r.stderr.contains("replace the link with a folder"))
        }
        #expect(await world.server.totalRequests == 0, "refused before asking Strava")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).sorted() == ["2025-01.json", "2025-02.json", "notes.txt"])
        #expect(try elsewhere.read("2025-02.json") == "my own\n")
    }

    @Test func monthFilesItCannotReadOrThatAreLinksSurviveAFullSync() async throws {
        // Strava has activities in 2025-09, 2025-10 and 2025-11.
        let activities = StandInActivity.generate(count: 90, end: 1_764_000_000)
        let months = Set(activities.map { String($0.startDate.prefix(7)) })
        #expect(months.isSuperset(of: ["2025-09", "2025-10", "2025-11"]))
        let outside = try TemporaryFolder(["linked.json": "[]\n"])
        let world = try await StravaWorld(garageFiles: [
            "activities/2025-10.json": "[\n{\"id\": oops}\n]\n",
            "activities/notes.json": "my own notes\n",
            "activities/2025-08.json.bak": "a backup\n",
        ])
        defer { Task { await world.stop() } }
        try FileManager.default.createSymbolicLink(atPath: world.garage.path + "/activities/2025-11.json", withDestinationPath: outside.path + "/linked.json")
        // A month-named folder: a file that cannot be read.
        try FileManager.default.createDirectory(atPath: world.garage.path + "/activities/2025-07.json", withIntermediateDirectories: false)
        await world.server.setActivities(activities)
        try await world.login()
        for arguments in [["sync"], ["sync", "--full"]] {
            let r = try await world.run(arguments)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(
                r.stdout.contains(
                    "left alone activities/2025-07.json (it is not a regular file), activities/2025-10.json (it could not be read whole), activities/2025-11.json (it is a symbolic link)"
                ), "\(r.stdout)")
            #expect(r.stdout.contains("holding back"), "\(r.stdout)")
            #expect(r.stdout.contains("(fix or move such a file away, then run 'bikecheck sync --full')"))
            #expect(try world.garage.read("activities/2025-10.json") == "[\n{\"id\": oops}\n]\n")
            #expect(try world.garage.read("activities/notes.json") == "my own notes\n")
            #expect(try world.garage.read("activities/2025-08.json.bak") == "a backup\n")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: world.garage.path + "/activities/2025-11.json") == outside.path + "/linked.json")
            #expect(try outside.read("linked.json") == "[]\n")
            var isFolder: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: world.garage.path + "/activities/2025-07.json", isDirectory: &isFolder) && isFolder.boolValue)
        }
        let september = activities.filter { $0.startDate.hasPrefix("2025-09") }
        let loaded = ActivityCacheLoader.load(root: world.garage.path)
        #expect(Set(loaded.activities.filter { $0.startDate.hasPrefix("2025-09") }.map(\.id)) == Set(september.map(\.id)), "other months are written")

        // Once the rider moves the damaged file away, a full sync writes that month.
        try FileManager.default.removeItem(atPath: world.garage.path + "/activities/2025-10.json")
        let repaired = try await world.run(["sync", "--full"])
        #expect(repaired.status == 0, "\(repaired.stderr)")
        let october = activities.filter { $0.startDate.hasPrefix("2025-10") }
        #expect(
            Set(ActivityCacheLoader.load(root: world.garage.path).activities.filter { $0.startDate.hasPrefix("2025-10") }.map(\.id)) == Set(october.map(\.id)))
    }
}
