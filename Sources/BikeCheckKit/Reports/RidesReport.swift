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
    public var rides: [ReportRide]
    public var totals: [Total]

    enum CodingKeys: String, CodingKey {
        case asOf = "as_of"
        case since, until, interval, rides, totals
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
        let index = CountedRides.Index(activities)
        var bikes = garage.bikes.filter { only.isEmpty || only.contains($0.bike.id) }
        var anchors: [BikeID: Day] = [:]
        if let interval {
            let known = Set(bikes.flatMap { $0.intervals.map(\.id.rawValue) }).sorted()
            bikes = bikes.filter { $0.intervals.contains { $0.id == interval } }
            guard !bikes.isEmpty else { throw .unknownInterval(interval.rawValue, known: known) }
            let status = StatusPlanner(asOf: asOf).plan(garage, activities: activities, only: bikes.map(\.bike.id))
            for b in status.bikes {
                if let s = b.intervals.first(where: { $0.id == interval.rawValue })?.since { anchors[BikeID(b.id)] = s }
            }
        }
        let end = min(until ?? asOf, asOf)
        var rides: [ReportRide] = []
        var totals: [Total] = []
        for resolved in bikes {
            let start = [since, anchors[resolved.bike.id]].compactMap { $0 }.max()
            let list = CountedRides.rides(of: resolved, index: index, handEntered: garage.rides, through: end)
                .filter { r in start.map { r.day >= $0 } ?? true }
            let counted = list.filter { $0.verdict == .counted }
            totals.append(
                Total(
                    subject: .bike(resolved.bike), since: anchors[resolved.bike.id], counted: counted.count,
                    notCounted: list.count - counted.count,
                    movingTime: ReportNumber.tenth(counted.reduce(0) { $0 + $1.movingTime }),
                    distance: ReportNumber.tenth(counted.reduce(0) { $0 + $1.distance })))
            rides += list
        }
        return RidesReport(asOf: asOf, since: since, until: until, interval: interval?.rawValue, rides: rides, totals: totals)
    }

    static func why(_ ride: ReportRide) -> String {
        switch ride.verdict {
        case .counted: return "yes"
        case .sportType: return "no: sport type \(ride.sport ?? "?") does not count"
        case .indoor: return "no: on a trainer"
        case .noGear: return "no: no gear on Strava"
        }
    }

    public var table: ReportTable {
        let columns: [ReportTable.Column] = [
            .init("bike", "BIKE"), .init("date", "DATE"), .init("source", "SOURCE"), .init("activity", "ACTIVITY"), .init("sport", "SPORT"),
            .init("moving_time_h", "HOURS", numeric: true), .init("distance_km", "KM", numeric: true), .init("counts", "COUNTS"),
            .init("name", "NAME"),
        ]
        let rows = rides.map { r in
            [
                r.subject.id, r.day.description, r.source.rawValue, r.activity.map { "\($0)" } ?? "", r.sport ?? "",
                ReportNumber.hours(r.movingTime), ReportNumber.km(r.distance), Self.why(r), r.name ?? "",
            ]
        }
        let footer = totals.map { t in
            "\(t.subject.id)\(t.since.map { " since \($0)" } ?? ""): \(t.counted) counted (\(ReportNumber.hours(t.movingTime)) h, \(ReportNumber.km(t.distance)) km), \(t.notCounted) not counted"
        }
        return ReportTable(columns: columns, rows: rows, footer: footer)
    }
}
