/// A bike's counted rides through one filter as parallel arrays sorted by day, with prefix sums:
/// the usage of any run of days in two binary searches. Made by `CountedRides.BikeRides` from
/// the engine's entries, so status, part lives and odometers count what the reports list.
struct RideLedger {
    var days: [Int] = []
    var time: [Double] = [0]
    var distance: [Double] = [0]

    init() {}

    /// From counted entries in day order (the engine's order).
    init<Entries: Collection<CountedRides.Entry>>(_ entries: Entries) {
        days.reserveCapacity(entries.count)
        time.reserveCapacity(entries.count + 1)
        distance.reserveCapacity(entries.count + 1)
        var t = 0.0, d = 0.0
        for e in entries where e.verdict == .counted {
            t += e.movingTime
            d += e.distance
            days.append(Int(e.day))
            time.append(t)
            distance.append(d)
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

    /// The first day with a counted ride, if any.
    var firstDay: Int? { days.first }
}
