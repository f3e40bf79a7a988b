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

    /// What some costs add up to: services, purchases, and the log entries with a cost (a
    /// price is none).
    package struct Sum: Sendable {
        package var serviceAmounts = AmountSum()
        package var purchaseAmounts = AmountSum()
        package var entries = 0
        package var services: Decimal { serviceAmounts.value }
        package var purchases: Decimal { purchaseAmounts.value }
        package var total: Decimal { (serviceAmounts + purchaseAmounts).value }
    }

    /// `items` summed per `key`: the one sum behind the rows, the totals, and the HTML report's
    /// cost lines (`GarageReport.costLines`).
    package static func sums<Key: Hashable>(_ items: [Item], by key: (Item) -> Key) -> [Key: Sum] {
        sums(items, small: { Optional(key($0.pointee)) }, key: { raw, _ in raw })
    }

    /// `items` summed per `key`, each item summed first by a `small` key of a few numbers (nil:
    /// left out) and each small key's sum then added to its `key`'s, made once from the first
    /// item that had it: a key of Strings (a year's text, a category, a currency) hashed and
    /// compared per item cost a thousand instructions, most of the HTML report's cost lines.
    /// Two items with one small key must have one key. The same sums: an `AmountSum` of whole
    /// ten-thousandths adds exactly in any order, as `Decimal` does below its 38 digits.
    static func sums<Small: Hashable, Key: Hashable>(
        _ items: [Item], small: (UnsafePointer<Item>) -> Small?, key: (Small, UnsafePointer<Item>) -> Key
    ) -> [Key: Sum] {
        // Each small key's position in `parts` and the first item that had it.
        var position: [Small: Int] = [:]
        var parts: [Sum] = []
        var firsts: [(small: Small, item: Int)] = []
        var sums: [Key: Sum] = [:]
        // Read in place: an item is not copied (retained and released) to be summed.
        items.withUnsafeBufferPointer { items in
            guard let base = items.baseAddress else { return }
            for k in items.indices {
                guard let small = small(base + k) else { continue }
                if let p = position[small] {
                    parts[p].add(items[k].money.amount, purchase: items[k].isPurchase)
                } else {
                    position[small] = parts.count
                    parts.append(Sum())
                    parts[parts.count - 1].add(items[k].money.amount, purchase: items[k].isPurchase)
                    firsts.append((small, k))
                }
            }
            for (p, first) in firsts.enumerated() {
                let key = key(first.small, base + first.item)
                if let known = sums[key] { sums[key] = known + parts[p] } else { sums[key] = parts[p] }
            }
        }
        return sums
    }

    static let uncategorised = "uncategorised"
    static let undated = "undated"

    /// Every cost of the named bikes and parts (all of both when none is named) from `since`
    /// through `asOf`; a price counts on the day the bike or part was bought (undated prices only
    /// when there is no `since`). Each cost is counted once, where it is written: a bike's line
    /// has the costs in the bike's log; a part's price and its own log are the part's.
    /// `narrated`: with each item's tasks (the exports' narrations), which the sums never read.
    package static func items(_ garage: Garage, query: ReportQuery, narrated: Bool = true) -> [Item] {
        let (selection, asOf, since) = (query.selection, query.asOf, query.since)
        var items: [Item] = []
        // At most a price and each log entry per subject, room made once (doubling copied a
        // million-ride garage's items three times: 10 MiB, 11 M instructions).
        items.reserveCapacity(HistoryReport.logEntries(garage, selection) + garage.bikes.count + garage.parts.count)
        func inSpan(_ day: Day?) -> Bool {
            guard let day else { return since == nil }
            return day <= asOf && since.map { day >= $0 } ?? true
        }
        // A bike's or part's purchase (counted in the year it was bought) and its log's costs.
        func add(_ subject: ReportSubject, name: String, price: Located<Money>?, bought: Day?, log: [LogEntry], intervals: [ResolvedInterval]) {
            if let price, inSpan(bought) {
                items.append(
                    Item(
                        subject: subject, day: bought, money: price.value, category: "purchase", isPurchase: true,
                        tasks: narrated ? ["Bought \(name)"] : [],
                        location: price.location))
            }
            for entry in log where inSpan(entry.date) {
                guard let located = entry.cost else { continue }
                let cost = located.value
                let tasks =
                    narrated
                    ? entry.done.map { d in intervals.first { $0.id == d.value }?.task ?? d.value.rawValue }
                        + (entry.todo.map { ["to-do: \($0)"] } ?? []) : []
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
    /// `items`: `items(garage, query: query, narrated: false)`, when the caller has them.
    package static func build(
        _ garage: Garage, summaries: ActivitySummaries, query: ReportQuery, by: Grouping, items known: [Item]? = nil,
        sharing shared: CountedRides.BikeRides? = nil
    ) -> CostReport {
        let items = known ?? items(garage, query: query, narrated: false)
        let riders = Riders(garage: garage, asOf: query.asOf)
        func group(_ item: Item) -> String {
            switch by {
            case .bike: return item.subject.id
            case .rider: return riders.rider(of: item.subject)
            case .year: return item.day.map { UsageReport.periodKey($0, .year) } ?? undated
            case .month: return item.day.map { UsageReport.periodKey($0, .month) } ?? undated
            case .category: return item.category ?? uncategorised
            }
        }
        let riding = Riding(garage, summaries: summaries, query: query, by: by, riders: riders, sharing: shared)
        struct Key: Hashable {
            var group: String
            var currency: String?
            /// By bike: a bike and a part may share an id.
            var subject: ReportSubject?
        }
        // By year or month, each item's period and currency as numbers first: the period's text
        // is made once per line, not per item.
        var currencies = StringNumbers()
        let grouped: [Key: Sum]
        if by == .year || by == .month {
            let period: UsageReport.Period = by == .year ? .year : .month
            grouped = Self.sums(
                items,
                small: { item -> SmallCostKey? in
                    SmallCostKey(
                        item.pointee.day.map { UsageReport.periodNumber($0, period) } ?? Int.min, currencies.number(item.pointee.money.currency))
                },
                key: { _, item in Key(group: group(item.pointee), currency: item.pointee.money.currency, subject: nil) })
        } else {
            grouped = Self.sums(items) { Key(group: group($0), currency: $0.money.currency, subject: by == .bike ? $0.subject : nil) }
        }
        let rows = grouped.map { key, sum -> Row in
            let (distance, time) = riding.usage(group: key.group, subject: key.subject)
            let total = sum.total
            return Row(
                group: key.group, subject: key.subject, currency: key.currency, services: ReportAmount(sum.services),
                purchases: ReportAmount(sum.purchases), total: ReportAmount(total), entries: sum.entries,
                distance: ReportNumber.tenth(distance), movingTime: ReportNumber.tenth(time),
                per1000km: UnitSystem.metric.per1000(total, metres: distance).map(ReportAmount.init),
                perHour: time > 0 ? ReportAmount(rate(total, per: time / 3600)) : nil,
                per1000: garage.settings.units.per1000(total, metres: distance).map(ReportAmount.init))
        }.sorted { ($0.subject?.kind ?? .bike, $0.group, $0.currency ?? "") < ($1.subject?.kind ?? .bike, $1.group, $1.currency ?? "") }

        let totals = Self.sums(items, small: { currencies.number($0.pointee.money.currency) }, key: { _, item in item.pointee.money.currency }).map {
            currency, sum in
            Total(
                currency: currency, services: ReportAmount(sum.services), purchases: ReportAmount(sum.purchases), total: ReportAmount(sum.total),
                entries: sum.entries)
        }
        return CostReport(
            asOf: query.asOf, units: garage.settings.units, since: query.since, by: by, rows: rows,
            totals: totals.sorted { ($0.currency ?? "") < ($1.currency ?? "") })
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

extension CostReport.Sum {
    /// A log entry's cost.
    mutating func add(service amount: Decimal) {
        serviceAmounts.add(amount)
        entries += 1
    }

    /// A cost: a purchase price, or a log entry's.
    mutating func add(_ amount: Decimal, purchase: Bool) {
        if purchase { purchaseAmounts.add(amount) } else { add(service: amount) }
    }

    /// Two sums' amounts and entries added.
    static func + (a: Self, b: Self) -> Self {
        var out = a
        out.serviceAmounts = a.serviceAmounts + b.serviceAmounts
        out.purchaseAmounts = a.purchaseAmounts + b.purchaseAmounts
        out.entries = a.entries + b.entries
        return out
    }
}

/// A key of a few numbers (`CostReport.sums(_:small:key:)`): a period, a subject's position,
/// and Strings' numbers (`StringNumbers`).
struct SmallCostKey: Hashable {
    var a: Int, b: Int, c = 0, d = 0

    init(_ a: Int, _ b: Int, _ c: Int = 0, _ d: Int = 0) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
    }
}

/// Strings numbered in the order first seen, for keys of numbers (`CostReport.sums(_:small:key:)`):
/// a garage has a few categories and currencies, found by comparing, not hashing.
struct StringNumbers {
    private var values: [String?] = []
    private var many: [String?: Int] = [:]

    /// The number of `value`, numbering it when it is new.
    mutating func number(_ value: String?) -> Int {
        if values.count < 16 {
            for k in values.indices where values[k] == value { return k }
            values.append(value)
            return values.count - 1
        }
        for k in 0..<16 where values[k] == value { return k }
        if let k = many[value] { return k }
        many[value] = values.count
        values.append(value)
        return values.count - 1
    }
}

/// Exact amounts of money added up, as `Decimal`'s own addition adds them, in a fraction of its
/// time: `Decimal`'s `+` works through arrays of digits (thousands of instructions an addition,
/// most of the HTML report's costs at a million rides). An amount has at most
/// `Money.maximumFractionDigits` decimals and is at most `Money.maximum`, so it is a whole number
/// of ten-thousandths, and so is a sum: added as such while it fits, as `Decimal` after. The
/// value is the same `Decimal` either way: `Decimal` keeps amounts and sums compact (no trailing
/// zeros: 45.90 + 1.10 is 47 with exponent 0), so equal values are written alike, and `value`
/// is made compact too.
package struct AmountSum: Sendable {
    /// The sum in ten-thousandths, while `decimal` is nil.
    private var units: Int64 = 0
    /// The sum, once an amount or a sum did not fit `units`.
    private var decimal: Decimal?

    /// Ten-thousandths (`ReportNumber.tenThousandths`): `Money.maximumFractionDigits` decimals.
    private static let digits = 4

    package init() {}

    package mutating func add(_ amount: Decimal) {
        if decimal == nil, let n = ReportNumber.tenThousandths(amount), case let (sum, overflow) = units.addingReportingOverflow(n), !overflow {
            units = sum
            return
        }
        decimal = value + amount
    }

    /// The sum, as `Decimal`'s additions give it.
    package var value: Decimal {
        if let decimal { return decimal }
        guard units != 0 else { return 0 }
        return Decimal(sign: units < 0 ? .minus : .plus, exponent: -Self.digits, significand: Decimal(units.magnitude))
    }

    package static func + (a: AmountSum, b: AmountSum) -> AmountSum {
        if a.decimal == nil, b.decimal == nil, case let (sum, overflow) = a.units.addingReportingOverflow(b.units), !overflow {
            var out = AmountSum()
            out.units = sum
            return out
        }
        var out = AmountSum()
        out.decimal = a.value + b.value
        return out
    }
}
