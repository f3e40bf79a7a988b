import Foundation
import LocatedYAML

/// Applies an import plan to the garage, changing only what it must: a bike, gear or part the
/// garage lacks gets a new file with everything the plan has for it; one it has gets the keys,
/// mounts, intervals and log entries it lacks, and nothing it has is changed. A mount is the same
/// when what it is on, its `from` and its tag are; an interval when its id is; a log entry when
/// its day, `done:` and cost are and its note starts with the record's key. So importing the same
/// file again changes nothing, and hand edits made since survive.
package enum ImportPlanWriter {
    package static func change(_ plan: ImportPlan, in context: WriteContext) throws(WriteFailure) -> GarageChange {
        var files: [FileChange] = []
        var summary: [String] = []
        var tally = Tally()
        var created = Set<String>()
        for bike in plan.bikes where context.bikeFile(bike.id) == nil && context.garage.bike(BikeID(bike.id)) == nil && !created.contains(bike.id) {
            let file = try newFile(bike, plan)
            files.append(file)
            created.insert(bike.id)
            if bike.kind == nil { tally.bikes += 1 } else { tally.gear += 1 }
            tally.count(plan, owner: bike.id)
            summary.append("added \(bike.kind ?? "bike") '\(bike.id)' (\(bike.name))\(contents(plan, bike.id)) in \(file.path)")
        }
        for part in plan.parts where context.partFile(part.id) == nil && !created.contains(part.id) {
            let file = try newFile(part, plan)
            files.append(file)
            created.insert(part.id)
            tally.parts += 1
            tally.mounts += part.mounts.count
            tally.count(plan, owner: part.id)
            let mounts = part.mounts.isEmpty ? ", on no bike," : " with \(part.mounts.count) mount\(part.mounts.count == 1 ? "" : "s")"
            summary.append("added part '\(part.id)' (\(part.name))\(mounts)\(contents(plan, part.id)) in \(file.path)")
        }
        // What the garage's own files lack, file by file in the plan's order.
        var owners: [String] = []
        for id in plan.bikes.map(\.id) + plan.components.map(\.bike) + plan.parts.map(\.id) + plan.intervals.map(\.owner) + plan.log.map(\.owner)
        where !created.contains(id) && !owners.contains(id) {
            owners.append(id)
        }
        for owner in owners {
            guard let (file, added) = try amend(owner, plan, in: context) else { continue }
            files.append(file)
            tally.add(added)
            summary.append("\(added.what) '\(owner)': \(added.description) added (\(file.path))")
        }
        let source = plan.files.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")
        if files.isEmpty {
            let placed = plan.unplaced.isEmpty ? "the garage has it all" : "the garage has all that could be placed"
            summary = ["nothing to import from \(plan.format) \(source): \(placed)"]
        }
        return context.change(files: files, message: "import \(plan.format) \(source): \(tally)", summary: summary)
    }

    // MARK: - New files

    /// A bike's or gear's file, with its intervals and log.
    static func newFile(_ bike: ImportPlan.Bike, _ plan: ImportPlan) throws(WriteFailure) -> FileChange {
        var pairs = [YAMLPair("name", .text(bike.name))]
        if let kind = bike.kind { pairs.append(YAMLPair("kind", .plain(kind))) }
        if let strava = bike.strava { pairs.append(YAMLPair("strava", .text(strava))) }
        pairs += purchase(bought: bike.bought, retired: bike.retired, price: bike.price)
        pairs += owned(bike.id, plan)
        let folder = bike.kind == nil ? "bikes" : "gear"
        return try render(pairs, kind: bike.kind == nil ? "bike" : "gear", path: "\(folder)/\(bike.id).yaml", id: bike.id)
    }

    /// A part's file, with its usage before tracking, intervals, mounts and log.
    static func newFile(_ part: ImportPlan.Part, _ plan: ImportPlan) throws(WriteFailure) -> FileChange {
        var pairs = [YAMLPair("name", .text(part.name))]
        pairs += purchase(bought: part.bought, retired: part.retired, price: part.price)
        if let slot = part.slot { pairs.append(YAMLPair("slot", .plain(slot))) }
        if let km = part.kilometres, km > 0 { pairs.append(YAMLPair("distance", .plain("\(number(km)) km"))) }
        if let h = part.hours, h > 0 { pairs.append(YAMLPair("hours", .plain(number(h)))) }
        var rest = owned(part.id, plan)
        if !part.mounts.isEmpty {
            // Mounts before the log, as the demo's parts have them.
            let at = rest.firstIndex { $0.key == "log" } ?? rest.count
            rest.insert(YAMLPair("mounts", .list(part.mounts.map(entry))), at: at)
        }
        return try render(pairs + rest, kind: "part", path: "parts/\(part.id).yaml", id: part.id)
    }

    static func render(_ pairs: [YAMLPair], kind: String, path: String, id: String) throws(WriteFailure) -> FileChange {
        do {
            return FileChange(path: path, before: nil, after: try YAMLEditor.render(pairs, header: modeline(kind, depth: 1)))
        } catch {
            throw .refused("cannot write \(kind) '\(id)' as YAML")
        }
    }

    static func purchase(bought: Day?, retired: Day?, price: String?) -> [YAMLPair] {
        var pairs: [YAMLPair] = []
        if let bought { pairs.append(YAMLPair("bought", .plain(bought.description))) }
        if let retired { pairs.append(YAMLPair("retired", .plain(retired.description))) }
        if let price { pairs.append(YAMLPair("price", .plain(price))) }
        return pairs
    }

    /// `intervals:` and `log:` of a new file: what the plan has for this owner.
    static func owned(_ owner: String, _ plan: ImportPlan) -> [YAMLPair] {
        var pairs: [YAMLPair] = []
        let components = plan.components.filter { $0.bike == owner }
        if !components.isEmpty { pairs.append(YAMLPair("components", .mapping(components.map { YAMLPair($0.role, value($0)) }))) }
        let intervals = plan.intervals.filter { $0.owner == owner }
        if !intervals.isEmpty { pairs.append(YAMLPair("intervals", .mapping(intervals.map { YAMLPair($0.id, value($0)) }))) }
        let style = EntryStyle(nil, defaultOrder: logOrder)
        let log = plan.log.enumerated().filter { $0.element.owner == owner }.sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }
        if !log.isEmpty { pairs.append(YAMLPair("log", .list(log.map { style.entry(fields($0.element, style)) }))) }
        return pairs
    }

    // MARK: - Files the garage has

    /// One of the garage's files an import amends: what it has, and the keys the plan gives it.
    struct Target {
        var path: String
        var what: String
        var log: [LogEntry]
        /// The mounts it has (`Mount.key`'s form).
        var mountKeys = Set<String>()
        var keys: [(key: String, value: YAMLValue)] = []
        /// The order of its top-level keys, for where a new one goes.
        var order: [String]
    }

    static func target(_ owner: String, _ plan: ImportPlan, in context: WriteContext) throws(WriteFailure) -> Target {
        if let file = context.bikeFile(owner), let bike = context.garage.bike(BikeID(owner))?.bike {
            var target = Target(
                path: file, what: bike.noun, log: bike.log,
                order: ["name", "kind", "rider", "strava", "devices", "bought", "retired", "price", "templates", "counts", "trainer", "components"])
            if let b = plan.bikes.first(where: { $0.id == owner }) {
                if let strava = b.strava { target.keys.append(("strava", .text(strava))) }
                target.keys += purchase(bought: b.bought, retired: b.retired, price: b.price).map { ($0.key, $0.value) }
            }
            return target
        }
        guard let file = context.partFile(owner), let part = context.garage.part(PartID(owner))?.part else {
            throw WriteFailure(context.garage.noBike(owner))
        }
        var target = Target(
            path: file, what: "part", log: part.log,
            order: ["name", "rider", "bought", "retired", "price", "slot", "devices", "distance", "hours", "rides", "counts", "trainer", "templates"])
        target.mountKeys = Set(part.mounts.filter(\.via.isEmpty).map { "bike|\($0.bike.value)|\($0.from)|\($0.tag ?? "")" })
        target.mountKeys.formUnion(part.partMounts.map { "part|\($0.parent.value)|\($0.from)|" })
        if let p = plan.parts.first(where: { $0.id == owner }) {
            target.keys += purchase(bought: p.bought, retired: p.retired, price: p.price).map { ($0.key, $0.value) }
            if let slot = p.slot { target.keys.append(("slot", .plain(slot))) }
            if let km = p.kilometres, km > 0 { target.keys.append(("distance", .plain("\(number(km)) km"))) }
            if let h = p.hours, h > 0 { target.keys.append(("hours", .plain(number(h)))) }
        }
        return target
    }

    /// A file's bytes as edits change them, one edit at a time on the file as the one before left it.
    struct Amending {
        let path: String
        let order: [String]
        let context: WriteContext
        var bytes: [UInt8]

        /// One edit on the file as it is now.
        mutating func apply(_ make: (YAMLMapping) throws(WriteFailure) -> YAMLEdit?) throws(WriteFailure) {
            let doc = YAMLDocument(path: path, bytes: bytes, limits: .garage)
            guard case .mapping(let root)? = doc.root else { throw .refused("'\(path)' is not a mapping") }
            guard let edit = try make(root) else { return }
            bytes = try context.edit(path, doc, [edit])
        }

        /// Where a new top-level key goes: after the nearest key before it in the file's order.
        func after(_ key: String) -> [String] { Array((order.firstIndex(of: key).map { order[..<$0] } ?? order[...]).reversed()) }

        /// `key: value` into the top-level mapping `list` (`intervals:`, `components:`) unless it
        /// has the key; false when it has.
        mutating func addEntry(_ key: String, _ value: YAMLValue, to list: String) throws(WriteFailure) -> Bool {
            var wrote = false
            let after = after(list), path = path
            try apply { root throws(WriteFailure) in
                let entry = YAMLValue.mapping([YAMLPair(key, value)])
                switch root[list] {
                case nil:
                    wrote = true
                    return .addKey(list, entry, in: [], after: after)
                case .mapping(let m)? where !m.isFlow || m.entries.isEmpty:
                    guard m[key] == nil else { return nil }
                    wrote = true
                    return m.entries.isEmpty ? .set([.key(list)], entry) : .addKey(key, value, in: [.key(list)])
                case .scalar(let s)? where s.isNull:
                    wrote = true
                    return .set([.key(list)], entry)
                default:
                    throw .refused("cannot add '\(key)' to \(list): in '\(path)': it is not a block mapping", help: "write it as one")
                }
            }
            return wrote
        }
    }

    /// What one of the garage's files gains: its missing keys, mounts, intervals and log entries,
    /// each edit on the file as the one before left it. nil when it lacks nothing.
    static func amend(_ owner: String, _ plan: ImportPlan, in context: WriteContext) throws(WriteFailure) -> (FileChange, Added)? {
        var target = try target(owner, plan, in: context)
        var added = Added()
        added.what = target.what
        try context.requireClean(target.path)
        guard let original = context.read(target.path) else { throw .refused("cannot read '\(target.path)'") }
        var file = Amending(path: target.path, order: target.order, context: context, bytes: original)
        for (key, value) in target.keys {
            let after = file.after(key)
            try file.apply { root in
                guard root[key] == nil else { return nil }
                added.keys += 1
                return .addKey(key, value, in: [], after: after)
            }
        }
        for m in plan.parts.first(where: { $0.id == owner })?.mounts ?? [] where !target.mountKeys.contains(m.key) {
            target.mountKeys.insert(m.key)
            try file.apply { root in .appendOrCreate(entry(m), list: "mounts", current: root["mounts"]) }
            added.mounts += 1
        }
        for c in plan.components where c.bike == owner {
            if try file.addEntry(c.role, value(c), to: "components") { added.components += 1 }
        }
        for interval in plan.intervals where interval.owner == owner {
            if try file.addEntry(interval.id, value(interval), to: "intervals") { added.intervals += 1 }
        }
        for e in plan.log where e.owner == owner {
            let same = target.log.contains {
                $0.date == e.date && $0.cost?.value.amount == e.cost && ($0.note ?? "").hasPrefix(e.key) && Set($0.done.map(\.value.rawValue)) == Set(e.done)
                    && $0.readings.isEmpty
            }
            if same { continue }
            try file.apply { root in
                let style = EntryStyle(root["log"], defaultOrder: logOrder)
                let item = style.entry(fields(e, style))
                return ServiceRecorder.datedPosition(of: e.date, in: root["log"]).map { .insert(item, into: ["log"], at: $0) }
                    ?? .appendOrCreate(item, list: "log", current: root["log"])
            }
            added.log += 1
        }
        guard file.bytes != original else { return nil }
        return (FileChange(path: target.path, before: original, after: file.bytes), added)
    }

    // MARK: - Values

    static let logOrder = ["date", "done", "todo", "cost", "category", "note"]

    /// A log entry's fields, `done:` in the log's style.
    static func fields(_ e: ImportPlan.LogEntry, _ style: EntryStyle) -> [String: YAMLValue] {
        var fields: [String: YAMLValue] = ["date": .plain(e.date.description)]
        if !e.done.isEmpty { fields["done"] = style.done(e.done) }
        if let cost = e.cost { fields["cost"] = .plain(e.costText ?? "\(cost)") }
        if let category = e.category { fields["category"] = .text(category) }
        if !e.note.isEmpty { fields["note"] = .text(e.note) }
        return fields
    }

    /// A component's value: `name:`, `installed:` and its usage before tracking.
    static func value(_ c: ImportPlan.Component) -> YAMLValue {
        var pairs = [YAMLPair("name", .text(c.name))]
        if let installed = c.installed { pairs.append(YAMLPair("installed", .plain(installed.description))) }
        if let km = c.kilometres, km > 0 { pairs.append(YAMLPair("distance", .plain("\(number(km)) km"))) }
        if let h = c.hours, h > 0 { pairs.append(YAMLPair("hours", .plain(number(h)))) }
        return .mapping(pairs)
    }

    /// An interval's value: `task:` and `every:` (one quantity, or a flow list of them).
    static func value(_ i: ImportPlan.Interval) -> YAMLValue {
        var pairs: [YAMLPair] = []
        if let task = i.task { pairs.append(YAMLPair("task", .text(task))) }
        if i.every.count == 1 {
            pairs.append(YAMLPair("every", .plain(i.every[0])))
        } else if !i.every.isEmpty {
            pairs.append(YAMLPair("every", .flowList(i.every.map { .plain($0) })))
        }
        return .mapping(pairs)
    }

    /// `{bike: grail, from: …, to: …, tag: race}` or `{part: race-wheels, from: …}` on one line.
    static func entry(_ m: ImportPlan.Mount) -> YAMLValue {
        var pairs: [YAMLPair]
        switch m.on {
        case .bike(let id): pairs = [YAMLPair("bike", .plain(id))]
        case .part(let id): pairs = [YAMLPair("part", .plain(id))]
        }
        pairs.append(YAMLPair("from", .plain(m.from.description)))
        if let to = m.to { pairs.append(YAMLPair("to", .plain(to.description))) }
        if let tag = m.tag { pairs.append(YAMLPair("tag", .text(tag))) }
        if !m.unlessTags.isEmpty { pairs.append(YAMLPair("unless_tag", .flowList(m.unlessTags.map { .text($0) }))) }
        return .flowMapping(pairs)
    }

    /// A number as a quantity writes it: no `.0`.
    static func number(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v) }

    /// What `the plan has for` a new file, for its summary line: `, 2 intervals, 5 log entries`.
    static func contents(_ plan: ImportPlan, _ owner: String) -> String {
        var a = Added()
        a.components = plan.components.count { $0.bike == owner }
        a.intervals = plan.intervals.count { $0.owner == owner }
        a.log = plan.log.count { $0.owner == owner }
        return a.components + a.intervals + a.log == 0 ? "" : ", \(a.description)"
    }

    // MARK: - Counting

    /// What one file gained.
    struct Added {
        var what = "bike"
        var keys = 0
        var mounts = 0
        var components = 0
        var intervals = 0
        var log = 0

        var description: String {
            var parts: [String] = []
            if keys > 0 { parts.append(plural(keys, "key", "keys")) }
            if components > 0 { parts.append(plural(components, "component", "components")) }
            if mounts > 0 { parts.append(plural(mounts, "mount", "mounts")) }
            if intervals > 0 { parts.append(plural(intervals, "interval", "intervals")) }
            if log > 0 { parts.append(plural(log, "log entry", "log entries")) }
            return parts.joined(separator: ", ")
        }
    }

    /// What the whole import wrote, for its commit message.
    struct Tally: CustomStringConvertible {
        var bikes = 0
        var gear = 0
        var parts = 0
        var mounts = 0
        var components = 0
        var intervals = 0
        var log = 0

        mutating func count(_ plan: ImportPlan, owner: String) {
            components += plan.components.count { $0.bike == owner }
            intervals += plan.intervals.count { $0.owner == owner }
            log += plan.log.count { $0.owner == owner }
        }

        mutating func add(_ a: Added) {
            components += a.components
            mounts += a.mounts
            intervals += a.intervals
            log += a.log
        }

        var description: String {
            var parts = [plural(bikes, "new bike", "new bikes")]
            if gear > 0 { parts.append(plural(gear, "new gear", "new gear")) }
            parts += [plural(self.parts, "new part", "new parts"), plural(mounts, "mount", "mounts")]
            if components > 0 { parts.append(plural(components, "component", "components")) }
            if intervals > 0 { parts.append(plural(intervals, "interval", "intervals")) }
            parts.append(plural(log, "log entry", "log entries"))
            return parts.joined(separator: ", ")
        }
    }
}

private func plural(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
