@testable import BikeCheckKit
import Foundation
import StravaStandIn
import TestSupport
import Testing

/// A household's Strava logins (docs/household.md): `login --rider NAME` keeps a token per rider
/// on one application, and `sync` brings each rider's own activities, against the stand-in.
@Suite(.serialized) struct HouseholdStravaEndToEndTests {
    /// alex is the stand-in's own athlete; sam and kim are two more athletes of the application.
    static let athletes: [(rider: String, athlete: Int64, gear: String)] = [
        ("alex", 12_342_176, "b1001"), ("sam", 2_000_001, "b2001"), ("kim", 3_000_001, "b3001"),
    ]

    /// Five rides each, on each rider's own bike, a day apart, interleaved in time.
    static func rides() -> [StandInActivity] {
        var out: [StandInActivity] = []
        for (n, who) in athletes.enumerated() {
            for i in 0..<5 {
                var a = StandInActivity(
                    id: Int64(100_000 * (n + 1) + i), name: "\(who.rider) ride \(i)", sportType: "Ride",
                    start: 1_780_000_000 + Int64(i) * 86_400 + Int64(n) * 3600, movingTime: 3600, elapsedTime: 3700, distance: 30_000,
                    gearID: who.gear)
                a.athlete = n == 0 ? nil : who.athlete
                out.append(a)
            }
        }
        return out
    }

    static func world() async throws -> StravaWorld {
        var files = ["garage.yaml": "name: The Millers' garage\nriders:\n  alex:\n  sam:\n  kim:\n"]
        for who in athletes { files["bikes/\(who.rider)-bike.yaml"] = "name: \(who.rider)'s bike\nrider: \(who.rider)\nstrava: \(who.gear)\n" }
        let world = try await StravaWorld(garageFiles: files)
        for (n, who) in athletes.enumerated() where n > 0 {
            await world.server.addAthlete(
                id: who.athlete, first: who.rider.capitalized, last: "Miller", bikes: [StandInGear(id: who.gear, name: "\(who.rider)'s bike")])
        }
        await world.server.setAthleteName(first: "Alex", last: "Miller")
        await world.server.setBikes(athlete: [StandInGear(id: "b1001", name: "alex's bike")], all: [StandInGear(id: "b1001", name: "alex's bike")])
        await world.server.setActivities(rides())
        return world
    }

    /// `login --manual --rider NAME`, then `login --rider NAME --code ADDRESS` as that athlete.
    static func login(_ world: StravaWorld, rider: String, athlete: Int64) async throws -> CommandResult {
        let code = "code-\(rider)"
        await world.server.authorize(code: code, athlete: athlete)
        let manual = try await world.run(["login", "--manual", "--rider", rider])
        #expect(manual.status == 0, "\(manual.stderr)")
        #expect(manual.stderr.contains("bikecheck login --rider \(rider) --code"), "\(manual.stderr)")
        let line = manual.stderr.split(separator: "\n").first { $0.contains("/oauth/authorize?") } ?? ""
        let state = URLComponents(string: line.trimmingCharacters(in: .whitespaces))?.queryItems?.first { $0.name == "state" }?.value ?? ""
        return try await world.run([
            "login", "--rider", rider, "--code", "http://localhost/exchange_token?state=\(state)&code=\(code)&scope=read,profile:read_all,activity:read_all",
        ])
    }

    /// The cached activities' ids, by athlete.
    static func cachedByAthlete(_ world: StravaWorld) -> [Int64: Set<Int64>] {
        var out: [Int64: Set<Int64>] = [:]
        for a in world.cachedActivities() { out[a.athlete ?? -1, default: []].insert(a.id) }
        return out
    }

    @Test func eachRiderLogsInWithTheirOwnTokenAndTheSingleLoginIsUntouched() async throws {
        let world = try await Self.world()
        defer { Task { await world.stop() } }
        for who in Self.athletes {
            let r = try await Self.login(world, rider: who.rider, athlete: who.athlete)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout == "Logged in to Strava as \(who.rider.capitalized) Miller (athlete \(who.athlete)) for rider \(who.rider).\n", "\(r.stdout)")
            let path = world.config.path + "/bikecheck/strava-token.\(who.rider).json"
            #expect(try fileMode(path) == 0o600)
        }
        #expect(!FileManager.default.fileExists(atPath: world.tokenPath), "no rider's login is the garage's one login")
        let whoami = try await world.run(["whoami", "--rider", "sam"])
        #expect(whoami.stdout.hasPrefix("Sam Miller (Strava athlete 2000001)\n"), "\(whoami.stdout)\(whoami.stderr)")
        let unknown = try await world.run(["login", "--manual", "--rider", "sma"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("no rider 'sma'; did you mean 'sam'?"), "\(unknown.stderr)")
        // Logging one rider out revokes that login alone.
        let logout = try await world.run(["logout", "--rider", "kim"])
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(!FileManager.default.fileExists(atPath: world.config.path + "/bikecheck/strava-token.kim.json"))
        #expect(FileManager.default.fileExists(atPath: world.config.path + "/bikecheck/strava-token.sam.json"))
        let sam = try await world.run(["whoami", "--rider", "sam"])
        #expect(sam.status == 0, "sam's login still works after kim's logout: \(sam.stderr)")
    }

    @Test func threeRidersSyncTheirOwnActivitiesAndOneRidersFullSyncDeletesNoneOfAnothers() async throws {
        let world = try await Self.world()
        defer { Task { await world.stop() } }
        for who in Self.athletes {
            let r = try await Self.login(world, rider: who.rider, athlete: who.athlete)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let first = try await world.run(["sync"])
        #expect(first.status == 0, "\(first.stderr)")
        for who in Self.athletes {
            #expect(
                first.stdout.contains("\(who.rider): synced 5 activities from Strava: 5 new, 0 changed, 0 deleted (\(who.rider)-bike: 5 new)"),
                "\(first.stdout)")
            #expect(FileManager.default.fileExists(atPath: world.garage.path + "/.bikecheck/strava-sync.\(who.rider).json"))
        }
        var cached = Self.cachedByAthlete(world)
        for (n, who) in Self.athletes.enumerated() {
            #expect(cached[who.athlete] == Set((0..<5).map { Int64(100_000 * (n + 1) + $0) }), "\(cached)")
        }
        // Each rider's rides are on their own bike.
        for a in world.cachedActivities() {
            let who = try #require(Self.athletes.first { $0.athlete == a.athlete })
            #expect(a.gearID == who.gear)
        }

        // Incremental, per athlete: nothing new for anyone.
        let again = try await world.run(["sync"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.components(separatedBy: ": synced 5 activities from Strava: 0 new, 0 changed, 0 deleted").count == 4, "\(again.stdout)")

        // alex's and sam's first rides are deleted on Strava; sam's full sync deletes only sam's.
        await world.server.update { $0.removeAll { $0.id == 100_000 || $0.id == 200_000 } }
        let full = try await world.run(["sync", "--rider", "sam", "--full"])
        #expect(full.status == 0, "\(full.stderr)")
        #expect(full.stdout.contains("synced 4 activities from Strava: 0 new, 0 changed, 1 deleted"), "\(full.stdout)")
        #expect(!full.stdout.contains("alex") && !full.stdout.contains("kim"), "\(full.stdout)")
        cached = Self.cachedByAthlete(world)
        #expect(cached[12_342_176]?.count == 5, "alex's ride gone from Strava stays until alex's own full sync: \(cached)")
        #expect(cached[2_000_001]?.contains(200_000) == false)
        #expect(cached[2_000_001]?.count == 4)
        #expect(cached[3_000_001]?.count == 5, "kim's rides are untouched")

        // alex's own full sync deletes alex's, and nothing of the others.
        let alex = try await world.run(["sync", "--rider", "alex", "--full"])
        #expect(alex.status == 0, "\(alex.stderr)")
        cached = Self.cachedByAthlete(world)
        #expect(cached[12_342_176]?.count == 4 && cached[2_000_001]?.count == 4 && cached[3_000_001]?.count == 5, "\(cached)")
    }

    @Test func oneRidersBrokenLoginStopsOnlyTheirSyncAndTheRemedyNamesThem() async throws {
        let world = try await Self.world()
        defer { Task { await world.stop() } }
        for who in Self.athletes {
            let r = try await Self.login(world, rider: who.rider, athlete: who.athlete)
            #expect(r.status == 0, "\(r.stderr)")
        }
        try Data("{".utf8).write(to: URL(fileURLWithPath: world.config.path + "/bikecheck/strava-token.sam.json"))
        let r = try await world.run(["sync"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("sam: the Strava token file"), "\(r.stderr)")
        #expect(r.stderr.contains("run 'bikecheck login --rider sam' to replace it"), "\(r.stderr)")
        #expect(r.stdout.contains("alex: synced 5 activities") && r.stdout.contains("kim: synced 5 activities"), "\(r.stdout)")
        #expect(Self.cachedByAthlete(world)[2_000_001] == nil)
    }

    @Test func aRidersStravaCopyOfAnOutingNeverReplacesAnotherRidersRideFromAFile() async throws {
        let world = try await Self.world()
        defer { Task { await world.stop() } }
        try world.garage.write("bikes/alex-bike.yaml", "name: alex's bike\nrider: alex\nstrava: b1001\ndevices: [3980001234]\n")
        try rideFilesTool(["fit", "a.fit", "--serial", "3980001234", "--start", "2026-05-01T06:30:00Z"], in: world.garage.url)
        let imported = try await world.run(["import", "files", "a.fit"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let file = try #require(world.cachedActivities().first)
        #expect(file.gearID == "bike:alex-bike")
        // sam rode along: sam's Strava activity starts 70 s later and is 3 % longer, on sam's bike.
        var together = StandInActivity(
            id: 9_200_000_001, name: "Together", sportType: "Ride", start: try #require(Timestamps.epoch("2026-05-01T06:31:10Z")),
            movingTime: 3500, elapsedTime: 3600, distance: file.distance * 1.03, gearID: "b2001")
        together.athlete = 2_000_001
        await world.server.setActivities([together])
        let login = try await Self.login(world, rider: "sam", athlete: 2_000_001)
        #expect(login.status == 0, "\(login.stderr)")
        let r = try await world.run(["sync"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stdout.contains("imported from files also came from Strava"), "\(r.stdout)")
        let ids = Set(world.cachedActivities().map(\.id))
        #expect(ids == [file.id, 9_200_000_001], "alex's ride from the file and sam's from Strava: \(ids)")
    }

    @Test func aRideFromAFileIsNotTakenForAnotherRidersStravaCopyOfTheOuting() async throws {
        let world = try await Self.world()
        defer { Task { await world.stop() } }
        try world.garage.write("bikes/alex-bike.yaml", "name: alex's bike\nrider: alex\nstrava: b1001\ndevices: [3980001234]\n")
        try rideFilesTool(["fit", "a.fit", "--serial", "3980001234", "--start", "2026-05-01T06:30:00Z"], in: world.garage.url)
        // sam's Strava copy of the outing is synced first: 70 s later, about as long.
        var together = StandInActivity(
            id: 9_200_000_001, name: "Together", sportType: "Ride", start: try #require(Timestamps.epoch("2026-05-01T06:31:10Z")),
            movingTime: 3500, elapsedTime: 3600, distance: 1, gearID: "b2001")
        together.athlete = 2_000_001
        await world.server.setActivities([together])
        #expect(try await Self.login(world, rider: "sam", athlete: 2_000_001).status == 0)
        // The distance of the file's ride, as import files reads it; then the cache starts empty.
        #expect(try await world.run(["import", "files", "a.fit"]).status == 0)
        let distance = try #require(world.cachedActivities().first?.distance)
        try FileManager.default.removeItem(at: world.garage.url.appendingPathComponent("activities"))
        await world.server.update { $0[0].distance = distance * 1.03 }
        #expect(try await world.run(["sync"]).status == 0)
        let r = try await world.run(["import", "files", "a.fit"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("1 new"), "alex's ride is alex's, not sam's Strava copy: \(r.stdout)")
        #expect(world.cachedActivities().count == 2)
    }

    @Test func aHouseholdSyncForMachinesNamesEachRidersLogin() async throws {
        let world = try await Self.world()
        defer { Task { await world.stop() } }
        for who in Self.athletes.prefix(2) {
            let r = try await Self.login(world, rider: who.rider, athlete: who.athlete)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let r = try await world.run(["sync", "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let logins = try #require(json["logins"] as? [[String: Any]])
        #expect(logins.map { $0["rider"] as? String } == ["alex", "sam"], "kim has not logged in: \(logins)")
        #expect(logins.map { ($0["total"] as? [String: Any])?["new"] as? Int } == [5, 5])
    }
}
