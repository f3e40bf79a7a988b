import Foundation

/// Each bike's rides, kept once for every report built from them.
extension CountedRides {
    /// A bike's rides through one filter: what a ledger is made of.
    struct LedgerKey: Hashable {
        var bike: BikeID
        var filter: RideFilter
    }

    /// The first entry on or after `day` in entries in day order.
    static func lowerBound(_ entries: RideList, _ day: Int32) -> Int {
        var lo = 0, hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if entries.day(at: mid) < day { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Each bike's rides through each filter asked for, made once, up to `through`. Copies share
    /// what is made, so that reports built one after the other (the HTML report's) count once.
    package struct BikeRides {
        let garage: Garage
        let index: Index
        let through: Day
        let countedOnly: Bool
        let bikeIndex: [BikeID: Int]
        private let made = Made()

        private final class Made {
            var lists: [Key: RideList] = [:]
            var ledgers: [Key: RideLedger] = [:]
        }

        struct Key: Hashable {
            var bike: Int
            var filter: RideFilter
        }

        /// Counted rides only (`countedOnly`) up to `through`, for several reports of one garage.
        package init(garage: Garage, summaries: ActivitySummaries, through: Day) {
            self.init(garage: garage, index: Index(summaries), through: through, countedOnly: true)
        }

        package init(garage: Garage, index: Index, through: Day, countedOnly: Bool) {
            self.garage = garage
            self.index = index
            self.through = through
            self.countedOnly = countedOnly
            bikeIndex = Dictionary(garage.bikes.enumerated().map { ($1.bike.id, $0) }, uniquingKeysWith: { a, _ in a })
        }

        /// A bike's rides through its own filter.
        mutating func rides(of bike: BikeID) -> RideList {
            guard let b = bikeIndex[bike] else { return RideList([], index: index, handEntered: garage.rides) }
            return rides(bike: b, filter: garage.bikes[b].filter)
        }

        /// The counted rides of each bike through each filter as ledgers of prefix sums (status,
        /// part lives, odometers), made once; the missing ones on all cores.
        mutating func ledgers(_ keys: [(bike: BikeID, filter: RideFilter)]) -> [LedgerKey: RideLedger] {
            var out: [LedgerKey: RideLedger] = [:]
            var missing: [(LedgerKey, Key)] = []
            for (bike, filter) in keys {
                guard let b = bikeIndex[bike] else { continue }
                let key = Key(bike: b, filter: filter), name = LedgerKey(bike: bike, filter: filter)
                if let known = made.ledgers[key] { out[name] = known } else if out[name] == nil { missing.append((name, key)) }
            }
            var seen: Set<Key> = []
            missing = missing.filter { seen.insert($0.1).inserted }
            let garage = self.garage, index = self.index, through = self.through, known = made.lists
            let built = concurrentMap(missing.count) { k -> RideLedger in
                let key = missing[k].1
                if let list = known[key] { return RideLedger(list) }
                return CountedRides.ledger(of: garage.bikes[key.bike], filter: key.filter, index: index, handEntered: garage.rides, through: through)
            }
            for (k, (name, key)) in missing.enumerated() {
                made.ledgers[key] = built[k]
                out[name] = built[k]
            }
            return out
        }

        mutating func rides(bike: Int, filter: RideFilter) -> RideList {
            let key = Key(bike: bike, filter: filter)
            if let known = made.lists[key] { return known }
            // Counted only, the list is gathered without an entry per ride when the bike's rides
            // come in order (the usual case), as ledgers are.
            var numbers = CountedRides.RideNumbers()
            let list =
                countedOnly
                    && CountedRides.gatherCounted(
                        of: garage.bikes[bike], filter: filter, index: index, handEntered: garage.rides, through: through, into: &numbers)
                ? RideList(counted: numbers.rides, index: index, handEntered: garage.rides)
                : RideList(
                    CountedRides.entries(
                        of: garage.bikes[bike], filter: filter, index: index, handEntered: garage.rides, through: through, countedOnly: countedOnly),
                    index: index, handEntered: garage.rides)
            made.lists[key] = list
            return list
        }
    }

    /// A bike's rides as `entries` gives them, kept as what each entry was made from: a ride is
    /// 4 bytes (its record's or hand-entered ride's number), 5 with its verdict when not all
    /// count, where an `Entry` is 64. The lists are kept for every bike and filter a report asks
    /// for (usage and costs: every bike's, 54 MB of entries at 1,000,000 rides); an entry is made
    /// again, the same, from the summaries when it is read.
    package struct RideList: RandomAccessCollection, Sendable {
        /// A record's index in the summaries, or `-1 - k` for hand-entered ride `k`.
        private let rides: [Int32]
        /// Each ride's verdict, or empty when every one counts.
        private let verdicts: [ReportRide.Verdict]
        private let summaries: ActivitySummaries
        private let handEntered: [Ride]

        init(_ entries: [Entry], index: Index, handEntered: [Ride]) {
            rides = entries.map { $0.record >= 0 ? $0.record : -1 - $0.hand }
            verdicts = entries.allSatisfy(\.isCounted) ? [] : entries.map(\.verdict)
            summaries = index.summaries
            self.handEntered = handEntered
        }

        /// Counted rides only, by number (`rides`).
        init(counted rides: [Int32], index: Index, handEntered: [Ride]) {
            self.rides = rides
            verdicts = []
            summaries = index.summaries
            self.handEntered = handEntered
        }

        package var startIndex: Int { 0 }
        package var endIndex: Int { rides.count }

        package subscript(k: Int) -> Entry {
            let verdict = verdicts.isEmpty ? .counted : verdicts[k]
            let ride = rides[k]
            if ride >= 0 {
                let a = summaries.records[Int(ride)]
                return Entry(
                    day: a.day, record: ride, hand: -1, verdict: verdict, movingTime: a.movingTime, distance: a.distance, elevation: a.elevation,
                    activity: a.id, sport: a.sport)
            }
            let r = handEntered[Int(-1 - ride)]
            return Entry(
                day: Int32(clamping: r.date.ordinal), record: -1, hand: -1 - ride, verdict: verdict, movingTime: r.movingTime, distance: r.distance,
                elevation: 0)
        }

        /// The day of ride `k`, without making its entry.
        func day(at k: Int) -> Int32 {
            let ride = rides[k]
            return ride >= 0 ? summaries.records[Int(ride)].day : Int32(clamping: handEntered[Int(-1 - ride)].date.ordinal)
        }
    }
}
