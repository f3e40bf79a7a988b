import Foundation
import TestSupport
import Testing

/// The documented rules, read independently of BikeCheckKit: what each figure should be for a
/// `RandomGarage`. Each rule cites the page it comes from (most of the fine print is in due.md's
/// "The rules in detail"); a rule changed there must change here.
struct DocumentedRules {
    let garage: RandomGarage

    var asOf: Int { garage.asOf }

    /// A filter with every key decided: counts (nil: a hand ride without `sport:` passes any).
    struct Filter: Hashable {
        var counts: Set<String>
        var trainer: String
    }

    /// "interval → its component or its part → the bike → garage.yaml → the defaults" (due.md).
    func resolve(_ specs: RideFilterSpec...) -> Filter {
        var f = RideFilterSpec()
        for s in specs { f = f.over(s) }
        f = f.over(garage.garageFilter)
        return Filter(counts: Set(f.counts!), trainer: f.trainer!)
    }

    func bikeFilter(_ bike: GeneratedBike) -> Filter { resolve(bike.filter) }

    /// The filter of a bike's interval: its own, its component's (`component:` or `replaces:`), the bike's.
    func filter(of interval: GeneratedInterval, on bike: GeneratedBike) -> Filter {
        let c = bike.component(interval.component ?? interval.replaces)
        return resolve(interval.filter, c?.filter ?? RideFilterSpec(), bike.filter)
    }

    /// Whether a ride counts for `bike` through `filter` (due.md, Which rides count; a bike counts
    /// the rides from `bought:` through `retired:`). A hand ride is outdoors; one without
    /// `sport:` passes every `counts` (due.md, the rules in detail). A ride's day is its local day.
    func counts(_ ride: GeneratedRide, bike: GeneratedBike, filter: Filter) -> Bool {
        if let hand = ride.handBike {
            guard hand == bike.id else { return false }
        } else {
            guard let gear = ride.gear, gear == bike.strava else { return false }
        }
        guard ride.day <= asOf else { return false }
        if let b = bike.bought, ride.day < b { return false }
        if let r = bike.retired, ride.day > r { return false }
        if let sport = ride.sport, !filter.counts.contains(sport) { return false }
        let indoors = !ride.isHand && (ride.trainer || ride.sport == "VirtualRide")
        switch filter.trainer {
        case "true": return true
        case "only": return indoors
        default: return !indoors
        }
    }

    /// A bike's counted rides through a filter, in day order (then id, hand rides last).
    func rides(of bike: GeneratedBike, filter: Filter) -> [GeneratedRide] {
        garage.rides.filter { counts($0, bike: bike, filter: filter) }
            .sorted { ($0.day, $0.isHand ? 1 : 0, $0.id) < ($1.day, $1.isHand ? 1 : 0, $1.id) }
    }

    struct Usage {
        var movingTime = 0.0
        var distance = 0.0
        var rides = 0
        var elevation = 0.0
        var first: Int?
        var last: Int?

        mutating func add(_ r: GeneratedRide) {
            movingTime += r.movingTime
            distance += r.distance
            elevation += r.elevation
            rides += 1
            first = min(first ?? r.day, r.day)
            last = max(last ?? r.day, r.day)
        }
    }

    func usage(_ rides: [GeneratedRide], from: Int, through: Int) -> Usage {
        var u = Usage()
        for r in rides where r.day >= from && r.day <= through { u.add(r) }
        return u
    }

    struct LimitExpected {
        var limit: Double
        var used: Double
        var progress: Double
        var due: Int?
    }

    struct IntervalExpected {
        var state: String
        var progress: Double
        var since: Int?
        var anchor: String
        var usage: Usage
        var days: Int
        var limits: [LimitExpected]
        var due: Int?
        var snoozedUntil: Int?
        /// Usage before tracking added to `usage`.
        var prior: Prior?
        /// The counted rides alone, without `prior`.
        var riding = Usage()
    }

    /// The recent pace (due.md, forecast): an average per day over the last year, each day weighted
    /// by half every 30 days back, over the days since `first` (the bike's `bought:`, else its
    /// first ride). Per day: (moving time, distance, rides).
    func pace(_ rides: [GeneratedRide], first: Int?) -> (Double, Double, Double) {
        let lived = first.map { asOf - $0 + 1 } ?? Int.max
        let window = min(365, lived)
        guard window > 0 else { return (0, 0, 0) }
        let decay = log(2.0) / 30
        var total = 0.0
        for age in 0..<window { total += exp(-decay * Double(age)) }
        var t = 0.0, d = 0.0, n = 0.0
        for r in rides where r.day > asOf - window && r.day <= asOf {
            let w = exp(-decay * Double(asOf - r.day))
            t += w * r.movingTime
            d += w * r.distance
            n += w
        }
        return (t / total, d / total, n / total)
    }

    /// The day a limit is reached at a pace; none beyond 3,650 days (due.md, the rules in detail).
    func forecast(remaining: Double, rate: Double) -> Int? {
        guard remaining > 0, rate > 0 else { return nil }
        let days = (remaining / rate - 1e-9).rounded(.up)
        return days < 3650 ? asOf + Int(days) : nil
    }

    /// An interval's figures from its anchor, usage and pace (due.md: Progress, forecast).
    func figures(
        every: [Limit], dueSoon: Int?, since: Int?, anchor: String, usage: Usage, prior: Prior?, clock: Int, stopped: Bool,
        pace: (Double, Double, Double), snooze: Int?
    ) -> IntervalExpected {
        var u = usage
        if let prior {
            u.movingTime += prior.movingTime
            u.distance += prior.metres
            u.rides += prior.count
        }
        let days = since.map { clock - $0 } ?? 0
        var limits: [LimitExpected] = []
        var fractions: [Double] = []
        for l in every {
            guard let since else {
                // No anchor: nothing counted yet but the usage before tracking, which counts
                // until the part is first done (due.md); no forecast without a bike.
                let used: Double =
                    switch l.measure {
                    case .time: u.movingTime
                    case .distance: u.distance
                    case .rides: Double(u.rides)
                    case .days, .months: 0
                    }
                let progress = (used / l.amount * 10_000).rounded() / 10_000
                limits.append(LimitExpected(limit: l.amount, used: used, progress: progress, due: nil))
                fractions.append(progress)
                continue
            }
            var used: Double
            var due: Int?
            switch l.measure {
            case .time:
                used = u.movingTime
                due = forecast(remaining: l.amount - used, rate: pace.0)
            case .distance:
                used = u.distance
                due = forecast(remaining: l.amount - used, rate: pace.1)
            case .rides:
                used = Double(u.rides)
                due = forecast(remaining: l.amount - used, rate: pace.2)
            case .days:
                used = Double(days)
                due = since + Int(l.amount)
            case .months:
                // A month's fraction: the days elapsed over the days to the same date n months on
                // (due.md, the rules in detail).
                let end = Civil.adding(months: Int(l.amount), to: since)
                used = Double(days) * l.amount / Double(max(1, end - since))
                due = end
            }
            // due.md, the rules in detail: the progress is rounded to four decimals, and that
            // number decides the state, due_soon and the forecasts. A month's fraction is taken
            // as the days over the span's (the same value, without a float's detour).
            let fraction =
                switch l.measure {
                case .months: Double(days) / Double(max(1, Civil.adding(months: Int(l.amount), to: since) - since))
                default: used / l.amount
                }
            let progress = (fraction * 10_000).rounded() / 10_000
            fractions.append(progress)
            limits.append(LimitExpected(limit: l.amount, used: used, progress: progress, due: progress >= 1 || stopped ? nil : due))
        }
        let progress = fractions.max() ?? 0
        let threshold = Double(dueSoon ?? garage.dueSoon ?? 80) / 100
        var state = progress >= 1 ? "overdue" : progress >= threshold ? "due-soon" : "ok"
        var due = state == "overdue" || stopped ? nil : limits.compactMap(\.due).min()
        var snoozed: Int?
        // garage.md: before its day a snoozed interval is snoozed, its forecast no earlier than the day.
        if let snooze, asOf < snooze {
            state = "snoozed"
            snoozed = snooze
            due = max(snooze, due ?? snooze)
        }
        return IntervalExpected(
            state: state, progress: progress, since: since, anchor: since == nil ? "none" : anchor, usage: u, days: days, limits: limits,
            due: due, snoozedUntil: snoozed, prior: prior, riding: usage)
    }

    /// A bike's interval (due.md: anchor, usage; a retired bike's clock stops on its day).
    func status(of interval: GeneratedInterval, on bike: GeneratedBike) -> IntervalExpected {
        // due.md: a retired bike's clock stops on the day it was retired, and nothing is
        // forecast for it (retired on the as-of day included).
        let stopped = bike.retired.map { $0 <= asOf } ?? false
        let clock = stopped ? min(bike.retired!, asOf) : asOf
        let filter = filter(of: interval, on: bike)
        let counted = rides(of: bike, filter: filter)
        // The anchor: the latest of the last entry that did it and the (re)install of its
        // component; on a tie a log entry beats the install, the earlier entry the later, and in
        // one entry the service the replacement (due.md, the rules in detail).
        var best: (day: Int, order: Int, kind: String)?
        func consider(_ day: Int?, _ order: Int, _ kind: String) {
            guard let day, day <= clock else { return }
            if let b = best, day < b.day || (day == b.day && order > b.order) { return }
            best = (day, order, kind)
        }
        let componentID = interval.component ?? interval.replaces
        if let c = bike.component(componentID) {
            // A component with no `installed:` counts from `bought:` (due.md, the rules in detail).
            consider(installed(c, on: bike) ?? bike.bought, Int.max, "installed")
        }
        let replacing = Set(bike.intervals.filter { $0.replaces != nil && $0.replaces == componentID }.map(\.id))
        var lastDone: (Int, Int)?
        var lastReplaced: (Int, Int)?
        for (n, e) in bike.log.enumerated() where e.date <= clock {
            if e.done.contains(interval.id), lastDone.map({ e.date > $0.0 }) ?? true { lastDone = (e.date, 2 * n) }
            if componentID != nil, e.done.contains(where: replacing.contains), lastReplaced.map({ e.date > $0.0 }) ?? true {
                lastReplaced = (e.date, 2 * n + 1)
            }
        }
        if let d = lastDone { consider(d.0, d.1, "done") }
        if let d = lastReplaced { consider(d.0, d.1, "replaced") }
        var since: Int?
        var kind = "none"
        if let best {
            (since, kind) = (best.day, best.kind)
        } else if let b = bike.bought, b <= clock {
            (since, kind) = (b, "bought")
        } else if let first = counted.first?.day, first <= clock {
            (since, kind) = (first, "first-ride")
        }
        let used = since.map { usage(counted, from: $0, through: clock) } ?? Usage()
        // due.md, the rules in detail: usage before tracking counts until the interval is done
        // or its component replaced (anchor installed, bought, first-ride or none).
        let prior: Prior? = kind != "done" && kind != "replaced" ? bike.component(componentID)?.prior : nil
        let p = pace(counted, first: bike.bought ?? counted.first?.day)
        return figures(
            every: interval.every, dueSoon: interval.dueSoon, since: since, anchor: kind, usage: used, prior: prior, clock: clock,
            stopped: stopped, pace: p, snooze: bike.snoozes.last { $0.id == interval.id }?.until)
    }

    func bike(_ id: String) -> GeneratedBike? { garage.bikes.first { $0.id == id } }

    /// A component's `installed:`, unless it is after the as-of day or the bike's `retired:`
    /// day: then it counts as not written (due.md, the rules in detail).
    func installed(_ c: GeneratedComponent, on bike: GeneratedBike) -> Int? {
        c.installed.flatMap { $0 <= min(asOf, bike.retired ?? asOf) ? $0 : nil }
    }

    /// A part's rides through `spec` (its interval's over the part's), over each bike's filter,
    /// on the days it was mounted there (due.md: A part's usage), from `from` through `through`.
    func partRides(_ part: GeneratedPart, spec: RideFilterSpec, from: Int, through: Int) -> [(bike: String, ride: GeneratedRide)] {
        var out: [(String, GeneratedRide)] = []
        for m in part.mounts.sorted(by: { $0.from < $1.from }) {
            guard let b = bike(m.bike) else { continue }
            let f = resolve(spec, b.filter)
            let lo = max(m.from, from), hi = min(m.to ?? through, through)
            guard lo <= hi else { continue }
            for r in rides(of: b, filter: f) where r.day >= lo && r.day <= hi { out.append((b.id, r)) }
        }
        return out
    }

    /// A part's interval (due.md: a part's interval counts from its own log, else bought, else
    /// its first mount; its usage before tracking is added until it is first done; it is
    /// forecast at the pace of the bike it is on).
    func status(of interval: GeneratedInterval, part: GeneratedPart) -> IntervalExpected {
        let current = part.mount(on: asOf)?.bike
        let ends = [part.retired, current.flatMap { bike($0)?.retired }].compactMap { $0 }
        let end = ends.min()
        let stopped = end.map { $0 <= asOf } ?? false
        let clock = stopped ? min(end!, asOf) : asOf
        var since: Int?
        var kind = "none"
        if let d = part.log.filter({ $0.date <= clock && $0.done.contains(interval.id) }).map(\.date).max() {
            (since, kind) = (d, "done")
        } else if let b = part.bought, b <= clock {
            (since, kind) = (b, "bought")
        } else if let first = part.mounts.map(\.from).min(), first <= clock {
            // A part's first mount is reported as anchor `installed` (due.md, the rules in detail).
            (since, kind) = (first, "installed")
        }
        var used = Usage()
        if let since { for (_, r) in partRides(part, spec: interval.filter.over(part.filter), from: since, through: clock) { used.add(r) } }
        var p = (0.0, 0.0, 0.0)
        if let current, let b = bike(current) {
            let counted = rides(of: b, filter: resolve(interval.filter, part.filter, b.filter))
            // The days both the part and the bike it is on existed.
            let firsts = [b.bought ?? counted.first?.day, part.bought ?? part.mounts.map(\.from).min()].compactMap { $0 }
            p = pace(counted, first: firsts.max())
        }
        return figures(
            every: interval.every, dueSoon: interval.dueSoon, since: since, anchor: kind, usage: used,
            prior: kind != "done" ? part.prior : nil, clock: clock, stopped: stopped, pace: p,
            snooze: part.snoozes.last { $0.id == interval.id }?.until)
    }
}

/// Runs the binary on one garage and compares every figure with `DocumentedRules`.
struct DifferentialCheck {
    let garage: RandomGarage
    let folder: TemporaryFolder
    let label: String
    var figures = 0
    var disagreements: [String] = []
    /// What the compared intervals covered: states, anchors, forecasts.
    var coverage: [String: Int] = [:]

    init(garage: RandomGarage, folder: TemporaryFolder, label: String) {
        self.garage = garage
        self.folder = folder
        self.label = label
    }

    var rules: DocumentedRules { DocumentedRules(garage: garage) }
    var asOfText: String { Civil.text(garage.asOf) }

    mutating func disagree(_ what: String) { disagreements.append("\(label): \(what)") }

    func json(_ arguments: [String]) throws -> [String: Any]? {
        let r = try runBikecheck(arguments + ["--format", "json", "--as-of", asOfText, "--garage", folder.path], in: folder.url)
        guard let object = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else { return nil }
        return object
    }

    /// Equal at the JSON's precision: four decimals (status, part list), or tenths (`places:
    /// 10`: usage, rides, history); a hair more, for the sums' last bits.
    mutating func number(_ got: Any?, _ want: Double, _ what: String, places: Double = 10_000) {
        figures += 1
        guard let g = (got as? NSNumber)?.doubleValue else { return disagree("\(what): missing, expected \(want)") }
        if abs(g - want) > 1.01 / places { disagree("\(what): bikecheck \(g), the docs \(want)") }
    }

    mutating func text(_ got: Any?, _ want: String?, _ what: String) {
        figures += 1
        let g = got as? String
        if g != want { disagree("\(what): bikecheck \(g ?? "nil"), the docs \(want ?? "nil")") }
    }

    mutating func day(_ got: Any?, _ want: Int?, _ what: String) { text(got, want.map(Civil.text), what) }

    mutating func run() throws {
        let validate = try runBikecheck(["validate", "--format", "json", "--garage", folder.path], in: folder.url)
        if let v = try? JSONSerialization.jsonObject(with: Data(validate.stdout.utf8)) as? [String: Any], (v["errors"] as? Int) == 0 {
        } else {
            return disagree("the generator wrote a garage with errors: \(validate.stdout.prefix(600))")
        }
        let asOf = garage.asOf
        for b in garage.bikes {
            if b.retired == asOf { coverage["bike retired on the as-of day", default: 0] += 1 }
            for c in b.components where c.installed != nil && rules.installed(c, on: b) == nil {
                coverage["install after retired or as-of", default: 0] += 1
            }
        }
        for p in garage.parts where p.mounts.isEmpty { coverage["part never mounted", default: 0] += 1 }
        try compareStatus()
        try comparePartList()
        try compareUsage()
        try compareHistory()
        try compareRidesBehindIntervals()
        try compareCalendar()
    }

    mutating func compare(_ got: [String: Any], _ want: DocumentedRules.IntervalExpected, _ what: String) {
        coverage[want.state, default: 0] += 1
        coverage["anchor " + want.anchor, default: 0] += 1
        if want.due != nil { coverage["forecast", default: 0] += 1 }
        if want.prior != nil { coverage["prior", default: 0] += 1 }
        text(got["state"], want.state, "\(what) state")
        number(got["progress"], want.progress, "\(what) progress")
        day(got["since"], want.since, "\(what) since")
        text(got["anchor"], want.anchor, "\(what) anchor")
        let usage = got["usage"] as? [String: Any] ?? [:]
        number(usage["moving_time"], want.usage.movingTime, "\(what) usage.moving_time")
        number(usage["distance"], want.usage.distance, "\(what) usage.distance")
        number(usage["rides"], Double(want.usage.rides), "\(what) usage.rides")
        number(usage["days"], Double(want.days), "\(what) usage.days")
        let limits = got["limits"] as? [[String: Any]] ?? []
        figures += 1
        guard limits.count == want.limits.count else { return disagree("\(what): \(limits.count) limits, the docs \(want.limits.count)") }
        for (k, (g, w)) in zip(limits, want.limits).enumerated() {
            number(g["limit"], w.limit, "\(what) limits[\(k)].limit")
            number(g["used"], w.used, "\(what) limits[\(k)].used")
            number(g["progress"], w.progress, "\(what) limits[\(k)].progress")
            day(g["due"], w.due, "\(what) limits[\(k)].due")
        }
        day(got["due"], want.due, "\(what) due")
        day(got["snoozed_until"], want.snoozedUntil, "\(what) snoozed_until")
    }

    /// `status` (and `status BIKE` for the retired bikes): every interval of every bike, and
    /// every part's under the bike it is on or on its own.
    mutating func compareStatus() throws {
        let rules = self.rules, asOf = garage.asOf
        var expected: [String: DocumentedRules.IntervalExpected] = [:]
        func shownParts(on bike: String) -> [GeneratedPart] {
            garage.parts.filter { p in !(p.retired.map { $0 <= asOf } ?? false) && p.mount(on: asOf)?.bike == bike }
        }
        for b in garage.bikes {
            for i in b.intervals { expected["\(b.id)//\(i.id)"] = rules.status(of: i, on: b) }
            for p in shownParts(on: b.id) { for i in p.intervals { expected["\(b.id)/\(p.id)/\(i.id)"] = rules.status(of: i, part: p) } }
        }
        for p in garage.parts where !(p.retired.map { $0 <= asOf } ?? false) && p.mount(on: asOf) == nil {
            for i in p.intervals { expected["shelf/\(p.id)/\(i.id)"] = rules.status(of: i, part: p) }
        }
        var seen: Set<String> = []
        let active = garage.bikes.filter { $0.retired.map { $0 > asOf } ?? true }.map(\.id)
        let retired = garage.bikes.map(\.id).filter { !active.contains($0) }
        var outputs: [[String: Any]] = []
        if let plain = try json(["status"]) { outputs.append(plain) } else { disagree("status printed no JSON") }
        if !retired.isEmpty {
            if let named = try json(["status"] + retired) { outputs.append(named) } else { disagree("status \(retired) printed no JSON") }
        }
        for (n, output) in outputs.enumerated() {
            for b in output["bikes"] as? [[String: Any]] ?? [] {
                let bike = b["id"] as? String ?? "?"
                for i in b["intervals"] as? [[String: Any]] ?? [] {
                    let key = "\(bike)/\(i["part"] as? String ?? "")/\(i["id"] as? String ?? "?")"
                    seen.insert(key)
                    guard let want = expected[key] else {
                        disagree("status shows \(key), which the docs do not")
                        continue
                    }
                    compare(i, want, "status \(key)")
                }
            }
            guard n == 0 else { continue }
            for p in output["parts"] as? [[String: Any]] ?? [] {
                for i in p["intervals"] as? [[String: Any]] ?? [] {
                    let key = "shelf/\(p["id"] as? String ?? "?")/\(i["id"] as? String ?? "?")"
                    seen.insert(key)
                    guard let want = expected[key] else {
                        disagree("status shows \(key) on the shelf, which the docs do not")
                        continue
                    }
                    compare(i, want, "status \(key)")
                }
            }
        }
        figures += expected.count
        for key in expected.keys.sorted() where !seen.contains(key) { disagree("status does not show \(key)") }
    }

    /// `part list`: every part's life (prior + each mount) and every component's current life.
    mutating func comparePartList() throws {
        guard let output = try json(["part", "list"]) else { return disagree("part list printed no JSON") }
        let rules = self.rules, asOf = garage.asOf
        var rows: [String: [String: Any]] = [:]
        for p in output["parts"] as? [[String: Any]] ?? [] {
            rows["\(p["kind"] as? String ?? "?")/\(p["bike"] as? String ?? "")/\(p["id"] as? String ?? "?")"] = p
        }
        func lifeFigures(_ got: [String: Any], _ u: DocumentedRules.Usage, _ what: String) {
            number(got["distance"], u.distance, "\(what) distance")
            number(got["moving_time"], u.movingTime, "\(what) moving_time")
            number(got["rides"], Double(u.rides), "\(what) rides")
            day(got["first_use"], u.first, "\(what) first_use")
            day(got["last_use"], u.last, "\(what) last_use")
        }
        for p in garage.parts {
            // due.md: what counted for each bike it was on, on the days it was there, plus its
            // usage before tracking; a retired part's clock stops on its day.
            let through = min(asOf, p.retired ?? asOf)
            let retired = p.retired.map { $0 <= asOf } ?? false
            let bike = retired ? nil : p.mount(on: asOf)?.bike
            let key = "part/\(bike ?? "")/\(p.id)"
            guard let got = rows.removeValue(forKey: key) else {
                disagree("part list has no \(key)")
                continue
            }
            var life = DocumentedRules.Usage()
            for (_, r) in rules.partRides(p, spec: p.filter, from: Int.min / 2, through: through) { life.add(r) }
            var total = life
            total.distance += p.prior.metres
            total.movingTime += p.prior.movingTime
            total.rides += p.prior.count
            lifeFigures(got, total, "part list \(key)")
            let prior = got["prior"] as? [String: Any] ?? [:]
            number(prior["distance"], p.prior.metres, "part list \(key) prior.distance")
            number(prior["moving_time"], p.prior.movingTime, "part list \(key) prior.moving_time")
            number(prior["rides"], Double(p.prior.count), "part list \(key) prior.rides")
            let mounts = got["mounts"] as? [[String: Any]] ?? []
            let wanted = p.mounts.sorted { $0.from < $1.from }.filter { $0.from <= through }
            figures += 1
            guard mounts.count == wanted.count else {
                disagree("part list \(key): \(mounts.count) mounts, the docs \(wanted.count)")
                continue
            }
            for (g, m) in zip(mounts, wanted) {
                var u = DocumentedRules.Usage()
                if let b = rules.bike(m.bike) {
                    let f = rules.resolve(p.filter, b.filter)
                    for r in rules.rides(of: b, filter: f) where r.day >= m.from && r.day <= min(m.to ?? through, through) { u.add(r) }
                }
                lifeFigures(g, u, "part list \(key) mount \(m.bike) from \(Civil.text(m.from))")
            }
        }
        for b in garage.bikes {
            // A replacing entry after the retired day counts as not written (commands.md).
            let services = b.log.filter { $0.date <= min(asOf, b.retired ?? asOf) }
            for c in b.components {
                // commands.md: a component's life is the current one's, since its `installed`
                // (else the bike's `bought:`) or the latest entry of a task that replaces it,
                // with its usage before tracking until it is first replaced.
                let key = "component/\(b.id)/\(c.id)"
                guard let got = rows.removeValue(forKey: key) else {
                    disagree("part list has no \(key)")
                    continue
                }
                var since = rules.installed(c, on: b) ?? b.bought
                let replacing = Set(b.intervals.filter { $0.replaces == c.id }.map(\.id))
                var replaced = false
                if let r = services.filter({ $0.done.contains(where: replacing.contains) }).map(\.date).max(), since.map({ r >= $0 }) ?? true {
                    since = r
                    replaced = true
                }
                let f = rules.resolve(c.filter, b.filter)
                var u = rules.usage(rules.rides(of: b, filter: f), from: since ?? Int.min / 2, through: asOf)
                if !replaced {
                    u.distance += c.prior.metres
                    u.movingTime += c.prior.movingTime
                    u.rides += c.prior.count
                }
                day(got["since"], since, "part list \(key) since")
                lifeFigures(got, u, "part list \(key)")
                // The slot: every ride of the bike through the component's filter, whichever
                // component filled it, plus the usage before tracking written for it.
                var slot = rules.usage(rules.rides(of: b, filter: f), from: Int.min / 2, through: asOf)
                slot.distance += c.prior.metres
                slot.movingTime += c.prior.movingTime
                slot.rides += c.prior.count
                lifeFigures(got["slot"] as? [String: Any] ?? [:], slot, "part list \(key) slot")
            }
        }
        for key in rows.keys.sorted() { disagree("part list shows \(key), which the docs do not") }
    }

    /// `usage`: each bike's counted riding per month and over the whole span, and each part's
    /// on its bikes, with the odometer (reports.md: every counted ride up to the end of the
    /// period; a part's starts from its usage before tracking).
    mutating func compareUsage() throws {
        guard let output = try json(["usage"]) else { return disagree("usage printed no JSON") }
        let rules = self.rules, asOf = garage.asOf
        var months: [String: [String: Any]] = [:]
        for t in output["rows"] as? [[String: Any]] ?? [] {
            let s = t["subject"] as? [String: Any] ?? [:]
            months["\(s["kind"] as? String ?? "?")/\(s["id"] as? String ?? "?")/\(t["period"] as? String ?? "?")"] = t
        }
        func perMonth(_ key: String, _ rides: [GeneratedRide], odometer start: Double) {
            var odometer = start
            var byMonth: [String: DocumentedRules.Usage] = [:]
            for r in rides { byMonth[String(Civil.text(r.day).prefix(7)), default: .init()].add(r) }
            for month in byMonth.keys.sorted() {
                let u = byMonth[month]!
                odometer += u.distance
                let what = "usage \(key) \(month)"
                guard let got = months.removeValue(forKey: "\(key)/\(month)") else {
                    disagree("\(what): no row")
                    continue
                }
                number(got["rides"], Double(u.rides), "\(what) rides")
                number(got["moving_time"], u.movingTime, "\(what) moving_time", places: 10)
                number(got["distance"], u.distance, "\(what) distance", places: 10)
                number(got["elevation"], u.elevation, "\(what) elevation", places: 10)
                number(got["odometer"], odometer, "\(what) odometer", places: 10)
            }
        }
        for b in garage.bikes {
            perMonth("bike/\(b.id)", rules.rides(of: b, filter: rules.bikeFilter(b)), odometer: 0)
        }
        for p in garage.parts {
            let rides = rules.partRides(p, spec: p.filter, from: Int.min / 2, through: min(asOf, p.retired ?? asOf)).map(\.ride)
            perMonth("part/\(p.id)", rides, odometer: p.prior.metres)
        }
        for key in months.keys.sorted() { disagree("usage shows a row \(key), which the docs do not") }
        var rows: [String: [String: Any]] = [:]
        for t in output["totals"] as? [[String: Any]] ?? [] {
            let s = t["subject"] as? [String: Any] ?? [:]
            rows["\(s["kind"] as? String ?? "?")/\(s["id"] as? String ?? "?")"] = t
        }
        for b in garage.bikes {
            let u = rules.usage(rules.rides(of: b, filter: rules.bikeFilter(b)), from: Int.min / 2, through: asOf)
            guard let got = rows.removeValue(forKey: "bike/\(b.id)") else {
                if u.rides > 0 { disagree("usage has no total for bike \(b.id) (\(u.rides) rides)") }
                continue
            }
            number(got["rides"], Double(u.rides), "usage bike/\(b.id) rides")
            number(got["moving_time"], u.movingTime, "usage bike/\(b.id) moving_time")
            number(got["distance"], u.distance, "usage bike/\(b.id) distance", places: 10)
            number(got["elevation"], u.elevation, "usage bike/\(b.id) elevation", places: 10)
        }
        for p in garage.parts {
            var u = DocumentedRules.Usage()
            for (_, r) in rules.partRides(p, spec: p.filter, from: Int.min / 2, through: min(asOf, p.retired ?? asOf)) { u.add(r) }
            guard let got = rows.removeValue(forKey: "part/\(p.id)") else {
                if u.rides > 0 { disagree("usage has no total for part \(p.id) (\(u.rides) rides)") }
                continue
            }
            number(got["rides"], Double(u.rides), "usage part/\(p.id) rides")
            number(got["moving_time"], u.movingTime, "usage part/\(p.id) moving_time")
            number(got["distance"], u.distance, "usage part/\(p.id) distance", places: 10)
            number(got["odometer"], u.distance + p.prior.metres, "usage part/\(p.id) odometer", places: 10)
        }
        for key in rows.keys.sorted() { disagree("usage shows \(key), which the docs do not") }
    }

    /// `history`: each task's "after X km / Y h since …", the counted riding from the previous
    /// entry that did it through this one, both days inclusive, through the interval's filter
    /// (reports.md; issue #28's bug 1), as status counts it.
    mutating func compareHistory() throws {
        guard let output = try json(["history"]) else { return disagree("history printed no JSON") }
        let rules = self.rules, asOf = garage.asOf
        // Each subject's entries, newest day first as printed (one day's in the order written):
        // by day, oldest first, they are its log in date order.
        var printed: [String: [[String: Any]]] = [:]
        for e in output["entries"] as? [[String: Any]] ?? [] {
            let s = e["subject"] as? [String: Any] ?? [:]
            printed["\(s["kind"] as? String ?? "?")/\(s["id"] as? String ?? "?")", default: []].append(e)
        }
        for (key, list) in printed {
            printed[key] = list.enumerated().sorted { ($0.element["date"] as? String ?? "", $0.offset) < ($1.element["date"] as? String ?? "", $1.offset) }
                .map(\.element)
        }
        var subjects: [(key: String, log: [LogEntry], span: (String, Int, Int) -> DocumentedRules.Usage)] = []
        for b in garage.bikes {
            subjects.append(
                (
                    "bike/\(b.id)", b.log,
                    { task, from, through in
                        guard let i = b.intervals.first(where: { $0.id == task }) else { return .init() }
                        return rules.usage(rules.rides(of: b, filter: rules.filter(of: i, on: b)), from: from, through: through)
                    }
                ))
        }
        for p in garage.parts {
            subjects.append(
                (
                    "part/\(p.id)", p.log,
                    { task, from, through in
                        guard let i = p.intervals.first(where: { $0.id == task }) else { return .init() }
                        var u = DocumentedRules.Usage()
                        let stop = min(through, p.retired ?? through)
                        for (_, r) in rules.partRides(p, spec: i.filter.over(p.filter), from: from, through: stop) { u.add(r) }
                        return u
                    }
                ))
        }
        for (key, log, span) in subjects {
            let entries = log.enumerated().filter { $0.element.date <= asOf }.sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }
                .map(\.element)
            let got = printed.removeValue(forKey: key) ?? []
            figures += 1
            guard got.count == entries.count else {
                disagree("history \(key): \(got.count) entries, the docs \(entries.count)")
                continue
            }
            // reports.md: each task's riding since the previous entry that did it, counted from
            // that day through this one, through the interval's own filter; `first logged` the first time.
            var last: [String: Int] = [:]
            for (e, g) in zip(entries, got) {
                let what = "history \(key) \(Civil.text(e.date))"
                text(g["date"], Civil.text(e.date), "\(what) date")
                let tasks = g["tasks"] as? [[String: Any]] ?? []
                figures += 1
                guard tasks.count == e.done.count else {
                    disagree("\(what): \(tasks.count) tasks, the docs \(e.done.count)")
                    continue
                }
                for (task, t) in zip(e.done, tasks) {
                    text(t["id"], task, "\(what) task")
                    let previous = last[task]
                    last[task] = e.date
                    day(t["previous"], previous, "\(what) \(task) previous")
                    guard let previous else { continue }
                    let riding = span(task, previous, e.date)
                    number(t["rides"], Double(riding.rides), "\(what) \(task) rides")
                    number(t["moving_time"], (riding.movingTime * 10).rounded() / 10, "\(what) \(task) moving_time", places: 10)
                    number(t["distance"], (riding.distance * 10).rounded() / 10, "\(what) \(task) distance", places: 10)
                }
            }
        }
        for key in printed.keys.sorted() { disagree("history shows entries of \(key), which the docs do not") }
    }

    /// `rides BIKE --interval ID`: the rides behind an interval add up to status's usage.
    mutating func compareRidesBehindIntervals() throws {
        let rules = self.rules
        var asked: [(subject: String, interval: String, want: DocumentedRules.IntervalExpected)] = []
        for b in garage.bikes.prefix(2) {
            if let i = b.intervals.first { asked.append((b.id, i.id, rules.status(of: i, on: b))) }
        }
        if let p = garage.parts.first, let i = p.intervals.first { asked.append((p.id, i.id, rules.status(of: i, part: p))) }
        for (subject, interval, want) in asked {
            let what = "rides \(subject) --interval \(interval)"
            guard let output = try json(["rides", subject, "--interval", interval]) else {
                disagree("\(what) printed no JSON")
                continue
            }
            let totals = (output["totals"] as? [[String: Any]])?.first ?? [:]
            number(totals["counted"], Double(want.riding.rides), "\(what) counted")
            number(totals["moving_time"], want.riding.movingTime, "\(what) moving_time", places: 10)
            number(totals["distance"], want.riding.distance, "\(what) distance", places: 10)
            day(totals["since"], want.since, "\(what) since")
            // The usage before tracking that status adds, beside the rides.
            let prior = want.prior ?? Prior()
            let got = totals["prior"] as? [String: Any]
            if got != nil || prior.metres + prior.movingTime + Double(prior.count) > 0 {
                number(got?["distance"], prior.metres, "\(what) prior.distance")
                number(got?["moving_time"], prior.movingTime, "\(what) prior.moving_time")
                number(got?["rides"], Double(prior.count), "\(what) prior.rides")
            }
        }
    }

    /// `calendar`: one event per interval of the bikes status shows, on its forecast day (an
    /// overdue one on the as-of day), none without a forecast; the same days as status's `due`.
    mutating func compareCalendar() throws {
        let r = try runBikecheck(["calendar", "--as-of", asOfText, "--garage", folder.path], in: folder.url)
        var events: [String: String] = [:]
        var uid: String?
        for line in r.stdout.split(separator: "\r\n").flatMap({ $0.split(separator: "\n") }).map(String.init) {
            if line.hasPrefix("UID:") { uid = String(line.dropFirst(4)) }
            if line.hasPrefix("DTSTART;VALUE=DATE:"), let u = uid {
                let d = line.dropFirst("DTSTART;VALUE=DATE:".count)
                events[u] = "\(d.prefix(4))-\(d.dropFirst(4).prefix(2))-\(d.dropFirst(6).prefix(2))"
            }
        }
        let rules = self.rules, asOf = garage.asOf
        for b in garage.bikes where b.retired.map({ $0 > asOf }) ?? true {
            var rows = b.intervals.map { ("bike/\(b.id)/\($0.id)@bikecheck", rules.status(of: $0, on: b)) }
            for p in garage.parts where !(p.retired.map { $0 <= asOf } ?? false) && p.mount(on: asOf)?.bike == b.id {
                rows += p.intervals.map { ("part/\(p.id)/\($0.id)@bikecheck", rules.status(of: $0, part: p)) }
            }
            for (key, want) in rows {
                let day = want.state == "overdue" ? asOf : want.due
                text(events.removeValue(forKey: key), day.map(Civil.text), "calendar \(key)")
            }
        }
        for key in events.keys.sorted() where !key.contains("/todo/") { disagree("calendar has an event \(key), which the docs do not") }
    }

    func dayOrdinal(_ text: String) -> Int {
        let p = text.split(separator: "-").compactMap { Int($0) }
        return p.count == 3 ? Civil.day(p[0], p[1], p[2]) : 0
    }
}
