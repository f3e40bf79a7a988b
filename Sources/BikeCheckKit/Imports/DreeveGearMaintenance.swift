import Diagnostics
import Foundation
import LocatedYAML

/// statistics-for-strava's (Dreeve's) gear maintenance configuration (`gear-maintenance.yaml`,
/// robiningelbrecht/statistics-for-strava's `GearMaintenanceConfig`) as an import plan: each
/// component a part of its tag's id with its purchase price and a mount on the gear it is
/// attached to (Strava gear ids: the garage's bike with that `strava:`, else a new bike for a
/// `b…` id), each maintenance task an interval of the part (`every: 500 km`). The file holds no
/// history: statistics-for-strava reads that from hashtags in the Strava activities' titles.
package enum DreeveGearMaintenance: TrackerJSONReader {
    /// `interval.unit` as statistics-for-strava's `IntervalUnit` names it → the garage's unit.
    static let units = ["km": "km", "mi": "mi", "hours": "h", "days": "days"]

    package static func plan(_ sources: [ImportPlan.Source], bike: String?, garage: Garage) throws(WriteFailure) -> ImportPlan {
        if bike != nil { throw .usage("a gear maintenance file names its gear: --bike is for a file of one vehicle's records (LubeLogger)") }
        var building = Building(plan: ImportPlan(format: "dreeve", files: sources.map(\.path)), garage: garage)
        for source in sources {
            let components = try components(source)
            building.source = source
            for item in components.items { building.placeComponent(item) }
        }
        building.plan.sortFindings()
        return building.plan
    }

    /// The list of components: of the file itself, or of a config that holds it under
    /// `gearMaintenance:` (or `gear: maintenance:`).
    static func components(_ source: ImportPlan.Source) throws(WriteFailure) -> YAMLSequence {
        let doc = YAMLDocument(path: source.path, bytes: source.bytes, limits: .garage)
        guard doc.isUsable, let root = doc.root else {
            throw WriteFailure(.refused, "cannot read '\(source.path)' as YAML", diagnostics: doc.diagnostics, sources: [source.path: doc.source])
        }
        var section: YAMLMapping?
        if case .mapping(let top) = root {
            if top["components"] != nil {
                section = top
            } else if case .mapping(let m)? = top["gearMaintenance"] ?? top["gear-maintenance"] {
                section = m
            } else if case .mapping(let gear)? = top["gear"], case .mapping(let m)? = gear["maintenance"] {
                section = m
            }
        }
        guard let config = section, case .sequence(let components)? = config["components"] else {
            throw .refused(
                "'\(source.path)' is not a statistics-for-strava gear maintenance file: it should have a list of components",
                help: "give the gear-maintenance.yaml of statistics-for-strava's config folder")
        }
        return components
    }

    /// The plan as it grows, component by component.
    struct Building {
        var plan: ImportPlan
        let garage: Garage
        var source = ImportPlan.Source(path: "", bytes: [])
        var partIDs = Set<String>()
        var bikeOf: [String: String] = [:]

        init(plan: ImportPlan, garage: Garage) {
            self.plan = plan
            self.garage = garage
        }

        mutating func skip(_ node: YAMLNode, _ record: String, _ reason: String) {
            plan.unplaced.append(.init(location: DreeveGearMaintenance.at(node, in: source), record: record, reason: reason))
        }

        /// A component: a part of its tag's id, its price, a mount and its tasks as intervals.
        mutating func placeComponent(_ item: YAMLNode) {
            guard case .mapping(let c) = item, let tag = text(c["tag"]) else { return skip(item, "component", "should have a tag") }
            let id = StravaGearRules.slug(tag)
            guard !partIDs.contains(id) else { return skip(c["tag"] ?? item, "component '\(tag)'", "another component has the tag '\(id)' already") }
            partIDs.insert(id)
            var part = ImportPlan.Part(id: id, name: text(c["label"]) ?? tag)
            if case .mapping(let price)? = c["purchasePrice"] {
                let cents = text(price["amountInCents"]) ?? ""
                if let n = Int(cents), n >= 0, let currency = text(price["currency"]),
                    let written = amount(euros(n), currency: currency, garage: garage)
                {
                    part.price = written
                } else {
                    skip(c["purchasePrice"] ?? item, "component '\(tag)'", "purchasePrice should be amountInCents (a whole number) and a currency code")
                }
            }
            mount(&part, on: items(c["attachedTo"]), tag: tag)
            plan.parts.append(part)
            for t in items(c["maintenance"]) { placeTask(t, of: id, tag: tag) }
        }

        /// On the first gear it names; a part sits on one bike at a time.
        mutating func mount(_ part: inout ImportPlan.Part, on gears: [YAMLNode], tag: String) {
            for gearNode in gears {
                guard let gear = text(gearNode) else { continue }
                guard let holder = bikeOf[gear] ?? DreeveGearMaintenance.bikeID(for: gear, garage: garage, plan: &plan) else {
                    skip(
                        gearNode, "component '\(tag)' on '\(gear)'",
                        "no bike in the garage has this Strava gear id, id or name, and it is not a bike's Strava gear id (b…) to add one by")
                    continue
                }
                bikeOf[gear] = holder
                guard part.mounts.isEmpty else {
                    skip(
                        gearNode, "component '\(tag)' on '\(gear)'",
                        "a part sits on one bike at a time: mounted on '\(part.mounts[0].bike ?? "")' only; add a dated mount by hand for when it moved")
                    continue
                }
                // statistics-for-strava counts every activity of the gear: from the start of time.
                part.mounts = [.init(bike: holder, from: Day(ordinal: 0))]
            }
        }

        /// A maintenance task: an interval of the part (`every: 500 km`).
        mutating func placeTask(_ t: YAMLNode, of id: String, tag: String) {
            guard case .mapping(let task) = t, let taskTag = text(task["tag"]) else { return skip(t, "maintenance task of '\(tag)'", "should have a tag") }
            let label = text(task["label"]) ?? taskTag
            guard case .mapping(let interval)? = task["interval"], let value = text(interval["value"]), let unit = text(interval["unit"]) else {
                return skip(t, "task '\(label)' of '\(tag)'", "should have an interval with a value and a unit")
            }
            guard let garageUnit = units[unit] else {
                return skip(interval["unit"] ?? t, "task '\(label)' of '\(tag)'", "unit '\(unit)' is not one of statistics-for-strava's: km, mi, hours, days")
            }
            guard let v = Double(value), v > 0, v.isFinite else {
                return skip(interval["value"] ?? t, "task '\(label)' of '\(tag)'", "interval value '\(value)' is not a number above 0")
            }
            let intervalID = StravaGearRules.slug(taskTag)
            guard !plan.intervals.contains(where: { $0.owner == id && $0.id == intervalID }) else {
                return skip(task["tag"] ?? t, "task '\(label)' of '\(tag)'", "another task of the component has the tag '\(intervalID)'")
            }
            plan.intervals.append(.init(owner: id, id: intervalID, task: label, every: ["\(ImportPlanWriter.number(v)) \(garageUnit)"]))
        }
    }

    /// The garage's bike of a Strava gear id (by its `strava:`, else its id or name), or a new one
    /// for a bike's gear id (`b…`); nil for anything else.
    static func bikeID(for gear: String, garage: Garage, plan: inout ImportPlan) -> String? {
        if let b = garage.bikes.first(where: { $0.bike.gearIDs.contains(gear) })
            ?? garage.bikes.first(where: { $0.bike.id.rawValue == gear || $0.bike.name == gear })
        {
            return b.bike.id.rawValue
        }
        guard gear.first == "b", gear.count > 1, gear.dropFirst().allSatisfy(\.isNumber) else { return nil }
        plan.bikes.append(.init(id: gear, name: gear, strava: gear))
        return gear
    }

    /// Cents as an amount: 4599 → `45.99`.
    static func euros(_ cents: Int) -> String { String(format: "%d.%02d", cents / 100, cents % 100) }
}
