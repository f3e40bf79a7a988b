import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// bikecheck's lifetime totals for parts that move between bikes, against liskin/strava-gear's
/// `components` report given the same rides and the same dated assignments. strava-gear is a
/// test tool, not a dependency: scripts/bootstrap installs it in a virtual environment under
/// .build-tools/strava-gear.
@Suite struct StravaGearCrossCheckTests {
    static let stravaGear = repositoryRoot.appendingPathComponent(".build-tools/strava-gear/bin/strava-gear")

    /// A seeded garage: four bikes, a few thousand rides over three years (some on a trainer,
    /// some with no gear or a pair of shoes), and six parts moved between the bikes and the shelf.
    struct Generated {
        var files: [String: String] = [:]
        var activities: [Activity] = []
        var csv = "name,gear_id,start_date,moving_time,distance,total_elevation_gain\n"
        var rules = ""
        var swaps = 0
    }

    static func generate(seed: UInt64) -> Generated {
        var rng = SeededGenerator(seed: seed)
        var g = Generated()
        let bikes = ["a", "b", "c", "d"]
        let gear = Dictionary(uniqueKeysWithValues: bikes.enumerated().map { ($1, "b10\($0 + 1)") })
        g.files["garage.yaml"] = "units: metric\ncounts: [Ride]\ntrainer: true\n"
        for bike in bikes { g.files["bikes/\(bike).yaml"] = "name: Bike \(bike)\nstrava: \(gear[bike]!)\nbought: 2023-12-01\n" }

        let first = Day("2024-01-01")!, last = Day("2026-10-31")!
        var id: Int64 = 1
        for ordinal in first.ordinal...last.ordinal {
            for _ in 0..<rng.next(6) {
                let day = Day(ordinal: ordinal)
                let roll = rng.next(100)
                let gearID: String? = roll < 3 ? nil : roll < 5 ? "g7" : gear[bikes[rng.next(bikes.count)]]
                let time = 1800 + rng.next(12_600)
                let distance = Double(time * (50 + rng.next(50))) / 10
                let start = "\(day)T\(String(format: "%02d", 6 + rng.next(12))):\(String(format: "%02d", rng.next(60))):00Z"
                g.activities.append(
                    Activity(
                        id: id, name: "ride \(id)", sportType: "Ride", startDate: start, startDateLocal: start,
                        movingTime: time, elapsedTime: time, distance: distance, gearID: gearID,
                        trainer: rng.next(10) == 0))
                g.csv += "ride \(id),\(gearID ?? ""),\(start),\(time),\(distance),0\n"
                id += 1
            }
        }

        // Dated assignments: strava-gear's rules, one per day something changes.
        var changes: [Int: [String: [String: String?]]] = [:]
        var components = ""
        for p in 1...6 {
            let part = "p\(p)"
            let prior = p % 2 == 0 ? (km: 100 * p, hours: 5 * p) : (km: 0, hours: 0)
            components += "  \(part): {kms: \(prior.km), hours: \(prior.hours)}\n"
            var mounts: [String] = []
            var day = first.ordinal + rng.next(60)
            var bike = bikes[rng.next(bikes.count)]
            while day <= last.ordinal {
                let stay = 20 + rng.next(200)
                let end = day + stay - 1
                changes[day, default: [:]][gear[bike]!, default: [:]][part] = part
                if end >= last.ordinal + 10 {
                    mounts.append("  - {bike: \(bike), from: \(Day(ordinal: day))}")
                    break
                }
                mounts.append("  - {bike: \(bike), from: \(Day(ordinal: day)), to: \(Day(ordinal: end))}")
                var next = end + 1
                if rng.next(10) < 3 {
                    // A spell on the shelf.
                    changes[next, default: [:]][gear[bike]!, default: [:]][part] = .some(nil)
                    next += 5 + rng.next(60)
                }
                var other = bikes[rng.next(bikes.count)]
                while other == bike { other = bikes[rng.next(bikes.count)] }
                bike = other
                day = next
                g.swaps += 1
            }
            // The loop ends with an open mount, or off a bike after the last ride (the rule for that
            // day is already there when the part went on the shelf).
            var file = "name: Part \(p)\n"
            if prior.km > 0 { file += "distance: \(prior.km) km\nhours: \(prior.hours)\n" }
            file += "intervals:\n  check: {task: Check, every: 1000 km}\nmounts:\n" + mounts.joined(separator: "\n") + "\n"
            g.files["parts/\(part).yaml"] = file
        }
        g.rules = "components:\n" + components + "rules:\n"
        for day in changes.keys.sorted() {
            g.rules += "  - since: \(Day(ordinal: day))\n"
            for (gearID, roles) in changes[day]!.sorted(by: { $0.key < $1.key }) {
                let mapping = roles.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.map { $0 } ?? "null")" }.joined(separator: ", ")
                g.rules += "    \(gearID): {\(mapping)}\n"
            }
        }
        return g
    }

    @Test func partsLifetimeDistanceAndTimeMatchStravaGearsComponentsReport() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.stravaGear.path) else {
            Issue.record("strava-gear is not installed: run scripts/bootstrap (it installs it in .build-tools/strava-gear)")
            return
        }
        let g = Self.generate(seed: 8)
        #expect(g.activities.count > 2500 && g.swaps >= 20, "\(g.activities.count) rides, \(g.swaps) swaps")
        let folder = try TemporaryFolder()
        for (path, text) in g.files { try folder.write(path, text) }
        for (month, items) in Dictionary(grouping: g.activities, by: \.monthKey) {
            try folder.write("activities/\(month).json", ActivityCacheFormat.encode(items))
        }
        try folder.write("strava-gear/rules.yaml", g.rules)
        try folder.write("strava-gear/activities.csv", g.csv)

        try Self.expectSamePartTotals(folder.url, parts: 6)
    }

    /// The benchmark's peer garage (`scripts/generate-garage.py --peer`, what `scripts/bench
    /// --sizes peer` measures beside strava-gear) is the same workload for both: small here.
    @Test func theBenchmarksPeerGarageGivesTheSamePartTotalsAsStravaGearOnItsOwnInput() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.stravaGear.path) else {
            Issue.record("strava-gear is not installed: run scripts/bootstrap (it installs it in .build-tools/strava-gear)")
            return
        }
        let folder = try TemporaryFolder()
        let generated = try runProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "python3", repositoryRoot.appendingPathComponent("scripts/generate-garage.py").path, folder.url.path + "/peer",
                "--peer", "--bikes", "5", "--activities", "4000", "--years", "2", "--parts", "6",
            ], in: folder.url)
        #expect(generated.status == 0, "\(generated.stderr)")
        try Self.expectSamePartTotals(folder.url.appendingPathComponent("peer"), parts: 6)
    }

    /// `part list`'s lifetime distance and moving time of every part, against strava-gear's
    /// components report on `strava-gear/rules.yaml` and `strava-gear/activities.csv`.
    /// `part list` gives each of strava-gear's components its figures: a part by its id, and a
    /// component of a bike file by `components` (strava-gear's id → `BIKE/ROLE`).
    static func expectSamePartTotals(
        _ garage: URL, parts count: Int, components: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let folder = garage
        let ours = try runBikecheck(["part", "list", "--format", "json", "--as-of", "2026-11-15", "--garage", folder.path], in: folder)
        #expect(ours.status == 0, "\(ours.stderr)", sourceLocation: sourceLocation)
        let theirs = try runProcess(
            Self.stravaGear,
            [
                "--rules", "strava-gear/rules.yaml", "--csv", "strava-gear/activities.csv",
                "-r", "components", "-f", "csv", "--hide-name", "--hide-first-last",
            ],
            in: folder, environment: ["TZ": "UTC"])
        #expect(theirs.status == 0, "\(theirs.stderr)", sourceLocation: sourceLocation)

        struct Report: Decodable {
            struct Part: Decodable { var kind: String, id: String, bike: String?, distance: Double, moving_time: Double }
            var parts: [Part]
        }
        let report = try JSONDecoder().decode(Report.self, from: Data(ours.stdout.utf8))
        var reference: [String: (metres: Double, seconds: Double)] = [:]
        for line in theirs.stdout.split(separator: "\n").dropFirst() {
            let cells = line.split(separator: ",")
            guard cells.count == 3, let km = Double(cells[1]), let hours = Double(cells[2]) else { continue }
            reference[String(cells[0])] = (km * 1000, hours * 3600)
        }
        let parts = report.parts.filter { $0.kind == "part" }
        let ownComponents = report.parts.filter { $0.kind == "component" && components.values.contains("\($0.bike ?? "")/\($0.id)") }
        #expect(parts.count == count && ownComponents.count == components.count, "\(theirs.stdout)", sourceLocation: sourceLocation)
        #expect(Set(reference.keys) == Set(parts.map(\.id)).union(components.keys), "\(theirs.stdout)", sourceLocation: sourceLocation)
        let byName = Dictionary(uniqueKeysWithValues: components.map { ($1, $0) })
        for part in parts + ownComponents {
            let id = part.kind == "part" ? part.id : byName["\(part.bike ?? "")/\(part.id)"] ?? part.id
            let expected = try #require(reference[id], sourceLocation: sourceLocation)
            #expect(
                abs(part.distance - expected.metres) < 0.01, "\(part.id): \(part.distance) m, strava-gear \(expected.metres) m",
                sourceLocation: sourceLocation)
            #expect(
                abs(part.moving_time - expected.seconds) < 0.01, "\(part.id): \(part.moving_time) s, strava-gear \(expected.seconds) s",
                sourceLocation: sourceLocation)
        }
    }
}
