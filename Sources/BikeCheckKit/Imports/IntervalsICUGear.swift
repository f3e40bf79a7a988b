import Diagnostics
import Foundation
import LocatedYAML

/// Intervals.icu's gear list (the JSON `GET /api/v1/athlete/{id}/gear` answers, its OpenAPI
/// schemas `Gear` and `GearReminder`) as an import plan. A `Bike` is a bike, matched to the
/// garage's by its Strava gear id (gear Intervals.icu took from Strava keeps Strava's id,
/// `b…` or `g…`), else by id or name; `Shoes` and `Trainer` are gear of that kind, and every
/// other cycling item (a computer, a light, cycling shoes, a power meter on its own) gear of kind
/// `other`; a wetsuit, skis, a boat and the like are not cycling gear and are left out. A
/// component (`component: true`, or named in another gear's `component_ids`) is a part mounted
/// on that gear (or on that component) from its purchase date, else its gear's; a reminder is an
/// interval of its gear's or part's file, `every:` its distance (m → km), time (s → h), days and
/// activities (→ rides), with its `last_reset` day as a log entry that did it.
package enum IntervalsICUGear: TrackerJSONReader {
    /// Gear that is no cycling gear: its wear comes from swims, rows or skiing, which no bike's
    /// rides are.
    static let notCycling: Set<String> = ["Wetsuit", "RowingMachine", "Skis", "Snowboard", "Boat", "Board", "Paddle"]

    /// One gear record of the list, as read.
    struct Record {
        var id: String
        var type: String
        var name: String
        var component: Bool?
        var componentIDs: [String]
        var purchased: Day?
        var retired: Day?
        var reminders: [YAMLNode]
        var at: SourceLocation
    }

    package static func plan(_ sources: [ImportPlan.Source], bike: String?, garage: Garage) throws(WriteFailure) -> ImportPlan {
        if bike != nil {
            throw .usage("an Intervals.icu gear list names its own bikes: --bike is for a file of one vehicle's records (LubeLogger)")
        }
        var building = Building(plan: ImportPlan(format: "intervals-icu", files: sources.map(\.path)), garage: garage)
        for source in sources { try building.read(source) }
        building.findParents()
        // Bikes and gear first: their garage ids are what the components' mounts name.
        for r in building.records where !building.isComponent(r) { building.placeGear(r) }
        building.placeComponents()
        building.dropOrphans()
        // Reminders: intervals of the file of their gear or part.
        for r in building.records { building.placeReminders(of: r) }
        building.plan.sortFindings()
        return building.plan
    }

    /// The plan as it grows, and the garage ids the list's ids became.
    struct Building {
        var plan: ImportPlan
        let garage: Garage
        var records: [Record] = []
        /// What each component sits on: the first gear whose `component_ids` names it.
        var parentOf: [String: String] = [:]
        var ownerOf: [String: String] = [:]
        var partOf: [String: String] = [:]
        var placedParts = Set<String>()
        var taken: Set<String>
        var newIDs = Set<String>()

        init(plan: ImportPlan, garage: Garage) {
            self.plan = plan
            self.garage = garage
            taken = Set(garage.bikes.map(\.bike.id.rawValue))
            for p in garage.parts { taken.insert(p.part.id.rawValue) }
        }

        mutating func read(_ source: ImportPlan.Source) throws(WriteFailure) {
            let root = try openJSON(source, help: "give the gear list as Intervals.icu sends it (GET /api/v1/athlete/0/gear), or use --api")
            guard case .sequence(let list) = root else {
                throw .refused(
                    "'\(source.path)' is not an Intervals.icu gear list: it should be a JSON list of gear",
                    help: "give the gear list as Intervals.icu sends it (GET /api/v1/athlete/0/gear), or use --api")
            }
            for node in list.items {
                guard case .mapping(let item) = node, let id = scalarText(item["id"]), !id.isEmpty else {
                    plan.unplaced.append(.init(location: at(node, in: source), record: "gear", reason: "it is not a gear record with an id"))
                    continue
                }
                let name = string(item["name"]).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 } ?? id
                records.append(
                    Record(
                        id: id, type: string(item["type"]) ?? "", name: name, component: bool(item["component"]),
                        componentIDs: items(item["component_ids"]).compactMap { scalarText($0) },
                        purchased: date(item["purchased"]), retired: date(item["retired"]),
                        reminders: items(item["reminders"]), at: at(node, in: source)))
            }
        }

        mutating func findParents() {
            for r in records {
                for c in r.componentIDs {
                    if let first = parentOf[c] {
                        if first != r.id, let child = records.first(where: { $0.id == c }) {
                            plan.notes.append(
                                .init(
                                    location: child.at, record: "component '\(child.name)'",
                                    reason: "it is on '\(first)' and on '\(r.id)' too: mounted on the first only"))
                        }
                        continue
                    }
                    if c != r.id { parentOf[c] = r.id }
                }
            }
        }

        func isComponent(_ r: Record) -> Bool { r.component ?? (parentOf[r.id] != nil) }

        /// A bike or other gear: the garage's (gaining only dates it lacks and the Strava id), else new.
        mutating func placeGear(_ r: Record) {
            if notCycling.contains(r.type) {
                plan.unplaced.append(
                    .init(
                        location: r.at, record: "\(r.type) '\(r.name)'",
                        reason: "not cycling gear: bikecheck counts rides, and its wear comes from other sports"))
                return
            }
            let kind: String? =
                switch r.type {
                case "Bike": nil
                case "Shoes": "shoes"
                case "Trainer": "trainer"
                default: "other"
                }
            let strava = stravaGearID(r.id)
            let named = [r.id, r.name, StravaGearRules.slug(r.name)]
            if let b = garage.bikes.first(where: { strava != nil && $0.bike.gearIDs.contains(r.id) })
                ?? garage.bikes.first(where: { named.contains($0.bike.id.rawValue) || $0.bike.name == r.name })
            {
                let id = b.bike.id.rawValue
                ownerOf[r.id] = id
                plan.bikes.append(.init(id: id, name: b.bike.name, strava: strava, kind: kind, bought: r.purchased, retired: r.retired))
            } else {
                let id = unique(StravaGearRules.slug(r.name), sourceID: r.id, taken: &taken, new: &newIDs)
                ownerOf[r.id] = id
                plan.bikes.append(.init(id: id, name: r.name, strava: strava, kind: kind, bought: r.purchased, retired: r.retired))
            }
        }

        /// Components: a part of their own, mounted on their gear or their component.
        mutating func placeComponents() {
            let components = records.filter(isComponent)
            for r in components {
                if let p = garage.parts.first(where: { $0.part.id.rawValue == StravaGearRules.slug(r.name) || $0.part.name == r.name }) {
                    partOf[r.id] = p.part.id.rawValue
                } else {
                    partOf[r.id] = unique(StravaGearRules.slug(r.name), sourceID: r.id, taken: &taken, new: &newIDs)
                }
            }
            for r in components {
                guard let id = partOf[r.id] else { continue }
                var part = ImportPlan.Part(id: id, name: r.name, bought: r.purchased, retired: r.retired)
                if let parent = parentOf[r.id] {
                    let holder = records.first { $0.id == parent }
                    // Intervals.icu keeps no day a component went on: its purchase, else its gear's.
                    let from = r.purchased ?? holder?.purchased ?? Day(ordinal: Day.ordinal(year: 1970, month: 1, day: 1))
                    if let bikeID = ownerOf[parent] {
                        part.mounts = [ImportPlan.Mount(bike: bikeID, from: from, to: r.retired)]
                    } else if let partID = partOf[parent] {
                        part.mounts = [ImportPlan.Mount(part: partID, from: from, to: r.retired)]
                    } else {
                        plan.unplaced.append(
                            .init(
                                location: r.at, record: "component '\(r.name)'",
                                reason: holder.map { "it is on '\($0.name)', which is not imported" }
                                    ?? "it is on gear '\(parent)', which the list does not have"
                            ))
                        continue
                    }
                }
                plan.parts.append(part)
                placedParts.insert(r.id)
            }
        }

        /// A component on a component that is not imported has nowhere to be either.
        mutating func dropOrphans() {
            let components = records.filter(isComponent)
            var dropped = true
            while dropped {
                dropped = false
                let planned = Set(plan.parts.map(\.id))
                for (k, part) in plan.parts.enumerated().reversed() {
                    guard case .part(let holder)? = part.mounts.first?.on, !planned.contains(holder), garage.part(PartID(holder)) == nil,
                        let r = components.first(where: { partOf[$0.id] == part.id })
                    else { continue }
                    plan.parts.remove(at: k)
                    placedParts.remove(r.id)
                    plan.unplaced.append(
                        .init(location: r.at, record: "component '\(r.name)'", reason: "it is on component '\(holder)', which is not imported"))
                    dropped = true
                }
            }
        }

        /// A record's reminders: intervals of its gear's or part's file, a `last_reset` a log entry.
        mutating func placeReminders(of r: Record) {
            guard let owner = ownerOf[r.id] ?? (placedParts.contains(r.id) ? partOf[r.id] : nil) else { return }
            var used = Set<String>()
            for node in r.reminders {
                guard case .mapping(let reminder) = node else { continue }
                let at = SourceLocation(file: r.at.file, range: node.range)
                let name = string(reminder["name"])?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                let shown = name.isEmpty ? "a reminder of '\(r.name)'" : "reminder '\(name)'"
                var every: [String] = []
                // The API's own names; the `_alert` spellings of some clients are read too.
                if let m = positive(reminder, "distance", "distance_alert") { every.append("\(number(m / 1000)) km") }
                if let s = positive(reminder, "time", "time_alert") { every.append("\(number(s / 3600)) h") }
                if let d = positive(reminder, "days", "days_alert") { every.append("\(number(d)) days") }
                if let n = positive(reminder, "activities", "activities_alert") { every.append("\(number(n)) rides") }
                guard !every.isEmpty else {
                    plan.unplaced.append(.init(location: at, record: shown, reason: "it has no distance, time, days or activities to repeat by"))
                    continue
                }
                var id = StravaGearRules.slug(name.isEmpty ? "reminder" : name)
                if used.contains(id), let n = scalarText(reminder["id"]) { id += "-" + StravaGearRules.slug(n) }
                while used.contains(id) { id += "-2" }
                used.insert(id)
                plan.intervals.append(.init(owner: owner, id: id, task: name.isEmpty ? nil : name, every: every))
                if let reset = date(reminder["last_reset"]) {
                    let note = "\(name.isEmpty ? id : name): reset in Intervals.icu"
                    plan.log.append(.init(owner: owner, date: reset, done: [id], note: note, key: note))
                }
            }
        }
    }

    /// A Strava gear id: `b` (a bike) or `g` (shoes) and digits.
    static func stravaGearID(_ id: String) -> String? {
        guard let first = id.first, first == "b" || first == "g", id.count > 1, id.dropFirst().allSatisfy(\.isASCII), id.dropFirst().allSatisfy(\.isNumber)
        else { return nil }
        return id
    }

    /// A new file's id: the name's slug, else with the source's id when another record took it.
    static func unique(_ base: String, sourceID: String, taken: inout Set<String>, new: inout Set<String>) -> String {
        var id = base
        if taken.contains(id) || new.contains(id) { id = base + "-" + StravaGearRules.slug(sourceID) }
        while taken.contains(id) || new.contains(id) { id += "-2" }
        new.insert(id)
        return id
    }

    /// A day from `2024-05-01` or a date-time (`2024-05-01T00:00:00`): its date.
    static func date(_ value: YAMLNode?) -> Day? {
        guard let text = string(value), text.count >= 10 else { return nil }
        return day(text)
    }

    /// A JSON string (a quoted scalar); nil for a number, null, a list or an object.
    static func string(_ value: YAMLNode?) -> String? {
        guard case .scalar(let s)? = value, s.style != .plain else { return nil }
        return s.value
    }

    /// A JSON `true` or `false`.
    static func bool(_ value: YAMLNode?) -> Bool? {
        guard case .scalar(let s)? = value, s.style == .plain else { return nil }
        return s.value == "true" ? true : s.value == "false" ? false : nil
    }

    /// A string, or a number written as one (an id may be either).
    static func scalarText(_ value: YAMLNode?) -> String? {
        if let s = string(value) { return s }
        guard let n = number(value), n == n.rounded(), abs(n) < 1e15 else { return nil }
        return String(Int64(n))
    }

    /// The first of `keys` with a number above zero (the API sends 0 for a limit not set).
    static func positive(_ reminder: YAMLMapping, _ keys: String...) -> Double? {
        for key in keys {
            if let n = number(reminder[key]), n > 0 { return n }
        }
        return nil
    }

    /// At most three decimals, no trailing zeros: `5000`, `1.5`, `0.333`.
    static func number(_ v: Double) -> String {
        let rounded = (v * 1000).rounded() / 1000
        if rounded == rounded.rounded() && abs(rounded) < 1e15 { return String(Int64(rounded)) }
        var text = String(format: "%.3f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
