/// Which rides count: the one engine every command reads (status through `RideLedger`s made
/// here, part lives, usage, costs, history, rides, the report, the calendar and reminders).
///
/// A cached activity is the bike's when its gear id is the bike's, a hand-entered ride when it
/// names the bike; gear worn on every bike (`ResolvedBike.ridesOf`) has those of its bikes too. It counts when it was ridden on the days the bike was the rider's (from
/// `bought:` through `retired:`, both inclusive), its sport type is in the filter's `counts` and,
/// when it was indoors (on a trainer, or a VirtualRide), the filter counts trainer rides
/// (`RideFilter.admits`). Strava rides of a counted sport type with no gear are listed too, as
/// not counted, since they are the usual answer to "why does this ride not count?".
///
/// Rides are read from the cache's summaries (what status reads, from the activity index when it
/// is warm), as compact entries; a `ReportRide`, with its Strings, is made only for the rides a
/// report shows one by one.
package enum CountedRides {
    /// Whether a ride of `sport` counts through `filter`, and if not, why: the filter's own rule
    /// (`RideFilter.admits`), named.
    static func verdict(_ filter: RideFilter, sport: String, trainerFlag: Bool) -> ReportRide.Verdict {
        guard filter.counts.contains(sport) else { return .sportType }
        let indoors = RideFilter.isIndoors(sport: sport, trainerFlag: trainerFlag)
        return filter.admitsPlace(indoors: indoors) ? .counted : indoors ? .indoor : .outdoor
    }

    /// Cached activities by gear, built once per report so that each bike reads only its own
    /// (50 bikes over a million activities would otherwise scan fifty million).
    package struct Index: Sendable {
        package let summaries: ActivitySummaries
        /// Record indices by the gear id's index in `summaries.strings`, in cache order.
        let byGear: [[Int32]]
        /// Record indices of activities with no gear, in cache order.
        let noGear: [Int32]
        /// Each string's first index in `summaries.strings`.
        let number: [String: Int32]
        /// The later indices of strings that are in `summaries.strings` more than once (none
        /// when the loader numbered them).
        private let repeats: [String: [Int32]]

        package init(_ summaries: ActivitySummaries) {
            self.summaries = summaries
            // A counting sort, stable: the records' indices by gear (the last list: no gear) in
            // one array, each list then copied out at its size. Appending to a list of lists
            // checked and grew them once per record.
            let lists = summaries.strings.count + 1
            var ends = [Int](repeating: 0, count: lists + 1)
            let order = [Int32](unsafeUninitializedCapacity: summaries.records.count) { order, initialized in
                summaries.records.withUnsafeBufferPointer { all in
                    for a in all { ends[(a.gear >= 0 ? Int(a.gear) : lists - 1) + 1] += 1 }
                    for k in 1..<ends.count { ends[k] += ends[k - 1] }
                    var next = ends
                    for (k, a) in all.enumerated() {
                        let list = a.gear >= 0 ? Int(a.gear) : lists - 1
                        order.initializeElement(at: next[list], to: Int32(k))
                        next[list] += 1
                    }
                }
                initialized = summaries.records.count  // every place written once: the lists' sizes add up to it
            }
            let byGear = (0..<(lists - 1)).map { Array(order[ends[$0]..<ends[$0 + 1]]) }
            let noGear = Array(order[ends[lists - 1]..<ends[lists]])
            var number: [String: Int32] = [:]
            var repeats: [String: [Int32]] = [:]
            for (k, s) in summaries.strings.enumerated() {
                if number[s] == nil { number[s] = Int32(k) } else { repeats[s, default: []].append(Int32(k)) }
            }
            self.byGear = byGear
            self.noGear = noGear
            self.number = number
            self.repeats = repeats
        }

        /// Every index of `string` in `summaries.strings`.
        func indices(of string: String) -> [Int32] {
            guard let first = number[string] else { return [] }
            return repeats.isEmpty ? [first] : [first] + (repeats[string] ?? [])
        }

    }

    /// One ride of a bike: a cached activity (`record`, its index in the summaries) or a
    /// hand-entered ride (`hand`, its index in the garage's rides).
    package struct Entry: Sendable {
        package var day: Int32
        /// Index in `Index.summaries.records`, or -1.
        package var record: Int32
        /// Index in `Garage.rides`, or -1.
        package var hand: Int32
        package var verdict: ReportRide.Verdict
        package var movingTime: Double
        package var distance: Double
        package var elevation: Double
        /// For a part's rides: the index in `Garage.bikes` of the bike it was on, else -1.
        package var bike: Int32 = -1
        /// A cached activity's id (`Int64.max` for a hand-entered ride) and its sport type's
        /// index in the summaries' strings (-1): what a listing needs without going back to the
        /// summaries, a million times.
        package var activity: Int64 = .max
        package var sport: Int32 = -1

        package var isCounted: Bool { verdict == .counted }
    }

    /// The rides of `bike`, oldest first (then by activity id, hand-entered rides last), counted
    /// or not, up to `through`; only the counted ones when `countedOnly`. `filter` (by default
    /// the bike's) decides what counts: a part's over the bike's, for the rides behind a part.
    package static func entries(
        of resolved: ResolvedBike, filter: RideFilter? = nil, index: Index, handEntered: [Ride], through: Day? = nil,
        countedOnly: Bool = false
    ) -> [Entry] {
        let filter = filter ?? resolved.filter
        var out: [Entry] = []
        if let scan = RecordScan(of: resolved, filter: filter, index: index, through: through, countedOnly: countedOnly) {
            out.reserveCapacity(scan.records.count)
            scan.forEachRecord(of: index.summaries) { k, a in
                guard let verdict = scan.verdict(a), !countedOnly || verdict == .counted else { return true }
                out.append(
                    Entry(
                        day: a.day, record: k, hand: -1, verdict: verdict, movingTime: a.movingTime, distance: a.distance,
                        elevation: a.elevation, activity: a.id, sport: a.sport))
                return true
            }
        }
        let hand = Self.handEntered(of: resolved, filter: filter, handEntered: handEntered, through: through, countedOnly: countedOnly).map { h in
            Entry(
                day: h.day, record: -1, hand: Int32(h.k), verdict: h.verdict, movingTime: handEntered[h.k].movingTime,
                distance: handEntered[h.k].distance, elevation: 0)
        }
        // By day, then activity id, hand-entered rides after the activities of their day in the
        // order written: cache order is by UTC start, so a few rides change places.
        func before(_ x: Entry, _ y: Entry) -> Bool {
            if x.day != y.day { return x.day < y.day }
            if x.activity != y.activity { return x.activity < y.activity }
            return x.record >= 0 ? x.record < y.record : x.hand < y.hand
        }
        if !out.isEmpty && !isSorted(out, by: before) { out.sort(by: before) }
        if !hand.isEmpty {
            out += hand
            out.sort(by: before)
        }
        return out
    }

    /// The counted rides of `bike` through `filter` up to `through`, as `entries(…, countedOnly:
    /// true)` gives them, made into a ledger without an entry per ride when the bike's cached
    /// rides come in order (the usual case; else from the entries). The same rides summed in
    /// the same order.
    static func ledger(of resolved: ResolvedBike, filter: RideFilter, index: Index, handEntered: [Ride], through: Day) -> RideLedger {
        var sums = LedgerSums()
        guard gatherCounted(of: resolved, filter: filter, index: index, handEntered: handEntered, through: through, into: &sums) else {
            return RideLedger(entries(of: resolved, filter: filter, index: index, handEntered: handEntered, through: through, countedOnly: true))
        }
        return RideLedger(days: sums.days, time: sums.time, distance: sums.distance)
    }

    /// A ledger under way: the running sums and the arrays `RideLedger` is made of.
    struct LedgerSums: CountedRideSink {
        var t = 0.0, d = 0.0
        var days: [Int32] = [], time: [Double] = [0], distance: [Double] = [0]

        mutating func reserve(_ count: Int) {
            days.reserveCapacity(count)
            time.reserveCapacity(count + 1)
            distance.reserveCapacity(count + 1)
        }

        @inline(__always)
        mutating func add(_ ride: Int32, day: Int32, movingTime: Double, distance rideDistance: Double) {
            CountedRides.add(movingTime, rideDistance, day: day, t: &t, d: &d, days: &days, time: &time, distance: &distance)
        }
    }

    /// A ride added to a ledger under way: its time and distance to the running sums `t` and
    /// `d`, its day and the sums after it to the ledger's arrays. A function taking the sums
    /// `inout`, inlined, where a closure capturing them paid an exclusivity check per access.
    @inline(__always)
    static func add(
        _ movingTime: Double, _ rideDistance: Double, day: Int32, t: inout Double, d: inout Double, days: inout [Int32], time: inout [Double],
        distance: inout [Double]
    ) {
        t += movingTime
        d += rideDistance
        days.append(day)
        time.append(t)
        distance.append(d)
    }

    /// A list of counted rides under way: each one's number (`RideList`'s).
    struct RideNumbers: CountedRideSink {
        var rides: [Int32] = []

        mutating func reserve(_ count: Int) { rides.reserveCapacity(count) }

        @inline(__always)
        mutating func add(_ ride: Int32, day: Int32, movingTime: Double, distance: Double) { rides.append(ride) }
    }

    /// The counted rides of `bike` through `filter` up to `through`, in the order of `entries(…,
    /// countedOnly: true)`, into `sink`, without an entry per ride, when the bike's cached rides
    /// come in order (the usual case): its counted hand-entered rides, by day and then as
    /// written, go after the activities of their day. False when they do not (the sink then
    /// holds some of them, to be thrown away: the caller counts from the entries).
    @inline(__always)
    static func gatherCounted<Sink: CountedRideSink>(
        of resolved: ResolvedBike, filter: RideFilter, index: Index, handEntered: [Ride], through: Day, into sink: inout Sink
    ) -> Bool {
        let hand = Self.handEntered(of: resolved, filter: filter, handEntered: handEntered, through: through, countedOnly: true)
            .sorted { ($0.day, $0.k) < ($1.day, $1.k) }
        let scan = RecordScan(of: resolved, filter: filter, index: index, through: through, countedOnly: true)
        sink.reserve((scan?.records.count ?? 0) + hand.count)
        var h = 0
        var lastDay = Int32.min, lastActivity = Int64.min
        let inOrder =
            scan?.forEachRecord(of: index.summaries) { k, a in
                guard scan!.verdict(a) == .counted else { return true }
                // Records come in cache order, by index: in `entries`' order while day and
                // activity id do not go back.
                if a.day < lastDay || (a.day == lastDay && a.id < lastActivity) { return false }
                lastDay = a.day
                lastActivity = a.id
                while h < hand.count && hand[h].day < a.day {
                    let r = handEntered[hand[h].k]
                    sink.add(-1 - Int32(hand[h].k), day: hand[h].day, movingTime: r.movingTime, distance: r.distance)
                    h += 1
                }
                sink.add(k, day: a.day, movingTime: a.movingTime, distance: a.distance)
                return true
            } ?? true
        guard inOrder else { return false }
        while h < hand.count {
            let r = handEntered[hand[h].k]
            sink.add(-1 - Int32(hand[h].k), day: hand[h].day, movingTime: r.movingTime, distance: r.distance)
            h += 1
        }
        return true
    }

    /// What a bike's cached activities are read with: the records `entries` lists (those of its
    /// gear, in cache order, by record index) and each one's verdict through a filter, up to a
    /// day. Nil for a bike with no gear id and no Strava gear.
    private struct RecordScan {
        let records: [Int32]
        let last: Int32
        let bought: Int32
        let retired: Int32
        let outdoors: [ReportRide.Verdict]
        let indoors: [ReportRide.Verdict]
        let readsTags: Bool
        let tagsAdmitted: [Bool]
        let untaggedAdmitted: Bool

        init?(of resolved: ResolvedBike, filter: RideFilter, index: Index, through: Day?, countedOnly: Bool) {
            let bike = resolved.bike
            let summaries = index.summaries
            last = through.map { Int32(clamping: $0.ordinal) } ?? Int32.max
            // The days the bike was the rider's: rides outside them are its, but do not count.
            bought = bike.bought.map { Int32(clamping: $0.ordinal) } ?? Int32.min
            retired = bike.retired.map { Int32(clamping: $0.ordinal) } ?? Int32.max
            // The bike's gear: its Strava gear id's activities and the rides imported onto it; for
            // gear worn on every bike (a helmet, a trainer), theirs too.
            // (Two bikes claiming one gear id is a validate error, but must not count a ride twice.)
            let gears =
                resolved.ridesOfGearIDs.isEmpty
                ? bike.gearIDs.compactMap { index.number[$0] } : Array(Set((bike.gearIDs + resolved.ridesOfGearIDs).compactMap { index.number[$0] }))
            guard !gears.isEmpty || bike.strava != nil else { return nil }
            // The verdict per sport type and trainer flag, by string index: no String per ride.
            let strings = summaries.strings
            var outdoors = [ReportRide.Verdict](repeating: .sportType, count: strings.count)
            var indoors = outdoors
            var noGearListed = [Bool](repeating: false, count: strings.count)
            // The filter's few sport types looked up, not every string hashed (once per ledger).
            for s in filter.counts {
                for k in index.indices(of: s).map(Int.init) {
                    outdoors[k] = CountedRides.verdict(filter, sport: s, trainerFlag: false)
                    indoors[k] = CountedRides.verdict(filter, sport: s, trainerFlag: true)
                    noGearListed[k] = true
                }
            }
            var records = gears.count == 1 ? index.byGear[Int(gears[0])] : gears.flatMap { index.byGear[Int($0)] }.sorted()
            // A Strava bike also lists the unassigned rides of a counted sport type, in cache order.
            if !countedOnly, bike.strava != nil {
                let unassigned = index.noGear.filter { noGearListed[Int(summaries.records[Int($0)].sport)] }
                if !unassigned.isEmpty {
                    records += unassigned
                    records.sort()
                }
            }
            self.records = records
            self.outdoors = outdoors
            self.indoors = indoors
            // A mount's `tag:` and `unless_tag:`: which sets of hashtags get through, by string index.
            readsTags = filter.readsTags
            tagsAdmitted = readsTags ? strings.map { filter.admits(tags: $0) } : []
            untaggedAdmitted = filter.admits(tags: nil)
        }

        /// Each listed record, by number, in order, while `body` returns true; false when it
        /// stopped.
        ///
        /// A bike's records lie hundreds apart among a million (56 MB): each one read misses the
        /// caches and waits on memory, about 130 ns, where the work on it is a few ns. Copied a
        /// block at a time by a loop that does nothing else, many are on their way from memory
        /// at once (the processor runs ahead through the short loop's iterations); `body` then
        /// reads the copy. At 500 bikes × 1,000,000 rides this was three quarters of a warm
        /// `status`'s ledgers.
        @inline(__always)
        func forEachRecord(of summaries: ActivitySummaries, _ body: (Int32, ActivitySummary) -> Bool) -> Bool {
            let block = 256
            return summaries.records.withUnsafeBufferPointer { all in
                withUnsafeTemporaryAllocation(of: ActivitySummary.self, capacity: block) { copies in
                    records.withUnsafeBufferPointer { records in
                        var start = 0
                        while start < records.count {
                            let end = min(start + block, records.count)
                            for i in start..<end { copies.initializeElement(at: i - start, to: all[Int(records[i])]) }
                            for i in start..<end where !body(records[i], copies[i - start]) { return false }
                            start = end
                        }
                        return true
                    }
                }
            }
        }

        /// A listed record's verdict, or nil for one after the last day or without the tags asked for.
        @inline(__always)
        func verdict(_ a: ActivitySummary) -> ReportRide.Verdict? {
            guard a.day <= last else { return nil }
            if readsTags && !(a.tags < 0 ? untaggedAdmitted : tagsAdmitted[Int(a.tags)]) { return nil }
            if a.gear < 0 { return .noGear }
            return a.day < bought ? .beforeBought : a.day > retired ? .afterRetired : a.trainer ? indoors[Int(a.sport)] : outdoors[Int(a.sport)]
        }
    }

    /// The hand-entered rides of `bike` up to `through`, in the order written: each one's index
    /// in `handEntered`, its day and its verdict through `filter`; only the counted ones when
    /// `countedOnly`.
    private static func handEntered(
        of resolved: ResolvedBike, filter: RideFilter, handEntered: [Ride], through: Day?, countedOnly: Bool
    ) -> [(k: Int, day: Int32, verdict: ReportRide.Verdict)] {
        let bike = resolved.bike
        let bought = bike.bought.map { Int32(clamping: $0.ordinal) } ?? Int32.min
        let retired = bike.retired.map { Int32(clamping: $0.ordinal) } ?? Int32.max
        var out: [(k: Int, day: Int32, verdict: ReportRide.Verdict)] = []
        for (k, r) in handEntered.enumerated()
        where (r.bike.value == bike.id || resolved.ridesOf.contains(r.bike.value)) && (through.map { r.date <= $0 } ?? true) {
            if filter.readsTags && !filter.admits(tags: RideTags.of(name: r.name)) { continue }
            let day = Int32(clamping: r.date.ordinal)
            // Hand-entered rides are outdoors; one without a sport is of a sport that counts.
            let own = r.sport.map { Self.verdict(filter, sport: $0, trainerFlag: false) } ?? (filter.admitsPlace(indoors: false) ? .counted : .outdoor)
            let verdict: ReportRide.Verdict = day < bought ? .beforeBought : day > retired ? .afterRetired : own
            if countedOnly && verdict != .counted { continue }
            out.append((k, day, verdict))
        }
        return out
    }

    private static func isSorted(_ entries: [Entry], by before: (Entry, Entry) -> Bool) -> Bool {
        var k = 1
        while k < entries.count {
            if before(entries[k], entries[k - 1]) { return false }
            k += 1
        }
        return true
    }

    /// The ride an entry stands for, with its Strings; `name` gives a cached activity's name by
    /// record index.
    package static func ride(
        _ e: Entry, subject: ReportSubject, bike: String? = nil, index: Index, handEntered: [Ride], name: (Int32) -> String?
    ) -> ReportRide {
        if e.record >= 0 {
            let a = index.summaries.records[Int(e.record)]
            return ReportRide(
                subject: subject, bike: bike, day: Day(ordinal: Int(e.day)), source: Activity.importedIDs.contains(a.id) ? .file : .strava, activity: a.id,
                name: name(e.record),
                sport: index.summaries.strings[Int(a.sport)], trainer: a.trainer, movingTime: a.movingTime, distance: a.distance,
                elevation: a.elevation, verdict: e.verdict)
        }
        let r = handEntered[Int(e.hand)]
        return ReportRide(
            subject: subject, bike: bike, day: r.date, source: .hand, activity: nil, name: r.name, sport: r.sport, trainer: false,
            movingTime: r.movingTime, distance: r.distance, elevation: 0, verdict: e.verdict)
    }

}

/// What counted rides are gathered into, one at a time in `CountedRides.entries`' order
/// (`CountedRides.gatherCounted`): a ledger's sums, a list's numbers.
protocol CountedRideSink {
    /// Room for `count` rides.
    mutating func reserve(_ count: Int)
    /// A ride: record `ride` of the summaries, or `-1 - k` for hand-entered ride `k`.
    mutating func add(_ ride: Int32, day: Int32, movingTime: Double, distance: Double)
}
