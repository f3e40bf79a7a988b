import Diagnostics
import LocatedYAML

extension FileDecoders {
    static let partKeys = [
        "name", "rider", "bought", "retired", "price", "slot", "devices", "hours", "distance", "rides", "counts", "trainer", "templates", "intervals", "mounts",
        "log",
        "snooze",
        "todo", "notes",
    ]
    static let mountKeys = ["bike", "part", "from", "to", "tag", "unless_tag", "note"]

    /// `parts/ID.yaml`: a part that moves between bikes.
    static func part(id: PartID, _ root: YAMLNode, _ r: inout NodeReader, currency: String? = nil) -> Part? {
        guard let m = r.mapping(root, "a part file") else { return nil }
        let f = r.fields(m, of: "part '\(id)'", allowed: partKeys, required: ["name"])
        var part = Part(id: id, name: id.rawValue, location: r.location(root))
        part.fieldLocations = Dictionary(f.entries.map { ($0.key, r.location($0.entry.value)) }) { _, last in last }
        part.misspelledKeys = f.misspelled
        if let e = f["name"], let name = r.string(e.value, "the part's name") { part.name = name }
        if let e = f["rider"] { part.rider = riderName(e.value, &r) }
        if let e = f["bought"] { part.bought = r.day(e.value, "bought") }
        if let e = f["retired"] { part.retired = r.day(e.value, "retired") }
        if let e = f["price"], let price = r.money(e.value, "price", currency: currency) {
            part.price = price
            checkCurrency(price, "price", garage: currency, &r)
        }
        if let e = f["slot"], let slot = r.identifier(e.value, "slot") { part.slot = Located(slot, at: r.location(e.value)) }
        if let e = f["devices"], !r.isNull(e.value) { part.devices = serialNumbers(e.value, &r) }
        if let e = f["notes"] { _ = r.string(e.value, "notes") }
        part.rideFilter = rideFilter(f, &r)
        // Prior usage reads as a component's does.
        if let e = f["hours"], let v = r.number(e.value, "hours", maximum: 100_000) { part.priorHours = v }
        if let e = f["rides"], let v = r.number(e.value, "rides", maximum: 1_000_000) { part.priorRides = v }
        if let e = f["distance"], let q = r.quantity(e.value, "distance") {
            if q.measure == .distance {
                part.priorDistance = q.amount
            } else {
                r.error(.badQuantity, "distance '\(q.text)' is not a distance", e.value, help: "write e.g. 2500 km or 1500 mi")
            }
        }
        if let e = f["templates"], !r.isNull(e.value), let list = r.stringList(e.value, "a template name") {
            part.templates = list.map { Located(TemplateID($0.value), at: $0.location) }
        }
        if let e = f["intervals"], !r.isNull(e.value) { part.intervals = intervals(e.value, owner: "part '\(id)'", &r) }
        if let e = f["mounts"] { (part.mounts, part.partMounts) = mounts(e.value, &r) }
        if let e = f["log"] { part.log = log(e.value, &r, currency: currency) }
        if let e = f["snooze"] { part.snoozes = snoozes(e.value, &r) }
        if let e = f["todo"] { part.todos = todos(e.value, &r) }
        return part
    }

    /// `mounts:`: stretches on a bike (`bike:`) and on another part (`part:`), each entry one.
    static func mounts(_ node: YAMLNode, _ r: inout NodeReader) -> ([Mount], [PartMount]) {
        if case .scalar(let s) = node, s.isNull { return ([], []) }
        guard case .sequence(let q) = node else {
            r.error(.wrongType, "mounts should be a list of mounts ('- {bike: …, from: …}'), found \(node.kindDescription)", node)
            return ([], [])
        }
        var bikes: [Mount] = []
        var parts: [PartMount] = []
        for (entry, item) in q.items.enumerated() {
            guard let m = r.mapping(item, "a mount") else { continue }
            let f = r.fields(m, of: "a mount", allowed: mountKeys, required: ["from"], at: item)
            var bike: Located<BikeID>?
            var parent: Located<PartID>?
            if let e = f["bike"], let id = r.identifier(e.value, "bike id") { bike = Located(BikeID(id), at: r.location(e.value)) }
            if let e = f["part"], let id = r.identifier(e.value, "part id") { parent = Located(PartID(id), at: r.location(e.value)) }
            switch (f["bike"], f["part"]) {
            case (nil, nil) where !f.misspelled.contains("bike") && !f.misspelled.contains("part"):
                r.diagnostics.append(
                    .error(
                        .missingKey, "a mount is missing required key 'bike' (or 'part')", at: r.location(SourceRange(at: item.range.start)),
                        help: "say what it was on: 'bike: ID', or 'part: ID' for a part on a part (tyres on a wheelset)"))
            case (let b?, _?):
                r.error(.badValue, "a mount is on a bike or on a part, not both", b.value, help: "write two mounts, or keep the one it was on")
                continue
            default: break
            }
            let from = f["from"].flatMap { r.day($0.value, "from") }
            var to: Day?
            var ok = true
            if let e = f["to"], !r.isNull(e.value) {
                to = r.day(e.value, "to")
                ok = to != nil
            }
            if let e = f["note"] { _ = r.string(e.value, "note") }
            guard let (tag, unlessTags, tagsOK) = mountTags(f, onPart: parent != nil, &r) else { continue }
            ok = ok && tagsOK
            guard ok, bike != nil || parent != nil, let from, let fromEntry = f["from"] else { continue }
            let fromLocation = r.location(fromEntry.value), toLocation = f["to"].map { r.location($0.value) }
            if let to, to < from {
                let on = bike.map { "'\($0.value)'" } ?? "part '\(parent!.value)'"
                r.diagnostics.append(
                    .error(
                        .mountEndsBeforeStart, "mount on \(on) ends \(to), before it starts \(from)",
                        at: toLocation ?? r.location(item), notes: [.init("it starts here", at: fromLocation)],
                        help: "'to' is the last day on the \(bike == nil ? "part" : "bike"), on or after 'from'; check the two dates"))
                continue
            }
            if let bike {
                bikes.append(
                    Mount(
                        bike: bike, from: from, to: to, fromLocation: fromLocation, toLocation: toLocation, location: r.location(item), entry: entry,
                        tag: tag, unlessTags: unlessTags))
            } else if let parent {
                parts.append(
                    PartMount(
                        parent: parent, from: from, to: to, fromLocation: fromLocation, toLocation: toLocation, location: r.location(item),
                        entry: entry))
            }
        }
        return (bikes, parts)
    }

    /// A mount's `tag:` and `unless_tag:` (and false when a tag is not one); nil, with the error
    /// in `r`, when the mount cannot have them: on a part, or both at once.
    static func mountTags(_ f: Fields, onPart: Bool, _ r: inout NodeReader) -> (tag: String?, unless: [String], ok: Bool)? {
        var tag: String?
        var unlessTags: [String] = []
        var ok = true
        if let e = f["tag"] {
            tag = rideTag(e.value, &r)
            ok = tag != nil
        }
        if let e = f["unless_tag"] {
            let items: [YAMLNode]
            if case .sequence(let q) = e.value { items = q.items } else { items = [e.value] }
            for item in items {
                if let t = rideTag(item, &r) { unlessTags.append(t) } else { ok = false }
            }
            unlessTags = Array(Set(unlessTags)).sorted()
        }
        if let e = f["tag"] ?? f["unless_tag"], onPart {
            r.error(
                .badValue, "'\(e.keyText ?? "tag")' goes on a mount on a bike, not on a part", e.key,
                help: "tag the parent's mount on the bike: the parts on it follow it for those rides")
            return nil
        }
        if let t = f["tag"], f["unless_tag"] != nil {
            r.error(
                .badValue, "a mount has 'tag' or 'unless_tag', not both", t.key,
                help: "'tag: race' holds for #race rides only; 'unless_tag: race' for the others")
            return nil
        }
        return (tag, unlessTags, ok)
    }

    /// A ride tag: a word from rides' names, written with or without its `#` (`race`, `"#race"`).
    static func rideTag(_ node: YAMLNode, _ r: inout NodeReader) -> String? {
        guard let text = r.string(node, "a ride tag") else { return nil }
        let tag = text.hasPrefix("#") ? String(text.dropFirst()) : text
        guard !tag.isEmpty, !tag.contains(where: \.isWhitespace), !tag.hasPrefix("#") else {
            r.error(
                .badValue, "'\(text)' is not a ride tag", node,
                help: "a tag is one word of a ride's name after '#', written without it: tag: race holds for rides named 'Crit #race'")
            return nil
        }
        return tag
    }
}
