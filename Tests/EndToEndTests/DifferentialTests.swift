import Foundation
import TestSupport
import Testing

/// A second implementation of the documented rules (docs/due.md, docs/garage.md,
/// docs/commands.md), run against the real binary on seeded random garages.
///
/// The generator writes the YAML and the activity cache itself; the expected figures are
/// computed here from the generated values, by the rules as the docs write them, without
/// BikeCheckKit. Then `status` (plain, and naming the retired bikes), `part list`, `usage`,
/// `history` and `rides --interval` (JSON) and `calendar` (its events' days) are compared field
/// by field, at the JSON's precision (four decimals; tenths where a report rounds so). Every run
/// of the suite checks a few garages; `BIKECHECK_SOAK=1 swift test --filter DifferentialTests`
/// checks 300 (`BIKECHECK_SOAK=N` for N, `BIKECHECK_SOAK_SEED=S` replays). It prints one
/// `DIFFERENTIAL` line with its figures.
@Suite struct DifferentialTests {
    static var garages: Int { Soak.rounds(quick: 3, long: 300) }

    @Test func anIndependentReadingOfTheDocumentedRulesAgreesWithBikecheckOnRandomGarages() throws {
        let seed = Soak.seed
        let started = Date()
        var stats = DifferentialStats()
        // BIKECHECK_DIFF_ONLY=N checks only garage N of the run (to replay one that disagreed).
        let only = ProcessInfo.processInfo.environment["BIKECHECK_DIFF_ONLY"].flatMap(Int.init)
        for round in 0..<Self.garages where only.map({ $0 == round }) ?? true {
            var random = SeededGenerator(seed: seed &+ UInt64(round) &* 0x9E37_79B9_7F4A_7C15)
            let garage = RandomGarage(random: &random)
            let folder = try TemporaryFolder()
            for (path, text) in garage.files() { try folder.write(path, text) }
            var check = DifferentialCheck(garage: garage, folder: folder, label: "seed \(seed) garage \(round)")
            try check.run()
            // BIKECHECK_DIFF_KEEP=DIR keeps each garage that disagreed, to reduce by hand.
            if !check.disagreements.isEmpty, let keep = ProcessInfo.processInfo.environment["BIKECHECK_DIFF_KEEP"] {
                let kept = URL(fileURLWithPath: keep).appendingPathComponent("garage-\(seed)-\(round)")
                try? FileManager.default.removeItem(at: kept)
                try FileManager.default.createDirectory(at: kept.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: folder.url, to: kept)
                try (check.disagreements.joined(separator: "\n") + "\nas of \(Civil.text(garage.asOf))\n").write(
                    to: kept.appendingPathComponent("disagreements.txt"), atomically: true, encoding: .utf8)
            }
            stats.garages += 1
            stats.rides += garage.rides.count
            stats.figures += check.figures
            stats.disagreements += check.disagreements
            stats.coverage.merge(check.coverage, uniquingKeysWith: +)
            stats.intervals += check.coverage.filter { ["overdue", "due-soon", "ok", "snoozed"].contains($0.key) }.values.reduce(0, +)
        }
        let seconds = Int(Date().timeIntervalSince(started))
        print(
            "DIFFERENTIAL seed \(seed): \(stats.garages) garages, \(stats.rides) rides, \(stats.intervals) intervals, "
                + "\(stats.figures) figures compared, \(stats.disagreements.count) disagreements in \(seconds) s ("
                + stats.coverage.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")")
        #expect(stats.disagreements.isEmpty, "\(stats.disagreements.count) disagreements:\n\(stats.disagreements.prefix(30).joined(separator: "\n"))")
        #expect(stats.figures > stats.garages * 20, "too few figures compared: \(stats.figures)")
    }
}

struct DifferentialStats {
    var garages = 0
    var rides = 0
    var intervals = 0
    var figures = 0
    var disagreements: [String] = []
    var coverage: [String: Int] = [:]
}

// MARK: - Days

/// Calendar days as ordinals (days since 1970-01-01), written here rather than taken from the kit.
enum Civil {
    static func day(_ y: Int, _ m: Int, _ d: Int) -> Int {
        let y2 = m <= 2 ? y - 1 : y
        let era = (y2 >= 0 ? y2 : y2 - 399) / 400
        let yoe = y2 - era * 400
        let mp = (m + 9) % 12
        let doy = (153 * mp + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(_ n: Int) -> (y: Int, m: Int, d: Int) {
        let z = n + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    static func text(_ n: Int) -> String {
        let c = civil(n)
        return String(format: "%04d-%02d-%02d", c.y, c.m, c.d)
    }

    static func daysIn(_ y: Int, _ m: Int) -> Int { day(m == 12 ? y + 1 : y, m == 12 ? 1 : m + 1, 1) - day(y, m, 1) }

    /// "3 months from 31 January is 30 April" (docs/garage.md, Quantities).
    static func adding(months n: Int, to day: Int) -> Int {
        let c = civil(day)
        let total = c.y * 12 + (c.m - 1) + n
        let y = total / 12, m = total % 12 + 1
        return Self.day(y, m, min(c.d, daysIn(y, m)))
    }
}

// MARK: - The generated garage

struct RideFilterSpec: Equatable {
    var counts: [String]?
    var trainer: String?

    func over(_ base: RideFilterSpec) -> RideFilterSpec { RideFilterSpec(counts: counts ?? base.counts, trainer: trainer ?? base.trainer) }

    var yaml: [String] {
        var out: [String] = []
        if let counts { out.append("counts: [\(counts.joined(separator: ", "))]") }
        if let trainer { out.append("trainer: \(trainer)") }
        return out
    }
}

struct GeneratedRide {
    var id: Int64
    /// A cached activity's gear (nil: no gear), or nil for a hand-entered ride.
    var gear: String?
    /// A hand-entered ride's bike.
    var handBike: String?
    var day: Int
    var sport: String?
    var trainer: Bool
    var movingTime: Double
    var distance: Double
    var elevation: Double
    /// Local seconds into the day and the UTC offset in hours (activities).
    var seconds: Int
    var offset: Int
    /// How a hand-entered ride writes its time and distance.
    var timeText = ""
    var distanceText = ""

    var isHand: Bool { handBike != nil }
}

struct Limit {
    var number: Int
    var unit: String
    var text: String { "\(number) \(unit)" }

    enum Measure { case time, distance, days, months, rides }

    var measure: Measure {
        switch unit {
        case "h", "min": .time
        case "km", "mi": .distance
        case "days", "weeks": .days
        case "months", "years": .months
        default: .rides
        }
    }

    /// In the base unit: seconds, metres, days, months, rides.
    var amount: Double {
        let n = Double(number)
        switch unit {
        case "h": return n * 3600
        case "min": return n * 60
        case "km": return n * 1000
        case "mi": return n * 1609.344
        case "weeks": return n * 7
        case "years": return n * 12
        default: return n
        }
    }
}

struct GeneratedInterval {
    var id: String
    var task: String
    var every: [Limit]
    var component: String?
    var replaces: String?
    var filter = RideFilterSpec()
    var dueSoon: Int?
    var template: String?

    var everyText: String { every.count == 1 ? every[0].text : "[\(every.map(\.text).joined(separator: ", "))]" }

    func yaml(indent: String) -> [String] {
        var out = ["task: \(task)", "every: \(everyText)"]
        if let component { out.append("component: \(component)") }
        if let replaces { out.append("replaces: \(replaces)") }
        if let dueSoon { out.append("due_soon: \(dueSoon)%") }
        out += filter.yaml
        return out.map { indent + $0 }
    }
}

struct Prior {
    var hours: Int?
    var distance: Limit?
    var rides: Int?

    var yaml: [String] {
        var out: [String] = []
        if let hours { out.append("hours: \(hours)") }
        if let distance { out.append("distance: \(distance.text)") }
        if let rides { out.append("rides: \(rides)") }
        return out
    }

    var movingTime: Double { Double(hours ?? 0) * 3600 }
    var metres: Double { distance?.amount ?? 0 }
    var count: Int { rides ?? 0 }
}

struct GeneratedComponent {
    var id: String
    var installed: Int?
    var prior = Prior()
    var filter = RideFilterSpec()
}

struct LogEntry {
    var date: Int
    var done: [String]
}

struct GeneratedBike {
    var id: String
    var strava: String?
    var bought: Int?
    var retired: Int?
    var filter = RideFilterSpec()
    var components: [GeneratedComponent] = []
    var templates: [String] = []
    var own: [GeneratedInterval] = []
    /// Template intervals whose limits the bike changes: id → new limits.
    var overrides: [(id: String, every: [Limit])] = []
    var log: [LogEntry] = []
    var snoozes: [(id: String, until: Int)] = []
    /// The intervals after templates and overrides (filled by the generator).
    var intervals: [GeneratedInterval] = []

    func component(_ id: String?) -> GeneratedComponent? { id.flatMap { c in components.first { $0.id == c } } }
}

struct Mount {
    var bike: String
    var from: Int
    var to: Int?
}

struct GeneratedPart {
    var id: String
    var bought: Int?
    var retired: Int?
    var prior = Prior()
    var filter = RideFilterSpec()
    var intervals: [GeneratedInterval] = []
    var mounts: [Mount] = []
    var log: [LogEntry] = []
    var snoozes: [(id: String, until: Int)] = []

    func mount(on day: Int) -> Mount? { mounts.first { $0.from <= day && ($0.to.map { day <= $0 } ?? true) } }
}

struct RandomGarage {
    static let sports = ["Ride", "GravelRide", "MountainBikeRide", "VirtualRide", "EBikeRide", "Run"]
    static let defaultCounts = ["EBikeRide", "EMountainBikeRide", "GravelRide", "MountainBikeRide", "Ride"]

    var units: String
    var filter = RideFilterSpec()
    var dueSoon: Int?
    var asOf: Int
    var bikes: [GeneratedBike] = []
    var templates: [(id: String, intervals: [GeneratedInterval])] = []
    var parts: [GeneratedPart] = []
    var rides: [GeneratedRide] = []

    /// garage.yaml's filter over the defaults.
    var garageFilter: RideFilterSpec { filter.over(RideFilterSpec(counts: Self.defaultCounts, trainer: "false")) }

    init(random r: inout SeededGenerator) {
        func chance(_ percent: Int) -> Bool { r.next(100) < percent }
        func pick<T>(_ xs: [T]) -> T { xs[r.next(xs.count)] }
        func someSports() -> [String] {
            var out = Self.sports.filter { _ in chance(45) }
            if out.isEmpty { out = [pick(Self.sports)] }
            return out
        }
        func someFilter(_ percent: Int) -> RideFilterSpec {
            var f = RideFilterSpec()
            if chance(percent) { f.counts = someSports() }
            if chance(percent) { f.trainer = pick(["true", "false", "only"]) }
            return f
        }
        func limit() -> Limit {
            switch r.next(9) {
            case 0: Limit(number: 5 + r.next(60), unit: "h")
            case 1: Limit(number: 300 + r.next(3000), unit: "min")
            case 2: Limit(number: 100 + r.next(4000), unit: "km")
            case 3: Limit(number: 80 + r.next(2500), unit: "mi")
            case 4: Limit(number: 10 + r.next(300), unit: "days")
            case 5: Limit(number: 1 + r.next(20), unit: "weeks")
            case 6: Limit(number: 1 + r.next(18), unit: "months")
            case 7: Limit(number: 1 + r.next(2), unit: "years")
            default: Limit(number: 3 + r.next(80), unit: "rides")
            }
        }
        func every() -> [Limit] {
            let first = limit()
            guard chance(35) else { return [first] }
            var second = limit()
            while second.measure == first.measure { second = limit() }
            return [first, second]
        }
        func prior() -> Prior {
            var p = Prior()
            guard chance(30) else { return p }
            if chance(60) { p.hours = 1 + r.next(80) }
            if chance(60) { p.distance = Limit(number: 10 + r.next(3000), unit: pick(["km", "mi"])) }
            if chance(40) { p.rides = 1 + r.next(60) }
            return p
        }

        units = chance(50) ? "metric" : "imperial"
        filter = someFilter(25)
        if chance(25) { dueSoon = 60 + r.next(35) }
        let start = Civil.day(2024, 1, 1)
        asOf = Civil.day(2026, 3, 1) + r.next(260)

        // Templates: some share an interval id (the later template's wins whole).
        let templateCount = r.next(3)
        var templateIDs: [String] = []
        for t in 0..<templateCount {
            var intervals: [GeneratedInterval] = []
            for k in 0..<(1 + r.next(3)) {
                let id = chance(25) ? "shared-\(r.next(2))" : "t\(t)-job\(k)"
                guard !intervals.contains(where: { $0.id == id }) else { continue }
                var i = GeneratedInterval(id: id, task: "Template \(t) job \(k)", every: every(), template: "tpl\(t)")
                i.filter = someFilter(15)
                if chance(15) { i.dueSoon = 50 + r.next(45) }
                intervals.append(i)
            }
            templates.append(("tpl\(t)", intervals))
            templateIDs.append("tpl\(t)")
        }

        // Bikes.
        let bikeCount = 1 + r.next(4)
        var gearNumber = 1000
        for b in 0..<bikeCount {
            var bike = GeneratedBike(id: "bike\(b)")
            if chance(80) {
                gearNumber += 1 + r.next(5)
                bike.strava = "b\(gearNumber)"
            }
            if chance(80) { bike.bought = start + r.next(600) }
            if chance(15) {
                var retired = (bike.bought ?? start) + 60 + r.next(900)
                if chance(20) { retired = asOf }
                bike.retired = retired
            }
            bike.filter = someFilter(30)
            let firstDay = bike.bought ?? start
            // Components and services mostly on the days the bike was the rider's, some after
            // its retirement (they count as not written).
            let lastDay = chance(80) ? min(asOf, bike.retired ?? asOf) : asOf
            for name in ["chain", "tyres", "fork", "cassette"] where chance(45) {
                var c = GeneratedComponent(id: name)
                if chance(75) { c.installed = firstDay + r.next(max(1, lastDay - firstDay + 1)) }
                if chance(4) { c.installed = asOf + 1 + r.next(30) }
                c.prior = prior()
                c.filter = someFilter(20)
                bike.components.append(c)
            }
            bike.templates = templateIDs.filter { _ in chance(50) }
            // Its own intervals, some about a component, some replacing it.
            for k in 0..<(1 + r.next(4)) {
                var i = GeneratedInterval(id: "job\(k)", task: "Job \(k) of \(bike.id)", every: every())
                if !bike.components.isEmpty, chance(60) {
                    let c = pick(bike.components).id
                    if chance(40) {
                        i.replaces = c
                        i.id = "\(c)-replace\(k)"
                        if chance(50) { i.component = c }
                    } else {
                        i.component = c
                        i.id = "\(c)-job\(k)"
                    }
                }
                i.filter = someFilter(20)
                if chance(15) { i.dueSoon = 50 + r.next(45) }
                bike.own.append(i)
            }
            // The intervals it ends up with: its templates in order (a later one wins an id
            // whole), then its overrides of their limits, then its own.
            var merged: [GeneratedInterval] = []
            for t in bike.templates {
                for i in templates.first(where: { $0.id == t })!.intervals {
                    if let k = merged.firstIndex(where: { $0.id == i.id }) { merged[k] = i } else { merged.append(i) }
                }
            }
            for k in merged.indices where chance(30) {
                let e = every()
                merged[k].every = e
                bike.overrides.append((merged[k].id, e))
            }
            merged += bike.own
            bike.intervals = merged
            // The log: services on days the bike was the rider's.
            let ids = merged.map(\.id)
            if lastDay > firstDay {
                for _ in 0..<r.next(7) {
                    let done = ids.filter { _ in chance(35) }
                    if done.isEmpty { continue }
                    bike.log.append(LogEntry(date: firstDay + r.next(lastDay - firstDay + 1), done: done))
                }
                bike.log.sort { $0.date < $1.date }
            }
            if chance(25), let id = ids.randomElement(using: &r) { bike.snoozes.append((id, asOf - 20 + r.next(80))) }
            bikes.append(bike)
        }

        // Parts moving between bikes.
        for p in 0..<r.next(3) {
            var part = GeneratedPart(id: "part\(p)")
            if chance(60) { part.bought = start + r.next(400) }
            part.prior = prior()
            part.filter = someFilter(25)
            for k in 0..<(1 + r.next(2)) {
                var i = GeneratedInterval(id: "part-job\(k)", task: "Part job \(k)", every: every())
                i.filter = someFilter(15)
                part.intervals.append(i)
            }
            var day = (part.bought ?? start) + r.next(200)
            for _ in 0..<(1 + r.next(3)) where day <= asOf {
                let bike = bikes[r.next(bikes.count)]
                let to: Int? = chance(70) ? day + 20 + r.next(300) : nil
                part.mounts.append(Mount(bike: bike.id, from: day, to: to))
                guard let to else { break }
                day = to + 1 + r.next(60)
            }
            // Some parts were never mounted (nor, some of them, bought).
            if chance(15) { part.mounts = [] }
            let firstMount = part.mounts.first?.from ?? asOf
            if firstMount < asOf {
                for _ in 0..<r.next(4) {
                    let done = part.intervals.map(\.id).filter { _ in chance(50) }
                    if done.isEmpty { continue }
                    part.log.append(LogEntry(date: firstMount + r.next(asOf - firstMount + 1), done: done))
                }
                part.log.sort { $0.date < $1.date }
            }
            if chance(10) { part.retired = min(asOf + 30, firstMount + 30 + r.next(500)) }
            if part.retired == asOf { part.retired = asOf + 1 }
            if chance(20) { part.snoozes.append((part.intervals[0].id, asOf - 20 + r.next(80))) }
            parts.append(part)
        }

        // Rides: activities on each Strava bike, a few with no gear, hand rides on the others.
        var id: Int64 = 17_000_000_000
        let end = asOf + 10
        for bike in bikes {
            let from = max(start, (bike.bought ?? start) - 40)
            let count = r.next(120)
            for _ in 0..<count {
                id += 1 + Int64(r.next(50))
                let day = from + r.next(max(1, end - from))
                let sport = pick(Self.sports)
                if bike.strava == nil || chance(8) {
                    var ride = GeneratedRide(
                        id: id, gear: nil, handBike: bike.id, day: day, sport: chance(40) ? nil : sport == "VirtualRide" ? "Ride" : sport,
                        trainer: false, movingTime: 0, distance: 0, elevation: 0, seconds: 0, offset: 0)
                    let minutes = 10 + r.next(240)
                    if chance(50) {
                        ride.timeText = minutes >= 60 ? "\(minutes / 60)h\(String(format: "%02d", minutes % 60))" : "\(minutes) min"
                    } else {
                        ride.timeText = "\(minutes) min"
                    }
                    ride.movingTime = Double(minutes * 60)
                    let tenths = 10 + r.next(1200)
                    let unit = chance(50) ? "km" : "mi"
                    ride.distanceText = "\(tenths / 10).\(tenths % 10) \(unit)"
                    ride.distance = Double("\(tenths / 10).\(tenths % 10)")! * (unit == "km" ? 1000 : 1609.344)
                    rides.append(ride)
                } else {
                    let trainer = sport == "VirtualRide" ? chance(60) : chance(15)
                    let ride = GeneratedRide(
                        id: id, gear: chance(5) ? nil : bike.strava, handBike: nil, day: day, sport: sport, trainer: trainer,
                        movingTime: Double(300 + r.next(20000)), distance: Double(r.next(1_500_000)) / 10, elevation: Double(r.next(20000)) / 10,
                        seconds: 3600 * 5 + r.next(3600 * 17), offset: pick([-5, 0, 1, 9]))
                    rides.append(ride)
                }
            }
        }
    }

    /// The garage's files: path → text.
    func files() -> [String: String] {
        var out: [String: String] = [:]
        var g = ["name: Differential garage", "units: \(units)", "currency: EUR"]
        if let dueSoon { g.append("due_soon: \(dueSoon)%") }
        g += filter.yaml
        out["garage.yaml"] = g.joined(separator: "\n") + "\n"
        for t in templates {
            var lines = ["name: Template \(t.id)", "intervals:"]
            for i in t.intervals { lines += ["  \(i.id):"] + i.yaml(indent: "    ") }
            out["templates/\(t.id).yaml"] = lines.joined(separator: "\n") + "\n"
        }
        for b in bikes {
            var lines = ["name: Bike \(b.id)"]
            if let s = b.strava { lines.append("strava: \(s)") }
            if let d = b.bought { lines.append("bought: \(Civil.text(d))") }
            if let d = b.retired { lines.append("retired: \(Civil.text(d))") }
            if !b.templates.isEmpty { lines.append("templates: [\(b.templates.joined(separator: ", "))]") }
            lines += b.filter.yaml
            if !b.components.isEmpty {
                lines.append("components:")
                for c in b.components {
                    lines.append("  \(c.id):")
                    lines.append("    name: The \(c.id)")
                    if let d = c.installed { lines.append("    installed: \(Civil.text(d))") }
                    lines += (c.prior.yaml + c.filter.yaml).map { "    " + $0 }
                }
            }
            lines.append("intervals:")
            for o in b.overrides {
                lines += ["  \(o.id):", "    every: \(o.every.count == 1 ? o.every[0].text : "[\(o.every.map(\.text).joined(separator: ", "))]")"]
            }
            for i in b.own { lines += ["  \(i.id):"] + i.yaml(indent: "    ") }
            if !b.snoozes.isEmpty {
                lines.append("snooze:")
                for s in b.snoozes { lines.append("  \(s.id): \(Civil.text(s.until))") }
            }
            lines.append("log:")
            for e in b.log { lines.append("  - {date: \(Civil.text(e.date)), done: [\(e.done.joined(separator: ", "))]}") }
            if b.log.isEmpty { lines[lines.count - 1] = "log: []" }
            out["bikes/\(b.id).yaml"] = lines.joined(separator: "\n") + "\n"
        }
        for p in parts {
            var lines = ["name: Part \(p.id)"]
            if let d = p.bought { lines.append("bought: \(Civil.text(d))") }
            if let d = p.retired { lines.append("retired: \(Civil.text(d))") }
            lines += p.prior.yaml + p.filter.yaml
            lines.append("intervals:")
            for i in p.intervals { lines += ["  \(i.id):"] + i.yaml(indent: "    ") }
            lines.append("mounts:")
            for m in p.mounts {
                lines.append("  - {bike: \(m.bike), from: \(Civil.text(m.from))\(m.to.map { ", to: \(Civil.text($0))" } ?? "")}")
            }
            if !p.snoozes.isEmpty {
                lines.append("snooze:")
                for s in p.snoozes { lines.append("  \(s.id): \(Civil.text(s.until))") }
            }
            lines.append(p.log.isEmpty ? "log: []" : "log:")
            for e in p.log { lines.append("  - {date: \(Civil.text(e.date)), done: [\(e.done.joined(separator: ", "))]}") }
            out["parts/\(p.id).yaml"] = lines.joined(separator: "\n") + "\n"
        }
        var hand = ["rides:"]
        for ride in rides.filter(\.isHand).sorted(by: { ($0.day, $0.id) < ($1.day, $1.id) }) {
            hand.append(
                "  - {date: \(Civil.text(ride.day)), bike: \(ride.handBike!), time: \(ride.timeText), distance: \(ride.distanceText)"
                    + (ride.sport.map { ", sport: \($0)" } ?? "") + "}")
        }
        out["rides.yaml"] = hand.count == 1 ? "rides: []\n" : hand.joined(separator: "\n") + "\n"
        // The activity cache: a file per month of UTC start, sorted by start_date then id,
        // one activity per line with sorted keys (docs/garage.md).
        var months: [String: [(String, Int64, String)]] = [:]
        for ride in rides where !ride.isHand {
            let local = ride.day * 86_400 + ride.seconds
            let utc = local - ride.offset * 3600
            func stamp(_ t: Int) -> String {
                let d = t >= 0 ? t / 86_400 : (t - 86_399) / 86_400
                let s = t - d * 86_400
                return Civil.text(d) + String(format: "T%02d:%02d:%02dZ", s / 3600, s / 60 % 60, s % 60)
            }
            let start = stamp(utc)
            let gear = ride.gear.map { "\"\($0)\"" } ?? "null"
            let offsetText = String(format: "(GMT%@%02d:00) Zone/Test", ride.offset < 0 ? "-" : "+", abs(ride.offset))
            let line =
                "{\"commute\":false,\"distance\":\(Self.number(ride.distance)),\"elapsed_time\":\(Int(ride.movingTime) + 120),"
                + "\"gear_id\":\(gear),\"id\":\(ride.id),\"manual\":false,\"moving_time\":\(Int(ride.movingTime)),"
                + "\"name\":\"Ride \(ride.id)\",\"sport_type\":\"\(ride.sport!)\",\"start_date\":\"\(start)\","
                + "\"start_date_local\":\"\(stamp(local))\",\"timezone\":\"\(offsetText)\","
                + "\"total_elevation_gain\":\(Self.number(ride.elevation)),\"trainer\":\(ride.trainer),\"type\":\"Ride\"}"
            months[String(start.prefix(7)), default: []].append((start, ride.id, line))
        }
        for (month, lines) in months {
            let sorted = lines.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
            out["activities/\(month).json"] = "[\n" + sorted.joined(separator: ",\n") + "\n]\n"
        }
        return out
    }

    /// A number as Strava writes one: `12.3`, `40` for a whole number.
    static func number(_ v: Double) -> String {
        let tenths = Int((v * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    }
}
