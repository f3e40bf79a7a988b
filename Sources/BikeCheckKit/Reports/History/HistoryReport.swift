import Foundation

/// Every log entry, newest first, each task with the usage since the previous time it was done.
package struct HistoryReport: Sendable, Encodable {
    package struct Task: Sendable, Encodable {
        package var id: String
        package var task: String
        /// The previous log entry that did this task, or nil the first time.
        package var previous: Day?
        /// Counted rides from the previous time through this entry's day, as status counts them.
        package var rides: Int?
        /// Seconds and metres.
        package var movingTime: Double?
        package var distance: Double?

        enum CodingKeys: String, CodingKey {
            case id, task, previous, rides, distance
            case movingTime = "moving_time"
        }
    }

    package struct Entry: Sendable, Encodable {
        package var subject: ReportSubject
        /// For a part's entry, the bike it was on that day (none on the shelf).
        package var bike: String?
        package var date: Day
        package var tasks: [Task]
        package var cost: ReportAmount?
        package var currency: String?
        package var category: String?
        package var note: String?
        /// The one-off job the entry closed (`todo:`), if any.
        package var todo: String? = nil
        /// The measurements it recorded (`readings:`), in the order written; nil for none.
        package var readings: [Measurement]? = nil
        /// The interval ids it did, as its log entry lists them (the log's own list, shared):
        /// what the HTML report's service history shows, where `uncountedEntries` makes no
        /// tasks. Not in the JSON (`tasks` is).
        package var done: [Located<IntervalID>] = []

        enum CodingKeys: String, CodingKey {
            case subject, bike, date, tasks, cost, currency, category, note, todo, readings
        }
    }

    /// A reading of an interval's wear (`readings: {chain-replace: 0.5 %}`).
    package struct Measurement: Sendable, Encodable {
        package var id: String
        package var value: Double
        package var unit: String
    }

    package var asOf: Day
    /// The figures are SI (`"units": "si"`); `units` is what the rider reads (`display_units`).
    package var jsonUnits = JSONUnits.si
    package var units: UnitSystem
    package var since: Day?
    package var until: Day?
    package var interval: String?
    package var entries: [Entry]

    enum CodingKeys: String, CodingKey {
        case asOf = "as_of"
        case jsonUnits = "units"
        case units = "display_units"
        case since, until, interval, entries
    }

    /// From the cache's summaries: the logs of the named bikes and parts, or of all of both. A
    /// part's entries are its own log's; the riding between them is what counted for each bike
    /// it was on, on the days it was there (`CountedRides.entries(of: Part…)`). The summaries are
    /// taken, not kept: handed over (`consume`), they are let go once the ledgers are made, before
    /// the entries are.
    package static func build(
        _ garage: Garage, summaries: consuming ActivitySummaries, query: ReportQuery, interval: IntervalID? = nil,
        sharing shared: CountedRides.BikeRides? = nil
    ) -> HistoryReport {
        let (selection, asOf) = (query.selection, query.asOf)
        let bikes = garage.bikes.enumerated().filter { selection.includes($0.element.bike.id) }
        let (parts, ledgers) = Self.ledgers(garage, summaries: consume summaries, query: query, bikes: bikes, sharing: shared)
        // A filter that is the bike's own (nil) takes the bike's ledger, found once.
        var own = [RideLedger?](repeating: nil, count: garage.bikes.count)
        func ledger(_ bike: Int, _ filter: RideFilter?) -> RideLedger {
            if filter == nil, let known = own[bike] { return known }
            let found = ledgers[.init(bike: garage.bikes[bike].bike.id, filter: filter ?? garage.bikes[bike].filter)] ?? RideLedger()
            if filter == nil { own[bike] = found }
            return found
        }
        var entries: [Entry] = []
        // At most one entry per log entry, room made once: grown by doubling, a million-ride
        // garage's entries were copied four times into fresh memory (20 MiB, 4,000 page faults).
        entries.reserveCapacity(Self.logEntries(garage, query.selection))
        var groups: [(subject: ReportSubject, range: Range<Int>)] = []
        func add(
            _ subject: ReportSubject, log: [LogEntry], intervals: [ResolvedInterval], part: Part?,
            usage: (Int?, Int, Int) -> (time: Double, distance: Double, rides: Int)
        ) {
            let start = entries.count
            Self.entries(subject, log: log, intervals: intervals, part: part, query: query, interval: interval, usage: usage, into: &entries)
            groups.append((subject, start..<entries.count))
        }
        for (b, resolved) in bikes {
            let filters = bikeFilters(resolved).map { ledger(b, $0) }
            add(.bike(resolved.bike), log: resolved.bike.log, intervals: resolved.intervals, part: nil) { interval, from, through in
                filters[interval.map { $0 + 1 } ?? 0].usage(from: from, through: through)
            }
        }
        for (rp, spans) in parts {
            let spanLedgers = spans.map { s in s.filters.map { ledger(s.bike, $0) } }
            add(.part(rp.part), log: rp.part.log, intervals: rp.intervals, part: rp.part) { interval, from, through in
                var sum: (time: Double, distance: Double, rides: Int) = (0, 0, 0)
                for (k, s) in spans.enumerated() where max(s.from, from) <= min(s.to, through) {
                    let u = spanLedgers[k][interval.map { $0 + 1 } ?? 0].usage(from: max(s.from, from), through: min(s.to, through))
                    sum.time += u.time
                    sum.distance += u.distance
                    sum.rides += u.rides
                }
                return sum
            }
        }
        Self.sortNewestFirst(&entries, groups: groups)
        return HistoryReport(
            asOf: asOf, units: garage.settings.units, since: query.since, until: query.until, interval: interval?.rawValue, entries: entries)
    }

    /// The entries `build` lists for `query`, in its order, without tasks: each with the ids it
    /// did (`done`, the log's own list) and no rides counted (the HTML report's service history
    /// lists interval ids and reads the odometer). No array is made per entry.
    package static func uncountedEntries(_ garage: Garage, query: ReportQuery) -> [Entry] { uncountedEntriesBySubject(garage, query: query).entries }

    /// `uncountedEntries`, with each entry's subject as a number (entry k's is
    /// `subjects[subjectOf[k]]`): the HTML report finds each subject's bike once, not each
    /// entry's by its id (a String hashed per entry).
    package static func uncountedEntriesBySubject(
        _ garage: Garage, query: ReportQuery
    ) -> (entries: [Entry], subjects: [ReportSubject], subjectOf: [Int32]) {
        var entries: [Entry] = []
        entries.reserveCapacity(Self.logEntries(garage, query.selection))
        var groups: [(subject: ReportSubject, range: Range<Int>)] = []
        func add(_ subject: ReportSubject, log: [LogEntry], intervals: [ResolvedInterval], part: Part?) {
            let start = entries.count
            Self.entries(
                subject, log: log, intervals: intervals, part: part, query: query, interval: nil, counted: false, usage: { _, _, _ in (0, 0, 0) },
                into: &entries)
            groups.append((subject, start..<entries.count))
        }
        for resolved in garage.bikes where query.selection.includes(resolved.bike.id) {
            add(.bike(resolved.bike), log: resolved.bike.log, intervals: resolved.intervals, part: nil)
        }
        for rp in garage.parts where query.selection.includes(rp.part.id) {
            add(.part(rp.part), log: rp.part.log, intervals: rp.intervals, part: rp.part)
        }
        let order = Self.sortNewestFirst(&entries, groups: groups)
        // Each entry's subject where it was made (its group's), then where the sort put it.
        var made = [Int32](repeating: 0, count: entries.count)
        for (g, group) in groups.enumerated() { for k in group.range { made[k] = Int32(g) } }
        return (entries, groups.map(\.subject), order.map { made[$0] })
    }

    /// How many log entries the bikes and parts `selection` includes have: as many entries as a
    /// history of them can list.
    static func logEntries(_ garage: Garage, _ selection: ReportSelection) -> Int {
        garage.bikes.reduce(0) { $0 + (selection.includes($1.bike.id) ? $1.bike.log.count : 0) }
            + garage.parts.reduce(0) { $0 + (selection.includes($1.part.id) ? $1.part.log.count : 0) }
    }

    /// A bike's filter, then each interval's over it: what its tasks are counted through; nil
    /// for the bike's own (most intervals count what their bike does), which is looked up once.
    static func bikeFilters(_ resolved: ResolvedBike) -> [RideFilter?] {
        [nil] + resolved.intervals.map { ownOrNil($0.rideFilter.over(resolved.filter), resolved.filter) }
    }

    /// `filter`, or nil when it is `own`.
    static func ownOrNil(_ filter: RideFilter, _ own: RideFilter) -> RideFilter? { filter == own ? nil : filter }

    /// The parts' riding spans and the ledgers (status's prefix sums in day order: each task's
    /// span is two binary searches) of every bike and filter the history asks for, made at once
    /// on all cores and then looked up by position (a filter's key hashes its sport types, too
    /// slow for every task). Each task is counted through its interval's own filter over the
    /// bike's, as status and `rides --interval` count it; a task the bike has no interval for,
    /// through the bike's. Rides another report already counted are used when it counted the
    /// same (up to `asOf`, counted only). The summaries and the rides counted from them go when
    /// this returns: only the ledgers are kept.
    static func ledgers(
        _ garage: Garage, summaries: consuming ActivitySummaries, query: ReportQuery, bikes: [(offset: Int, element: ResolvedBike)],
        sharing shared: CountedRides.BikeRides?
    ) -> (parts: [(ResolvedPart, [Span])], ledgers: [CountedRides.LedgerKey: RideLedger]) {
        var cache: CountedRides.BikeRides
        if let shared, shared.through == query.asOf, shared.countedOnly {
            cache = shared
        } else {
            cache = CountedRides.BikeRides(garage: garage, index: CountedRides.Index(summaries), through: query.asOf, countedOnly: true)
        }
        let parts = partSpans(garage, query: query, bikeIndex: cache.bikeIndex)
        // Each bike's own filter once, and the other filters asked for: most of a part's
        // spans count what their bike counts.
        var keys: [(bike: BikeID, filter: RideFilter)] = []
        var ownAsked = [Bool](repeating: false, count: garage.bikes.count)
        func ask(_ b: Int, _ filter: RideFilter?) {
            if let filter {
                keys.append((garage.bikes[b].bike.id, filter))
            } else if !ownAsked[b] {
                ownAsked[b] = true
                keys.append((garage.bikes[b].bike.id, garage.bikes[b].filter))
            }
        }
        for (b, resolved) in bikes { for f in bikeFilters(resolved) { ask(b, f) } }
        for (_, spans) in parts { for s in spans { for f in s.filters { ask(s.bike, f) } } }
        return (parts, cache.ledgers(keys))
    }

    /// A part's riding span: days `from` through `to` on bike number `bike`, through the part's
    /// filter and then each interval's (nil: the bike's own).
    typealias Span = (from: Int, to: Int, bike: Int, filters: [RideFilter?])

    /// A part's riding is that of each bike it was on, on the days it was there, as status counts
    /// a part's usage (up to the day it was retired): per span, the part's filter and each
    /// interval's (over the part's), over the bike's.
    static func partSpans(_ garage: Garage, query: ReportQuery, bikeIndex: [BikeID: Int]) -> [(ResolvedPart, [Span])] {
        garage.parts.filter { query.selection.includes($0.part.id) }.map { rp -> (ResolvedPart, [Span]) in
            let part = rp.part
            let stop = min(query.asOf, part.retired ?? query.asOf).ordinal
            var spans: [Span] = []
            let specs = [part.rideFilter] + rp.intervals.map(\.rideFilter)
            for m in part.mounts.sorted(by: { $0.from < $1.from }) where m.from.ordinal <= stop {
                guard let b = bikeIndex[m.bike.value] else { continue }
                let own = garage.bikes[b].filter
                spans.append((m.from.ordinal, min(m.to?.ordinal ?? stop, stop), b, specs.map { ownOrNil(m.narrowing($0.over(own)), own) }))
            }
            return (rp, spans)
        }
    }

    /// Entries newest first, then by subject (bikes, then parts, by id), entries of one subject
    /// on one day in the order given. `groups`: each subject's entries, one run each, as `build`
    /// appends them; the subjects are ranked once, not hashed per entry. Sorted as small keys
    /// (day, the subject's rank, position), then each entry moved once, in place (a swap along
    /// each cycle of the order): a hundred thousand entries of Strings, compared and moved in
    /// place, cost more in retains and releases than in comparing, and a sorted copy beside them
    /// doubled the history's largest array at its peak.
    /// Returns the order: place k took the entry that was at `order[k]`.
    @discardableResult
    static func sortNewestFirst(_ entries: inout [Entry], groups: [(subject: ReportSubject, range: Range<Int>)]) -> [Int] {
        // Subjects `<` finds equal (same kind and id) rank the same.
        let bySubject = groups.indices.sorted { groups[$0].subject < groups[$1].subject }
        var rank = [Int](repeating: 0, count: groups.count)
        for (k, g) in bySubject.enumerated() where k > 0 {
            let previous = bySubject[k - 1]
            rank[g] = groups[previous].subject < groups[g].subject ? k : rank[previous]
        }
        let order = Self.newestFirst(entries.map(\.date.ordinal), ranks: groups.indices.flatMap { g in repeatElement(rank[g], count: groups[g].range.count) })
        // Place k takes the entry at `order[k]`: follow each cycle from its first place, each
        // entry moved (not copied, retained and released) into its place.
        var placed = [Bool](repeating: false, count: entries.count)
        entries.withUnsafeMutableBufferPointer { all in
            guard let base = all.baseAddress else { return }
            for start in all.indices where !placed[start] {
                let first = (base + start).move()
                var k = start
                placed[k] = true
                while order[k] != start {
                    let from = order[k]
                    (base + k).moveInitialize(from: base + from, count: 1)
                    k = from
                    placed[k] = true
                }
                (base + k).initialize(to: first)
            }
        }
        return order
    }

    /// The positions of entries on `days` of subjects ranked `ranks` (entry k's at k), newest
    /// first, then by rank, then by position. Each key packed in one whole number, where the
    /// days, ranks and count fit (a century of days, a million subjects, eight million
    /// entries), and sorted as numbers: a tuple's comparisons cost ten times as much.
    package static func newestFirst(_ days: [Int], ranks: [Int]) -> [Int] {
        let latest = days.max() ?? 0, earliest = days.min() ?? 0
        guard latest - earliest < 1 << 20, ranks.count < 1 << 23, (ranks.max() ?? 0) < 1 << 20 else {
            var keys = days.indices.map { k in (day: days[k], rank: ranks[k], at: k) }
            keys.sort { a, b in a.day != b.day ? a.day > b.day : a.rank != b.rank ? a.rank < b.rank : a.at < b.at }
            return keys.map(\.at)
        }
        var keys = days.indices.map { k in (latest - days[k]) << 43 | ranks[k] << 23 | k }
        keys.sort()
        return keys.map { $0 & (1 << 23 - 1) }
    }

    /// One subject's log entries in the span of `query` (those that did `interval`, when given),
    /// with the counted rides behind each task since the one before it and its intervals' names,
    /// appended to `entries`. `usage(interval, from, through)`: the counted riding over those
    /// days, both inclusive, of a task of `intervals[interval]` (nil: of none of them). When
    /// `counted` is false (and no `interval` is asked for), the entries have no tasks, only
    /// their `done` ids, and `usage` is not asked.
    static func entries(
        _ subject: ReportSubject, log: [LogEntry], intervals: [ResolvedInterval], part: Part?, query: ReportQuery, interval: IntervalID?,
        counted: Bool = true, usage: (Int?, Int, Int) -> (time: Double, distance: Double, rides: Int), into entries: inout [Entry]
    ) {
        let (asOf, since) = (query.asOf, query.since)
        let end = min(query.until ?? asOf, asOf)
        // The last day each task was done: by the interval's position, else (a task the subject
        // has no interval for) by its id.
        var last = [Day?](repeating: nil, count: intervals.count)
        var lastOther: [IntervalID: Day] = [:]
        // In day order, entries of one day as written: a log is written in order, so it is
        // mostly taken as it is, without sorting (or copying) its entries.
        let inOrder = log.indices.dropFirst().allSatisfy { log[$0 - 1].date <= log[$0].date }
        let order = inOrder ? Array(log.indices) : log.indices.sorted { (log[$0].date, $0) < (log[$1].date, $1) }
        // A done id's interval: lengths compared first (most ids of a subject differ in length),
        // the first interval with the id, as `firstIndex` finds it.
        let lengths = intervals.map { $0.id.rawValue.utf8.count }
        func position(_ id: IntervalID) -> Int? {
            let length = id.rawValue.utf8.count
            for k in intervals.indices where lengths[k] == length && intervals[k].id == id { return k }
            return nil
        }
        // The entries read in place: an entry copied out of the log (its strings, locations and
        // lists retained, then released) cost more than the rest of its reading.
        log.withUnsafeBufferPointer { log in
            guard counted || interval != nil else {
                // Without tasks (`uncountedEntries`): no day a task was last done is needed.
                guard let base = log.baseAddress else { return }
                for n in order where log[n].date <= end && since.map({ log[n].date >= $0 }) ?? true {
                    entries.append(Self.entry(base + n, subject: subject, part: part, tasks: []))
                }
                return
            }
            for n in order where log[n].date <= asOf {
                let date = log[n].date
                // Each done id read in place (a `Located` copied out retained its location's file).
                let tasks = log[n].done.withUnsafeBufferPointer { done in
                    done.indices.map { j -> Task in
                        let id = done[j].value
                        let k = position(id)
                        let previous = if let k { last[k] } else { lastOther[id] }
                        var task = Task(id: id.rawValue, task: k.map { intervals[$0].task } ?? id.rawValue, previous: previous)
                        if let previous, counted {
                            let used = usage(k, previous.ordinal, date.ordinal)
                            task.rides = used.rides
                            task.movingTime = ReportNumber.tenth(used.time)
                            task.distance = ReportNumber.tenth(used.distance)
                        }
                        if let k { last[k] = date } else { lastOther[id] = date }
                        return task
                    }
                }
                guard date <= end, since.map({ date >= $0 }) ?? true,
                    interval.map({ i in log[n].done.contains { $0.value == i } || log[n].readings.contains { $0.interval.value == i } }) ?? true
                else { continue }
                if let base = log.baseAddress { entries.append(Self.entry(base + n, subject: subject, part: part, tasks: tasks)) }
            }
        }
    }

    /// A log entry as the history lists it, with its tasks (read where it is: passed by value,
    /// each was copied and released).
    private static func entry(_ entry: UnsafePointer<LogEntry>, subject: ReportSubject, part: Part?, tasks: [Task]) -> Entry {
        let readings =
            entry.pointee.readings.isEmpty
            ? nil : entry.pointee.readings.map { Measurement(id: $0.interval.value.rawValue, value: $0.value.amount, unit: $0.value.unit) }
        let cost = entry.pointee.cost
        return Entry(
            subject: subject, bike: part?.mount(on: entry.pointee.date)?.bike.value.rawValue, date: entry.pointee.date, tasks: tasks,
            cost: cost.map { ReportAmount($0.value.amount) }, currency: cost?.value.currency, category: entry.pointee.category,
            note: entry.pointee.note, todo: entry.pointee.todo, readings: readings, done: entry.pointee.done)
    }
}
