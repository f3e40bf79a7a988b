/// The rides behind the numbers: each ride of the bikes in a span, counted or not and why.
public struct RidesReport: Sendable, Encodable {
    public struct Total: Sendable, Encodable {
        public var subject: ReportSubject
        /// The day counting starts for `--interval` (its anchor, as status computes it).
        public var since: Day?
        public var counted: Int
        public var notCounted: Int
        /// Seconds and metres of the counted rides.
        public var movingTime: Double
        public var distance: Double

        enum CodingKeys: String, CodingKey {
            case subject, since, counted, distance
            case notCounted = "not_counted"
            case movingTime = "moving_time"
        }
    }

    public var asOf: Day
    public var since: Day?
    public var until: Day?
    public var interval: String?
    public var totals: [Total]
    /// The rides shown, each bike's in order, as compact entries; `rides` makes them whole.
    public private(set) var shown: [(subject: ReportSubject, entries: [CountedRides.Entry])]
    let index: CountedRides.Index
    let handEntered: [Ride]
    /// The names of the cached activities shown (see `activityRecords`).
    public var names = ActivityNames()

    enum CodingKeys: String, CodingKey {
        case asOf = "as_of"
        case since, until, interval, rides, totals
    }

    /// Every ride shown, with its Strings.
    public var rides: [ReportRide] {
        shown.flatMap { list in
            list.entries.map { CountedRides.ride($0, subject: list.subject, index: index, handEntered: handEntered) { names[$0] } }
        }
    }

    /// The cached activities shown, by index in the summaries: whose names to load.
    public var activityRecords: [Int32] { shown.flatMap { $0.entries.compactMap { $0.record >= 0 ? $0.record : nil } } }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(asOf, forKey: .asOf)
        try c.encodeIfPresent(since, forKey: .since)
        try c.encodeIfPresent(until, forKey: .until)
        try c.encodeIfPresent(interval, forKey: .interval)
        try c.encode(rides, forKey: .rides)
        try c.encode(totals, forKey: .totals)
    }

    /// Why `--interval` cannot be answered.
    public enum Problem: Error, Equatable, Sendable {
        /// None of the bikes has the interval; the ids they have.
        case unknownInterval(String, known: [String])
    }

    /// The rides of the named bikes (all when `only` is empty) from `since` through `until` (else
    /// `asOf`); with `interval`, from that interval's anchor on each bike that has it.
    public static func build(
        _ garage: Garage, activities: [Activity], only: [BikeID] = [], asOf: Day, since: Day? = nil,
        until: Day? = nil, interval: IntervalID? = nil
    ) throws(Problem) -> RidesReport {
        let dated = activities.filter { $0.localDay != nil }
        var report = try build(
            garage, summaries: ActivitySummaries(dated), only: only, asOf: asOf, since: since, until: until, interval: interval)
        report.names = ActivityNames(dated: dated)
        return report
    }

    /// The same from the cache's summaries; the activities' names are left to load
    /// (`ActivityNames.load` with `activityRecords`).
    public static func build(
        _ garage: Garage, summaries: ActivitySummaries, only: [BikeID] = [], asOf: Day, since: Day? = nil,
        until: Day? = nil, interval: IntervalID? = nil
    ) throws(Problem) -> RidesReport {
        let index = CountedRides.Index(summaries)
        var bikes = garage.bikes.filter { only.isEmpty || only.contains($0.bike.id) }
        var anchors: [BikeID: Day] = [:]
        if let interval {
            let known = Set(bikes.flatMap { $0.intervals.map(\.id.rawValue) }).sorted()
            bikes = bikes.filter { $0.intervals.contains { $0.id == interval } }
            guard !bikes.isEmpty else { throw .unknownInterval(interval.rawValue, known: known) }
            let status = StatusPlanner(asOf: asOf).plan(garage, summaries: summaries, only: bikes.map(\.bike.id))
            for b in status.bikes {
                if let s = b.intervals.first(where: { $0.id == interval.rawValue })?.since { anchors[BikeID(b.id)] = s }
            }
        }
        let end = min(until ?? asOf, asOf)
        var shown: [(subject: ReportSubject, entries: [CountedRides.Entry])] = []
        var totals: [Total] = []
        for resolved in bikes {
            let start = [since, anchors[resolved.bike.id]].compactMap { $0 }.max()
            let first = start.map { Int32(clamping: $0.ordinal) } ?? Int32.min
            var list = CountedRides.entries(of: resolved, index: index, handEntered: garage.rides, through: end)
            if first > Int32.min { list.removeAll { $0.day < first } }
            var counted = 0
            var movingTime = 0.0, distance = 0.0
            for r in list where r.isCounted {
                counted += 1
                movingTime += r.movingTime
                distance += r.distance
            }
            totals.append(
                Total(
                    subject: .bike(resolved.bike), since: anchors[resolved.bike.id], counted: counted,
                    notCounted: list.count - counted, movingTime: ReportNumber.tenth(movingTime), distance: ReportNumber.tenth(distance)))
            shown.append((.bike(resolved.bike), list))
        }
        return RidesReport(
            asOf: asOf, since: since, until: until, interval: interval?.rawValue, totals: totals, shown: shown, index: index,
            handEntered: garage.rides)
    }

    static func why(_ verdict: ReportRide.Verdict, sport: String?) -> String {
        switch verdict {
        case .counted: return "yes"
        case .sportType: return "no: sport type \(sport ?? "?") does not count"
        case .indoor: return "no: on a trainer"
        case .noGear: return "no: no gear on Strava"
        }
    }

    /// A row per ride, streamed: a million rides are written cell by cell, not held as Strings.
    public var table: ReportTable {
        let columns: [ReportTable.Column] = [
            .init("bike", "BIKE"), .init("date", "DATE"), .init("source", "SOURCE"), .init("activity", "ACTIVITY"), .init("sport", "SPORT"),
            .init("moving_time_h", "HOURS", numeric: true), .init("distance_km", "KM", numeric: true), .init("counts", "COUNTS"),
            .init("name", "NAME"),
        ]
        let footer = totals.map { t in
            "\(t.subject.id)\(t.since.map { " since \($0)" } ?? ""): \(t.counted) counted (\(ReportNumber.hours(t.movingTime)) h, \(ReportNumber.km(t.distance)) km), \(t.notCounted) not counted"
        }
        // Row k's bike: the lists' first rows.
        var offsets: [Int] = []
        var count = 0
        for list in shown {
            offsets.append(count)
            count += list.entries.count
        }
        let starts = offsets, shown = self.shown, summaries = index.summaries, hand = handEntered, names = names
        // "no: sport type X does not count" once per sport type.
        let notCounted = summaries.strings.map { Self.why(.sportType, sport: $0) }
        let stream = ReportTable.RowStream(count: count) { k, cells in
            var lo = 0, hi = starts.count - 1
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if starts[mid] <= k { lo = mid } else { hi = mid - 1 }
            }
            let list = shown[lo]
            let e = list.entries[k - starts[lo]]
            cells.text(list.subject.id)
            cells.day(Day(ordinal: Int(e.day)))
            if e.record >= 0 {
                let a = summaries.records[Int(e.record)]
                cells.text(ReportRide.Source.strava.rawValue)
                cells.integer(a.id)
                cells.text(summaries.strings[Int(a.sport)])
                cells.fixed(a.movingTime / 3600, 1)
                cells.fixed(a.distance / 1000, 1)
                cells.text(e.verdict == .sportType ? notCounted[Int(a.sport)] : Self.why(e.verdict, sport: nil))
                cells.text(names[e.record] ?? "")
            } else {
                let r = hand[Int(e.hand)]
                cells.text(ReportRide.Source.hand.rawValue)
                cells.empty()
                cells.text(r.sport ?? "")
                cells.fixed(r.movingTime / 3600, 1)
                cells.fixed(r.distance / 1000, 1)
                cells.text(Self.why(e.verdict, sport: r.sport))
                cells.text(r.name ?? "")
            }
        }
        return ReportTable(columns: columns, stream: stream, footer: footer)
    }
}
