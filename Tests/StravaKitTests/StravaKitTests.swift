import BikeCheckKit
import Foundation
@testable import StravaKit
import StravaStandIn
import Testing
import ZIPFoundation

@Suite struct CSVReaderTests {
    @Test func quotedFieldsKeepCommasQuotesAndLineBreaks() {
        let records = CSVReader.records(Array("a,b,c\n1,\"x, \"\"y\"\"\nz\",3\r\n\n4,,\"\"\n".utf8))
        #expect(records.map(\.fields) == [["a", "b", "c"], ["1", "x, \"y\"\nz", "3"], ["4", "", ""]])
        #expect(records.map(\.line) == [1, 2, 5])
    }

    @Test func aByteOrderMarkAndAMissingFinalNewlineAreFine() {
        let records = CSVReader.records([0xEF, 0xBB, 0xBF] + Array("id,name\n1,x".utf8))
        #expect(records.map(\.fields) == [["id", "name"], ["1", "x"]])
    }
}

@Suite struct StravaArchiveTests {
    func folder(_ files: [String: String]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("archive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: dir.appendingPathComponent(name)) }
        return dir.path
    }

    @Test func theCurrentLayoutReadsDuplicatedColumnsByPosition() throws {
        let path = try folder(["activities.csv": ArchiveFixtures.current, "bikes.csv": ArchiveFixtures.currentBikes])
        let archive = try StravaArchive.read(path: path)
        #expect(archive.layout == "current")
        #expect(archive.skipped.isEmpty)
        let byID = Dictionary(uniqueKeysWithValues: archive.activities.map { ($0.id, $0) })
        let long = try #require(byID[18000000001])
        #expect(long.name == "Long one, with \"friends\" 😁")
        #expect(long.startDate == "2026-05-09T07:09:27Z")
        #expect(long.distance == 104132.0, "metres from the second Distance column, not 104.13 km")
        #expect(long.elapsedTime == 17944)
        #expect(long.movingTime == 13905)
        #expect(long.totalElevationGain == 329)
        #expect(long.gearID == "b16540971")
        #expect(long.sportType == "Ride")
        #expect(!long.manual)
        #expect(byID[18000000002]?.sportType == "VirtualRide")
        #expect(byID[18000000002]?.gearID == nil)
        let commute = try #require(byID[18000000003])
        #expect(commute.commute)
        #expect(commute.sportType == "EBikeRide")
        #expect(commute.gearID == "b16540971", "gear name linked to the id another row gave")
        #expect(!commute.manual, "no file is no proof of a hand-entered activity: the export does not say")
        #expect(archive.bikes.map(\.name) == ["Standert Triebwerk", "Commuter"])
        #expect(archive.bikes.first?.gearID == "b16540971")
    }

    @Test func aGermanExportIsReadByColumnPosition() throws {
        let archive = try StravaArchive.read(path: try folder(["activities.csv": ArchiveFixtures.german]))
        #expect(archive.layout.contains("localised"))
        let a = try #require(archive.activities.first)
        #expect(a.id == 8200000001)
        #expect(a.startDate == "2022-12-09T15:24:49Z")
        #expect(a.distance == 9440.5)
        #expect(a.movingTime == 2900)
        #expect(a.totalElevationGain == 120)
        #expect(a.sportType == "Ride")
        #expect(archive.unlinkedGear == ["Rennrad": 1])
    }

    @Test func theLegacyLayoutReadsMetresAndLinksGearByName() throws {
        let path = try folder(["activities.csv": ArchiveFixtures.legacy, "bikes.csv": ArchiveFixtures.legacyBikes])
        let archive = try StravaArchive.read(path: path, gearByName: ["Zatona": "b777"])
        #expect(archive.layout == "legacy")
        #expect(archive.activities.count == 3)
        let first = try #require(archive.activities.first)
        #expect(first.startDate == "2014-09-12T16:54:28Z")
        #expect(first.distance == 43057.4)
        #expect(first.elapsedTime == 9462 && first.movingTime == 9462)
        #expect(archive.activities[1].gearID == "b777")
        #expect(archive.activities[2].name == "Morning Ride, windy")
        #expect(archive.activities[2].gearID == nil)
        #expect(archive.unlinkedGear == ["Bar2o2a": 1])
        #expect(archive.bikes.map(\.name) == ["Zatona", "Bar2o2a"])
        #expect(archive.bikes[0].gearID == "b777")
    }

    @Test func aZipIsReadLikeItsFolder() throws {
        let zipPath = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString).zip")
        let archive = try Archive(url: zipPath, accessMode: .create)
        for (name, text) in [("export_123/activities.csv", ArchiveFixtures.current), ("export_123/bikes.csv", ArchiveFixtures.currentBikes)] {
            let data = Data(text.utf8)
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        let read = try StravaArchive.read(path: zipPath.path)
        #expect(read.activities.count == 4)
        #expect(read.bikes.count == 2)
    }

    @Test func somethingThatIsNotAnArchiveIsAClearError() throws {
        let dir = try folder(["notes.txt": "hello"])
        #expect(throws: ArchiveError.self) { try StravaArchive.read(path: dir) }
        #expect(throws: ArchiveError.self) { try StravaArchive.read(path: dir + "/notes.txt") }
    }
}

@Suite struct RateLimitTests {
    @Test func headersAreReadInAnyCasing() {
        var budget = RateLimitBudget()
        budget.update(
            from: HTTPReply(
                status: 200,
                headers: [
                    "X-Ratelimit-Limit": "200,2000", "x-ratelimit-usage": "68,211",
                    "X-READRATELIMIT-LIMIT": "100,1000", "X-ReadRateLimit-Usage": "100,210",
                ], body: Data()
            ).headers)
        #expect(budget.exhausted(reading: false) == nil)
        #expect(budget.exhausted(reading: true) == "15-minute")
        budget.update(from: ["x-readratelimit-usage": "10,1000", "x-readratelimit-limit": "100,1000"])
        #expect(budget.exhausted(reading: true) == "daily")
    }

    @Test func windowsResetAtTheQuarterHourAndMidnightUTC() {
        let t = Date(timeIntervalSince1970: 1_763_600_000)  // 2025-11-20T00:53:20Z
        #expect(RateLimitBudget.reset(of: "15-minute", after: t).timeIntervalSince1970 == 1_763_600_400)
        #expect(RateLimitBudget.reset(of: "daily", after: t).timeIntervalSince1970 == 1_763_683_200)
    }
}

@Suite struct StravaKitPieceTests {
    @Test func atomicWritesSkipUnchangedBytesAndKeepSecretsPrivate() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-\(UUID().uuidString)").path
        try AtomicFile.makeDirectory(dir)
        let path = dir + "/secret.json"
        #expect(try AtomicFile.write(Array("a\n".utf8), to: path, mode: 0o600))
        #expect(try !AtomicFile.write(Array("a\n".utf8), to: path, mode: 0o600))
        let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["secret.json"], "no temp file left behind")
    }

    @Test func timestampsAreNormalisedToTheCacheForm() {
        #expect(Timestamps.normalise("2025-10-18T12:49:52Z") == "2025-10-18T12:49:52Z")
        #expect(Timestamps.normalise("2025-10-18T12:49:52.000Z") == "2025-10-18T12:49:52Z")
        #expect(Timestamps.normalise("2025-10-18T14:49:52+02:00") == "2025-10-18T12:49:52Z")
        #expect(Timestamps.normalise("yesterday") == nil)
    }

    @Test func activitiesDecodeLenientlyWhateverTheSportType() throws {
        let json =
            #"[{"id":1,"name":"A","sport_type":"Skysurfing","type":"Workout","start_date":"2025-10-18T12:49:52Z","distance":100.5,"moving_time":60,"elapsed_time":61,"gear_id":null,"map":{"id":"x"},"new_field":[1,2]},{"name":"no id"},{"id":2,"type":"Ride","start_date":"2025-10-19T12:00:00Z"}]"#
        let items = try JSONDecoder().decode([Lenient<SummaryActivity>].self, from: Data(json.utf8))
        #expect(items.count == 3)
        let decoded = items.compactMap { $0.value?.activity }
        #expect(decoded.map(\.id) == [1, 2])
        #expect(decoded[0].sportType == "Skysurfing")
        #expect(decoded[1].sportType == "Ride", "old activities without sport_type fall back to type")
    }

    @Test func suggestedBikeIDsAreFileNames() {
        #expect(StravaSync.suggestedID(for: "Canyon Grail CF SL 7") == "canyon-grail-cf-sl-7")
        #expect(StravaSync.suggestedID(for: "Vélo \"Rapide\"!") == "v-lo-rapide")
        #expect(
            StravaSync.addCommand(for: StravaGear(id: "b1", name: "Grail", nickname: "My \"G\""), taken: ["my-g"])
                == #"bikecheck bike add my-g-b1 --name 'My "G"' --strava b1"#)
        #expect(
            StravaSync.addCommand(name: "Rock 'n' $(roll)", gearID: nil, taken: ["rock-n-roll", "rock-n-roll-2"])
                == #"bikecheck bike add rock-n-roll-3 --name 'Rock '\''n'\'' $(roll)'"#)
    }

    @Test(arguments: ["Grail", "My \"G\"", "Rock 'n' roll", "$(rm -rf /) `x` \\ ; & | 'a' \"b\"", "Vélo 🚲", "--name", "''"])
    func suggestedCommandsSurviveARealShell(name: String) throws {
        let command = StravaSync.addCommand(name: name, gearID: "b7", taken: [])
        // The shell must hand `bikecheck` the name exactly: print the argument after --name.
        let script = "set -- \(command.dropFirst("bikecheck ".count)); while [ \"$1\" != --name ]; do shift; done; printf %s \"$2\""
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(String(decoding: data, as: UTF8.self) == name, "\(command)")
    }

    @Test func missingScopesAreNamedWithTheirConsequence() {
        #expect(GrantedScopes("read,profile:read_all,activity:read_all").missing.isEmpty)
        let partial = GrantedScopes("read,activity:read")
        #expect(partial.missing.count == 2)
        #expect(partial.canListActivities)
        #expect(!GrantedScopes("read").canListActivities)
    }
}

/// The client against the stand-in, in process: the parts end-to-end tests cannot see.
@Suite(.serialized) struct StravaClientTests {
    func withClient(_ body: (StravaStandIn, StravaClient, String) async throws -> Void) async throws {
        let server = StravaStandIn()
        try await server.start()
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("client-\(UUID().uuidString)").path
        let settings = StravaSettings(
            baseURL: URL(string: await server.baseURL)!, configDirectory: config,
            clientID: await server.clientID, clientSecret: await server.clientSecret,
            retryBaseMilliseconds: 1, maxAttempts: 3)
        let client = StravaClient(settings: settings)
        try await body(server, client, config)
        await server.stop()
    }

    /// Runs blocking client code off the cooperative pool, so the server keeps serving.
    func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { c in DispatchQueue.global().async { c.resume(with: Result { try work() }) } }
    }

    @Test func a401RefreshesOnceAndRetriesWithTheNewToken() async throws {
        try await withClient { server, client, config in
            await server.authorize(code: "c")
            nonisolated(unsafe) let client = client
            _ = try await blocking { try client.exchange(code: "c", grantedScope: nil) }
            let saved = try #require(client.savedToken)
            // Strava revoked this access token, though it has not expired.
            await server.revoke(accessToken: saved.accessToken)
            let athlete = try await blocking { try client.athlete() }
            #expect(athlete.id == 12342176)
            #expect(await server.requests(to: "/api/v3/athlete") == 2)
            #expect(await server.requests(to: "/oauth/token") == 2, "the exchange and one refresh")
            let rotated = try #require(client.savedToken)
            #expect(rotated.refreshToken == (await server.currentRefreshToken))
            #expect(rotated.accessToken != saved.accessToken)
            _ = config
        }
    }

    @Test func fiveHundredsAreRetriedABoundedNumberOfTimes() async throws {
        try await withClient { server, client, _ in
            await server.authorize(code: "c")
            nonisolated(unsafe) let client = client
            _ = try await blocking { try client.exchange(code: "c", grantedScope: nil) }
            for n in 1...3 { await server.inject(status: 502, onRequest: n, to: "/api/v3/athlete") }
            await #expect(throws: StravaError.self) { try await blocking { try client.athlete() } }
            #expect(await server.requests(to: "/api/v3/athlete") == 3)
        }
    }

    @Test func aFullSyncKeepsACachedActivityStravaNowSendsUnreadable() async throws {
        try await withClient { server, client, _ in
            await server.authorize(code: "c")
            nonisolated(unsafe) let client = client
            _ = try await blocking { try client.exchange(code: "c", grantedScope: nil) }
            await server.setActivities(
                (1...3).map {
                    StandInActivity(
                        id: Int64($0), name: "Ride \($0)", sportType: "Ride", start: 1_760_000_000 + Int64($0) * 86400,
                        movingTime: 3600, elapsedTime: 3700, distance: 30000)
                })
            let garage = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: garage, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: garage) }
            let first = try await blocking { try StravaSync(garageRoot: garage, client: client, bikeFiles: [:]).run(full: true) }
            #expect(first.total.new == 3 && first.skipped == 0)

            await server.update { $0[1].malformed = true }
            let second = try await blocking { try StravaSync(garageRoot: garage, client: client, bikeFiles: [:]).run(full: true) }
            #expect(second.total.deleted == 0)
            #expect(second.skipped == 1)
            #expect(second.line.contains("skipped 1 activity that could not be read"), "\(second.line)")
            #expect(ActivityCacheStore(garageRoot: garage).ids == [1, 2, 3])
        }
    }

    @Test func aNetworkErrorIsRetriedThenReported() async throws {
        let settings = StravaSettings(
            baseURL: URL(string: "http://127.0.0.1:9")!, configDirectory: "/nonexistent",
            clientID: "1", clientSecret: "s", retryBaseMilliseconds: 1, maxAttempts: 2)
        let client = StravaClient(settings: settings)
        nonisolated(unsafe) let c = client
        let error = await #expect(throws: StravaError.self) { try await blocking { try c.exchange(code: "x", grantedScope: nil) } }
        if case .network = error {} else { Issue.record("expected a network error, got \(String(describing: error))") }
        #expect(error?.description == "cannot reach Strava: no connection to '127.0.0.1:9' (connection refused)")
        #expect(client.requestCount == 2, "a refused connection never had the request: retried")
    }
}

/// Numbers that are not finite or out of range never reach the cache, and never trap.
@Suite struct ActivityNumberTests {
    func tempDirectory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("numbers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.path
    }

    @Test func anArchiveWithNaNAndHugeNumbersImportsTheSaneRowsAndSaysWhyItSkippedTheRest() throws {
        let archive = try tempDirectory(), garage = try tempDirectory()
        let csv = """
            Activity ID,Activity Date,Activity Name,Activity Type,Elapsed Time,Distance,Moving Time,Elevation Gain
            101,2026-05-09 07:09:27,Climb,Ride,3600,30.5,3500,nan
            102,2026-05-10 07:09:27,Forever,Ride,1e30,10,1e30,10
            103,2026-05-11 07:09:27,Odd moving,Ride,3600,10,inf,10
            104,2026-05-12 07:09:27,No distance,Ride,3600,NaN,3000,5
            105,2026-05-13 07:09:27,Too long moving,Ride,3600,10,2592001,5
            106,2026-05-14 07:09:27,Fine,Ride,3600,10,3000,
            107,2026-05-15 07:09:27,Too far,Ride,3600,200000000,3000,5
            108,2026-05-16 07:09:27,Backwards,Ride,3600,-2,3000,5

            """
        try Data(csv.utf8).write(to: URL(fileURLWithPath: archive + "/activities.csv"))
        let summary = try ArchiveImport.run(path: archive, garageRoot: garage, bikes: [])
        #expect(summary.new == 1)
        #expect(summary.archive.skipped.map(\.line) == [2, 3, 4, 5, 6, 8, 9], "a value that is there but no number is never read as 0")
        #expect(
            summary.archive.skipped.map(\.reason) == [
                "activity 101: elevation gain 'nan' is not a number",
                "activity 102: elapsed_time 1e+30 is out of range: expected seconds, from 0 to 30 days",
                "activity 103: moving time 'inf' is not a number",
                "activity 104: distance 'NaN' is not a number",
                "activity 105: moving_time 2592001 is out of range: expected seconds, from 0 to 30 days",
                "activity 107: distance 200000000000 is out of range: expected metres, from 0 to 100,000 km",
                "activity 108: distance -2000 is out of range: expected metres, from 0 to 100,000 km",
            ])
        #expect(summary.archive.activities.map(\.id) == [106])
        #expect(summary.archive.activities.first?.totalElevationGain == 0, "an empty field is missing: 0, as the API has it")
        let loaded = ActivityCacheLoader.load(root: garage)
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics)")
        #expect(loaded.activities.map(\.id) == [106])
    }

    @Test func anAPIActivityWithAnOutOfRangeTimeIsUnreadableButKeepsItsID() throws {
        let page = """
            [{"id":1,"start_date":"2026-05-09T07:09:27Z","sport_type":"Ride","moving_time":1e30,"elapsed_time":10,"distance":5},
             {"id":2,"start_date":"2026-05-09T07:09:27Z","sport_type":"Ride","moving_time":10,"elapsed_time":-1e300,"distance":5},
             {"id":3,"start_date":"2026-05-09T07:09:27Z","sport_type":"Ride","moving_time":10,"elapsed_time":2592001,"distance":5},
             {"id":4,"start_date":"2026-05-09T07:09:27Z","sport_type":"Ride","moving_time":10,"elapsed_time":20,"distance":5,"total_elevation_gain":1e999},
             {"id":5,"start_date":"2026-05-09T07:09:27Z","sport_type":"Ride","moving_time":10,"elapsed_time":20,"distance":5,"total_elevation_gain":12.5},
             {"name":"no id"}]
            """
        let items = try JSONDecoder().decode([PageItem].self, from: Data(page.utf8))
        #expect(items.map { $0.activity == nil } == [true, true, true, true, false, true])
        #expect(items.map(\.id) == [1, 2, 3, 4, 5, nil])
        #expect(items.map(\.start) == [1_778_310_567, 1_778_310_567, 1_778_310_567, 1_778_310_567, 1_778_310_567, nil])
        #expect(items[1].problem == "elapsed_time: expected seconds, from 0 to 30 days", "a negative time is out of range, not 0")
        #expect(items[3].problem == "total_elevation_gain: expected metres, from -100,000 km to 100,000 km", "1e999 is not a number, let alone 0")
        #expect(items[4].activity?.totalElevationGain == 12.5)
    }

    /// A present field of the wrong type or out of range makes the activity unreadable; a missing
    /// or null one takes its documented default.
    @Test(arguments: [
        (#""moving_time":"abc""#, "moving_time: expected seconds, from 0 to 30 days"),
        (#""moving_time":1e999"#, "moving_time: expected seconds, from 0 to 30 days"),
        (#""moving_time":true"#, "moving_time: expected seconds, from 0 to 30 days"),
        (#""distance":"12.5""#, "distance: expected metres, from 0 to 100,000 km"),
        (#""distance":-3"#, "distance: expected metres, from 0 to 100,000 km"),
        (#""distance":1e12"#, "distance: expected metres, from 0 to 100,000 km"),
        (#""gear_id":42"#, "gear_id: expected a string"),
        (#""name":["x"]"#, "name: expected a string"),
        (#""trainer":"yes""#, "trainer: expected true or false"),
        (#""start_date_local":"soon""#, "start_date_local: expected a date-time"),
        (#""sport_type":7"#, "sport_type: expected a string"),
        (#""id":-4"#, "id: expected a positive integer"),
    ])
    func aPresentButMalformedFieldMakesTheActivityUnreadable(field: String, problem: String) throws {
        let good = [
            #""id":7"#, #""start_date":"2026-05-09T07:09:27Z""#, #""sport_type":"Ride""#, #""moving_time":3600"#,
            #""elapsed_time":3700"#, #""distance":30000"#,
        ]
        let key = field.prefix { $0 != ":" }
        let json = "[{" + (good.filter { !$0.hasPrefix(key + ":") } + [field]).joined(separator: ",") + "}]"
        let item = try #require(try JSONDecoder().decode([PageItem].self, from: Data(json.utf8)).first)
        #expect(item.activity == nil, "\(field)")
        #expect(item.problem == problem)
        #expect(item.start == 1_778_310_567)
    }

    @Test func missingAndNullOptionalFieldsTakeTheirDefaults() throws {
        let json = #"[{"id":7,"start_date":"2026-05-09T07:09:27Z","type":"Ride","moving_time":null,"gear_id":null,"trainer":null}]"#
        let a = try #require(try JSONDecoder().decode([PageItem].self, from: Data(json.utf8)).first?.activity)
        #expect(a.movingTime == 0 && a.elapsedTime == 0 && a.distance == 0)
        #expect(a.gearID == nil && !a.trainer && a.name == "")
        #expect(a.sportType == "Ride")
    }

    @Test func epochsAreComputedExactlyForTheCacheForm() {
        for text in ["1970-01-01T00:00:00Z", "2000-02-29T23:59:59Z", "2025-10-18T12:49:52Z", "2100-03-01T00:00:00Z", "1969-12-31T23:59:59Z"] {
            let f = ISO8601DateFormatter()
            #expect(Timestamps.epoch(text) == f.date(from: text).map { Int64($0.timeIntervalSince1970) }, "\(text)")
        }
        #expect(Timestamps.epoch("2025-10-18T14:49:52+02:00") == Timestamps.epoch("2025-10-18T12:49:52Z"))
        #expect(Timestamps.epoch("2025-13-18T12:49:52Z") == nil)
    }

    /// The cache's form is written by hand (a formatter per ride was 40 % of an import): the same
    /// text as a UTC ISO 8601 formatter, and the inverse of `epoch`, across leap days, centuries,
    /// before 1970 and FIT's epoch.
    @Test func cacheFormIsWrittenAsAFormatterWouldWriteIt() {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        f.timeZone = TimeZone(identifier: "UTC")
        var epochs: [Int64] = [0, -1, -86_400, -86_401, 631_065_600, 951_868_799, 951_868_800, 4_107_542_400, -2_208_988_800, 253_402_300_799]
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2_000 {
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            epochs.append(Int64(x >> 33) % 8_000_000_000 - 2_500_000_000)
        }
        for epoch in epochs {
            let text = Timestamps.string(epoch: epoch)
            #expect(text == f.string(from: Date(timeIntervalSince1970: TimeInterval(epoch))), "\(epoch)")
            #expect(Timestamps.epoch(text) == epoch, "\(epoch)")
        }
        #expect(Timestamps.format(Date(timeIntervalSince1970: 1_000_000_000.75)) == "2001-09-09T01:46:40Z")
    }

}
