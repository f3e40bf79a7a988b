extension CostReport {
    /// Whose a cost is (`--by rider`): a bike's `rider:`; a part's, else that of the bike it is
    /// on at `asOf`; `noRider` for what names none.
    struct Riders {
        var garage: Garage
        var asOf: Day

        func rider(ofBike id: BikeID) -> String { garage.bike(id)?.bike.rider?.value ?? CostReport.noRider }

        func rider(of subject: ReportSubject) -> String {
            guard subject.kind == .part else { return rider(ofBike: BikeID(subject.id)) }
            guard let part = garage.part(PartID(subject.id))?.part else { return CostReport.noRider }
            return part.rider?.value ?? part.mount(on: asOf).map { rider(ofBike: $0.bike.value) } ?? CostReport.noRider
        }
    }

    /// The counted rides in the span that the costs are spread over (per 1,000 km, per ride
    /// hour), summed per bike and part and, by year or month, per period, or by rider per rider:
    /// one pass over the rides, not one per line.
    struct Riding {
        struct Key: Hashable {
            var subject: ReportSubject?
            var period: String?
        }

        private(set) var sums: [Key: (distance: Double, time: Double)] = [:]
        let by: Grouping

        init(
            _ garage: Garage, summaries: ActivitySummaries, query: ReportQuery, by: Grouping, riders: Riders,
            sharing shared: CountedRides.BikeRides?
        ) {
            self.by = by
            let asOf = query.asOf
            let first = query.since.map { Int32(clamping: $0.ordinal) } ?? Int32.min
            // Rides another report already counted, when it counted the same (up to `asOf`, counted only).
            var cache =
                shared.flatMap { $0.through == asOf && $0.countedOnly ? $0 : nil }
                ?? CountedRides.BikeRides(garage: garage, index: CountedRides.Index(summaries), through: asOf, countedOnly: true)
            for resolved in garage.bikes where query.selection.includes(resolved.bike.id) {
                addBike(resolved, garage: garage, selection: query.selection, from: first, riders: riders, cache: &cache)
            }
            // A part's rides: its line's by bike; by year, month or category, those on bikes not
            // shown join the bikes' (each ride once), so a part named alone has its own riding.
            if by == .bike || !query.selection.isEverything {
                for rp in garage.parts where query.selection.includes(rp.part.id) {
                    addPart(rp.part, garage: garage, selection: query.selection, from: first, riders: riders, cache: &cache)
                }
            }
        }

        /// The distance and time behind a row: its period's or rider's, its subject's (by bike),
        /// or all of it (by category).
        func usage(group key: String, subject: ReportSubject?) -> (Double, Double) {
            let found: (distance: Double, time: Double)?
            switch by {
            case .year, .month, .rider: found = sums[Key(subject: nil, period: key)]
            case .bike: found = sums[Key(subject: subject, period: nil)]
            case .category: found = sums[Key(subject: nil, period: nil)]
            }
            return found.map { ($0.distance, $0.time) } ?? (0, 0)
        }

        private mutating func add(_ key: Key, _ distance: Double, _ time: Double) {
            var all = sums[key] ?? (0, 0)
            all.distance += distance
            all.time += time
            sums[key] = all
        }

        /// A bike's counted rides from `first`: its own line's, and (unless it is gear that rides
        /// the shown bikes' rides, in the garage's riding once, as theirs) its periods' and rider's.
        private mutating func addBike(
            _ resolved: ResolvedBike, garage: Garage, selection: ReportSelection, from first: Int32, riders: Riders,
            cache: inout CountedRides.BikeRides
        ) {
            let ridesOfShownBikes = resolved.ridesOf.contains { selection.includes($0) }
            var bikeSum = (distance: 0.0, time: 0.0)
            var periodSum = (distance: 0.0, time: 0.0)
            var current = -1
            var currentKey: String?
            func flush() {
                guard let key = currentKey, !ridesOfShownBikes else { return }
                add(Key(subject: nil, period: key), periodSum.distance, periodSum.time)
                periodSum = (0, 0)
            }
            // Days come in order: a ride before the end of the current period is in it, and
            // only a ride past it has its period worked out.
            var periodEnd = Int32.min
            let byPeriod = by == .year || by == .month
            let period: UsageReport.Period = by == .year ? .year : .month
            for r in cache.rides(of: resolved.bike.id) where r.day >= first {
                bikeSum.distance += r.distance
                bikeSum.time += r.movingTime
                if byPeriod {
                    if r.day >= periodEnd {
                        let day = Day(ordinal: Int(r.day))
                        let number = UsageReport.periodNumber(day, period)
                        if number != current {
                            flush()
                            current = number
                            currentKey = UsageReport.periodKey(day, period)
                        }
                        periodEnd = Self.periodEnd(day, period) ?? r.day + 1
                    }
                    periodSum.distance += r.distance
                    periodSum.time += r.movingTime
                }
            }
            flush()
            sums[Key(subject: .bike(resolved.bike), period: nil)] = bikeSum
            if ridesOfShownBikes { return }
            if by == .rider { add(Key(subject: nil, period: riders.rider(ofBike: resolved.bike.id)), bikeSum.distance, bikeSum.time) }
            add(Key(subject: nil, period: nil), bikeSum.distance, bikeSum.time)
        }

        /// The first day after `day`'s month or year.
        static func periodEnd(_ day: Day, _ period: UsageReport.Period) -> Int32? {
            let (y, m, _) = day.components
            let next = period == .month && m < 12 ? Day(year: y, month: m + 1, day: 1) : Day(year: y + 1, month: 1, day: 1)
            return next.map { Int32(clamping: $0.ordinal) }
        }

        /// A part's counted rides from `first`: its own line's by bike; else those on bikes not
        /// shown, in the garage's riding, its periods' and its rider's.
        private mutating func addPart(
            _ part: Part, garage: Garage, selection: ReportSelection, from first: Int32, riders: Riders, cache: inout CountedRides.BikeRides
        ) {
            var sum = (distance: 0.0, time: 0.0)
            let by = by
            CountedRides.forEachEntry(of: part, cache: &cache) { r in
                guard r.day >= first else { return }
                sum.distance += r.distance
                sum.time += r.movingTime
                guard by != .bike, !selection.includes(garage.bikes[Int(r.bike)].bike.id) else { return }
                var keys = [Key(subject: nil, period: nil)]
                if by == .year || by == .month {
                    keys.append(Key(subject: nil, period: UsageReport.periodKey(Day(ordinal: Int(r.day)), by == .year ? .year : .month)))
                }
                if by == .rider { keys.append(Key(subject: nil, period: riders.rider(of: .part(part)))) }
                for key in keys { add(key, r.distance, r.movingTime) }
            }
            if by == .bike { sums[Key(subject: .part(part), period: nil)] = sum }
        }
    }
}
