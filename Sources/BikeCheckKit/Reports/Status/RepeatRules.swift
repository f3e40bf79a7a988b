/// The `fixed` and `catch-up` repeat rules (docs/due.md, "Repeat rules"). Their due points run
/// from a base (the install, the purchase, the last replacement: what the interval counted from
/// before it was first done) at whole multiples of each limit: point k is the base plus k times
/// the limit, in days or months of the calendar, or in hours, distance or rides of the
/// odometer from the base. The first due point is point 1; each service after the base moves
/// it on by one (`fixed`), or by one and then as many more as it takes to be past the service
/// (`catch-up`). A limit's window runs from the point before the next to the next.
extension StatusPlanner {
    /// The index of the next due point after `services` (ascending, in the points' measure).
    static func nextPoint(after services: [Double], rule: RepeatRule, point: (Int) -> Double) -> Int {
        var next = 1
        for service in services {
            next += 1
            if rule == .catchUp { while point(next) <= service { next += 1 } }
        }
        return next
    }

    /// A limit's status under `fixed` or `catch-up`: used and progress within its current
    /// window, due at the window's end (for the odometer, at the recent pace). `odometer(day)`
    /// is the usage from the base through that day (usage before tracking included); `services`
    /// are the days the interval was done after the base, through the as-of day.
    func chainedLimitStatus(_ q: Quantity, rule: RepeatRule, base: Day, services: [Day], odometer: (Int) -> Usage, pace: Pace) -> LimitStatus {
        let used: Double
        var due: Day?
        var windowStart: Day?
        switch q.measure {
        case .days, .months:
            let n = Int(q.amount.rounded(.up))
            func point(_ k: Int) -> Day { q.measure == .days ? base.adding(days: k * n) : base.adding(months: k * n) }
            let next = Self.nextPoint(after: services.map { Double($0.ordinal) }, rule: rule) { Double(point($0).ordinal) }
            let start = point(next - 1), end = point(next)
            let days = Double(max(0, asOf.ordinal - start.ordinal))
            used = q.measure == .days ? days : days * q.amount / Double(max(1, end.ordinal - start.ordinal))
            due = end
            windowStart = start
        case .time, .distance, .rides:
            let value: (Usage) -> Double =
                switch q.measure {
                case .time: { $0.movingTime }
                case .distance: { $0.distance }
                default: { Double($0.rides) }
                }
            let rate = q.measure == .time ? pace.movingTime : q.measure == .distance ? pace.distance : pace.rides
            // A service's odometer: the rides before its day (a ride on the day counts after it).
            let next = Self.nextPoint(after: services.map { value(odometer($0.ordinal - 1)) }, rule: rule) { Double($0) * q.amount }
            let now = value(odometer(asOf.ordinal))
            used = max(0, now - Double(next - 1) * q.amount)
            due = forecast(remaining: Double(next) * q.amount - now, rate: rate)
            // The window began on the day the odometer passed the previous point (the base for
            // the first): the first day whose rides, from the base, reach it.
            let passed = Double(next - 1) * q.amount
            if next == 1 {
                windowStart = base
            } else if now >= passed {
                var lo = base.ordinal, hi = asOf.ordinal
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if value(odometer(mid)) >= passed { hi = mid } else { lo = mid + 1 }
                }
                windowStart = Day(ordinal: lo)
            }
        }
        let progress = rounded(used / q.amount)
        var status = LimitStatus(
            every: q.text, measure: q.measure, unit: q.unit, unitSize: q.unitSize, limit: q.amount, used: rounded(used),
            progress: progress, due: progress >= 1 ? nil : due)
        status.windowStart = windowStart
        return status
    }
}
