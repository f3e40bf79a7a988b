/// The rides behind the numbers: each ride of the bikes in a span, counted or not and why.
package struct RidesReport: Sendable, Encodable {
    package struct Total: Sendable, Encodable {
        package var subject: ReportSubject
        /// The day counting starts for `--interval` (its anchor, as status computes it).
        package var since: Day?
        package var counted: Int
        package var notCounted: Int
        /// Seconds and metres of the counted rides.
        package var movingTime: Double
        package var distance: Double
        /// With `--interval`: the usage before tracking that status adds to the counted rides
        /// (a second-hand part's `hours:`/`distance:`/`rides:`, until it is first serviced), so
        /// that the total is the status figure.
        package var prior: Prior?

        enum CodingKeys: String, CodingKey {
            case subject, since, counted, distance, prior
            case notCounted = "not_counted"
            case movingTime = "moving_time"
        }
    }

    /// Usage before tracking: seconds, metres, rides.
    package struct Prior: Sendable, Encodable, Equatable {
        package var movingTime: Double
        package var distance: Double
        package var rides: Int

        init(_ usage: Usage) {
            movingTime = usage.movingTime
            distance = usage.distance
            rides = usage.rides
        }

        enum CodingKeys: String, CodingKey {
            case distance, rides
            case movingTime = "moving_time"
        }
    }

    package var asOf: Day
    /// What the rider reads (`display_units` in JSON, whose figures are SI: `"units": "si"`).
    package var units: UnitSystem
    package var since: Day?
    package var until: Day?
    package var interval: String?
    package var totals: [Total]
    /// The rides shown, each bike's in order, as compact entries; `rides` makes them whole.
    package private(set) var shown: [(subject: ReportSubject, entries: [CountedRides.Entry])]
    let index: CountedRides.Index
    let handEntered: [Ride]
    /// The garage's bike ids, by index: the bike each of a part's rides was on.
    let bikeIDs: [String]
    /// The names of the cached activities shown (see `activityRecords`).
    package var names = ActivityNames()

    enum CodingKeys: String, CodingKey {
        case asOf = "as_of"
        case jsonUnits = "units"
        case units = "display_units"
        case since, until, interval, rides, totals
    }

    /// Every ride shown, with its Strings.
    package var rides: [ReportRide] {
        shown.flatMap { list in
            list.entries.map {
                CountedRides.ride($0, subject: list.subject, bike: $0.bike >= 0 ? bikeIDs[Int($0.bike)] : nil, index: index, handEntered: handEntered) {
                    names[$0]
                }
            }
        }
    }

    /// The cached activities shown, by index in the summaries: whose names to load.
    package var activityRecords: [Int32] { shown.flatMap { $0.entries.compactMap { $0.record >= 0 ? $0.record : nil } } }

    package func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(asOf, forKey: .asOf)
        try c.encode(JSONUnits.si, forKey: .jsonUnits)
        try c.encode(units, forKey: .units)
        try c.encodeIfPresent(since, forKey: .since)
        try c.encodeIfPresent(until, forKey: .until)
        try c.encodeIfPresent(interval, forKey: .interval)
        try c.encode(rides, forKey: .rides)
        try c.encode(totals, forKey: .totals)
    }

    /// Why `--interval` cannot be answered.
    package enum Problem: Error, Equatable, Sendable {
        /// None of the bikes has the interval; the ids they have.
        case unknownInterval(String, known: [String])
    }

    /// With `--interval`: where the interval's figure starts on each bike and part that has it
    /// (its anchor), the filter it counts through, and its usage before tracking, as status has
    /// them.
    struct IntervalSpan {
        var anchors: [BikeID: Day] = [:]
        var partAnchors: [PartID: Day] = [:]
        var filters: [BikeID: RideFilter] = [:]
        var partFilters: [PartID: RideFilterSpec] = [:]
        var priors: [String: Prior] = [:]

        init() {}

        init(_ interval: IntervalID, bikes: [ResolvedBike], parts: [ResolvedPart], garage: Garage, summaries: ActivitySummaries, asOf: Day) {
            let status = StatusPlanner(asOf: asOf).plan(garage, summaries: summaries, only: bikes.map(\.bike.id), parts: parts.map(\.part.id))
            for b in status.bikes {
                guard let s = b.intervals.first(where: { $0.id == interval.rawValue && $0.part == nil }),
                    let resolved = bikes.first(where: { $0.bike.id.rawValue == b.id }),
                    let spec = resolved.intervals.first(where: { $0.id == interval })
                else { continue }
                anchors[resolved.bike.id] = s.since
                filters[resolved.bike.id] = spec.rideFilter.over(resolved.filter)
                priors["bike/" + b.id] = s.prior.map(Prior.init)
            }
            for p in status.parts {
                guard let s = p.intervals.first(where: { $0.id == interval.rawValue }),
                    let rp = parts.first(where: { $0.part.id.rawValue == p.id }),
                    let spec = rp.intervals.first(where: { $0.id == interval })
                else { continue }
                partAnchors[rp.part.id] = s.since
                partFilters[rp.part.id] = spec.rideFilter
                priors["part/" + p.id] = s.prior.map(Prior.init)
            }
        }
    }

    /// The rides of the named bikes of `query` (every bike when none is named) from `since` through its `until` (else
    /// its `asOf`); with `interval`, from that interval's anchor on each bike that has it. The
    /// activities' names are left to load (`ActivityNames.load` with `activityRecords`). A part named in `parts` has the rides
    /// behind it: those of each bike it was on, on the days it was there, each saying its bike.
    package static func build(
        _ garage: Garage, summaries: ActivitySummaries, query: ReportQuery, interval: IntervalID? = nil
    ) throws(Problem) -> RidesReport {
        let index = CountedRides.Index(summaries)
        let (selection, asOf, since, until) = (query.selection, query.asOf, query.since, query.until)
        var bikes = garage.bikes.filter { selection.includes($0.bike.id) }
        var chosenParts = garage.parts.filter { selection.includes($0.part.id, byDefault: false) }
        // With --interval, the rides behind the interval's figure: through its own filter, from
        // its anchor, plus the usage before tracking that status adds.
        var span = IntervalSpan()
        if let interval {
            let known = Set(bikes.flatMap { $0.intervals.map(\.id.rawValue) } + chosenParts.flatMap { $0.intervals.map(\.id.rawValue) }).sorted()
            bikes = bikes.filter { $0.intervals.contains { $0.id == interval } }
            chosenParts = chosenParts.filter { $0.intervals.contains { $0.id == interval } }
            guard !bikes.isEmpty || !chosenParts.isEmpty else { throw .unknownInterval(interval.rawValue, known: known) }
            span = IntervalSpan(interval, bikes: bikes, parts: chosenParts, garage: garage, summaries: summaries, asOf: asOf)
        }
        let (anchors, partAnchors, filters, partFilters, priors) = (span.anchors, span.partAnchors, span.filters, span.partFilters, span.priors)
        let end = min(until ?? asOf, asOf)
        var shown: [(subject: ReportSubject, entries: [CountedRides.Entry])] = []
        var totals: [Total] = []
        for resolved in bikes {
            let start = [since, anchors[resolved.bike.id]].compactMap { $0 }.max()
            let first = start.map { Int32(clamping: $0.ordinal) } ?? Int32.min
            var list = CountedRides.entries(of: resolved, filter: filters[resolved.bike.id], index: index, handEntered: garage.rides, through: end)
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
                    notCounted: list.count - counted, movingTime: ReportNumber.tenth(movingTime), distance: ReportNumber.tenth(distance),
                    prior: priors["bike/" + resolved.bike.id.rawValue]))
            shown.append((.bike(resolved.bike), list))
        }
        var cache = CountedRides.BikeRides(garage: garage, index: index, through: end, countedOnly: false)
        for rp in chosenParts {
            let start = [since, partAnchors[rp.part.id]].compactMap { $0 }.max()
            let first = start.map { Int32(clamping: $0.ordinal) } ?? Int32.min
            var list = CountedRides.entries(of: rp.part, filter: partFilters[rp.part.id], cache: &cache)
            if first > Int32.min { list.removeAll { $0.day < first } }
            let counted = list.filter(\.isCounted)
            totals.append(
                Total(
                    subject: .part(rp.part), since: partAnchors[rp.part.id], counted: counted.count, notCounted: list.count - counted.count,
                    movingTime: ReportNumber.tenth(counted.reduce(0) { $0 + $1.movingTime }),
                    distance: ReportNumber.tenth(counted.reduce(0) { $0 + $1.distance }),
                    prior: priors["part/" + rp.part.id.rawValue]))
            shown.append((.part(rp.part), list))
        }
        return RidesReport(
            asOf: asOf, units: garage.settings.units, since: since, until: until, interval: interval?.rawValue, totals: totals, shown: shown, index: index,
            handEntered: garage.rides, bikeIDs: garage.bikes.map(\.bike.id.rawValue))
    }

    static func why(_ verdict: ReportRide.Verdict, sport: String?) -> String {
        switch verdict {
        case .counted: return "yes"
        case .sportType: return "no: sport type \(sport ?? "?") does not count"
        case .indoor: return "no: on a trainer"
        case .outdoor: return "no: not on a trainer"
        case .noGear: return "no: no gear on Strava"
        case .beforeBought: return "no: before the bike was bought"
        case .afterRetired: return "no: after the bike was retired"
        }
    }

    /// A row per ride, streamed: a million rides are written cell by cell, not held as Strings.
    /// Distances in the rider's units.
    package var table: ReportTable {
        let parts = shown.contains { $0.subject.kind == .part }
        let units = units, km = units.distanceUnit, size = units.distanceSize
        let columns: [ReportTable.Column] =
            ReportTable.subjectColumns(parts: parts) + [
                .init("date", "DATE"), .init("source", "SOURCE"), .init("activity", "ACTIVITY"), .init("sport", "SPORT"),
                .init("moving_time_h", "HOURS", numeric: true), .init("distance_\(km)", km.uppercased(), numeric: true), .init("counts", "COUNTS"),
                .init("name", "NAME"),
            ]
        let footer = totals.flatMap { t in
            var lines = [
                "\(t.subject.label)\(t.since.map { " since \($0)" } ?? ""): \(t.counted) counted (\(ReportNumber.hours(t.movingTime)) h, \(units.distanceText(t.distance)) \(km)), \(t.notCounted) not counted"
            ]
            if let p = t.prior {
                let hours = ReportNumber.hours(t.movingTime + p.movingTime), distance = units.distanceText(t.distance + p.distance)
                lines.append(
                    "  + usage before tracking: \(ReportNumber.hours(p.movingTime)) h, \(units.distanceText(p.distance)) \(km), \(p.rides) rides = \(hours) h, \(distance) \(km), as status counts"
                )
            }
            return lines
        }
        // Row k's bike: the lists' first rows.
        var offsets: [Int] = []
        var count = 0
        for list in shown {
            offsets.append(count)
            count += list.entries.count
        }
        // What each row needs, in row order, so that both passes of the text renderer read
        // memory in order: the names of a million rides as one run of bytes.
        var nameBytes: [UInt8] = []
        var nameEnds: [Int] = []
        nameEnds.reserveCapacity(count)
        for list in shown {
            for e in list.entries {
                if var name = e.record >= 0 ? names[e.record] : handEntered[Int(e.hand)].name {
                    name.withUTF8 { nameBytes.append(contentsOf: $0) }
                }
                nameEnds.append(nameBytes.count)
            }
        }
        let starts = offsets, shown = self.shown, strings = index.summaries.strings, hand = handEntered, bikeIDs = bikeIDs
        let allNames = nameBytes, ends = nameEnds
        // "no: sport type X does not count" once per sport type.
        let notCounted = strings.map { Self.why(.sportType, sport: $0) }
        let stream = ReportTable.RowStream(count: count) { k, cells in
            var lo = 0, hi = starts.count - 1
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if starts[mid] <= k { lo = mid } else { hi = mid - 1 }
            }
            let e = shown[lo].entries[k - starts[lo]]
            let subject = shown[lo].subject
            if !parts {
                cells.text(subject.id)
            } else if subject.kind == .bike {
                cells.text(subject.id)
                cells.empty()
            } else {
                cells.text(e.bike >= 0 ? bikeIDs[Int(e.bike)] : "")
                cells.text(subject.id)
            }
            cells.day(Day(ordinal: Int(e.day)))
            if e.record >= 0 {
                cells.text((Activity.importedIDs.contains(e.activity) ? ReportRide.Source.file : .strava).rawValue)
                cells.integer(e.activity)
                cells.text(strings[Int(e.sport)])
                cells.fixed(e.movingTime / 3600, 1)
                cells.fixed(e.distance / size, 1)
                cells.text(e.verdict == .sportType ? notCounted[Int(e.sport)] : Self.why(e.verdict, sport: nil))
            } else {
                let r = hand[Int(e.hand)]
                cells.text(ReportRide.Source.hand.rawValue)
                cells.empty()
                cells.text(r.sport ?? "")
                cells.fixed(r.movingTime / 3600, 1)
                cells.fixed(r.distance / size, 1)
                cells.text(Self.why(e.verdict, sport: r.sport))
            }
            allNames.withUnsafeBufferPointer { cells.bytes(UnsafeBufferPointer(rebasing: $0[(k == 0 ? 0 : ends[k - 1])..<ends[k]])) }
        }
        return ReportTable(columns: columns, stream: stream, footer: footer)
    }
}
