import Foundation

/// Computes status: for each bike and interval, usage since the anchor against its limits.
public struct StatusPlanner: Sendable {
    public var asOf: Day
    /// Half-life, in days, of the weights behind the recent pace used for forecasts.
    public var paceHalfLife: Double = 30

    /// Ledgers already made, shared by every call of this planner (and its copies) when set: a
    /// report that plans status, lists part lives and reads odometers counts each bike's rides
    /// through each filter once. Only for one garage and one set of summaries.
    var ledgerCache: LedgerCache?

    public init(asOf: Day, sharingLedgers: Bool = false) {
        self.asOf = asOf
        ledgerCache = sharingLedgers ? LedgerCache() : nil
    }

    /// Ride ledgers by bike and ride filter, made once for a planner that shares them.
    final class LedgerCache: @unchecked Sendable {
        private let lock = NSLock()
        private var ledgers: [LedgerKey: RideLedger] = [:]

        init() {}

        func known(_ keys: [LedgerKey]) -> [LedgerKey: RideLedger] {
            lock.withLock { Dictionary(keys.compactMap { k in ledgers[k].map { (k, $0) } }, uniquingKeysWith: { a, _ in a }) }
        }

        func add(_ made: [LedgerKey: RideLedger]) { lock.withLock { ledgers.merge(made) { a, _ in a } } }
    }

    /// A bike's counted rides as parallel arrays sorted by day, with prefix sums for fast ranges.
    struct RideLedger {
        var days: [Int] = []
        var time: [Double] = [0]
        var distance: [Double] = [0]

        init(_ rides: [(day: Int, time: Double, distance: Double)]) {
            for r in rides.sorted(by: { $0.day < $1.day }) {
                days.append(r.day)
                time.append(time.last! + r.time)
                distance.append(distance.last! + r.distance)
            }
        }

        /// Index of the first ride on or after `day`.
        func lowerBound(_ day: Int) -> Int {
            var lo = 0, hi = days.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if days[mid] < day { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }

        func usage(from: Int, through: Int) -> (time: Double, distance: Double, rides: Int) {
            let a = lowerBound(from), b = lowerBound(through + 1)
            guard b > a else { return (0, 0, 0) }
            return (time[b] - time[a], distance[b] - distance[a], b - a)
        }
    }

    /// Status for the named bikes (all active bikes when `only` is empty).
    public func plan(_ garage: Garage, activities: [Activity], only: [BikeID] = [], parts: [PartID] = []) -> StatusReport {
        plan(garage, summaries: ActivitySummaries(activities), only: only, parts: parts)
    }

    /// Status for the named bikes and parts (all active bikes, and the parts on no bike, when
    /// both are empty), from the cache's summaries. A part's intervals show under the bike it is
    /// mounted on as of `asOf`.
    public func plan(_ garage: Garage, summaries: ActivitySummaries, only: [BikeID] = [], parts onlyParts: [PartID] = []) -> StatusReport {
        let everything = only.isEmpty && onlyParts.isEmpty
        // A bike retired after the as-of day was still in use then.
        let chosen = garage.bikes.filter { everything ? $0.bike.retired.map { $0 > asOf } ?? true : only.contains($0.bike.id) }
        let selection = PartSelection(garage, asOf: asOf, everything: everything, named: onlyParts, bikes: chosen.map(\.bike.id))

        // One ledger per bike and ride filter in use: the bike's own, its intervals' (a chain may
        // count trainer rides the tyres do not), and those of the parts it carried.
        let bikeFilters = Dictionary(garage.bikes.map { ($0.bike.id, $0.filter) }, uniquingKeysWith: { a, _ in a })
        var keys: [LedgerKey] = []
        var seen: Set<LedgerKey> = []
        func need(_ key: LedgerKey) { if seen.insert(key).inserted { keys.append(key) } }
        for b in chosen {
            need(LedgerKey(bike: b.bike.id, filter: b.filter))
            for i in b.intervals { need(LedgerKey(bike: b.bike.id, filter: i.rideFilter.over(b.filter))) }
        }
        for part in selection.mounted.keys.sorted().flatMap({ selection.mounted[$0]! }) + selection.shown {
            for i in part.intervals {
                for m in part.part.mounts {
                    if let f = bikeFilters[m.bike.value] { need(LedgerKey(bike: m.bike.value, filter: i.rideFilter.over(f))) }
                }
            }
        }
        let ledgers = self.ledgers(keys, garage: garage, summaries: summaries)

        // Bikes are independent: plan them on all cores, in the order chosen.
        let bikes = concurrentMap(chosen.count) { k in
            let resolved = chosen[k], bike = resolved.bike
            // A retired bike's clock stops on the day it was retired: calendar limits do not keep
            // running on a bike nobody rides, and nothing is forecast for it.
            var planner = self
            let stopped = bike.retired.map { $0 < asOf } ?? false
            if stopped, let retired = bike.retired { planner.asOf = retired }
            var paces: [RideFilter: Pace] = [:]
            let services = Services(of: resolved, asOf: planner.asOf)
            var intervals = resolved.intervals.map { interval -> IntervalStatus in
                let filter = interval.rideFilter.over(resolved.filter)
                let ledger = ledgers[LedgerKey(bike: bike.id, filter: filter)] ?? RideLedger([])
                let pace = paces[filter] ?? planner.recentPace(ledger)
                paces[filter] = pace
                var s = planner.status(of: interval, bike: bike, services: services, ledger: ledger, pace: pace)
                if stopped { s.stopForecasts() }
                s.applySnooze(bike.snoozes, asOf: asOf)
                return s
            }
            var todos = bike.todos.map { (todo: $0, part: String?.none) }
            for part in selection.mounted[bike.id] ?? [] {
                intervals += self.statuses(of: part, ledgers: ledgers, bikeFilters: bikeFilters)
                todos += part.part.todos.map { ($0, part.part.id.rawValue) }
            }
            // Most urgent first; what the rider put off goes last.
            intervals.sort {
                ($0.state == .snoozed) != ($1.state == .snoozed)
                    ? $1.state == .snoozed
                    : $0.progress != $1.progress ? $0.progress > $1.progress : ($0.part ?? "", $0.id) < ($1.part ?? "", $1.id)
            }
            return BikeStatus(
                id: bike.id.rawValue, name: bike.name, retired: bike.retired, intervals: intervals, todos: TodoStatus.sorted(todos, asOf: asOf))
        }
        let parts = selection.shown.map { part -> PartStatus in
            let intervals = statuses(of: part, ledgers: ledgers, bikeFilters: bikeFilters).sorted {
                ($0.state == .snoozed) != ($1.state == .snoozed)
                    ? $1.state == .snoozed : $0.progress != $1.progress ? $0.progress > $1.progress : $0.id < $1.id
            }
            return PartStatus(
                id: part.part.id.rawValue, name: part.part.name, bike: part.part.mount(on: asOf)?.bike.value.rawValue,
                retired: part.part.retired, intervals: intervals, todos: TodoStatus.sorted(part.part.todos.map { ($0, nil) }, asOf: asOf))
        }
        var report = StatusReport(asOf: asOf, units: garage.settings.units, bikes: bikes, parts: parts)
        report.assignBands(windows: garage.settings.notify?.windows ?? UrgencyBand.defaultWindows)
        return report
    }

    /// A bike's rides through one ride filter.
    struct LedgerKey: Hashable {
        var bike: BikeID
        var filter: RideFilter
    }

    /// The counted rides of each bike through each filter, as ledgers with prefix sums; from the
    /// planner's cache when it keeps one.
    func ledgers(_ keys: [LedgerKey], garage: Garage, summaries: ActivitySummaries) -> [LedgerKey: RideLedger] {
        guard let ledgerCache else { return makeLedgers(keys, garage: garage, summaries: summaries) }
        let known = ledgerCache.known(keys)
        let made = makeLedgers(keys.filter { known[$0] == nil }, garage: garage, summaries: summaries)
        ledgerCache.add(made)
        return known.merging(made) { a, _ in a }
    }

    private func makeLedgers(_ keys: [LedgerKey], garage: Garage, summaries: ActivitySummaries) -> [LedgerKey: RideLedger] {
        if keys.isEmpty { return [:] }
        // Which keys each gear id feeds, and which sport types each admits outdoors and on a
        // trainer, by index in `summaries.strings`: no String is hashed or compared per activity.
        var keysOfGear = [[Int]](repeating: [], count: summaries.strings.count)
        var outdoors = [[Bool]](repeating: [], count: keys.count)
        var indoors = [[Bool]](repeating: [], count: keys.count)
        let gearOf = Dictionary(garage.bikes.compactMap { b in b.bike.strava.map { (b.bike.id, $0.value) } }, uniquingKeysWith: { a, _ in a })
        var index: [String: Int] = [:]
        for (k, s) in summaries.strings.enumerated() where index[s] == nil { index[s] = k }
        for (k, key) in keys.enumerated() {
            guard let gear = gearOf[key.bike], let g = index[gear] else { continue }
            keysOfGear[g].append(k)
            outdoors[k] = summaries.strings.map { key.filter.admits(sport: $0, indoor: false) }
            indoors[k] = summaries.strings.map { key.filter.admits(sport: $0, indoor: true) }
        }
        var rides = [[(day: Int, time: Double, distance: Double)]](repeating: [], count: keys.count)
        for a in summaries.records where a.gear >= 0 && a.day != Int32.min {
            for k in keysOfGear[Int(a.gear)] where a.trainer ? indoors[k][Int(a.sport)] : outdoors[k][Int(a.sport)] {
                rides[k].append((Int(a.day), a.movingTime, a.distance))
            }
        }
        let activityRides = rides
        let built = concurrentMap(keys.count) { k in
            let key = keys[k]
            var rides = activityRides[k]
            for r in garage.rides where r.bike.value == key.bike && key.filter.admitsHandEntered(sport: r.sport) {
                rides.append((r.date.ordinal, r.movingTime, r.distance))
            }
            return RideLedger(rides)
        }
        return Dictionary(zip(keys, built), uniquingKeysWith: { a, _ in a })
    }

    /// A bike's log up to `asOf`, by interval and by component: the latest day each was serviced
    /// (the first such entry on ties), so that intervals need not each scan the whole log.
    struct Services {
        /// The order of the service among all considered: entry index * 2, +1 for a replacement.
        typealias Latest = (day: Day, order: Int)
        /// Index of each interval id in the bike's intervals (the first, as for `replacements`).
        private var index: [IntervalID: Int] = [:]
        private var done: [Latest?]
        private var replaced: [ComponentID: Latest] = [:]

        init(of resolved: ResolvedBike, asOf: Day) {
            let intervals = resolved.intervals
            for (k, interval) in intervals.enumerated() where index[interval.id] == nil { index[interval.id] = k }
            done = Array(repeating: nil, count: intervals.count)
            // What doing each interval replaces (the first interval with its id that replaces something).
            let replacements = Dictionary(intervals.compactMap { i in i.replaces.map { (i.id, $0) } }) { a, _ in a }
            let replaces = intervals.map { replacements[$0.id] }
            func later(_ day: Day, than known: Latest?) -> Bool { known.map { day > $0.day } ?? true }
            // Thousands of entries: one hash lookup per id done, the rest by index.
            for (n, entry) in resolved.bike.log.enumerated() where entry.date <= asOf {
                for id in entry.done {
                    guard let k = index[id.value] else { continue }
                    if later(entry.date, than: done[k]) { done[k] = (entry.date, 2 * n) }
                    if let part = replaces[k], later(entry.date, than: replaced[part]) { replaced[part] = (entry.date, 2 * n + 1) }
                }
            }
        }

        /// The latest service of this interval.
        func lastDone(_ id: IntervalID) -> Latest? { index[id].flatMap { done[$0] } }

        /// The latest replacement of this component, by any interval that replaces it.
        func lastReplaced(_ part: ComponentID) -> Latest? { replaced[part] }
    }

    /// Where an interval counts from: the latest of its last service and its component's
    /// (re)install; else the day the bike was bought; else its first ride.
    func anchor(of interval: ResolvedInterval, bike: Bike, services: Services, ledger: RideLedger) -> (Day?, AnchorKind) {
        // The latest day wins. On a tie a log entry beats the install (a part serviced the day it
        // went on starts fresh), the earliest entry beats later ones, and in one entry the
        // service beats the replacement.
        var best: (day: Day, order: Int, kind: AnchorKind)?
        func consider(_ day: Day?, _ order: Int, _ kind: AnchorKind) {
            guard let day, day <= asOf else { return }
            if let b = best, day < b.day || (day == b.day && order > b.order) { return }
            best = (day, order, kind)
        }
        let part = interval.component ?? interval.replaces
        // A component with no install date has been on the bike since it was bought.
        if let part, let c = bike.component(part) { consider(c.installed ?? bike.bought, Int.max, .installed) }
        if let done = services.lastDone(interval.id) { consider(done.day, done.order, .done) }
        if let part, let replaced = services.lastReplaced(part) { consider(replaced.day, replaced.order, .replaced) }
        if let best { return (best.day, best.kind) }
        if let bought = bike.bought, bought <= asOf { return (bought, .bought) }
        if let first = ledger.days.first, first <= asOf.ordinal { return (Day(ordinal: first), .firstRide) }
        return (nil, .none)
    }

    func status(of interval: ResolvedInterval, bike: Bike, services: Services, ledger: RideLedger, pace: Pace) -> IntervalStatus {
        let (since, kind) = anchor(of: interval, bike: bike, services: services, ledger: ledger)
        var usage = Usage()
        if let since {
            let u = ledger.usage(from: since.ordinal, through: asOf.ordinal)
            usage = Usage(movingTime: u.time, distance: rounded(u.distance), days: asOf.ordinal - since.ordinal, rides: u.rides)
            // A second-hand part arrives with usage; it counts until the part is first serviced.
            if kind == .installed, let part = interval.component ?? interval.replaces, let c = bike.component(part) {
                usage.movingTime += c.priorHours * 3600
                usage.distance += c.priorDistance
                usage.rides += Int(c.priorRides)
            }
        }
        let limits = interval.limits.map { limitStatus($0, usage: usage, since: since, pace: pace) }
        let progress = limits.map(\.progress).max() ?? 0
        let state: IntervalState = progress >= 1 ? .overdue : progress >= interval.dueSoon ? .dueSoon : .ok
        return IntervalStatus(
            id: interval.id.rawValue, task: interval.task, component: interval.component?.rawValue,
            template: interval.template?.rawValue, state: state, progress: progress, since: since, anchor: kind,
            usage: usage, limits: limits, due: state == .overdue ? nil : limits.compactMap(\.due).min())
    }

    func limitStatus(_ q: Quantity, usage: Usage, since: Day?, pace: Pace) -> LimitStatus {
        guard let since else {
            return LimitStatus(
                every: q.text, measure: q.measure, unit: q.unit, unitSize: q.unitSize, limit: q.amount, used: 0,
                progress: 0, due: nil)
        }
        let used: Double
        var due: Day?
        switch q.measure {
        case .time:
            used = usage.movingTime
            due = forecast(remaining: q.amount - used, rate: pace.movingTime)
        case .distance:
            used = usage.distance
            due = forecast(remaining: q.amount - used, rate: pace.distance)
        case .rides:
            used = Double(usage.rides)
            due = forecast(remaining: q.amount - used, rate: pace.rides)
        case .days:
            used = Double(usage.days)
            due = since.adding(days: Int(q.amount.rounded(.up)))
        case .months:
            // Calendar months: progress is days elapsed over the days until the same date n months on.
            let end = since.adding(months: Int(q.amount.rounded(.up)))
            used = Double(usage.days) * q.amount / Double(max(1, end.ordinal - since.ordinal))
            due = end
        }
        // Reports carry four decimals: enough for any display, and stable across platforms.
        let progress = rounded(used / q.amount)
        return LimitStatus(
            every: q.text, measure: q.measure, unit: q.unit, unitSize: q.unitSize, limit: q.amount, used: rounded(used),
            progress: progress, due: progress >= 1 ? nil : due)
    }

    func rounded(_ v: Double) -> Double { (v * 10_000).rounded() / 10_000 }

    private func forecast(remaining: Double, rate: Double) -> Day? {
        guard remaining > 0, rate > 0 else { return nil }
        // A hair of tolerance, so 6.0000000001 days of weighted pace still reads as 6.
        let days = (remaining / rate - 1e-9).rounded(.up)
        return days < 3650 ? asOf.adding(days: Int(days)) : nil
    }

    /// Usage per day.
    struct Pace {
        var movingTime = 0.0
        var distance = 0.0
        var rides = 0.0
    }

    /// Daily pace over the last year, weighting recent days more (exponential, `paceHalfLife`).
    func recentPace(_ ledger: RideLedger) -> Pace {
        let window = 365
        let decay = log(2) / paceHalfLife
        var totalWeight = 0.0
        for age in 0..<window { totalWeight += exp(-decay * Double(age)) }
        var time = 0.0, distance = 0.0, rides = 0.0
        var i = ledger.lowerBound(asOf.ordinal - window + 1)
        let end = ledger.lowerBound(asOf.ordinal + 1)
        while i < end {
            let w = exp(-decay * Double(asOf.ordinal - ledger.days[i]))
            time += w * (ledger.time[i + 1] - ledger.time[i])
            distance += w * (ledger.distance[i + 1] - ledger.distance[i])
            rides += w
            i += 1
        }
        return Pace(movingTime: time / totalWeight, distance: distance / totalWeight, rides: rides / totalWeight)
    }
}
