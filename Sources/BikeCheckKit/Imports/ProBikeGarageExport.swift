import Diagnostics
import Foundation
import LocatedYAML

/// ProBikeGarage's data as JSON (the lists its API serves: `bikes`, `components`,
/// `installations`, and `reminders` and `services`) as an import plan: each bike a garage bike
/// (matched by its Strava gear id, else its name), each component a part with its usage before
/// tracking, its purchase and a mount per installation (on a bike, or on another component: tyres
/// on a wheelset), ride tags as `tag:`/`unless_tag:`, each reminder an interval and each service
/// a log entry (`done:` the reminder's interval when it names one). See docs/imports.md.
package enum ProBikeGarageExport: TrackerJSONReader {
    /// A record of one of the files, with where it is.
    struct Record {
        var fields: YAMLMapping
        /// Where the record's object is in its file.
        var location: SourceLocation

        var id: String { string("id") ?? "" }
        subscript(_ key: String) -> YAMLNode? { fields[key] }
        func string(_ key: String) -> String? { ProBikeGarageExport.text(fields[key]) }
        func number(_ key: String) -> Double? { string(key).flatMap(Double.init) }
        func tags(_ key: String) -> [String] {
            ProBikeGarageExport.items(fields[key]).compactMap { ProBikeGarageExport.text($0) }.map { $0.hasPrefix("#") ? String($0.dropFirst()) : $0 }
                .filter { !$0.isEmpty }
        }
    }

    package static func plan(_ sources: [ImportPlan.Source], bike: String?, garage: Garage) throws(WriteFailure) -> ImportPlan {
        if bike != nil { throw .usage("a ProBikeGarage export names its bikes: --bike is for one vehicle's records (LubeLogger)") }
        var building = Building(plan: ImportPlan(format: "probikegarage", files: sources.map(\.path)), garage: garage, lists: try lists(sources))
        building.placeBikes()
        building.placeComponents()
        for r in building.lists["installations"] ?? [] { building.placeInstallation(r) }
        for r in building.lists["reminders"] ?? [] { building.placeReminder(r) }
        for r in building.lists["services"] ?? [] { building.placeService(r) }
        building.plan.sortFindings()
        return building.plan
    }

    /// The records of every file by section (`bikes`, `components`, `installations`, `reminders`,
    /// `services`), each id once.
    static func lists(_ sources: [ImportPlan.Source]) throws(WriteFailure) -> [String: [Record]] {
        var lists: [String: [Record]] = [:]
        var seen = Set<String>()
        func add(_ section: String, _ nodes: [YAMLNode], _ source: ImportPlan.Source) {
            for node in nodes {
                guard case .mapping(let fields) = node else { continue }
                let r = Record(fields: fields, location: at(node, in: source))
                guard seen.insert(section + "|" + r.id).inserted || r.id.isEmpty else { continue }
                lists[section, default: []].append(r)
                // The API's detailed bikes carry their installed components.
                if section == "bikes" { add("components", items(fields["components"]), source) }
            }
        }
        for source in sources {
            let json = try openJSON(
                source, help: "give the JSON ProBikeGarage's API serves: an object with bikes, components, installations, reminders and services")
            if case .mapping(let object) = json {
                let known = ["bikes", "components", "installations", "reminders", "services"]
                if let component = object["component"], case .mapping = component {
                    // One component's details as the API serves them: itself and its installations.
                    add("components", [component], source)
                    add("installations", items(object["installations"]), source)
                } else if known.contains(where: { object[$0] != nil }) {
                    for key in known { add(key, items(object[key]), source) }
                } else {
                    throw .refused(
                        "'\(source.path)' is not a ProBikeGarage export: it has none of bikes, components, installations, reminders, services",
                        help: "give the JSON ProBikeGarage's API serves")
                }
            } else if case .sequence(let list) = json {
                // A list the API serves on its own: bikes, components or installations.
                let objects = list.items.compactMap { item -> YAMLMapping? in
                    guard case .mapping(let m) = item else { return nil }
                    return m
                }
                guard objects.count == list.items.count else {
                    throw .refused("'\(source.path)' is not a ProBikeGarage export: its list should hold objects (bikes, components or installations)")
                }
                let first = objects.first
                let section = first?["target_type"] != nil ? "installations" : first?["type"] != nil ? "components" : "bikes"
                add(section, list.items, source)
            } else {
                throw .refused("'\(source.path)' is not a ProBikeGarage export: it should be a JSON object or list")
            }
        }
        return lists
    }

    /// The plan as it grows, section by section, and the garage ids the export's ids became.
    struct Building {
        var plan: ImportPlan
        let garage: Garage
        let lists: [String: [Record]]
        var bikeOf: [String: String] = [:]
        var partOf: [String: String] = [:]
        var partIndex: [String: Int] = [:]
        var intervalOf: [String: (owner: String, id: String)] = [:]
        var usedIDs = Set<String>()
        var currency: String? { garage.settings.currency }

        init(plan: ImportPlan, garage: Garage, lists: [String: [Record]]) {
            self.plan = plan
            self.garage = garage
            self.lists = lists
        }

        mutating func unplaced(_ r: Record, _ what: String, _ why: String) { plan.unplaced.append(.init(location: r.location, record: what, reason: why)) }
        mutating func note(_ r: Record, _ what: String, _ why: String) { plan.notes.append(.init(location: r.location, record: what, reason: why)) }

        /// Bikes: the garage's with that Strava gear id, else with that name (or id); else new.
        mutating func placeBikes() {
            for r in lists["bikes"] ?? [] {
                let name = r.string("name") ?? ""
                var strava = r.string("strava_gear_id")
                if case .mapping(let s)? = r["strava_bike"], let id = text(s["id"]) { strava = id }
                if let b = strava.flatMap({ gear in garage.bikes.first { $0.bike.gearIDs.contains(gear) } })
                    ?? garage.bikes.first(where: { !name.isEmpty && ($0.bike.name == name || $0.bike.id.rawValue == slug(name)) })
                {
                    bikeOf[r.id] = b.bike.id.rawValue
                    if let p = purchase(r, currency), p.bought != nil || p.retired != nil || p.price != nil {
                        plan.bikes.append(.init(id: b.bike.id.rawValue, name: b.bike.name, bought: p.bought, retired: p.retired, price: p.price))
                    }
                    continue
                }
                guard !name.isEmpty else {
                    unplaced(r, "bike '\(r.id)'", "it has no name to make its id from")
                    continue
                }
                let id = slug(name)
                bikeOf[r.id] = id
                let p = purchase(r, currency)
                plan.bikes.append(.init(id: id, name: name, strava: strava, bought: p?.bought, retired: p?.retired, price: p?.price))
            }
        }

        /// Components: a part each; its id from its name, with the start of its own id when two
        /// share a name.
        mutating func placeComponents() {
            let components = lists["components"] ?? []
            var slugCount: [String: Int] = [:]
            for r in components { slugCount[slug(r.string("name") ?? r.id), default: 0] += 1 }
            for r in components {
                let name = r.string("name") ?? r.id
                var id = slug(name)
                if slugCount[id, default: 0] > 1 { id += "-" + String(slug(r.id).prefix(8)) }
                guard garage.bike(BikeID(id)) == nil, !bikeOf.values.contains(id) else {
                    unplaced(r, "component '\(name)'", "its id '\(id)' is a bike's")
                    continue
                }
                partOf[r.id] = id
                var metres = 0.0, seconds = 0.0
                if case .mapping(let initial)? = r["initial_usage"] {
                    metres = number(initial["distance"]) ?? 0
                    seconds = number(initial["moving_time"]) ?? 0
                }
                let p = purchase(r, currency)
                partIndex[r.id] = plan.parts.count
                plan.parts.append(
                    .init(
                        id: id, name: name, hours: seconds > 0 ? rounded(seconds / 3600) : nil, kilometres: metres > 0 ? rounded(metres / 1000) : nil,
                        bought: p?.bought, retired: p?.retired, price: p?.price))
            }
        }

        /// An installation: a mount on a bike or on a part, to the day before its removal.
        mutating func placeInstallation(_ r: Record) {
            guard let component = r.string("component_id"), let index = partIndex[component] else {
                return unplaced(r, "installation '\(r.id)'", "its component '\(r.string("component_id") ?? "")' is not in the export")
            }
            let what = "installation of '\(plan.parts[index].name)'"
            guard let from = date(r.string("added_at")) else { return unplaced(r, what, "it has no date it was added (added_at)") }
            let to = date(r.string("removed_at"))?.adding(days: -1)
            if let to, to < from {
                return note(r, what, "it was removed on the day it was added; a garage's mounts are whole days, so it has none")
            }
            var included = r.tags("included_ride_tags") + r.tags("ride_tags")
            let excluded = r.tags("excluded_ride_tags")
            if let bad = (included + excluded).first(where: { $0.contains(where: \.isWhitespace) }) {
                return unplaced(r, what, "ride tag '\(bad)' is not one word; a garage's tags are words of a ride's name (#race)")
            }
            included = included.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
            let target = r.string("target_id") ?? ""
            switch r.string("target_type") {
            case "bike":
                guard let bike = bikeOf[target] ?? r.string("bike_id").flatMap({ bikeOf[$0] }) else {
                    return unplaced(r, what, "its bike '\(target)' is not in the export")
                }
                if included.count > 1 {
                    note(
                        r, what,
                        "only for rides tagged #\(included[0]): a garage's mount holds for one tag, so \(included.dropFirst().map { "#" + $0 }.joined(separator: ", ")) is left out"
                    )
                }
                if !included.isEmpty && !excluded.isEmpty {
                    note(r, what, "only for rides tagged #\(included[0]): a mount has tag or unless_tag, not both, so the excluded tags are left out")
                }
                plan.parts[index].mounts.append(
                    .init(bike: bike, from: from, to: to, tag: included.first, unlessTags: included.isEmpty ? excluded : []))
            case "component":
                guard let parent = partOf[target] else { return unplaced(r, what, "the component it is on ('\(target)') is not in the export") }
                if !included.isEmpty || !excluded.isEmpty {
                    note(r, what, "its ride tags are left out: a part on a part wears with every ride of its parent; tag the parent's installation")
                }
                plan.parts[index].mounts.append(.init(part: parent, from: from, to: to))
            default:
                unplaced(r, what, "target_type '\(r.string("target_type") ?? "")' is neither bike nor component")
            }
        }

        /// Whose file a reminder or service goes in: a bike's or a part's.
        func owner(_ r: Record) -> String? {
            let target = r.string("target_id") ?? r.string("component_id") ?? r.string("bike_id") ?? ""
            switch r.string("target_type") ?? (r.string("component_id") != nil ? "component" : "bike") {
            case "bike": return bikeOf[target]
            case "component": return partOf[target]
            default: return nil
            }
        }

        /// A reminder: an interval, every whichever-first of distance, moving time, rides and days.
        mutating func placeReminder(_ r: Record) {
            let name = r.string("name") ?? r.string("description") ?? ""
            let shown = name.isEmpty ? "reminder '\(r.id)'" : "reminder '\(name)'"
            guard let who = owner(r) else {
                return unplaced(r, shown, "the bike or component it is for ('\(r.string("target_id") ?? "")') is not in the export")
            }
            var every: [String] = []
            if let m = r.number("distance"), m > 0 { every.append("\(ImportPlanWriter.number(rounded(m / 1000))) km") }
            if let s = r.number("moving_time"), s > 0 {
                every.append(s.truncatingRemainder(dividingBy: 3600) == 0 ? "\(Int(s / 3600)) h" : "\(ImportPlanWriter.number(rounded(s / 60))) min")
            }
            if let n = r.number("rides"), n > 0 { every.append("\(Int(n)) rides") }
            if let d = r.number("days"), d > 0 { every.append(d.truncatingRemainder(dividingBy: 7) == 0 ? "\(Int(d / 7)) weeks" : "\(Int(d)) days") }
            if (r.number("elapsed_time") ?? 0) > 0 {
                note(r, shown, "its elapsed time is left out: a garage counts moving time (h)")
            }
            guard !every.isEmpty else { return unplaced(r, shown, "it has no distance, moving_time, rides or days to count") }
            var id = slug(name.isEmpty ? r.id : name)
            if usedIDs.contains(who + "|" + id) { id += "-" + String(slug(r.id).prefix(8)) }
            usedIDs.insert(who + "|" + id)
            intervalOf[r.id] = (who, id)
            plan.intervals.append(.init(owner: who, id: id, task: name.isEmpty ? nil : name, every: every))
        }

        /// A service: a log entry; `done:` the reminder's interval when it names one.
        mutating func placeService(_ r: Record) {
            let name = r.string("name") ?? r.string("description") ?? ""
            let shown = name.isEmpty ? "service '\(r.id)'" : "service '\(name)'"
            let interval = r.string("reminder_id").flatMap { intervalOf[$0] }
            guard let who = owner(r) ?? interval?.owner else {
                return unplaced(r, shown, "the bike or component it is for ('\(r.string("target_id") ?? "")') is not in the export")
            }
            guard let date = ProBikeGarageExport.date(r.string("date") ?? r.string("done_at")) else { return unplaced(r, shown, "it has no date (YYYY-MM-DD)") }
            var cost: Decimal?
            var costText: String?
            if !isNull(r["cost"]) {
                guard let amount = money(r["cost"]) else { return unplaced(r, shown, "cost '\(r.string("cost") ?? "")' is not an amount") }
                cost = amount.value
                costText = amount.text + (r.string("currency").map { $0 == currency ? "" : " \($0)" } ?? "")
            }
            let notes = r.string("notes") ?? ""
            var note = name
            if !notes.isEmpty { note += note.isEmpty ? notes : ": " + notes }
            let done = interval.map { $0.owner == who ? [$0.id] : [] } ?? []
            if done.isEmpty && cost == nil && note.isEmpty { return unplaced(r, shown, "it names no reminder, cost or note: nothing to log") }
            plan.log.append(
                .init(owner: who, date: date, done: done, cost: cost, costText: costText, category: cost == nil ? nil : "service", note: note, key: note))
        }
    }

    // MARK: - Values

    /// ProBikeGarage's timestamps (`2025-03-01T09:00:00Z`) as the day written; its "no date",
    /// `0001-01-01T00:00:00Z`, as none.
    static func date(_ text: String?) -> Day? {
        guard let text, !text.hasPrefix("0001-01-01") else { return nil }
        return day(text)
    }

    /// A cost as the garage writes it (`45.99`): a JSON number with two decimals, or a string.
    static func money(_ value: YAMLNode?) -> (value: Decimal, text: String)? {
        let plain: String
        if let n = number(value) {
            plain = String(format: "%.2f", n)
        } else if case .scalar(let s)? = value, s.style != .plain {
            plain = s.value.trimmingCharacters(in: .whitespaces)
        } else {
            return nil
        }
        guard case .success(let amount) = Money.parseAmount(plain[...]), amount >= 0 else { return nil }
        return (amount, plain)
    }

    /// `purchase_date`, `retired_at` and `purchase_price` (with `currency` when not the garage's).
    static func purchase(_ r: Record, _ currency: String?) -> (bought: Day?, retired: Day?, price: String?)? {
        let bought = date(r.string("purchase_date")), retired = date(r.string("retired_at"))
        var price: String?
        if let amount = money(r["purchase_price"]), amount.value > 0 {
            // A whole price as a rider writes one: `2499`, not `2499.00`.
            let whole = amount.text.hasSuffix(".00") ? String(amount.text.dropLast(3)) : amount.text
            price = whole + (r.string("currency").map { $0 == currency ? "" : " \($0)" } ?? "")
        }
        return (bought, retired, price)
    }

    static func rounded(_ v: Double) -> Double { (v * 100).rounded() / 100 }

    static func slug(_ name: String) -> String {
        let s = StravaGearRules.slug(name)
        return s.count > 64 ? String(s.prefix(64)) : s
    }
}
