/// Measured wear (docs/due.md, "Measured wear"): an interval with a `wear_limit:` is due when
/// its readings reach the limit. From the readings since the interval's anchor and the usage
/// between them comes the rate (a least-squares line through the points, usage against
/// reading), and from the latest reading, that rate and the recent pace the day the limit is
/// reached.
package struct WearStatus: Sendable, Codable, Equatable {
    /// The limit, in `unit`.
    package var limit: Double
    /// `%` or `mm`.
    package var unit: String
    /// Whether the readings rise to the limit (a chain's stretch) or fall to it (a pad).
    package var direction: WearDirection
    /// The readings since the anchor, oldest first.
    package var readings: [WearReading]
    /// The usage the rate is per: the interval's first limit in hours, distance or rides, else distance.
    package var measure: Measure
    /// Whether the anchor counts as a reading of zero (a new part whose readings rise).
    package var fromZero: Bool
    /// The change of the reading per base unit of `measure` (per second, metre or ride), signed;
    /// nil with fewer than two points or usage that does not vary between them.
    package var rate: Double?
    /// The latest reading over the limit (a maximum), or the limit over it (a minimum): 1 when
    /// it is reached.
    package var progress: Double
    /// The estimated day the limit is reached, at the recent pace; the as-of day when the
    /// estimate is already past; nil without a rate towards the limit, a pace, or once reached.
    package var due: Day?

    /// The latest reading.
    package var latest: WearReading { readings[readings.count - 1] }

    enum CodingKeys: String, CodingKey {
        case limit, unit, direction, readings, measure
        case fromZero = "from_zero"
        case rate, progress, due
    }
}

/// One reading since the anchor, with the usage from the anchor to it.
package struct WearReading: Sendable, Codable, Equatable {
    package var date: Day
    package var value: Double
    /// The usage (in `WearStatus.measure`'s base unit) from the anchor through the day before
    /// the reading: a ride on the day of the reading counts after it, as after a service.
    package var used: Double
}

extension ResolvedInterval {
    /// What measured wear is counted against: its first limit in hours, distance or rides; else distance.
    var wearMeasure: Measure {
        limits.first { [.time, .distance, .rides].contains($0.measure) }?.measure ?? .distance
    }
}

extension StatusPlanner {
    /// The readings of `interval` in `log` since the anchor `since`, through the as-of day, in
    /// order of day (then as written). On the anchor's day, when a log entry anchors it (`renews`:
    /// it did the interval, or replaced its part), only the entries after the last such entry of
    /// that day count: a reading written with the replacement measured the part it replaced.
    static func readings(of interval: IntervalID, in log: [LogEntry], since: Day, through asOf: Day, renews: ((LogEntry) -> Bool)?) -> [(Day, Double)] {
        var after = -1
        if let renews {
            for (n, entry) in log.enumerated() where entry.date == since && renews(entry) { after = n }
        }
        var found: [(day: Day, n: Int, value: Double)] = []
        for (n, entry) in log.enumerated() where entry.date <= asOf && (entry.date > since || (entry.date == since && n > after)) {
            for reading in entry.readings where reading.interval.value == interval { found.append((entry.date, n, reading.value.amount)) }
        }
        return found.sorted { ($0.day, $0.n) < ($1.day, $1.n) }.map { ($0.day, $0.value) }
    }

    /// The wear status of an interval with `limit` from its `readings` since the anchor `since`.
    /// `used(day)` is the usage in `measure` from the anchor through that day; `new` says the
    /// anchor was a new part (then, for readings that rise, the anchor is a reading of zero).
    func wearStatus(
        limit: WearAmount, measure: Measure, readings: [(Day, Double)], since: Day, new: Bool, used: (Day) -> Double, pace: Pace
    ) -> WearStatus? {
        guard let first = readings.first, let last = readings.last else { return nil }
        let direction: WearDirection = first.1 <= limit.amount ? .maximum : .minimum
        func before(_ day: Day) -> Double { day <= since ? 0 : used(day.adding(days: -1)) }
        let points = readings.map { WearReading(date: $0.0, value: $0.1, used: rounded(before($0.0))) }
        let fromZero = new && direction == .maximum
        let xs = (fromZero ? [0] : []) + points.map(\.used)
        let ys = (fromZero ? [0] : []) + points.map(\.value)
        // The least-squares slope of reading against usage.
        var rate: Double?
        if xs.count >= 2 {
            let mx = xs.reduce(0, +) / Double(xs.count), my = ys.reduce(0, +) / Double(ys.count)
            let sxx = zip(xs, xs).map { ($0 - mx) * ($1 - mx) }.reduce(0, +)
            let sxy = zip(xs, ys).map { ($0 - mx) * ($1 - my) }.reduce(0, +)
            if sxx > 0 { rate = sxy / sxx }
        }
        let progress: Double
        switch direction {
        case .maximum: progress = rounded(last.1 / limit.amount)
        case .minimum: progress = last.1 > 0 ? rounded(limit.amount / last.1) : 10
        }
        var due: Day?
        if progress < 1, let rate, (direction == .maximum ? rate : -rate) > 0 {
            // Usage from the latest reading to the limit at the rate, less what was used since.
            let needed = abs(limit.amount - last.1) / abs(rate)
            let since = used(asOf) - before(last.0)
            let remaining = needed - since
            let perDay = measure == .time ? pace.movingTime : measure == .rides ? pace.rides : pace.distance
            due = remaining <= 0 ? asOf : forecast(remaining: remaining, rate: perDay)
        }
        return WearStatus(
            limit: limit.amount, unit: limit.unit, direction: direction, readings: points, measure: measure, fromZero: fromZero,
            rate: rate.map { ($0 * 1e12).rounded() / 1e12 }, progress: progress, due: due)
    }
}

extension Usage {
    /// This usage in `measure`'s base unit (seconds, metres, rides; days for the calendar).
    func amount(in measure: Measure) -> Double {
        switch measure {
        case .time: movingTime
        case .distance: distance
        case .rides: Double(rides)
        case .days, .months: Double(days)
        }
    }
}
