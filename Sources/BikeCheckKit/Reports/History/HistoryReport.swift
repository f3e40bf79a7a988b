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
    /// it was on, on the days it was there (`CountedRides.entries(of: Part…)`).
    package static func build(
        _ garage: Garage, summaries: ActivitySummaries, query: ReportQuery, interval: IntervalID? = nil,
        sharing shared: CountedRides.BikeRides? = nil
    ) -> HistoryReport {
        let (selection, asOf, since, until) = (query.selection, query.asOf, query.since, query.until)
        var entries: [Entry] = []
        func add(
            _ subject: ReportSubject, log: [LogEntry], intervals: [ResolvedInterval], part: Part?,
            usage: (ResolvedInterval?, Int, Int) -> (time: Double, distance: Double, rides: Int)
        ) {
            entries += Self.entries(subject, log: log, intervals: intervals, part: part, query: query, interval: interval, usage: usage)
        }
        // Status's ledgers (prefix sums in day order): each task's span is two binary searches, on
        // each bike and through each filter, made once.
        // Rides another report already counted, when it counted the same (up to `asOf`, counted only).
        var cache =
            shared.flatMap { $0.through == asOf && $0.countedOnly ? $0 : nil }
            ?? CountedRides.BikeRides(garage: garage, index: CountedRides.Index(summaries), through: asOf, countedOnly: true)
        func ledger(_ bike: Int, _ filter: RideFilter) -> RideLedger {
            let id = garage.bikes[bike].bike.id
            return cache.ledgers([(id, filter)])[.init(bike: id, filter: filter)] ?? RideLedger()
        }
        // Each task through its interval's own filter over the bike's, as status and `rides
        // --interval` count it; a task the bike has no interval for, through the bike's.
        for (b, resolved) in garage.bikes.enumerated() where selection.includes(resolved.bike.id) {
            add(.bike(resolved.bike), log: resolved.bike.log, intervals: resolved.intervals, part: nil) { interval, from, through in
                ledger(b, interval.map { $0.rideFilter.over(resolved.filter) } ?? resolved.filter).usage(from: from, through: through)
            }
        }
        for rp in garage.parts where selection.includes(rp.part.id) {
            // A part's riding is that of each bike it was on, on the days it was there, as
            // status counts a part's usage (up to the day it was retired).
            let part = rp.part
            let stop = min(asOf, part.retired ?? asOf).ordinal
            var spans: [(from: Int, to: Int, bike: Int, mount: Mount)] = []
            for m in part.mounts.sorted(by: { $0.from < $1.from }) where m.from.ordinal <= stop {
                guard let b = cache.bikeIndex[m.bike.value] else { continue }
                spans.append((m.from.ordinal, min(m.to?.ordinal ?? stop, stop), b, m))
            }
            add(.part(part), log: part.log, intervals: rp.intervals, part: part) { interval, from, through in
                // The interval's filter (over the part's), else the part's, over each bike's.
                let spec = interval?.rideFilter ?? part.rideFilter
                var sum: (time: Double, distance: Double, rides: Int) = (0, 0, 0)
                for s in spans where max(s.from, from) <= min(s.to, through) {
                    let u = ledger(s.bike, s.mount.narrowing(spec.over(garage.bikes[s.bike].filter))).usage(
                        from: max(s.from, from), through: min(s.to, through))
                    sum.time += u.time
                    sum.distance += u.distance
                    sum.rides += u.rides
                }
                return sum
            }
        }
        entries.sort { ($0.date, $1.subject) > ($1.date, $0.subject) }
        return HistoryReport(
            asOf: asOf, units: garage.settings.units, since: since, until: until, interval: interval?.rawValue, entries: entries)
    }

    /// One subject's log entries in the span of `query` (those that did `interval`, when given),
    /// with the counted rides behind each task since the one before it and its intervals' names.
    /// `usage(interval, from, through)`: the counted riding over those days, both inclusive.
    static func entries(
        _ subject: ReportSubject, log: [LogEntry], intervals: [ResolvedInterval], part: Part?, query: ReportQuery, interval: IntervalID?,
        usage: (ResolvedInterval?, Int, Int) -> (time: Double, distance: Double, rides: Int)
    ) -> [Entry] {
        let (asOf, since) = (query.asOf, query.since)
        let end = min(query.until ?? asOf, asOf)
        var entries: [Entry] = []
        var last: [IntervalID: Day] = [:]
        let log = log.enumerated().sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }.map(\.element)
        for entry in log where entry.date <= asOf {
            var tasks: [Task] = []
            for done in entry.done {
                let id = done.value
                let interval = intervals.first { $0.id == id }
                var task = Task(id: id.rawValue, task: interval?.task ?? id.rawValue, previous: last[id])
                if let previous = last[id] {
                    let used = usage(interval, previous.ordinal, entry.date.ordinal)
                    task.rides = used.rides
                    task.movingTime = ReportNumber.tenth(used.time)
                    task.distance = ReportNumber.tenth(used.distance)
                }
                last[id] = entry.date
                tasks.append(task)
            }
            guard entry.date <= end, since.map({ entry.date >= $0 }) ?? true,
                interval.map({ i in entry.done.contains { $0.value == i } || entry.readings.contains { $0.interval.value == i } }) ?? true
            else { continue }
            let readings = entry.readings.map { Measurement(id: $0.interval.value.rawValue, value: $0.value.amount, unit: $0.value.unit) }
            entries.append(
                Entry(
                    subject: subject, bike: part?.mount(on: entry.date)?.bike.value.rawValue, date: entry.date, tasks: tasks,
                    cost: entry.cost.map { ReportAmount($0.value.amount) }, currency: entry.cost?.value.currency, category: entry.category,
                    note: entry.note, todo: entry.todo, readings: readings.isEmpty ? nil : readings))
        }
        return entries
    }

    package var table: ReportTable {
        let parts = entries.contains { $0.subject.kind == .part }
        let columns: [ReportTable.Column] =
            [.init("date", "DATE")] + ReportTable.subjectColumns(parts: parts) + [
                .init("tasks", "DONE"), .init("cost", "COST", numeric: true),
                .init("currency", "CUR"), .init("category", "CATEGORY"), .init("note", "NOTE"),
            ]
        let rows = entries.map { e in
            let described = e.tasks.map { t in
                guard let previous = t.previous, let d = t.distance, let h = t.movingTime else { return "\(t.task) (first logged)" }
                return "\(t.task) (after \(units.distanceText(d)) \(units.distanceUnit) / \(ReportNumber.hours(h)) h since \(previous))"
            }
            let measured = (e.readings ?? []).map { "measured \($0.id) \(WearAmount(amount: $0.value, unit: $0.unit))" }
            let tasks = (described + (e.todo.map { ["to-do: \($0)"] } ?? []) + measured).joined(separator: "; ")
            return [e.date.description] + ReportTable.subjectCells(e.subject, bike: e.bike, parts: parts) + [
                tasks, e.cost?.description ?? "", e.cost == nil ? "" : e.currency ?? "", e.category ?? "", e.note ?? "",
            ]
        }
        return ReportTable(columns: columns, rows: rows)
    }
}
