import Foundation

/// Computes status: for each bike and interval, usage since the anchor against its limits.
package struct StatusPlanner: Sendable {
    package var asOf: Day
    /// Half-life, in days, of the weights behind the recent pace used for forecasts.
    package var paceHalfLife: Double = 30

    package init(asOf: Day) {
        self.asOf = asOf
    }

    typealias LedgerKey = CountedRides.LedgerKey

    /// Status for the named bikes and parts (all active bikes, and the parts on no bike, when
    /// both are empty), from the cache's summaries. A part's intervals show under the bike it is
    /// mounted on as of `asOf`.
    package func plan(_ garage: Garage, summaries: ActivitySummaries, only: [BikeID] = [], parts onlyParts: [PartID] = []) -> StatusReport {
        var rides = CountedRides.BikeRides(garage: garage, summaries: summaries, through: asOf)
        return plan(garage, rides: &rides, only: only, parts: onlyParts)
    }

    /// The same from rides counted once for several reports of one garage (the HTML report's).
    package func plan(_ garage: Garage, rides: inout CountedRides.BikeRides, only: [BikeID] = [], parts onlyParts: [PartID] = []) -> StatusReport {
        let everything = only.isEmpty && onlyParts.isEmpty
        // A bike retired after the as-of day was still in use then.
        let chosen = garage.bikes.filter { everything ? $0.bike.retired.map { $0 > asOf } ?? true : only.contains($0.bike.id) }
        let selection = PartSelection(garage, asOf: asOf, everything: everything, named: onlyParts, bikes: chosen.map(\.bike.id))

        // One ledger per bike and ride filter in use: the bike's own, its intervals' (a chain may
        // count trainer rides the tyres do not), and those of the parts it carried.
        let bikeFilters = Dictionary(garage.bikes.map { ($0.bike.id, $0.filter) }, uniquingKeysWith: { a, _ in a })
        let bikesByID = Dictionary(garage.bikes.map { ($0.bike.id, $0.bike) }, uniquingKeysWith: { a, _ in a })
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
                    if let f = bikeFilters[m.bike.value] { need(LedgerKey(bike: m.bike.value, filter: m.narrowing(i.rideFilter.over(f)))) }
                }
            }
        }
        let ledgers = rides.ledgers(keys.map { ($0.bike, $0.filter) })

        // Bikes are independent: plan them on all cores, in the order chosen.
        let bikes = concurrentMap(chosen.count) { k in
            let resolved = chosen[k], bike = resolved.bike
            // A retired bike's clock stops on the day it was retired: calendar limits do not keep
            // running on a bike nobody rides, and nothing is forecast for it.
            var planner = self
            // Retired on the as-of day counts as retired, as plain status and the calendar say.
            let stopped = bike.retired.map { $0 <= asOf } ?? false
            if stopped, let retired = bike.retired { planner.asOf = retired }
            var paces: [RideFilter: Pace] = [:]
            let services = Services(of: resolved, asOf: planner.asOf)
            var intervals = resolved.intervals.map { interval -> IntervalStatus in
                let filter = interval.rideFilter.over(resolved.filter)
                let ledger = ledgers[LedgerKey(bike: bike.id, filter: filter)] ?? RideLedger()
                let pace = paces[filter] ?? planner.recentPace(ledger, since: bike.bought ?? ledger.firstDay.map(Day.init(ordinal:)))
                paces[filter] = pace
                var s = planner.status(of: interval, bike: bike, services: services, ledger: ledger, pace: pace)
                if stopped { s.stopForecasts() }
                s.applySnooze(bike.snoozes, asOf: asOf)
                return s
            }
            var todos = bike.todos.map { (todo: $0, part: String?.none) }
            for part in selection.mounted[bike.id] ?? [] {
                intervals += self.statuses(of: part, ledgers: ledgers, bikeFilters: bikeFilters, bikes: bikesByID)
                todos += part.part.todos.map { ($0, part.part.id.rawValue) }
            }
            // Most urgent first; what the rider put off goes last.
            intervals.sort {
                ($0.state == .snoozed) != ($1.state == .snoozed)
                    ? $1.state == .snoozed
                    : $0.progress != $1.progress ? $0.progress > $1.progress : ($0.part ?? "", $0.id) < ($1.part ?? "", $1.id)
            }
            return BikeStatus(
                id: bike.id.rawValue, name: bike.name, retired: bike.retired, intervals: intervals, todos: TodoStatus.sorted(todos, asOf: asOf),
                rider: bike.rider?.value, kind: bike.kind)
        }
        let parts = selection.shown.map { part -> PartStatus in
            let intervals = statuses(of: part, ledgers: ledgers, bikeFilters: bikeFilters, bikes: bikesByID).sorted {
                ($0.state == .snoozed) != ($1.state == .snoozed)
                    ? $1.state == .snoozed : $0.progress != $1.progress ? $0.progress > $1.progress : $0.id < $1.id
            }
            return PartStatus(
                id: part.part.id.rawValue, name: part.part.name, bike: part.part.mount(on: asOf)?.bike.value.rawValue,
                retired: part.part.retired, intervals: intervals, todos: TodoStatus.sorted(part.part.todos.map { ($0, nil) }, asOf: asOf),
                rider: part.part.rider?.value)
        }
        var report = StatusReport(asOf: asOf, units: garage.settings.units, bikes: bikes, parts: parts)
        report.assignBands(windows: garage.settings.notify?.windows ?? UrgencyBand.defaultWindows)
        return report
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
        /// What doing each interval replaces.
        private var replacing: [IntervalID: ComponentID] = [:]
        /// Every day each interval with a repeat rule other than `from-done` was done, in log
        /// order (empty for the others).
        private var days: [[Day]]

        init(of resolved: ResolvedBike, asOf: Day) {
            let intervals = resolved.intervals
            for (k, interval) in intervals.enumerated() where index[interval.id] == nil { index[interval.id] = k }
            done = Array(repeating: nil, count: intervals.count)
            days = Array(repeating: [], count: intervals.count)
            let chained = intervals.map { $0.repeatRule != .fromDone }
            // What doing each interval replaces (the first interval with its id that replaces something).
            let replacements = Dictionary(intervals.compactMap { i in i.replaces.map { (i.id, $0) } }) { a, _ in a }
            replacing = replacements
            // Each component replaced, by number: the latest replacement of each kept by index
            // while the log is read, not looked up by its id once per entry.
            var components: [ComponentID] = []
            let replaces = intervals.map { i -> Int? in
                guard let part = replacements[i.id] else { return nil }
                if let known = components.firstIndex(of: part) { return known }
                components.append(part)
                return components.count - 1
            }
            var latestReplaced = [Latest?](repeating: nil, count: components.count)
            // The first interval with each id: a bike has a few, and comparing a done id with each
            // costs less than hashing it (thousands of entries).
            let firsts = FewIDs(intervals.map { $0.id })
            func position(_ id: IntervalID) -> Int? { firsts.position(of: id) }
            func later(_ day: Day, than known: Latest?) -> Bool { known.map { day > $0.day } ?? true }
            // The entries read in place: copying each out of the log cost more than reading it.
            resolved.bike.log.withUnsafeBufferPointer { log in
                for n in log.indices where log[n].date <= asOf {
                    let date = log[n].date
                    log[n].done.withUnsafeBufferPointer { ids in
                        for j in ids.indices {
                            guard let k = position(ids[j].value) else { continue }
                            if later(date, than: done[k]) { done[k] = (date, 2 * n) }
                            if chained[k] { days[k].append(date) }
                            if let c = replaces[k], later(date, than: latestReplaced[c]) { latestReplaced[c] = (date, 2 * n + 1) }
                        }
                    }
                }
            }
            for (c, part) in components.enumerated() { replaced[part] = latestReplaced[c] }
        }

        /// The latest service of this interval.
        func lastDone(_ id: IntervalID) -> Latest? { index[id].flatMap { done[$0] } }

        /// The days this interval was done after `base`, through `asOf`, in order (for a repeat
        /// rule other than `from-done`).
        func doneDays(_ id: IntervalID, after base: Day, through asOf: Day) -> [Day] {
            index[id].map { days[$0].filter { $0 > base && $0 <= asOf }.sorted() } ?? []
        }

        /// The latest replacement of this component, by any interval that replaces it.
        func lastReplaced(_ part: ComponentID) -> Latest? { replaced[part] }

        /// The component doing this interval replaces, if any.
        func replacer(_ id: IntervalID) -> ComponentID? { replacing[id] }
    }

    /// Where an interval counts from: the latest of its last service and its component's
    /// (re)install; else the day the bike was bought; else its first ride. Without
    /// `countingDone`, its own services are left out: the base of a repeat rule's due points.
    func anchor(of interval: ResolvedInterval, bike: Bike, services: Services, ledger: RideLedger, countingDone: Bool = true) -> (Day?, AnchorKind) {
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
        // A component with no install date has been on the bike since it was bought; so has one
        // whose install date is after the as-of day (for a retired bike, after its clock stopped:
        // `component-after-retired`).
        if let part, let c = bike.component(part) { consider(c.installed.flatMap { $0 <= asOf ? $0 : nil } ?? bike.bought, Int.max, .installed) }
        if countingDone, let done = services.lastDone(interval.id) { consider(done.day, done.order, .done) }
        if let part, let replaced = services.lastReplaced(part) { consider(replaced.day, replaced.order, .replaced) }
        if let best { return (best.day, best.kind) }
        if let bought = bike.bought, bought <= asOf { return (bought, .bought) }
        if let first = ledger.days.first, first <= asOf.ordinal { return (Day(ordinal: first), .firstRide) }
        return (nil, .none)
    }

    func status(of interval: ResolvedInterval, bike: Bike, services: Services, ledger: RideLedger, pace: Pace) -> IntervalStatus {
        let (since, kind) = anchor(of: interval, bike: bike, services: services, ledger: ledger)
        var usage = Usage()
        // A second-hand component arrives with usage; it counts until the interval is first
        // done or the component replaced (while the interval counts from the install, the
        // bike's purchase or its first ride, or from nothing yet).
        var prior: Usage?
        if kind != .done, kind != .replaced, let part = interval.component ?? interval.replaces, let c = bike.component(part) {
            prior = Usage(prior: c.priorHours, distance: c.priorDistance, rides: c.priorRides)
        }
        if let since {
            let u = ledger.usage(from: since.ordinal, through: asOf.ordinal)
            usage = Usage(movingTime: u.time, distance: rounded(u.distance), days: asOf.ordinal - since.ordinal, rides: u.rides)
        }
        usage = usage.adding(prior)
        var limits = interval.limits.map { limitStatus($0, usage: usage, since: since, pace: pace) }
        if interval.repeatRule != .fromDone,
            case (let base?, let baseKind) = anchor(of: interval, bike: bike, services: services, ledger: ledger, countingDone: false)
        {
            var basePrior: Usage?
            if baseKind != .replaced, let part = interval.component ?? interval.replaces, let c = bike.component(part) {
                basePrior = Usage(prior: c.priorHours, distance: c.priorDistance, rides: c.priorRides)
            }
            let done = services.doneDays(interval.id, after: base, through: asOf)
            limits = interval.limits.map { q in
                chainedLimitStatus(
                    q, rule: interval.repeatRule, base: base, services: done,
                    odometer: { through in
                        let u = ledger.usage(from: base.ordinal, through: through)
                        return Usage(movingTime: u.time, distance: u.distance, rides: u.rides).adding(basePrior)
                    }, pace: pace)
            }
        }
        // Under a repeat rule the count runs from the start of the shown limit's window.
        let shownSince = limits.max { $0.progress < $1.progress }?.windowStart ?? since
        var wear: WearStatus?
        if let limit = interval.wearLimit, let since {
            // A service of the interval renews what is measured, and so does a replacement of its part.
            let part = interval.component ?? interval.replaces
            let renews: ((LogEntry) -> Bool)? =
                kind == .done || kind == .replaced
                ? { entry in entry.done.contains { $0.value == interval.id || (part != nil && services.replacer($0.value) == part) } } : nil
            let readings = Self.readings(of: interval.id, in: bike.log, since: since, through: asOf, renews: renews)
            let measure = interval.wearMeasure
            // New: a replacement, or a part installed (or the bike bought) with no usage before tracking.
            let new = kind == .done || kind == .replaced || ((kind == .installed || kind == .bought) && prior == nil)
            wear = wearStatus(
                limit: limit, measure: measure, readings: readings, since: since, new: new,
                used: { day in
                    let u = ledger.usage(from: since.ordinal, through: day.ordinal)
                    return Usage(movingTime: u.time, distance: u.distance, rides: u.rides).amount(in: measure)
                }, pace: pace)
        }
        let progress = max(limits.map(\.progress).max() ?? 0, wear?.progress ?? 0)
        let state: IntervalState = progress >= 1 ? .overdue : progress >= interval.dueSoon ? .dueSoon : .ok
        return IntervalStatus(
            id: interval.id.rawValue, task: interval.task, component: interval.component?.rawValue,
            template: interval.template?.rawValue, state: state, progress: progress, since: shownSince, anchor: kind,
            usage: usage, limits: limits, due: state == .overdue ? nil : (limits.compactMap(\.due) + [wear?.due].compactMap { $0 }).min(),
            prior: prior, wear: wear)
    }

    /// With no anchor (`since` nil: nothing counted yet) only usage before tracking is used, and
    /// calendar limits have not started.
    func limitStatus(_ q: Quantity, usage: Usage, since: Day?, pace: Pace) -> LimitStatus {
        guard let since else {
            let used: Double
            switch q.measure {
            case .time: used = usage.movingTime
            case .distance: used = usage.distance
            case .rides: used = Double(usage.rides)
            case .days, .months: used = 0
            }
            return LimitStatus(
                every: q.text, measure: q.measure, unit: q.unit, unitSize: q.unitSize, limit: q.amount, used: rounded(used),
                progress: rounded(used / q.amount), due: nil)
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

    func forecast(remaining: Double, rate: Double) -> Day? {
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

    /// The weight of a day `age` days before the as-of day in the recent pace, for the ages
    /// of the last year (`exp(-decay × age)`), and their running totals (`total[n]`: the first
    /// `n` added in order): each a table lookup rather than an `exp` per ride and 365 per pace.
    struct PaceWeights: Sendable {
        let halfLife: Double
        let weight: [Double]
        let total: [Double]

        init(halfLife: Double) {
            self.halfLife = halfLife
            let decay = log(2) / halfLife
            weight = (0..<365).map { exp(-decay * Double($0)) }
            var sum = 0.0
            total =
                [0]
                + weight.map { w in
                    sum += w
                    return sum
                }
        }
    }

    /// The default half-life's weights, made once.
    static let weights = PaceWeights(halfLife: 30)

    /// Daily pace over the last year, weighting recent days more (exponential, `paceHalfLife`),
    /// over the days the bike (or part) existed: from `first` (its `bought:` day, else its first
    /// ride) on. A two-month-old bike's pace is that of its two months, not diluted by ten
    /// months of days on which it was not the rider's.
    func recentPace(_ ledger: RideLedger, since first: Day?) -> Pace {
        let lived = first.map { asOf.ordinal - $0.ordinal + 1 } ?? Int.max
        let window = min(365, lived)
        guard window > 0 else { return Pace() }
        let weights = paceHalfLife == Self.weights.halfLife ? Self.weights : PaceWeights(halfLife: paceHalfLife)
        let totalWeight = weights.total[window]
        var time = 0.0, distance = 0.0, rides = 0.0
        var i = ledger.lowerBound(asOf.ordinal - window + 1)
        let end = ledger.lowerBound(asOf.ordinal + 1)
        while i < end {
            let w = weights.weight[asOf.ordinal - ledger.days[i]]
            time += w * (ledger.time[i + 1] - ledger.time[i])
            distance += w * (ledger.distance[i + 1] - ledger.distance[i])
            rides += w
            i += 1
        }
        return Pace(movingTime: time / totalWeight, distance: distance / totalWeight, rides: rides / totalWeight)
    }
}
