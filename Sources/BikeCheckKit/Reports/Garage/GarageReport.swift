import Foundation

/// Everything `bikecheck report` shows, from the same builders as `status`, `part list`,
/// `history`, `costs` and `usage`: a typed model, rendered at the edge (`HTMLReportRenderer`).
/// Nothing here counts rides or sums usage itself.
package struct GarageReport: Sendable {
    /// What the report says about a bike beyond its status.
    package struct BikeFacts: Sendable {
        package var id: String
        package var name: String
        package var bought: Day?
        package var retired: Day?
        package var price: Money?
        package var strava: String?
        /// What gear it is (`gear/`); nil for a bike.
        package var kind: GearKind? = nil
    }

    /// One line of a bike's costs: what its log (and price) cost in a year and category.
    package struct CostLine: Sendable, Equatable {
        /// `2025`, or `undated` for a price without a `bought` date.
        package var year: String
        /// The entry's category, `purchase` for the price, `uncategorised` when none.
        package var category: String
        package var currency: String?
        package var amount: Decimal
        package var entries: Int

        /// What a line sums: a year, a category and a currency.
        struct Key: Hashable {
            var bike: String
            var year: String
            var category: String
            var currency: String?
        }
    }

    /// A service in a bike's log and the bike's odometer that day: its counted rides through it.
    package struct Service: Sendable {
        package var entry: HistoryReport.Entry
        /// Metres and seconds of every counted ride of the bike up to and including the day.
        package var distance: Double
        package var movingTime: Double

        /// The entry, with what the odometer `ledger` (the bike's counted rides) reads at the
        /// end of its day.
        init(_ entry: HistoryReport.Entry, odometer ledger: RideLedger) {
            let used = ledger.odometer(through: entry.date.ordinal)
            self.entry = entry
            distance = ReportNumber.tenth(used.distance)
            movingTime = ReportNumber.tenth(used.time)
        }
    }

    package var asOf: Day
    /// The commit of the garage the page describes (nil: not in git), named in its footer.
    package var git: GarageCommit?
    package var garageName: String?
    package var units: UnitSystem
    /// The bikes shown, in the garage's order: the named ones, else every bike not retired.
    package var bikes: [BikeFacts]
    /// Whether bikes were named (`--bike`): the report is then a record of those bikes.
    package var named: Bool
    package var status: StatusReport
    package var lives: PartLifeReport
    /// Per month over the twelve months through `asOf`'s.
    package var usage: UsageReport
    /// The twelve months of `usage`, oldest first (`2025-12` … `2026-11`).
    package var months: [String]
    /// `costs --by year` of every bike and part, or of the named bikes and their parts.
    package var costsByYear: CostReport
    /// Per bike id, by year then category.
    package var costLines: [String: [CostLine]]
    /// Per bike id, newest first: `history`'s entries with the odometer at each.
    package var services: [String: [Service]]

    /// Builds the report of the bikes `query` names (every bike not retired on its `asOf` when
    /// none); it takes no parts and no span. The summaries are taken, not kept: handed over
    /// (`consume`), they and the rides counted from them go before the service history is made.
    package static func build(_ garage: Garage, summaries: consuming ActivitySummaries, query: ReportQuery) -> GarageReport {
        let (only, asOf) = (query.selection.bikes, query.asOf)
        let chosen = garage.bikes.filter { only.isEmpty ? $0.bike.retired.map { $0 > asOf } ?? true : only.contains($0.bike.id) }
        let ids = chosen.map(\.bike.id)
        // One planner for status, part lives and odometers: each bike's rides are counted once.
        var rides = CountedRides.BikeRides(garage: garage, summaries: copy summaries, through: asOf)
        let planner = StatusPlanner(asOf: asOf)
        let status = planner.plan(garage, rides: &rides, only: only)
        var lives = planner.lives(garage, rides: &rides)
        let shown = Set(ids.map(\.rawValue))
        lives.parts = lives.parts.filter { life in
            switch life.kind {
            case .component: return life.bike.map(shown.contains) ?? false
            // Every part when no bike is named; else the parts that were ever on one of them.
            case .part: return only.isEmpty || (life.mounts ?? []).contains { shown.contains($0.bike) }
            }
        }
        let (year, month, _) = asOf.components
        let firstMonth = Day(year: year, month: month, day: 1)?.adding(months: -11) ?? asOf
        let months = (0..<12).map { firstMonth.adding(months: $0).monthKey }
        // The parts shown count in the costs and the history, as they do in `costs` and `history`.
        let partIDs = lives.parts.filter { $0.kind == .part }.map { PartID($0.id) }
        // One count of each bike's rides for usage, costs and history.
        let usage = UsageReport.build(
            garage, summaries: summaries, query: ReportQuery(bikes: ids, asOf: asOf, since: firstMonth), period: .month, sharing: rides)
        // The garage's costs are `costs --by year`'s: every bike's, retired ones too, and every
        // part's; with bikes named, theirs and their parts'. The shown bikes' own costs are
        // among the same items.
        let costsQuery = ReportQuery(bikes: only, parts: only.isEmpty ? [] : partIDs, asOf: asOf)
        let items = CostReport.items(garage, query: costsQuery, narrated: false)
        let costsByYear = CostReport.build(garage, summaries: summaries, query: costsQuery, by: .year, items: items, sharing: rides)
        let costLines = Self.costLines(items, bikes: ids)
        // The odometer at each service: status's ride ledger of the bike's counted rides.
        let ledgers = rides.ledgers(chosen.map { ($0.bike.id, $0.filter) })
        let odometers = chosen.map { ledgers[.init(bike: $0.bike.id, filter: $0.filter)] ?? RideLedger() }
        // The rides and their summaries go before the history is made (at a million rides, 56 MB
        // of the peak): its tasks count none, as the page lists interval ids, not the riding
        // behind each.
        _ = consume rides
        _ = consume summaries
        var (entries, subjects, subjectOf) = HistoryReport.uncountedEntriesBySubject(garage, query: ReportQuery(bikes: ids, parts: partIDs, asOf: asOf))
        let services = Self.services(moving: &entries, subjects: subjects, subjectOf: subjectOf, bikes: ids.map(\.rawValue), odometers: odometers)
        return GarageReport(
            asOf: asOf, garageName: garage.settings.name, units: garage.settings.units,
            bikes: chosen.map {
                BikeFacts(
                    id: $0.bike.id.rawValue, name: $0.bike.name, bought: $0.bike.bought, retired: $0.bike.retired,
                    price: $0.bike.price?.value, strava: $0.bike.strava?.value, kind: $0.bike.kind)
            },
            named: !only.isEmpty, status: status, lives: lives, usage: usage, months: months, costsByYear: costsByYear,
            costLines: costLines, services: services)
    }

    /// Each of `bikes`' own costs by year and category (every bike has its list, empty when it
    /// has no costs), from the cost report's `items` (theirs among others) and sums.
    static func costLines(_ items: [CostReport.Item], bikes: [BikeID]) -> [String: [CostLine]] {
        var shown: [String: Int] = [:]
        for (k, bike) in bikes.enumerated() where shown[bike.rawValue] == nil { shown[bike.rawValue] = k }
        // Summed by numbers (the bike's position, the year, the category's and currency's), the
        // bike looked up when the items' subject changes (they come a subject at a time).
        var categories = StringNumbers(), currencies = StringNumbers()
        var lastSubject: String?
        var lastPosition: Int?
        let sums = CostReport.sums(
            items,
            small: { item -> SmallCostKey? in
                guard item.pointee.subject.kind == .bike else { return nil }
                if item.pointee.subject.id != lastSubject {
                    lastSubject = item.pointee.subject.id
                    lastPosition = shown[item.pointee.subject.id]
                }
                guard let bike = lastPosition else { return nil }
                return SmallCostKey(
                    bike, item.pointee.day.map { $0.components.year } ?? Int.min, categories.number(item.pointee.category),
                    currencies.number(item.pointee.money.currency))
            },
            key: { _, item in
                CostLine.Key(
                    bike: item.pointee.subject.id, year: item.pointee.day.map { String($0.components.year) } ?? CostReport.undated,
                    category: item.pointee.category ?? CostReport.uncategorised, currency: item.pointee.money.currency)
            })
        var costLines: [String: [CostLine]] = [:]
        for (key, sum) in sums {
            costLines[key.bike, default: []].append(
                CostLine(year: key.year, category: key.category, currency: key.currency, amount: sum.total, entries: sum.entries))
        }
        for bike in bikes where costLines[bike.rawValue] == nil { costLines[bike.rawValue] = [] }
        return costLines.mapValues { lines in
            lines.sorted { ($0.year, $0.category, $0.currency ?? "") < ($1.year, $1.category, $1.currency ?? "") }
        }
    }

    /// Each shown bike's services, newest first, from the history's `entries` (left empty): a
    /// bike's own, and a part's in the record of the bike it was on that day, with the bike's
    /// odometer (`odometers[k]`: `bikes[k]`'s; a bike not in `bikes` is not shown). Entry k's
    /// subject is `subjects[subjectOf[k]]`.
    static func services(
        moving entries: inout [HistoryReport.Entry], subjects: [ReportSubject], subjectOf: [Int32], bikes: [String], odometers: [RideLedger]
    ) -> [String: [Service]] {
        // Each entry's bike by its position in `bikes`, found once (-1: not shown), and each
        // bike's list made at its size.
        var position: [String: Int] = [:]
        for (k, bike) in bikes.enumerated() where position[bike] == nil { position[bike] = k }
        var counts = [Int](repeating: 0, count: bikes.count)
        // A bike's entries by their subject's position, found once per subject; a part's by
        // the bike it was on that day. By position: an entry is not copied to read its bike.
        let bikeOfSubject = subjects.map { $0.kind == .bike ? position[$0.id] ?? -1 : -1 }
        let of = entries.indices.map { e -> Int in
            let k = entries[e].subject.kind == .bike ? bikeOfSubject[Int(subjectOf[e])] : entries[e].bike.flatMap { position[$0] } ?? -1
            guard k >= 0 else { return -1 }
            counts[k] += 1
            return k
        }
        var lists = counts.map { count -> [Service] in
            var list: [Service] = []
            list.reserveCapacity(count)
            return list
        }
        // The entries are moved out, oldest first, not copied (a garage has a hundred thousand),
        // and each bike's list turned newest first again.
        while let entry = entries.popLast() {
            let k = of[entries.count]
            guard k >= 0 else { continue }
            lists[k].append(Service(entry, odometer: odometers[k]))
        }
        entries = []
        var services: [String: [Service]] = [:]
        for (k, bike) in bikes.enumerated() where position[bike] == k && !lists[k].isEmpty {
            // In place, each service moved rather than copied (`Array.reverse` swapped them
            // through copies: 68 M instructions at a million rides).
            lists[k].withUnsafeMutableBufferPointer { $0.reverse() }
            services[bike] = lists[k]
        }
        return services
    }

    /// The intervals across the shown bikes that are overdue or due soon, in the one order of
    /// "what is next" (`StatusReport.byUrgency`, as `status --by urgency`, `notify` and the
    /// calendar read it).
    package var nextUp: [(bike: BikeStatus, interval: IntervalStatus)] {
        let bikes = Dictionary(status.bikes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return status.byUrgency().compactMap { u in
            guard u.status.state == .overdue || u.status.state == .dueSoon, u.bikeName != nil, let bike = u.bike.flatMap({ bikes[$0] }) else { return nil }
            return (bike, u.status)
        }
    }
}
