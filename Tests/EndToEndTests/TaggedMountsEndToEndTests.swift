import Foundation
import TestSupport
import Testing

/// Mounts that hold for rides tagged in their name (`tag: race`: the race wheels go on for
/// `#race` rides) or for the others (`unless_tag: race`: the everyday wheels come off for them).
@Suite struct TaggedMountsEndToEndTests {
    /// Ten rides of 10 km on the grail in March 2026; the 3rd and the 7th are races, the 7th
    /// also in the wet; a hand-entered race on the 20th.
    static func garage(_ parts: [String: String]) throws -> TemporaryFolder {
        var items: [String] = []
        for day in 1...10 {
            let d = String(format: "2026-03-%02d", day)
            let name = day == 3 ? "Crit #race" : day == 7 ? "Hill climb #wet #race" : "Ride \(day) #racecar"
            items.append(
                #"{"distance":10000,"id":\#(day),"moving_time":1800,"name":"\#(name)","sport_type":"Ride","gear_id":"b1","start_date":"\#(d)T08:00:00Z","start_date_local":"\#(d)T09:00:00Z","trainer":false}"#
            )
        }
        var files = [
            "garage.yaml": "units: metric\n",
            "bikes/grail.yaml": "name: Grail\nstrava: b1\n",
            "rides.yaml": "rides:\n  - {date: 2026-03-20, bike: grail, time: 1h, distance: 30 km, name: \"Gravel #race\"}\n",
            "activities/2026-03.json": "[\n" + items.joined(separator: ",\n") + "\n]\n",
        ]
        for (path, text) in parts { files[path] = text }
        return try TemporaryFolder(files)
    }

    static func partDistances(_ garage: TemporaryFolder, environment: [String: String] = [:]) throws -> [String: Double] {
        let r = try garage.run(["part", "list", "--as-of", "2026-03-31", "--format", "json"], environment: environment)
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let parts = try #require(json["parts"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: parts.compactMap { p in (p["id"] as? String).map { ($0, p["distance"] as? Double ?? -1) } })
    }

    @Test func raceWheelsCountOnlyTaggedRidesAndTheEverydayWheelsTheOthers() throws {
        let garage = try Self.garage([
            "parts/race-wheels.yaml": "name: Race wheels\nslot: wheels\nmounts:\n  - {bike: grail, from: 2026-03-01, tag: race}\n",
            "parts/daily-wheels.yaml": "name: Daily wheels\nslot: wheels\nmounts:\n  - {bike: grail, from: 2026-03-01, unless_tag: [race]}\n",
            "parts/wet-tyres.yaml": "name: Wet tyres\nmounts:\n  - {bike: grail, from: 2026-03-05, tag: \"#wet\"}\n",
        ])
        #expect(try garage.run(["validate"]).status == 0)
        let first = try Self.partDistances(garage)
        // Two tagged Strava rides and the hand-entered race; '#racecar' is another tag.
        #expect(first["race-wheels"] == 50_000, "\(first)")
        #expect(first["daily-wheels"] == 80_000, "\(first)")
        #expect(first["wet-tyres"] == 10_000, "\(first)")
        // The same from the activity index, and with every cache bypassed.
        Thread.sleep(forTimeInterval: 0.2)
        #expect(try Self.partDistances(garage) == first)
        #expect(try Self.partDistances(garage) == first)
        #expect(try Self.partDistances(garage, environment: ["BIKECHECK_NO_CACHE": "1"]) == first)
        // A tagged mount shares its days with the part's other mounts and its slot's.
        let status = try garage.run(["status", "--as-of", "2026-03-31"])
        #expect(status.status == 0, "\(status.stderr)")
    }

    @Test func aBadTagIsAnErrorAtItsPlace() throws {
        let garage = try Self.garage([
            "parts/race-wheels.yaml": "name: Race wheels\nmounts:\n  - {bike: grail, from: 2026-03-01, tag: two words}\n",
            "parts/tyres.yaml": "name: Tyres\nmounts:\n  - {part: race-wheels, from: 2026-03-01, unless_tag: race}\n",
            "parts/both.yaml": "name: Both\nmounts:\n  - {bike: grail, from: 2026-03-01, tag: race, unless_tag: wet}\n",
        ])
        let r = try garage.run(["validate"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("parts/race-wheels.yaml:3:42: error: 'two words' is not a ride tag [bad-value]"), "\(r.stderr)")
        #expect(r.stderr.contains("parts/tyres.yaml:3:43: error: 'unless_tag' goes on a mount on a bike, not on a part [bad-value]"), "\(r.stderr)")
        #expect(r.stderr.contains("parts/both.yaml:3:37: error: a mount has 'tag' or 'unless_tag', not both [bad-value]"), "\(r.stderr)")
    }
}
