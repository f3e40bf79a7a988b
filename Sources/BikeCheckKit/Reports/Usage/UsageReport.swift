/// How much each bike was ridden per month or year: the counted rides, as status counts them.
package struct UsageReport: Sendable, Encodable {
    package enum Period: String, Sendable, Encodable, CaseIterable { case month, year }

    package struct Row: Sendable, Encodable {
        package var subject: ReportSubject
        /// `2025-03` or `2025`.
        package var period: String
        package var rides: Int
        /// Seconds.
        package var movingTime: Double
        /// Metres.
        package var distance: Double
        /// Metres climbed.
        package var elevation: Double
        /// Metres of counted rides from the first up to the end of this period (or the as-of day).
        package var odometer: Double

        enum CodingKeys: String, CodingKey {
            case subject, period, rides, distance, elevation, odometer
            case movingTime = "moving_time"
        }
    }

    package var asOf: Day
    /// The figures are SI (`"units": "si"`); `units` is what the rider reads (`display_units`).
    package var jsonUnits = JSONUnits.si
    package var units: UnitSystem
    package var since: Day?
    package var period: Period
    package var rows: [Row]
    /// One per subject over the whole span.
    package var totals: [Row]

    enum CodingKeys: String, CodingKey {
        case asOf = "as_of"
        case jsonUnits = "units"
        case units = "display_units"
        case since, period, rows, totals
    }

    /// One subject's rows and total, from its counted rides in day order.
    struct Summer {
        var rows: [Row] = []
        var total: Row
        var odometer: Double
        let subject: ReportSubject, period: Period, first: Int32
        /// The period of the row being summed, as a number (days are in order): a String only per row.
        var current = -1
        /// The first day after the current period.
        var periodEnd = Int32.min

        init(_ subject: ReportSubject, prior: Double, since: Day?, asOf: Day, period: Period) {
            self.subject = subject
            self.period = period
            first = since.map { Int32(clamping: $0.ordinal) } ?? Int32.min
            odometer = prior
            total = Row(
                subject: subject, period: since.map { "\($0)..\(asOf)" } ?? "..\(asOf)", rides: 0, movingTime: 0, distance: 0, elevation: 0,
                odometer: 0)
        }

        mutating func add(_ ride: CountedRides.Entry) {
            odometer += ride.distance
            guard ride.day >= first else { return }
            // Days come in order: a ride before the end of the current period is in it.
            if ride.day >= periodEnd {
                let day = Day(ordinal: Int(ride.day))
                let key = UsageReport.periodNumber(day, period)
                if key != current {
                    current = key
                    rows.append(
                        Row(subject: subject, period: UsageReport.periodKey(day, period), rides: 0, movingTime: 0, distance: 0, elevation: 0, odometer: 0))
                }
                let (y, m, _) = day.components
                let next =
                    period == .month
                    ? (m == 12 ? Day(year: y + 1, month: 1, day: 1) : Day(year: y, month: m + 1, day: 1)) : Day(year: y + 1, month: 1, day: 1)
                periodEnd = next.map { Int32(clamping: $0.ordinal) } ?? ride.day + 1
            }
            let row = rows.count - 1
            rows[row].rides += 1
            rows[row].movingTime += ride.movingTime
            rows[row].distance += ride.distance
            rows[row].elevation += ride.elevation
            rows[row].odometer = odometer
            total.rides += 1
            total.movingTime += ride.movingTime
            total.distance += ride.distance
            total.elevation += ride.elevation
        }
    }

    /// Builds the report from the cache's summaries, as status reads them: the named bikes and
    /// parts (`only`, `parts`), or every bike and every part when none is named. A part's rides
    /// are those behind it (`CountedRides.entries(of: Part…)`), and its odometer starts from its
    /// distance before tracking.
    package static func build(
        _ garage: Garage, summaries: ActivitySummaries, query: ReportQuery, period: Period,
        sharing shared: CountedRides.BikeRides? = nil
    ) -> UsageReport {
        let (selection, asOf, since) = (query.selection, query.asOf, query.since)
        var rows: [Row] = []
        var totals: [Row] = []
        // Rides another report already counted, when it counted the same (up to `asOf`, counted only).
        var cache =
            shared.flatMap { $0.through == asOf && $0.countedOnly ? $0 : nil }
            ?? CountedRides.BikeRides(garage: garage, index: CountedRides.Index(summaries), through: asOf, countedOnly: true)
        // From `since`, the rides before it only add to the odometer: that is read from the
        // bike's ledger (the same distances added in the same order, status's), and only the
        // rides from that day on are read (the HTML report's twelve months of ten years).
        let bikes = garage.bikes.filter { selection.includes($0.bike.id) }
        let ledgers = since == nil ? [:] : cache.ledgers(bikes.map { ($0.bike.id, $0.filter) })
        for resolved in bikes {
            let rides = cache.rides(of: resolved.bike.id)
            var start = 0, prior = 0.0
            if let since, let ledger = ledgers[.init(bike: resolved.bike.id, filter: resolved.filter)], ledger.days.count == rides.count {
                start = ledger.lowerBound(since.ordinal)
                prior = ledger.distance[start]
            }
            var summer = Summer(.bike(resolved.bike), prior: prior, since: since, asOf: asOf, period: period)
            for k in start..<rides.count { summer.add(rides[k]) }
            summer.total.odometer = summer.odometer
            rows += summer.rows
            totals.append(summer.total)
        }
        for rp in garage.parts where selection.includes(rp.part.id) {
            var summer = Summer(.part(rp.part), prior: rp.part.priorDistance, since: since, asOf: asOf, period: period)
            CountedRides.forEachEntry(of: rp.part, cache: &cache) { summer.add($0) }
            summer.total.odometer = summer.odometer
            rows += summer.rows
            totals.append(summer.total)
        }
        func rounded(_ r: Row) -> Row {
            var r = r
            r.movingTime = ReportNumber.tenth(r.movingTime)
            r.distance = ReportNumber.tenth(r.distance)
            r.elevation = ReportNumber.tenth(r.elevation)
            r.odometer = ReportNumber.tenth(r.odometer)
            return r
        }
        return UsageReport(
            asOf: asOf, units: garage.settings.units, since: since, period: period, rows: rows.map(rounded), totals: totals.map(rounded))
    }

    /// `periodKey` as a number: `year * 100 + month`, or the year.
    static func periodNumber(_ day: Day, _ period: Period) -> Int {
        let (y, m, _) = day.components
        return period == .month ? y * 100 + m : y
    }

    static func periodKey(_ day: Day, _ period: Period) -> String {
        let (y, m, _) = day.components
        switch period {
        case .month: return "\(y)-\(m < 10 ? "0" : "")\(m)"
        case .year: return "\(y)"
        }
    }

    /// Rows and a total line per bike, in the rider's units: hours, km and m (or mi and ft).
    package var table: ReportTable {
        let parts = totals.contains { $0.subject.kind == .part }
        let km = units.distanceUnit, m = units.climbUnit
        let columns: [ReportTable.Column] =
            ReportTable.subjectColumns(parts: parts) + [
                .init(period.rawValue, period == .month ? "MONTH" : "YEAR"), .init("rides", "RIDES", numeric: true),
                .init("moving_time_h", "HOURS", numeric: true), .init("distance_\(km)", km.uppercased(), numeric: true),
                .init("elevation_\(m)", "CLIMB \(m.uppercased())", numeric: true), .init("odometer_\(km)", "ODOMETER \(km.uppercased())", numeric: true),
            ]
        func cells(_ r: Row, _ period: String) -> [String] {
            ReportTable.subjectCells(r.subject, parts: parts) + [
                period, "\(r.rides)", ReportNumber.hours(r.movingTime), units.distanceText(r.distance),
                units.climbText(r.elevation), units.distanceText(r.odometer),
            ]
        }
        let footer = totals.map { t in
            "\(t.subject.label): \(t.rides) ride\(t.rides == 1 ? "" : "s"), \(ReportNumber.hours(t.movingTime)) h, \(units.distanceText(t.distance)) \(km), odometer \(units.distanceText(t.odometer)) \(km)"
        }
        return ReportTable(columns: columns, rows: rows.map { cells($0, $0.period) }, footer: footer)
    }
}
