import Foundation
import LocatedYAML

/// A new part: `bikecheck part add ID --name … [--bought D] [--template T…]`.
package struct NewPart: Sendable {
    package var id: String
    package var name: String
    package var bought: Day?
    package var templates: [String]

    package init(id: String, name: String, bought: Day? = nil, templates: [String] = []) {
        self.id = id
        self.name = name
        self.bought = bought
        self.templates = templates
    }
}

/// Adds, mounts, unmounts and retires parts (`parts/ID.yaml`), changing only the lines it must.
package enum PartEditor {
    package static func add(_ new: NewPart, in context: WriteContext) throws(WriteFailure) -> GarageChange {
        guard isIdentifier(new.id) else {
            throw .usage(
                "'\(new.id)' is not a valid part id", help: "use letters, digits, '-', '_' and '.', e.g. race-wheels (it becomes parts/race-wheels.yaml)")
        }
        if let existing = context.partFile(new.id) { throw .refused("there is already a part '\(new.id)' (\(existing))") }
        let name = new.name.trimmingSpaces()
        guard !name.isEmpty else { throw .usage("the part's name is empty", help: "give it a name: --name \"DT Swiss ARC 1100\"") }
        var pairs = [YAMLPair("name", .text(name))]
        if let bought = new.bought {
            try context.checkDate(bought, "the purchase date")
            pairs.append(YAMLPair("bought", .plain(bought.description)))
        }
        var templates: [String] = []
        for t in new.templates where !templates.contains(t) {
            _ = try context.template(t)
            templates.append(t)
        }
        if !templates.isEmpty { pairs.append(YAMLPair("templates", .flowList(templates.map { .plain($0) }))) }
        let bytes: [UInt8]
        do {
            bytes = try YAMLEditor.render(pairs, header: modeline("part", depth: 1))
        } catch {
            throw .usage("cannot write this part's name as YAML")
        }
        let path = "parts/\(new.id).yaml"
        return context.change(
            files: [FileChange(path: path, before: nil, after: bytes)],
            message: "\(new.id): new part \(name)",
            summary: ["added part '\(new.id)' (\(name)) in \(path); it is on the shelf until 'bikecheck part mount \(new.id) BIKE'"])
    }

    /// Mounts a part on a bike from `date` (default today): the open mount, if any, ends the day
    /// before, and a new one starts on `date`.
    package static func mount(_ id: String, on target: String, date: Day?, in context: WriteContext) throws(WriteFailure) -> GarageChange {
        let part = try context.part(id).part
        let day = date ?? context.today
        try context.checkDate(day, "the mount date")
        // A bike first (as `status ID` looks); else a part: tyres on a wheelset.
        let onPart = !context.garage.bikes.contains { $0.bike.id.rawValue == target } && context.garage.parts.contains { $0.part.id.rawValue == target }
        let shownTarget = onPart ? "part '\(target)'" : "'\(target)'"
        try checkHolder(target, onPart: onPart, for: part, on: day, in: context)
        if let retired = part.retired, day > retired {
            throw .refused("part '\(id)' was retired on \(retired), before \(day)")
        }
        let (file, doc, root) = try context.partSource(part)
        let bytes = doc.source.bytes
        var edits: [YAMLEdit] = []
        let written = part.writtenMounts
        if let later = written.first(where: { $0.to != nil && $0.to! >= day }) {
            throw .refused(
                "part '\(id)' was on \(later.on) through \(later.to!), on or after \(day)",
                help: "a part's history is written oldest first; edit \(file) by hand to change the past")
        }
        var moved: String?
        if let current = written.first(where: { $0.to == nil }) {
            if current.on == shownTarget {
                return context.change(
                    files: [FileChange(path: file, before: bytes, after: bytes)], message: "",
                    summary: ["part '\(id)' has been on \(shownTarget) since \(current.from); nothing to do"])
            }
            guard current.from < day else {
                throw .refused(
                    "part '\(id)' went on \(current.on) on \(current.from); it cannot move on or before that day",
                    help: "move it from \(current.from.adding(days: 1)) on, or edit \(file) by hand")
            }
            edits.append(try closeMount(at: current.entry, on: day.adding(days: -1), in: root, file: file))
            moved = current.on
        }
        let key = onPart ? "part" : "bike"
        var style = EntryStyle(root["mounts"], defaultOrder: ["bike", "part", "from", "to", "note"])
        // What it is on goes where the file puts what its last mount was on, bike or part.
        let place = style.order.firstIndex { $0 == "bike" || $0 == "part" } ?? 0
        style.order.removeAll { $0 == "bike" || $0 == "part" }
        style.order.insert(key, at: min(place, style.order.count))
        // A first mount is written on one line, as the README shows them.
        if case .sequence(let q)? = root["mounts"], !q.items.isEmpty {} else { style.flow = true }
        let entry = style.entry([key: .plain(target), "from": .plain(day.description)])
        edits.append(.appendOrCreate(entry, list: "mounts", current: root["mounts"]))
        let after = try context.edit(file, doc, edits)
        let plain = { (on: String) in on.replacingOccurrences(of: "'", with: "") }
        let message = moved.map { "\(id): moved from \(plain($0)) to \(plain(shownTarget)) \(day)" } ?? "\(id): mounted on \(plain(shownTarget)) \(day)"
        var summary = ["\(id): on \(shownTarget) from \(day) (\(file))"]
        if let moved { summary.insert("\(id): off \(moved) after \(day.adding(days: -1))", at: 0) }
        return context.change(files: [FileChange(path: file, before: bytes, after: after)], message: message, summary: summary)
    }

    /// What a part is mounted on must be in use on the day: a part (not the part itself), or a
    /// bike whose slot for the part is free.
    static func checkHolder(_ target: String, onPart: Bool, for part: Part, on day: Day, in context: WriteContext) throws(WriteFailure) {
        if onPart {
            let parent = try context.part(target).part
            if parent.id == part.id { throw .usage("a part cannot be mounted on itself") }
            if let retired = parent.retired, day > retired { throw .refused("part '\(target)' was retired on \(retired), before \(day)") }
        } else {
            let bike = try context.bike(target).bike
            if let retired = bike.retired, day > retired {
                throw .refused("bike '\(bike.id)' was retired on \(retired), before \(day)", help: "mount the part on a bike in use")
            }
            if let slot = part.slot?.value,
                let other = context.garage.parts.first(where: {
                    $0.part.id != part.id && $0.part.slot?.value == slot && $0.part.mount(on: day)?.bike.value == bike.id
                })
            {
                throw .refused(
                    "part '\(other.part.id)' fills slot '\(slot)' of bike '\(bike.id)' on \(day)",
                    help: "take it off first: bikecheck part unmount \(other.part.id) --date \(day)")
            }
        }
    }

    /// Takes a part off its bike from `date` (default today): its open mount ends the day before.
    package static func unmount(_ id: String, date: Day?, in context: WriteContext) throws(WriteFailure) -> GarageChange {
        let part = try context.part(id).part
        let day = date ?? context.today
        try context.checkDate(day, "the date")
        guard let current = part.writtenMounts.first(where: { $0.to == nil }) else {
            throw .refused("part '\(id)' is on no bike", help: "mount it with: bikecheck part mount \(id) BIKE")
        }
        guard current.from < day else {
            throw .refused(
                "part '\(id)' went on \(current.on) on \(current.from); it cannot come off on or before that day",
                help: "the date is the first day off the bike")
        }
        let (file, doc, root) = try context.partSource(part)
        let bytes = doc.source.bytes
        let after = try context.edit(file, doc, [try closeMount(at: current.entry, on: day.adding(days: -1), in: root, file: file)])
        return context.change(
            files: [FileChange(path: file, before: bytes, after: after)],
            message: "\(id): off \(current.on.replacingOccurrences(of: "'", with: "")) \(day), on the shelf",
            summary: ["\(id): off \(current.on) after \(day.adding(days: -1)), on the shelf from \(day) (\(file))"])
    }

    /// Retires a part on `date` (default today): `retired:`, and its open mount ends that day.
    package static func retire(_ id: String, on date: Day?, in context: WriteContext) throws(WriteFailure) -> GarageChange {
        let part = try context.part(id).part
        let day = date ?? context.today
        try context.checkDate(day, "the retirement date")
        if let bought = part.bought, day < bought { throw .usage("part '\(id)' was bought on \(bought), after \(day)") }
        let (file, doc, root) = try context.partSource(part)
        let bytes = doc.source.bytes
        var edits: [YAMLEdit] = [
            root["retired"] != nil
                ? .set(["retired"], .plain(day.description))
                : .addKey("retired", .plain(day.description), in: [], after: ["bought", "name"])
        ]
        var summary = ["retired part '\(id)' on \(day)"]
        if let current = part.writtenMounts.first(where: { $0.to == nil }) {
            guard current.from <= day else {
                throw .refused("part '\(id)' went on \(current.on) on \(current.from), after \(day)")
            }
            edits.append(try closeMount(at: current.entry, on: day, in: root, file: file))
            summary.append("\(id): off \(current.on) after \(day)")
        }
        let after = try context.edit(file, doc, edits)
        if after == bytes { summary = ["part '\(id)' was already retired on \(day)"] }
        return context.change(files: [FileChange(path: file, before: bytes, after: after)], message: "\(id): retired \(day)", summary: summary)
    }

    /// Ends mount `k` on `day` (its last day on the bike): `to:` set where written empty, else added after `from`.
    static func closeMount(at k: Int, on day: Day, in root: YAMLMapping, file: String) throws(WriteFailure) -> YAMLEdit {
        guard case .sequence(let q)? = root["mounts"], q.items.indices.contains(k), case .mapping(let m) = q.items[k] else {
            throw .refused("cannot find mount \(k + 1) in '\(file)'")
        }
        let path: YAMLPath = ["mounts", .index(k)]
        return m["to"] != nil ? .set(path + ["to"], .plain(day.description)) : .addKey("to", .plain(day.description), in: path, after: ["from"])
    }
}

extension WriteContext {
    /// The relative path of a part's file, if it exists.
    func partFile(_ id: String) -> String? {
        for ext in ["yaml", "yml"] where FileManager.default.fileExists(atPath: root + "/parts/\(id).\(ext)") {
            return "parts/\(id).\(ext)"
        }
        return nil
    }

    /// The part with this id, or a usage error that suggests the nearest one.
    func part(_ id: String) throws(WriteFailure) -> ResolvedPart {
        if let file = partFile(id) { try requireClean(file) }
        if let part = garage.part(PartID(id)) { return part }
        let ids = garage.parts.map(\.part.id.rawValue)
        let hint = didYouMean(id, among: ids)
        throw .usage("no part '\(id)'\(hint)", help: ids.isEmpty ? "add one with 'bikecheck part add ID --name NAME'" : "parts: \(ids.joined(separator: ", "))")
    }

    /// A part's file: its path, its parse (for the edit, and its bytes) and top-level mapping.
    func partSource(_ part: Part) throws(WriteFailure) -> (String, YAMLDocument, YAMLMapping) {
        let file = part.location.file
        guard let bytes = read(file) else { throw .refused("cannot read '\(file)'") }
        let doc = YAMLDocument(path: file, bytes: bytes, limits: .garage)
        guard case .mapping(let root)? = doc.root else { throw .refused("'\(file)' is not a mapping") }
        return (file, doc, root)
    }
}
