/// Which parts a status report shows, and where.
struct PartSelection {
    /// Parts mounted on each chosen bike as of the day: their intervals show under the bike.
    var mounted: [BikeID: [ResolvedPart]] = [:]
    /// Parts shown on their own: those on no bike (when showing everything), or those named.
    var shown: [ResolvedPart] = []

    init(_ garage: Garage, asOf: Day, everything: Bool, named: [PartID], bikes: [BikeID]) {
        let chosen = Set(bikes)
        for rp in garage.parts {
            let part = rp.part
            // A part retired on or before the day is no longer on any bike.
            let retired = part.retired.map { $0 <= asOf } ?? false
            if !retired, let bike = part.mount(on: asOf)?.bike.value, chosen.contains(bike) {
                mounted[bike, default: []].append(rp)
            }
            if named.contains(part.id) || (everything && !retired && part.mount(on: asOf) == nil) {
                shown.append(rp)
            }
        }
    }
}

extension StatusPlanner {
    /// A part's mounts, each with the ledger of the bike it was on through one filter (its
    /// interval's, over the bike's): the part's usage over any run of days without looking a
    /// ledger up again (a repeat rule's odometer and a wear forecast ask a dozen times, and each
    /// look-up hashes and compares a filter).
    struct MountLedgers {
        private var mounts: [(from: Day, to: Day?, ledger: RideLedger)] = []

        init(of part: Part, filter: RideFilterSpec, ledgers: [LedgerKey: RideLedger], bikeFilters: [BikeID: RideFilter]) {
            for m in part.mounts {
                guard let base = bikeFilters[m.bike.value], let ledger = ledgers[LedgerKey(bike: m.bike.value, filter: m.narrowing(filter.over(base)))]
                else { continue }
                mounts.append((m.from, m.to, ledger))
            }
        }

        /// The part's usage from `since` through `through`: what counted on each bike it was
        /// on, on the days it was there (inclusive), from the bikes' ledgers of prefix sums.
        func usage(since: Day, through: Day) -> Usage {
            var usage = Usage(days: through.ordinal - since.ordinal)
            for m in mounts {
                let from = max(m.from, since), to = min(m.to ?? through, through)
                guard from <= to else { continue }
                let u = m.ledger.usage(from: from.ordinal, through: to.ordinal)
                usage.movingTime += u.time
                usage.distance += u.distance
                usage.rides += u.rides
            }
            return usage
        }
    }

    /// Where a part's interval counts from: its latest service in the part's log; else the day
    /// the part was bought; else its first mount. Without `countingDone`, its services are left
    /// out: the base of a repeat rule's due points.
    func anchor(of interval: ResolvedInterval, part: Part, asOf: Day, countingDone: Bool = true) -> (Day?, AnchorKind) {
        var best: Day?
        for entry in part.log where countingDone && entry.date <= asOf && entry.done.contains(where: { $0.value == interval.id }) {
            if best.map({ entry.date > $0 }) ?? true { best = entry.date }
        }
        if let best { return (best, .done) }
        if let bought = part.bought, bought <= asOf { return (bought, .bought) }
        if let first = part.mounts.map(\.from).min(), first <= asOf { return (first, .installed) }
        return (nil, .none)
    }

    /// The status of each of a part's intervals, forecast at the pace of the bike it is on now.
    func statuses(
        of resolved: ResolvedPart, ledgers: [LedgerKey: RideLedger], bikeFilters: [BikeID: RideFilter], bikes: [BikeID: Bike]
    ) -> [IntervalStatus] {
        let part = resolved.part
        // A retired part's clock stops on the day it was retired, as a retired bike's does; one
        // left on a retired bike stops with the bike.
        var planner = self
        let current = part.mount(on: asOf)?.bike.value
        let end = [part.retired, current.flatMap { bikes[$0]?.retired }].compactMap { $0 }.min()
        let stopped = end.map { $0 <= asOf } ?? false
        if stopped, let end { planner.asOf = end }
        return resolved.intervals.map { interval in
            let (since, kind) = planner.anchor(of: interval, part: part, asOf: planner.asOf)
            let mounted = MountLedgers(of: part, filter: interval.rideFilter, ledgers: ledgers, bikeFilters: bikeFilters)
            var pace = Pace()
            if let current, let base = bikeFilters[current], let ledger = ledgers[LedgerKey(bike: current, filter: interval.rideFilter.over(base))] {
                // The days both the part and the bike it is on existed.
                let bikeFirst = bikes[current]?.bought ?? ledger.firstDay.map(Day.init(ordinal:))
                let partFirst = part.bought ?? part.mounts.map(\.from).min()
                pace = planner.recentPace(ledger, since: [bikeFirst, partFirst].compactMap { $0 }.max())
            }
            var usage = Usage()
            // Usage before tracking counts until the part is first serviced, also while nothing
            // else is counted yet (no `bought:`, never mounted): `part list`'s figure.
            let prior = kind != .done ? Usage(prior: part.priorHours, distance: part.priorDistance, rides: part.priorRides) : nil
            if let since {
                usage = mounted.usage(since: since, through: planner.asOf)
                usage.distance = rounded(usage.distance)
            }
            usage = usage.adding(prior)
            var limits = interval.limits.map { planner.limitStatus($0, usage: usage, since: since, pace: pace) }
            if interval.repeatRule != .fromDone, let base = planner.anchor(of: interval, part: part, asOf: planner.asOf, countingDone: false).0 {
                let done = part.log.filter { $0.date > base && $0.date <= planner.asOf && $0.done.contains { $0.value == interval.id } }.map(\.date)
                let basePrior = Usage(prior: part.priorHours, distance: part.priorDistance, rides: part.priorRides)
                limits = interval.limits.map { q in
                    planner.chainedLimitStatus(
                        q, rule: interval.repeatRule, base: base, services: done.sorted(),
                        odometer: { through in mounted.usage(since: base, through: Day(ordinal: through)).adding(basePrior) }, pace: pace)
                }
            }
            // Under a repeat rule the count runs from the start of the shown limit's window.
            let shownSince = limits.max { $0.progress < $1.progress }?.windowStart ?? since
            var wear: WearStatus?
            if let limit = interval.wearLimit, let since {
                let renews: ((LogEntry) -> Bool)? = kind == .done ? { entry in entry.done.contains { $0.value == interval.id } } : nil
                let readings = Self.readings(of: interval.id, in: part.log, since: since, through: planner.asOf, renews: renews)
                let measure = interval.wearMeasure
                // New: a replacement, or the part bought (or first mounted) with no usage before tracking.
                let new = kind == .done || ((kind == .bought || kind == .installed) && prior == nil)
                wear = planner.wearStatus(
                    limit: limit, measure: measure, readings: readings, since: since, new: new,
                    used: { day in mounted.usage(since: since, through: day).amount(in: measure) }, pace: pace)
            }
            let progress = max(limits.map(\.progress).max() ?? 0, wear?.progress ?? 0)
            let state: IntervalState = progress >= 1 ? .overdue : progress >= interval.dueSoon ? .dueSoon : .ok
            var s = IntervalStatus(
                id: interval.id.rawValue, task: interval.task, component: nil, template: interval.template?.rawValue,
                state: state, progress: progress, since: shownSince, anchor: kind, usage: usage, limits: limits,
                due: state == .overdue ? nil : (limits.compactMap(\.due) + [wear?.due].compactMap { $0 }).min(), part: part.id.rawValue, prior: prior,
                wear: wear)
            if stopped { s.stopForecasts() }
            s.applySnooze(part.snoozes, asOf: asOf)
            return s
        }
    }
}
