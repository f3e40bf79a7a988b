import Foundation
import TestSupport
import Testing

/// Parts inside parts (`mounts: [{part: PARENT, from: …}]`): a part on another part wears with
/// whatever bike its parent is on, each day, through its own ride filter, to any depth.
@Suite struct PartsOnPartsEndToEndTests {
    /// Bike a rides 10 km and bike b 20 km (half an hour each) every day of January 2026.
    static func rides() -> (json: String, list: [(day: Int, bike: String, metres: Double)]) {
        var list: [(day: Int, bike: String, metres: Double)] = []
        var items: [String] = []
        for day in 1...20 {
            for (bike, gear, metres) in [("a", "b1", 10_000.0), ("b", "b2", 20_000.0)] {
                list.append((day, bike, metres))
                let d = String(format: "2026-01-%02d", day)
                items.append(
                    #"{"distance":\#(Int(metres)),"id":\#(items.count + 1),"moving_time":1800,"sport_type":"Ride","gear_id":"\#(gear)","start_date":"\#(d)T08:00:00Z","start_date_local":"\#(d)T09:00:00Z","trainer":false}"#
                )
            }
        }
        return ("[\n" + items.joined(separator: ",\n") + "\n]\n", list)
    }

    /// The wheelset is on a from the 1st through the 10th, then on b; the tyres go on the
    /// wheelset on the 5th, and a sealant on the tyres on the 8th.
    static func garage() throws -> TemporaryFolder {
        try TemporaryFolder([
            "garage.yaml": "units: metric\n",
            "bikes/a.yaml": "name: A\nstrava: b1\n",
            "bikes/b.yaml": "name: B\nstrava: b2\n",
            "parts/wheels.yaml": """
            name: Wheels
            mounts:
              - {bike: a, from: 2026-01-01, to: 2026-01-10}
              - {bike: b, from: 2026-01-11}

            """,
            "parts/tyres.yaml": """
            name: Tyres
            intervals:
              replace: {every: 300 km}
            mounts:
              - {part: wheels, from: 2026-01-05}

            """,
            "parts/sealant.yaml": """
            name: Sealant
            mounts:
              - {part: tyres, from: 2026-01-08}

            """,
            "activities/2026-01.json": rides().json,
        ])
    }

    static func partShow(_ garage: TemporaryFolder, _ id: String, asOf: String) throws -> [String: Any] {
        let r = try garage.run(["part", "show", id, "--as-of", asOf, "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        return try #require((json["parts"] as? [[String: Any]])?.first)
    }

    @Test func aWheelsetMovedBetweenTwoBikesCarriesItsTyresUsage() throws {
        let garage = try Self.garage()
        #expect(try garage.run(["validate"]).status == 0)
        // The tyres: on a from the 5th through the 10th, on b from the 11th through the 15th.
        func sum(_ bike: String, _ days: ClosedRange<Int>) -> Double {
            Self.rides().list.filter { $0.bike == bike && days.contains($0.day) }.reduce(0) { $0 + $1.metres }
        }
        let tyres = try Self.partShow(garage, "tyres", asOf: "2026-01-15")
        #expect(tyres["distance"] as? Double == sum("a", 5...10) + sum("b", 11...15))
        #expect(tyres["rides"] as? Int == 11)
        #expect(tyres["bike"] as? String == "b")
        let mounts = try #require(tyres["mounts"] as? [[String: Any]])
        #expect(mounts.map { $0["bike"] as? String } == ["a", "b"])
        #expect(mounts.map { $0["distance"] as? Double } == [sum("a", 5...10), sum("b", 11...15)])
        #expect(mounts.map { $0["via"] as? [String] } == [["wheels"], ["wheels"]])
        // Two deep: the sealant on the tyres from the 8th, through the wheelset.
        let sealant = try Self.partShow(garage, "sealant", asOf: "2026-01-15")
        #expect(sealant["distance"] as? Double == sum("a", 8...10) + sum("b", 11...15))
        #expect((sealant["mounts"] as? [[String: Any]])?.first?["via"] as? [String] == ["tyres", "wheels"])
        // The tyres' interval shows under the bike their wheelset is on, counted the same way:
        // 6 days × 10 km on a and 5 days × 20 km on b, 160 of its 300 km.
        let status = try garage.run(["status", "b", "--as-of", "2026-01-15"])
        let used = Int((sum("a", 5...10) + sum("b", 11...15)) / 1000)
        #expect(status.stdout.contains("tyres: replace"), "\(status.stdout)")
        #expect(status.stdout.contains("\(used) / 300 km"), "\(status.stdout)")
        // The text of `part show` names the chain.
        let text = try garage.run(["part", "show", "sealant", "--as-of", "2026-01-15"]).stdout
        #expect(text.contains("b (on tyres on wheels)"), "\(text)")
    }

    /// A part on a part counts through its own ride filter, not its parent's: besides the road
    /// rides, each bike rides 5 km of gravel every evening (b's gravel rides are on a trainer
    /// too, and count for b as it counts trainer rides). The wheelset counts every ride of the
    /// bike it is on; the tyres (`counts: [Ride]`) only the road rides; the sealant
    /// (`trainer: false`) rides with the tyres but leaves out b's trainer rides.
    @Test func aPartOnAPartCountsThroughItsOwnRideFilter() throws {
        var items: [String] = []
        var list: [(day: Int, bike: String, metres: Double, sport: String, trainer: Bool)] = []
        for day in 1...20 {
            let d = String(format: "2026-01-%02d", day)
            for (time, bike, gear, metres, sport, trainer) in [
                ("08", "a", "b1", 10_000.0, "Ride", false), ("08", "b", "b2", 20_000.0, "Ride", false),
                ("18", "a", "b1", 5_000.0, "GravelRide", false), ("18", "b", "b2", 5_000.0, "GravelRide", true),
            ] {
                list.append((day, bike, metres, sport, trainer))
                items.append(
                    #"{"distance":\#(Int(metres)),"id":\#(items.count + 1),"moving_time":1800,"sport_type":"\#(sport)","gear_id":"\#(gear)","start_date":"\#(d)T\#(time):00:00Z","start_date_local":"\#(d)T\#(time):00:00Z","trainer":\#(trainer)}"#
                )
            }
        }
        let garage = try Self.garage()
        try garage.write("activities/2026-01.json", "[\n" + items.joined(separator: ",\n") + "\n]\n")
        try garage.write("bikes/b.yaml", "name: B\nstrava: b2\ntrainer: true\n")
        try garage.write("parts/tyres.yaml", "name: Tyres\ncounts: [Ride]\nmounts:\n  - {part: wheels, from: 2026-01-05}\n")
        try garage.write("parts/sealant.yaml", "name: Sealant\ntrainer: false\nmounts:\n  - {part: tyres, from: 2026-01-08}\n")
        #expect(try garage.run(["validate"]).status == 0)
        func sum(_ bike: String, _ days: ClosedRange<Int>, _ counts: (String, Bool) -> Bool) -> Double {
            list.filter { $0.bike == bike && days.contains($0.day) && counts($0.sport, $0.trainer) }.reduce(0) { $0 + $1.metres }
        }
        // The wheelset: a's 15 km a day for the 1st to the 10th, b's 25 km a day for the 11th to the 15th.
        let wheels = try Self.partShow(garage, "wheels", asOf: "2026-01-15")
        #expect(wheels["distance"] as? Double == sum("a", 1...10) { _, _ in true } + sum("b", 11...15) { _, _ in true })
        #expect(wheels["distance"] as? Double == Double(10 * 15_000 + 5 * 25_000))
        // The tyres: road rides only, a's 10 km from the 5th, b's 20 km from the 11th.
        let tyres = try Self.partShow(garage, "tyres", asOf: "2026-01-15")
        #expect(tyres["distance"] as? Double == sum("a", 5...10) { s, _ in s == "Ride" } + sum("b", 11...15) { s, _ in s == "Ride" })
        #expect(tyres["distance"] as? Double == Double(6 * 10_000 + 5 * 20_000))
        // The sealant: a's road and gravel from the 8th (15 km), b's road rides but not its trainer gravel (20 km).
        let sealant = try Self.partShow(garage, "sealant", asOf: "2026-01-15")
        #expect(sealant["distance"] as? Double == sum("a", 8...10) { _, t in !t } + sum("b", 11...15) { _, t in !t })
        #expect(sealant["distance"] as? Double == Double(3 * 15_000 + 5 * 20_000))
    }

    @Test func aCycleAMissingParentAndTwoPlacesAtOnceAreLocatedErrors() throws {
        let garage = try Self.garage()
        try garage.write("parts/x.yaml", "name: X\nmounts:\n  - {part: y, from: 2026-01-01}\n")
        try garage.write(
            "parts/y.yaml",
            "name: Y\nmounts:\n  - {part: x, from: 2026-01-01}\n  - {part: wheelz, from: 2026-01-02}\n  - {bike: a, part: x, from: 2026-01-03}\n")
        let r = try garage.run(["validate"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("[mount-cycle]"), "\(r.stderr)")
        #expect(r.stderr.contains("parts/y.yaml:4:12: error: unknown part 'wheelz'; did you mean 'wheels'? [unknown-part]"), "\(r.stderr)")
        #expect(
            r.stderr.contains("parts/y.yaml:4:26: error: part 'y' is on part 'wheelz' from 2026-01-02 while on part 'x' with no end [overlapping-mounts]"),
            "\(r.stderr)")
        #expect(r.stderr.contains("parts/y.yaml:5:12: error: a mount is on a bike or on a part, not both [bad-value]"), "\(r.stderr)")
    }

    @Test func partMountOnAPartWritesAPartMountAndMovingToABikeClosesIt() throws {
        let garage = try Self.garage()
        try git(["init", "--quiet"], in: garage.root)
        let off = try garage.run(["part", "unmount", "tyres", "--date", "2026-01-14"])
        #expect(off.status == 0, "\(off.stderr)")
        #expect(off.stdout.contains("tyres: off part 'wheels' after 2026-01-13"), "\(off.stdout)")
        let on = try garage.run(["part", "mount", "tyres", "wheels", "--date", "2026-01-15"])
        #expect(on.status == 0, "\(on.stderr)")
        let moved = try garage.run(["part", "mount", "tyres", "a", "--date", "2026-01-17"])
        #expect(moved.status == 0, "\(moved.stderr)")
        let written = try garage.read("parts/tyres.yaml")
        #expect(
            written.hasSuffix(
                """
                mounts:
                  - {part: wheels, from: 2026-01-05, to: 2026-01-13}
                  - {part: wheels, from: 2026-01-15, to: 2026-01-16}
                  - {bike: a, from: 2026-01-17}

                """), "\(written)")
        #expect(try garage.run(["validate"]).status == 0)
        let self_ = try garage.run(["part", "mount", "tyres", "tyres"])
        #expect(self_.status == 2 && self_.stderr.contains("a part cannot be mounted on itself"), "\(self_.stderr)")
    }
}
