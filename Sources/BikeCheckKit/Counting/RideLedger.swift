/// A bike's counted rides through one filter as parallel arrays sorted by day, with prefix sums:
/// the usage of any run of days in two binary searches. Made by `CountedRides.BikeRides` from
/// the engine's entries, so status, part lives and odometers count what the reports list.
struct RideLedger {
    /// Each ride's day as its ordinal: 4 bytes a ride, where an `Int` is 8 (the ledgers of a
    /// history hold every counted ride of each bike, through each filter asked for).
    private var dayNumbers: [Int32] = []
    var time: [Double] = [0]
    var distance: [Double] = [0]

    /// Each ride's day (`Day.ordinal`), in order.
    var days: Days { Days(numbers: dayNumbers) }

    struct Days: RandomAccessCollection {
        fileprivate let numbers: [Int32]
        var startIndex: Int { 0 }
        var endIndex: Int { numbers.count }
        subscript(k: Int) -> Int { Int(numbers[k]) }
    }

    init() {}

    /// From counted entries in day order (the engine's order).
    init<Entries: Collection<CountedRides.Entry>>(_ entries: Entries) {
        dayNumbers.reserveCapacity(entries.count)
        time.reserveCapacity(entries.count + 1)
        distance.reserveCapacity(entries.count + 1)
        var t = 0.0, d = 0.0
        for e in entries where e.verdict == .counted {
            t += e.movingTime
            d += e.distance
            dayNumbers.append(e.day)
            time.append(t)
            distance.append(d)
        }
    }

    /// Rides' days in order, and the running sums of their times and distances after a 0.
    init(days: [Int32], time: [Double], distance: [Double]) {
        dayNumbers = days
        self.time = time
        self.distance = distance
    }

    /// Index of the first ride on or after `day`.
    func lowerBound(_ day: Int) -> Int { lowerBound(day, from: 0) }

    /// Index of the first ride on or after `day`, at `from` or later (rides before `from` are
    /// all before `day`).
    private func lowerBound(_ day: Int, from: Int) -> Int {
        dayNumbers.withUnsafeBufferPointer { days in
            var lo = from, hi = days.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if Int(days[mid]) < day { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
    }

    func usage(from: Int, through: Int) -> (time: Double, distance: Double, rides: Int) {
        let a = lowerBound(from)
        let b = through < from ? a : lowerBound(through + 1, from: a)
        guard b > a else { return (0, 0, 0) }
        return (time[b] - time[a], distance[b] - distance[a], b - a)
    }

    /// The riding of every ride through `day` (an odometer): `usage(from:through:)` from before
    /// the first ride, in one binary search.
    func odometer(through day: Int) -> (time: Double, distance: Double) {
        let b = lowerBound(day + 1)
        return (time[b], distance[b])
    }

    /// The first day with a counted ride, if any.
    var firstDay: Int? { dayNumbers.first.map(Int.init) }
}
