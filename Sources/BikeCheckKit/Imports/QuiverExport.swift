import Diagnostics
import Foundation
import LocatedYAML

/// Quiver's garage export (`"format": "quiver-garage"`, version 4: one JSON file of bikes with
/// their components, reminders and service log nested inline, setups and component assignments
/// at the top) as an import plan.
///
/// A bike is the garage's bike of its name (or of the id its name makes), else a new one; a
/// component a part of id `BIKE-NAME` (`grail-kmc-x11`) with a mount per assignment stint (a
/// stint in a setup other than the bike's default holds for rides tagged with the setup's name);
/// a reminder an interval of its bike or part; a service log entry a log entry of the part it
/// names (else of its bike), `done:` the reminder it names, with its cost. A log entry is the same
/// record on a second import when its owner's log has an entry of its day, `done:` and cost whose
/// note starts with the entry's notes. The JSON is read by the YAML reader (JSON is YAML's flow
/// style), so every record has its line and column.
package enum QuiverExport: TrackerJSONReader {
    /// The newest version of the format this reader knows; Quiver itself rejects newer files.
    static let version = 4

    package static func plan(_ sources: [ImportPlan.Source], bike: String?, garage: Garage) throws(WriteFailure) -> ImportPlan {
        if bike != nil { throw .usage("a Quiver export names its bikes: --bike is for a file of one vehicle's records (LubeLogger)") }
        var building = Building(plan: ImportPlan(format: "quiver", files: sources.map(\.path)), garage: garage)
        for source in sources {
            let root = try openJSON(source)
            guard case .mapping(let top) = root, text(top["format"]) == "quiver-garage" else {
                throw .refused(
                    "'\(source.path)' is not a Quiver garage export: it should be a JSON object with \"format\": \"quiver-garage\"",
                    help: "export it from Quiver's Settings → Export garage")
            }
            guard let v = text(top["version"]).flatMap({ Int($0) }), v >= 1, v <= version else {
                throw .refused(
                    "'\(source.path)' is a quiver-garage export of version \(text(top["version"]) ?? "none"): this bikecheck reads versions 1 to \(version)",
                    help: "export it again from a Quiver that writes version \(version)")
            }
            guard case .sequence(let bikes)? = top["bikes"] else {
                throw .refused("'\(source.path)' has no \"bikes\" list: a Quiver garage export has one")
            }
            building.read(source, root: root, top: top, bikes: bikes)
        }
        building.plan.sortFindings()
        return building.plan
    }

    /// The plan as it grows, file by file, and the garage ids the export's ids became.
    struct Building {
        var plan: ImportPlan
        let garage: Garage
        var taken: [String: String] = [:]  // garage bike id → Quiver bike id
        var partIDs = Set<String>()
        // Of the file being read:
        var source = ImportPlan.Source(path: "", bytes: [])
        var setupTag: [String: String] = [:]  // setup id → tag, for setups not their bike's default
        var stintNodes: [String: [YAMLNode]] = [:]  // Quiver component id → its assignments
        var bikeOf: [String: String] = [:]  // Quiver bike id → garage bike id
        var partOf: [String: String] = [:]  // Quiver component id → part id
        var intervalOf: [String: (owner: String, id: String)] = [:]  // Quiver reminder id → interval
        var serviceLogs: [(bike: String, node: YAMLNode)] = []

        init(plan: ImportPlan, garage: Garage) {
            self.plan = plan
            self.garage = garage
        }

        func at(_ node: YAMLNode) -> SourceLocation { QuiverExport.at(node, in: source) }
        mutating func skip(_ node: YAMLNode, _ record: String, _ reason: String) {
            plan.unplaced.append(.init(location: at(node), record: record, reason: reason))
        }
        mutating func note(_ node: YAMLNode, _ record: String, _ reason: String) {
            plan.notes.append(.init(location: at(node), record: record, reason: reason))
        }

        mutating func read(_ source: ImportPlan.Source, root: YAMLNode, top: YAMLMapping, bikes: YAMLSequence) {
            self.source = source
            (setupTag, stintNodes, bikeOf, partOf, intervalOf, serviceLogs) = ([:], [:], [:], [:], [:], [])
            // Setups: a stint in one that is not its bike's default holds for rides tagged so.
            for case .mapping(let s) in items(top["setups"]) {
                guard let id = text(s["id"]), let name = text(s["name"]) else { continue }
                if text(s["is_default"]) != "1" && text(s["is_default"]) != "true" { setupTag[id] = StravaGearRules.slug(name) }
            }
            // Assignments by component.
            for item in items(top["componentAssignments"]) {
                guard case .mapping(let a) = item, let component = text(a["component_id"]) else {
                    skip(item, "component assignment", "should name its component_id")
                    continue
                }
                stintNodes[component, default: []].append(item)
            }
            // Bikes first: an assignment may name any of them.
            for item in bikes.items { placeBike(item) }
            for item in bikes.items {
                guard case .mapping(let b) = item, let qid = text(b["id"]), let bikeID = bikeOf[qid] else { continue }
                let bikeBought = text(b["purchased_at"]).flatMap(day)
                for r in items(b["reminders"]) { reminder(r, owner: bikeID) }
                for c in items(b["components"]) { placeComponent(c, bike: bikeID, bikeBought: bikeBought) }
                for s in items(b["service_log"]) { serviceLogs.append((bikeID, s)) }
            }
            for (bikeID, node) in serviceLogs { logEntry(node, bike: bikeID) }

            // What a garage has no place for: one line each.
            if !items(top["rides"]).isEmpty {
                note(
                    top["rides"] ?? root, "\(items(top["rides"]).count) rides",
                    "left out: a garage counts the rides sync brings from Strava, or rides.yaml's")
            }
            if !items(top["entityAttachments"]).isEmpty {
                note(
                    top["entityAttachments"] ?? root, "\(items(top["entityAttachments"]).count) attachments",
                    "left out: a garage keeps no photos or documents")
            }
        }

        /// A reminder as an interval of `owner`: its id from its title.
        mutating func reminder(_ node: YAMLNode, owner: String) {
            guard case .mapping(let r) = node, let title = text(r["title"]) else {
                return skip(node, "reminder", "should have a title")
            }
            var every: [String] = []
            for (key, unit) in [("every_km", "km"), ("every_hours", "h"), ("every_days", "days"), ("every_months", "months")] {
                guard let t = text(r[key]) else { continue }
                guard let v = Double(t), v > 0, v.isFinite else {
                    return skip(r[key] ?? node, "reminder '\(title)'", "\(key) '\(t)' is not a number above 0")
                }
                every.append("\(ImportPlanWriter.number(v)) \(unit)")
            }
            guard !every.isEmpty else {
                return skip(node, "reminder '\(title)'", "has no every_km, every_hours, every_days or every_months: nothing to count")
            }
            var id = StravaGearRules.slug(title)
            var n = 2
            while plan.intervals.contains(where: { $0.owner == owner && $0.id == id }) {
                id = "\(StravaGearRules.slug(title))-\(n)"
                n += 1
            }
            plan.intervals.append(.init(owner: owner, id: id, task: title, every: every))
            if let rid = text(r["id"]) { intervalOf[rid] = (owner, id) }
        }

        /// A bike: the garage's bike of its name (or of the id its name makes), else a new one.
        mutating func placeBike(_ item: YAMLNode) {
            guard case .mapping(let b) = item, let qid = text(b["id"]), let name = text(b["name"]) else {
                return skip(item, "bike", "should have an id and a name")
            }
            let slug = StravaGearRules.slug(name)
            let id = garage.bikes.first { $0.bike.name == name || $0.bike.id.rawValue == slug }?.bike.id.rawValue ?? slug
            if let other = taken[id], other != qid {
                return skip(item, "bike '\(name)'", "another bike of the export is the garage's bike '\(id)' already; rename one in Quiver")
            }
            taken[id] = qid
            bikeOf[qid] = id
            var new = ImportPlan.Bike(id: id, name: name)
            if let bought = text(b["purchased_at"]) {
                if let d = day(bought) {
                    new.bought = d
                } else {
                    skip(b["purchased_at"] ?? item, "bike '\(name)'", "purchased_at '\(bought)' is not a date")
                }
            }
            plan.bikes.append(new)
            if text(b["archived"]) == "true" || text(b["archived"]) == "1" {
                note(
                    b["archived"] ?? item, "bike '\(name)'",
                    "archived in Quiver: a garage retires a bike on a day (retired:), which the export does not give; set it by hand")
            }
            if let km = text(b["starting_km"]).flatMap(Double.init), km > 0 {
                note(
                    b["starting_km"] ?? item, "bike '\(name)'",
                    "starting_km \(text(b["starting_km"]) ?? ""): a garage counts a bike's rides, not an odometer; left out")
            }
        }

        /// A component: a part of id `BIKE-NAME`, with its mounts and reminders.
        mutating func placeComponent(_ c: YAMLNode, bike bikeID: String, bikeBought: Day?) {
            guard case .mapping(let m) = c, let cid = text(m["id"]), let name = text(m["name"]) else {
                var shown = "component"
                if case .mapping(let m) = c, let cid = text(m["id"]) { shown += " '\(cid)'" }
                return skip(c, shown, "should have an id and a name")
            }
            let installed = text(m["installed_at"]).flatMap(day)
            var id = "\(bikeID)-\(StravaGearRules.slug(name))"
            if partIDs.contains(id), let installed { id += "-\(installed)" }
            guard !partIDs.contains(id) else {
                return skip(c, "component '\(name)'", "another component of bike '\(bikeID)' has its name and install day: no id to tell them apart")
            }
            partIDs.insert(id)
            partOf[cid] = id
            var part = ImportPlan.Part(id: id, name: name)
            part.retired = text(m["retired_at"]).flatMap(day)
            if let km = text(m["starting_km"]).flatMap(Double.init), km > 0 { part.kilometres = km }
            if let h = text(m["starting_hours"]).flatMap(Double.init), h > 0 { part.hours = h }
            if let price = text(m["price"]) {
                if let p = amount(price, currency: text(m["currency"]), garage: garage) {
                    part.price = p
                } else {
                    skip(m["price"] ?? c, "component '\(name)'", "price '\(price)' is not an amount; the rest of it is imported")
                }
            }
            // Its stints, else one from its install day (or its bike's purchase) on its bike.
            let list = stints(of: cid, name: name)
            if !list.isEmpty {
                part.mounts = list.sorted { $0.from < $1.from }.map { .init(bike: $0.bike, from: $0.from, to: $0.to, tag: $0.tag) }
                for s in list where s.tag != nil {
                    note(s.node, "assignment of '\(name)'", "in setup '\(s.tag ?? "")': mounted for rides with #\(s.tag ?? "") in their name")
                }
            } else if let from = installed ?? bikeBought {
                part.mounts = [.init(bike: bikeID, from: from, to: part.retired)]
            } else {
                note(c, "component '\(name)'", "has no installed_at and its bike no purchased_at: written unmounted")
            }
            plan.parts.append(part)
            for r in items(m["reminders"]) { reminder(r, owner: id) }
        }

        /// A component's assignments as stints on bikes (in a setup: for rides tagged so).
        mutating func stints(of cid: String, name: String) -> [(from: Day, to: Day?, tag: String?, bike: String, node: YAMLNode)] {
            var stints: [(from: Day, to: Day?, tag: String?, bike: String, node: YAMLNode)] = []
            for s in stintNodes[cid] ?? [] {
                guard case .mapping(let a) = s, let from = text(a["installed_at"]).flatMap(day) else {
                    skip(s, "assignment of '\(name)'", "has no installed_at date")
                    continue
                }
                guard let on = text(a["bike_id"]).flatMap({ bikeOf[$0] }) else {
                    skip(s, "assignment of '\(name)'", "names no bike of the export")
                    continue
                }
                let removed = text(a["removed_at"]).flatMap(day)
                let tag = text(a["setup_id"]).flatMap { setupTag[$0] }
                stints.append((from, removed.map { max(from, $0.adding(days: -1)) }, tag, on, s))
            }
            return stints
        }

        /// A service log entry: a log entry of the part it names (else of its bike), `done:` the
        /// reminder it names, with its cost.
        mutating func logEntry(_ node: YAMLNode, bike bikeID: String) {
            guard case .mapping(let e) = node else { return skip(node, "service log entry", "should be an object") }
            let action = text(e["action"])?.lowercased()
            let notes = text(e["notes"]) ?? ""
            let shown = notes.isEmpty ? "service log entry \(text(e["id"]) ?? "")" : "'\(notes)'"
            guard let dateText = text(e["date"]), let date = day(dateText) else {
                return skip(e["date"] ?? node, shown, "date '\(text(e["date"]) ?? "")' is not a date (YYYY-MM-DD)")
            }
            var owner = bikeID
            if let cid = text(e["component_id"]) {
                guard let part = partOf[cid] else { return skip(e["component_id"] ?? node, shown, "names component '\(cid)', which the export does not have") }
                owner = part
            }
            var done: [String] = []
            if let rid = text(e["reminder_id"]) {
                guard let interval = intervalOf[rid] else {
                    return skip(e["reminder_id"] ?? node, shown, "names reminder '\(rid)', which the export does not have")
                }
                owner = interval.owner
                done = [interval.id]
            }
            var cost: Decimal?
            var costText: String?
            if let c = text(e["cost"]) {
                guard case .success(let a) = Money.parseAmount(c[...]), let written = amount(c, currency: text(e["currency"]), garage: garage) else {
                    return skip(e["cost"] ?? node, shown, "cost '\(c)' is not an amount")
                }
                cost = a
                costText = written
            }
            guard !notes.isEmpty || action != nil || !done.isEmpty else { return skip(node, shown, "has no notes, action or reminder to note") }
            var note = notes.isEmpty ? (action ?? "service") : notes
            if let km = text(e["km"]), Double(km).map({ $0 > 0 }) == true { note += " at \(km) km" }
            plan.log.append(
                .init(
                    owner: owner, date: date, done: done, cost: cost, costText: costText, category: action, note: note,
                    key: notes.isEmpty ? (action ?? "service") : notes))
        }
    }
}
