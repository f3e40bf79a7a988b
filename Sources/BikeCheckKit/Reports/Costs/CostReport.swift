import Diagnostics
import Foundation

/// What the bikes cost: service costs from the logs and purchase prices, grouped by bike, year,
/// month or category, with cost per 1,000 km (or mi, in the rider's units) and per ride hour.
/// Money is exact, and amounts in different currencies are reported on lines of their own,
/// never summed.
package struct CostReport: Sendable, Encodable {
    package enum Grouping: String, Sendable, Encodable, CaseIterable { case bike, rider, year, month, category }

    /// The group of a household's bikes and parts that name no rider (`--by rider`).
    package static let noRider = "(shared)"

    /// One cost: a log entry's or a purchase price.
    package struct Item: Sendable {
        package var subject: ReportSubject
        /// Nil for a price without a `bought` date.
        package var day: Day?
        package var money: Money
        /// The entry's category; `purchase` for a price; nil when the entry has none.
        package var category: String?
        package var isPurchase: Bool
        /// The tasks done (their names) and the entry's note, for exports' narrations.
        package var tasks: [String] = []
        package var note: String?
        /// Where the cost or price is written, for messages about it.
        package var location: SourceLocation?
    }

    package struct Row: Sendable, Encodable {
        /// The bike's id, `2025`, `2025-03` or the category (`uncategorised` when none).
        package var group: String
        package var subject: ReportSubject?
        /// Nil when neither the cost nor the garage names one.
        package var currency: String?
        package var services: ReportAmount
        package var purchases: ReportAmount
        package var total: ReportAmount
        /// Log entries with a cost.
        package var entries: Int
        /// Metres and seconds of counted rides behind the group (the bike's, or all bikes' in the period).
        package var distance: Double
        package var movingTime: Double
        package var per1000km: ReportAmount?
        package var perHour: ReportAmount?
        /// Per 1,000 of the rider's distance unit (km or mi), for what people read; JSON has
        /// `per_1000_km`.
        package var per1000: ReportAmount? = nil

        enum CodingKeys: String, CodingKey {
            case group, subject, currency, services, purchases, total, entries, distance
            case movingTime = "moving_time"
            case per1000km = "per_1000_km"
            case perHour = "per_hour"
        }
    }

    package struct Total: Sendable, Encodable {
        package var currency: String?
        package var services: ReportAmount
        package var purchases: ReportAmount
        package var total: ReportAmount
        package var entries: Int
    }

    package var asOf: Day
    /// The figures are SI (`"units": "si"`); `units` is what the rider reads (`display_units`).
    package var jsonUnits = JSONUnits.si
    package var units: UnitSystem
    package var since: Day?
    package var by: Grouping
    package var rows: [Row]
    /// One per currency: amounts in different currencies are never added together.
    package var totals: [Total]

    enum CodingKeys: String, CodingKey {
        case asOf = "as_of"
        case jsonUnits = "units"
        case units = "display_units"
        case since, by, rows, totals
    }

    static let uncategorised = "uncategorised"
    static let undated = "undated"

    /// Every cost of the named bikes and parts (all of both when none is named) from `since`
    /// through `asOf`; a price counts on the day the bike or part was bought (undated prices only
    /// when there is no `since`). Each cost is counted once, where it is written: a bike's line
    /// has the costs in the bike's log; a part's price and its own log are the part's.
    package static func items(_ garage: Garage, only: [BikeID] = [], parts: [PartID] = [], asOf: Day, since: Day? = nil) -> [Item] {
        let selection = ReportSelection(bikes: only, parts: parts)
        var items: [Item] = []
        func inSpan(_ day: Day?) -> Bool {
            guard let day else { return since == nil }
            return day <= asOf && since.map { day >= $0 } ?? true
        }
        // A bike's or part's purchase (counted in the year it was bought) and its log's costs.
        func add(_ subject: ReportSubject, name: String, price: Located<Money>?, bought: Day?, log: [LogEntry], intervals: [ResolvedInterval]) {
            if let price, inSpan(bought) {
                items.append(
                    Item(
                        subject: subject, day: bought, money: price.value, category: "purchase", isPurchase: true, tasks: ["Bought \(name)"],
                        location: price.location))
            }
            for entry in log where inSpan(entry.date) {
                guard let located = entry.cost else { continue }
                let cost = located.value
                let tasks =
                    entry.done.map { d in intervals.first { $0.id == d.value }?.task ?? d.value.rawValue }
                    + (entry.todo.map { ["to-do: \($0)"] } ?? [])
                items.append(
                    Item(
                        subject: subject, day: entry.date, money: cost, category: entry.category, isPurchase: false,
                        tasks: tasks, note: entry.note, location: located.location))
            }
        }
        for resolved in garage.bikes where selection.includes(resolved.bike.id) {
            let bike = resolved.bike
            add(.bike(bike), name: bike.name, price: bike.price, bought: bike.bought, log: bike.log, intervals: resolved.intervals)
        }
        for rp in garage.parts where selection.includes(rp.part.id) {
            let part = rp.part
            add(.part(part), name: part.name, price: part.price, bought: part.bought, log: part.log, intervals: rp.intervals)
        }
        return items
    }

    /// From the cache's summaries: the named bikes and parts, or all of both. Grouped by bike, a
    /// part has lines of its own, spread over the rides behind it; by year, month or category,
    /// the rides of the named bikes in the period and those of the named parts on other bikes,
    /// each ride once (with nothing named, every bike's: a part's are among them).
    package static func build(
        _ garage: Garage, summaries: ActivitySummaries, only: [BikeID] = [], parts: [PartID] = [], asOf: Day, since: Day? = nil,
        by: Grouping,
        sharing shared: CountedRides.BikeRides? = nil
    ) -> CostReport {
        let items = items(garage, only: only, parts: parts, asOf: asOf, since: since)
        let selection = ReportSelection(bikes: only, parts: parts)
        // By rider: a bike's `rider:`; a part's, else that of the bike it is on at `asOf`.
        func rider(ofBike id: BikeID) -> String { garage.bike(id)?.bike.rider?.value ?? Self.noRider }
        func rider(of subject: ReportSubject) -> String {
            guard subject.kind == .part else { return rider(ofBike: BikeID(subject.id)) }
            guard let part = garage.part(PartID(subject.id))?.part else { return Self.noRider }
            return part.rider?.value ?? part.mount(on: asOf).map { rider(ofBike: $0.bike.value) } ?? Self.noRider
        }
        func group(_ item: Item) -> String {
            switch by {
            case .bike: return item.subject.id
            case .rider: return rider(of: item.subject)
            case .year: return item.day.map { UsageReport.periodKey($0, .year) } ?? undated
            case .month: return item.day.map { UsageReport.periodKey($0, .month) } ?? undated
            case .category: return item.category ?? uncategorised
            }
        }
        // Counted rides in the span: the distance and time the costs are spread over, summed per
        // bike and, by year or month, per period (one pass over the rides, not one per line).
        struct Spread: Hashable {
            var subject: ReportSubject?
            var period: String?
        }
        var spread: [Spread: (distance: Double, time: Double)] = [:]
        let first = since.map { Int32(clamping: $0.ordinal) } ?? Int32.min
        // Rides another report already counted, when it counted the same (up to `asOf`, counted only).
        var cache =
            shared.flatMap { $0.through == asOf && $0.countedOnly ? $0 : nil }
            ?? CountedRides.BikeRides(garage: garage, index: CountedRides.Index(summaries), through: asOf, countedOnly: true)
        for resolved in garage.bikes where selection.includes(resolved.bike.id) {
            let subject = ReportSubject.bike(resolved.bike)
            // Gear worn on every bike (a helmet, a trainer) rides the bikes' rides: shown with
            // those bikes, they are in the garage's riding once, as the bikes'.
            let ridesOfShownBikes = resolved.ridesOf.contains { selection.includes($0) }
            var bikeSum = (distance: 0.0, time: 0.0)
            var periodSum = (distance: 0.0, time: 0.0)
            var current = -1
            var currentKey: String?
            func flush() {
                guard let key = currentKey, !ridesOfShownBikes else { return }
                var all = spread[Spread(subject: nil, period: key)] ?? (0, 0)
                all.distance += periodSum.distance
                all.time += periodSum.time
                spread[Spread(subject: nil, period: key)] = all
                periodSum = (0, 0)
            }
            for r in cache.rides(of: resolved.bike.id)
            where r.day >= first {
                bikeSum.distance += r.distance
                bikeSum.time += r.movingTime
                if by == .year || by == .month {
                    let day = Day(ordinal: Int(r.day))
                    let period: UsageReport.Period = by == .year ? .year : .month
                    let number = UsageReport.periodNumber(day, period)
                    if number != current {
                        flush()
                        current = number
                        currentKey = UsageReport.periodKey(day, period)
                    }
                    periodSum.distance += r.distance
                    periodSum.time += r.movingTime
                }
            }
            flush()
            spread[Spread(subject: subject, period: nil)] = bikeSum
            if ridesOfShownBikes { continue }
            if by == .rider {
                var all = spread[Spread(subject: nil, period: rider(ofBike: resolved.bike.id))] ?? (0, 0)
                all.distance += bikeSum.distance
                all.time += bikeSum.time
                spread[Spread(subject: nil, period: rider(ofBike: resolved.bike.id))] = all
            }
            var all = spread[Spread(subject: nil, period: nil)] ?? (0, 0)
            all.distance += bikeSum.distance
            all.time += bikeSum.time
            spread[Spread(subject: nil, period: nil)] = all
        }
        // A part's rides: its line's by bike; by year, month or category, those on bikes not
        // shown join the bikes' (each ride once), so a part named alone has its own riding.
        if by == .bike || !selection.isEverything {
            for rp in garage.parts where selection.includes(rp.part.id) {
                var sum = (distance: 0.0, time: 0.0)
                CountedRides.forEachEntry(of: rp.part, cache: &cache) { r in
                    guard r.day >= first else { return }
                    sum.distance += r.distance
                    sum.time += r.movingTime
                    guard by != .bike, !selection.includes(garage.bikes[Int(r.bike)].bike.id) else { return }
                    var keys = [Spread(subject: nil, period: nil)]
                    if by == .year || by == .month {
                        keys.append(Spread(subject: nil, period: UsageReport.periodKey(Day(ordinal: Int(r.day)), by == .year ? .year : .month)))
                    }
                    if by == .rider { keys.append(Spread(subject: nil, period: rider(of: .part(rp.part)))) }
                    for key in keys {
                        var all = spread[key] ?? (0, 0)
                        all.distance += r.distance
                        all.time += r.movingTime
                        spread[key] = all
                    }
                }
                if by == .bike { spread[Spread(subject: .part(rp.part), period: nil)] = sum }
            }
        }
        func usage(group key: String, subject: ReportSubject?) -> (Double, Double) {
            let found: (distance: Double, time: Double)?
            switch by {
            case .year, .month, .rider: found = spread[Spread(subject: nil, period: key)]
            case .bike: found = spread[Spread(subject: subject, period: nil)]
            case .category: found = spread[Spread(subject: nil, period: nil)]
            }
            return found.map { ($0.distance, $0.time) } ?? (0, 0)
        }

        struct Key: Hashable {
            var group: String
            var currency: String?
            /// By bike: a bike and a part may share an id.
            var kind: ReportSubject.Kind?
        }
        var sums: [Key: (services: Decimal, purchases: Decimal, entries: Int, subject: ReportSubject?)] = [:]
        for item in items {
            let key = Key(group: group(item), currency: item.money.currency, kind: by == .bike ? item.subject.kind : nil)
            var sum = sums[key] ?? (0, 0, 0, by == .bike ? item.subject : nil)
            if item.isPurchase {
                sum.purchases += item.money.amount
            } else {
                sum.services += item.money.amount
                sum.entries += 1
            }
            sums[key] = sum
        }
        let rows = sums.map { key, sum -> Row in
            let (distance, time) = usage(group: key.group, subject: sum.subject)
            let total = sum.services + sum.purchases
            return Row(
                group: key.group, subject: sum.subject, currency: key.currency, services: ReportAmount(sum.services),
                purchases: ReportAmount(sum.purchases), total: ReportAmount(total), entries: sum.entries,
                distance: ReportNumber.tenth(distance), movingTime: ReportNumber.tenth(time),
                per1000km: UnitSystem.metric.per1000(total, metres: distance).map(ReportAmount.init),
                perHour: time > 0 ? ReportAmount(rate(total, per: time / 3600)) : nil,
                per1000: garage.settings.units.per1000(total, metres: distance).map(ReportAmount.init))
        }.sorted { ($0.subject?.kind ?? .bike, $0.group, $0.currency ?? "") < ($1.subject?.kind ?? .bike, $1.group, $1.currency ?? "") }

        var totals: [String?: Total] = [:]
        for item in items {
            var t = totals[item.money.currency] ?? Total(currency: item.money.currency, services: .init(0), purchases: .init(0), total: .init(0), entries: 0)
            if item.isPurchase {
                t.purchases.value += item.money.amount
            } else {
                t.services.value += item.money.amount
                t.entries += 1
            }
            t.total.value += item.money.amount
            totals[item.money.currency] = t
        }
        return CostReport(
            asOf: asOf, units: garage.settings.units, since: since, by: by, rows: rows,
            totals: totals.values.sorted { ($0.currency ?? "") < ($1.currency ?? "") })
    }

    /// An amount per unit, to the cent: the amount is exact, the divisor a measured quantity.
    static func rate(_ amount: Decimal, per units: Double) -> Decimal {
        var quotient = amount / Decimal(units)
        var rounded = Decimal()
        NSDecimalRound(&rounded, &quotient, 2, .plain)
        return rounded
    }

    /// In the rider's units: km and per 1000 km, or mi and per 1000 mi.
    package var table: ReportTable {
        let parts = rows.contains { $0.subject?.kind == .part }
        let km = units.distanceUnit
        let columns: [ReportTable.Column] =
            (by == .bike ? ReportTable.subjectColumns(parts: parts) : [.init(by.rawValue, by.rawValue.uppercased())]) + [
                .init("currency", "CUR"), .init("services", "SERVICES", numeric: true),
                .init("purchases", "PURCHASES", numeric: true), .init("total", "TOTAL", numeric: true), .init("entries", "ENTRIES", numeric: true),
                .init("distance_\(km)", km.uppercased(), numeric: true), .init("moving_time_h", "HOURS", numeric: true),
                .init("per_1000_\(km)", "PER 1000 \(km.uppercased())", numeric: true), .init("per_hour", "PER HOUR", numeric: true),
            ]
        let rows = rows.map { r in
            (by == .bike ? r.subject.map { ReportTable.subjectCells($0, parts: parts) } ?? [r.group] : [r.group]) + [
                r.currency ?? "", r.services.description, r.purchases.description, r.total.description, "\(r.entries)",
                units.distanceText(r.distance), ReportNumber.hours(r.movingTime), r.per1000?.description ?? "", r.perHour?.description ?? "",
            ]
        }
        let footer = totals.map { t in
            "total \(t.currency ?? "(no currency)"): \(t.total) (services \(t.services), purchases \(t.purchases), \(t.entries) entr\(t.entries == 1 ? "y" : "ies"))"
        }
        return ReportTable(columns: columns, rows: rows, footer: footer)
    }
}
