import Diagnostics
import Foundation
import LocatedYAML

/// liskin/strava-gear's `rules.yaml` as an import plan: `aliases` (name → Strava gear id),
/// `components` (id → nothing, a name, or `{name, kms, hours}` of usage before tracking) and
/// `rules`, a list where each rule from its `since` on (always, without one) gives bikes (by gear
/// id or alias) and `#hashtags` their `{role: component}`; a later rule overrides roles, a
/// component named on a bike leaves the bike it was on, and `null` empties a role.
///
/// Each component becomes a part of the same id with a mount per stretch on a bike, or, when it
/// never leaves the one bike and role it is first given, a component of that bike. A hashtag's
/// component gets a mount with `tag:` on every bike with Strava gear, and the bike's own component
/// in that role a mount with `unless_tag:` for those days, as strava-gear lets the hashtag's
/// mapping replace the bike's for a tagged ride.
package enum StravaGearRules {
    package typealias Source = ImportPlan.Source

    /// A role on a bike or a hashtag, per gear id or tag: `{role: component}`.
    typealias Mapping = [String: [String: String]]

    struct Rule {
        var since: Day?
        var bikes: Mapping = [:]
        var hashtags: Mapping = [:]
    }

    /// The plan for `sources` over the garage's bikes (matched by Strava gear id, else by id or name).
    package static func plan(_ sources: [Source], garage: Garage) throws(WriteFailure) -> ImportPlan {
        var plan = ImportPlan(format: "strava-gear", files: sources.map(\.path))
        var aliases: [String: String] = [:]
        var components: [(id: String, name: String, kms: Double?, hours: Double?, at: SourceLocation)] = []
        var rules: [(rule: Rule, order: Int)] = []
        var ruleLocations: [String: SourceLocation] = [:]
        for source in sources {
            let doc = YAMLDocument(path: source.path, bytes: source.bytes, limits: .garage)
            guard doc.isUsable, let root = doc.root else {
                throw WriteFailure(.refused, "cannot read '\(source.path)' as YAML", diagnostics: doc.diagnostics, sources: [source.path: doc.source])
            }
            func at(_ node: YAMLNode) -> SourceLocation { SourceLocation(file: source.path, range: node.range) }
            func skip(_ node: YAMLNode, _ record: String, _ reason: String) { plan.unplaced.append(.init(location: at(node), record: record, reason: reason)) }
            guard case .mapping(let top) = root else {
                throw .refused("'\(source.path)' is not a strava-gear rules file: it should be a mapping of aliases, components and rules")
            }
            for entry in top.entries {
                switch entry.keyText {
                case "aliases":
                    guard case .mapping(let m) = entry.value else {
                        if case .scalar(let s) = entry.value, s.isNull { continue }
                        skip(entry.value, "aliases", "should be a mapping of names to Strava gear ids")
                        continue
                    }
                    for a in m.entries {
                        guard let name = a.keyText, case .scalar(let gear) = a.value, !gear.isNull else {
                            skip(a.value, "alias", "should be a name and a Strava gear id")
                            continue
                        }
                        aliases[name] = gear.value
                    }
                case "components":
                    guard case .mapping(let m) = entry.value else {
                        if case .scalar(let s) = entry.value, s.isNull { continue }
                        skip(entry.value, "components", "should be a mapping of component ids")
                        continue
                    }
                    for c in m.entries {
                        guard let id = c.keyText else { continue }
                        switch c.value {
                        case .scalar(let s):
                            components.append((id, s.isNull ? id : s.value, nil, nil, at(c.key)))
                        case .mapping(let fields):
                            var name = id, kms: Double?, hours: Double?, ok = true
                            for f in fields.entries {
                                guard case .scalar(let v) = f.value else {
                                    ok = false
                                    continue
                                }
                                switch f.keyText {
                                case "name": name = v.value
                                case "kms": kms = Double(v.value)
                                case "hours": hours = Double(v.value)
                                default:
                                    skip(f.key, "component '\(id)'", "unknown key '\(f.keyText ?? "")': strava-gear knows name, kms and hours")
                                }
                                if (f.keyText == "kms" && kms.map({ !$0.isFinite || $0 < 0 || $0 > 1_000_000 }) ?? true)
                                    || (f.keyText == "hours" && hours.map({ !$0.isFinite || $0 < 0 || $0 > 100_000 }) ?? true)
                                {
                                    skip(f.value, "component '\(id)'", "'\(v.value)' is not a number of \(f.keyText ?? "") from 0 up")
                                    ok = false
                                }
                            }
                            if ok { components.append((id, name, kms, hours, at(c.key))) }
                        default:
                            skip(c.value, "component '\(id)'", "should be a name or {name, kms, hours}")
                        }
                    }
                case "rules":
                    guard case .sequence(let q) = entry.value else {
                        skip(entry.value, "rules", "should be a list of rules")
                        continue
                    }
                    for item in q.items {
                        guard case .mapping(let m) = item else {
                            skip(item, "rule", "should be a mapping of bikes and hashtags to roles")
                            continue
                        }
                        var rule = Rule()
                        var ok = true
                        for e in m.entries {
                            guard let key = e.keyText else { continue }
                            if key == "since" {
                                guard case .scalar(let s) = e.value, !s.isNull else { continue }
                                let text = s.value.trimmingSpaces()
                                guard let day = Day(String(text.prefix(10))) else {
                                    skip(e.value, "rule", "'since: \(text)' is not a date (YYYY-MM-DD)")
                                    ok = false
                                    continue
                                }
                                let time = text.dropFirst(10).drop { $0 == "T" || $0 == " " }
                                if !time.isEmpty && !time.hasPrefix("00:00") {
                                    plan.notes.append(
                                        .init(
                                            location: at(e.value), record: "rule since \(text)",
                                            reason: "bikecheck's mounts are whole days: taken from \(day)"))
                                }
                                rule.since = day
                                continue
                            }
                            var roles: [String: String] = [:]
                            switch e.value {
                            case .mapping(let rm):
                                for r in rm.entries {
                                    guard let role = r.keyText, case .scalar(let c) = r.value else { continue }
                                    roles[role] = c.isNull ? "" : c.value
                                    ruleLocations[c.value] = ruleLocations[c.value] ?? at(r.value)
                                }
                            case .scalar(let s) where s.isNull: break
                            default:
                                skip(e.value, "rule for '\(key)'", "should be a mapping of roles to components")
                                continue
                            }
                            if key.hasPrefix("#") {
                                let tag = String(key.dropFirst())
                                guard !tag.contains("="), !tag.isEmpty, !tag.contains(where: \.isWhitespace) else {
                                    skip(
                                        e.key, "rule for '\(key)'",
                                        "strava-gear's implicit hashtags of an activity's fields (#field=value) have no place in a garage; only hashtags in ride names do"
                                    )
                                    continue
                                }
                                rule.hashtags[tag] = roles
                            } else {
                                rule.bikes[aliases[key] ?? key, default: [:]].merge(roles) { _, b in b }
                                ruleLocations["bike " + (aliases[key] ?? key)] = ruleLocations["bike " + (aliases[key] ?? key)] ?? at(e.key)
                            }
                        }
                        if ok { rules.append((rule, rules.count)) }
                    }
                default:
                    skip(entry.key, "'\(entry.keyText ?? "")'", "strava-gear's rules have aliases, components and rules only")
                }
            }
        }

        // Bikes: a rule's gear id is a garage bike's by its `strava:`, else by its id or name.
        let names = Dictionary(aliases.map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        var bikeOf: [String: String] = [:]
        var gearIDs = Set<String>()
        for (r, _) in rules { gearIDs.formUnion(r.bikes.keys) }
        for gear in gearIDs.sorted() {
            let alias = names[gear]
            let named = [gear, alias].compactMap { $0 }
            if let b = garage.bikes.first(where: { $0.bike.gearIDs.contains(gear) })
                ?? garage.bikes.first(where: { b in named.contains(b.bike.id.rawValue) || named.contains(b.bike.name) })
            {
                bikeOf[gear] = b.bike.id.rawValue
            } else if gear.first == "b", gear.dropFirst().allSatisfy(\.isNumber), gear.count > 1 {
                let id = slug(alias ?? gear)
                bikeOf[gear] = id
                plan.bikes.append(.init(id: id, name: alias ?? gear, strava: gear))
            } else {
                plan.unplaced.append(
                    .init(
                        location: ruleLocations["bike " + gear] ?? SourceLocation(file: sources.first?.path ?? ""), record: "bike '\(gear)'",
                        reason:
                            "no bike in the garage has this Strava gear id, id or name, and it is not a Strava gear id (b…) to add one by; its roles are left out"
                    ))
            }
        }
        // Tagged rides may be on any bike with Strava gear.
        var taggedBikes = garage.bikes.filter { $0.bike.strava != nil }.map(\.bike.id.rawValue)
        taggedBikes += plan.bikes.map(\.id)
        taggedBikes = Array(Set(taggedBikes)).sorted()

        // The effective mapping from each `since` on: rules in order of `since` (those without
        // first), as strava-gear accumulates them.
        let ordered = rules.sorted { ($0.rule.since?.ordinal ?? Int.min, $0.order) < ($1.rule.since?.ordinal ?? Int.min, $1.order) }
        var bikes: Mapping = [:], hashtags: Mapping = [:]
        var segments: [(from: Day?, bikes: Mapping, hashtags: Mapping)] = []
        for (rule, _) in ordered {
            let moved = Set(rule.bikes.values.flatMap(\.values).filter { !$0.isEmpty })
            for gear in bikes.keys { bikes[gear] = bikes[gear]!.filter { !moved.contains($0.value) } }
            for (gear, roles) in rule.bikes { bikes[gear, default: [:]].merge(roles) { _, b in b } }
            for (tag, roles) in rule.hashtags { hashtags[tag, default: [:]].merge(roles) { _, b in b } }
            for k in bikes.keys { bikes[k] = bikes[k]!.filter { !$0.value.isEmpty } }
            for k in hashtags.keys { hashtags[k] = hashtags[k]!.filter { !$0.value.isEmpty } }
            if let last = segments.last, last.from == rule.since { segments.removeLast() }
            segments.append((rule.since, bikes, hashtags))
        }

        // Components named in rules only are components too.
        var known = Set(components.map(\.id))
        for (rule, _) in rules {
            for c in (rule.bikes.values.flatMap(\.values) + rule.hashtags.values.flatMap(\.values)).sorted() where !c.isEmpty && !known.contains(c) {
                known.insert(c)
                components.append((c, c, nil, nil, ruleLocations[c] ?? SourceLocation(file: sources.first?.path ?? "")))
            }
        }
        // A rule without `since` holds from the start.
        let start = Day(ordinal: Day.ordinal(year: 1970, month: 1, day: 1))
        for c in components {
            guard isIdentifier(c.id) else {
                plan.unplaced.append(
                    .init(location: c.at, record: "component '\(c.id)'", reason: "its id cannot be a part's file name: use letters, digits, '-', '_' and '.'"))
                continue
            }
            var part = ImportPlan.Part(id: c.id, name: c.name, hours: c.hours, kilometres: c.kms)
            var roles = Set<String>()
            var stretches: [(from: Day, to: Day?, key: ImportPlan.Mount)] = []
            for (k, segment) in segments.enumerated() {
                let next = segments.indices.contains(k + 1) ? segments[k + 1].from : nil
                let from = segment.from ?? start
                let to = next.map { $0.adding(days: -1) }
                var here: [ImportPlan.Mount] = []
                let tagsOfC = segment.hashtags.filter { $0.value.values.contains(c.id) }.keys.sorted()
                for (gear, map) in segment.bikes {
                    guard let role = map.first(where: { $0.value == c.id })?.key, let bike = bikeOf[gear] else { continue }
                    roles.insert(role)
                    // Rides tagged for another component in this role, or for this one (counted by its tagged mount).
                    let unless = segment.hashtags.filter { $0.value[role] != nil || $0.value.values.contains(c.id) }.keys.sorted()
                    here.append(.init(bike: bike, from: from, tag: nil, unlessTags: unless))
                }
                for tag in tagsOfC {
                    if let role = segment.hashtags[tag]?.first(where: { $0.value == c.id })?.key { roles.insert(role) }
                    for bike in taggedBikes { here.append(.init(bike: bike, from: from, tag: tag)) }
                }
                for m in here { stretches.append((from, to, m)) }
            }
            // One mount per run of stretches of the same kind on the same bike.
            var mounts: [ImportPlan.Mount] = []
            var open: [String: Int] = [:]
            for s in stretches {
                let key = "\(s.key.on)|\(s.key.tag ?? "")|\(s.key.unlessTags.joined(separator: " "))"
                if let k = open[key], let end = mounts[k].to, end.adding(days: 1) == s.from {
                    mounts[k].to = s.to
                    continue
                }
                var m = s.key
                m.from = s.from
                m.to = s.to
                mounts.append(m)
                open[key] = mounts.count - 1
            }
            part.mounts = mounts.sorted { ($0.from, $0.bike ?? "", $0.tag ?? "") < ($1.from, $1.bike ?? "", $1.tag ?? "") }
            // On one bike in one role from its first day on, for every ride: a component of that
            // bike (unless an earlier import made it a part).
            if mounts.count == 1, let m = mounts.first, let bike = m.bike, m.to == nil, m.tag == nil, m.unlessTags.isEmpty, roles.count == 1,
                let role = roles.first, isIdentifier(role), garage.part(PartID(c.id)) == nil
            {
                plan.components.append(
                    .init(bike: bike, role: role, name: c.name, installed: m.from == start ? nil : m.from, hours: c.hours, kilometres: c.kms))
                continue
            }
            if roles.count == 1, let role = roles.first, isIdentifier(role) { part.slot = role }
            // An earlier import made it a component of its first bike: now it moves.
            if let first = mounts.first?.bike,
                let role = roles.first(where: { r in
                    garage.bike(BikeID(first))?.bike.components.contains { $0.id.rawValue == r && $0.name == c.name } == true
                })
            {
                plan.notes.append(
                    .init(
                        location: c.at, record: "component '\(c.id)'",
                        reason: "it now leaves bike '\(first)', so it is a part; its component '\(role)' of the same name is counted too until you remove it"))
            }
            plan.parts.append(part)
        }
        plan.parts.sort { $0.id < $1.id }
        plan.sortFindings()
        return plan
    }

    /// A bike id from a name: lower case, letters and digits, runs of others as '-'.
    static func slug(_ name: String) -> String {
        var out = ""
        for ch in name.lowercased() {
            if ch.isLetter || ch.isNumber { out.append(ch) } else if !out.isEmpty && out.last != "-" { out.append("-") }
        }
        while out.last == "-" { out.removeLast() }
        return out.isEmpty ? "bike" : out
    }
}

extension StravaGearRules {
    /// A part the export leaves out, or a mount of it, and why.
    package struct LeftOut: Sendable {
        package var message: String
        package var location: SourceLocation
    }

    /// The garage's parts as strava-gear's rules.yaml, so a rider can check one tool with the
    /// other: each bike with Strava gear an alias (its id for the gear id), each part a component
    /// (`kms` and `hours` its usage before tracking), and a rule for each day a mount starts or
    /// ends: the part in the role of its `slot` (else its id) on the bike, or on a `#hashtag` for
    /// a mount with `tag:`. Components of bike files are not parts, and are not written.
    package static func export(_ garage: Garage) -> (text: String, leftOut: [LeftOut]) {
        var leftOut: [LeftOut] = []
        let gearOf = Dictionary(garage.bikes.compactMap { b in b.bike.strava.map { (b.bike.id.rawValue, $0.value) } }, uniquingKeysWith: { a, _ in a })
        var text = "# strava-gear rules written by bikecheck export strava-gear\n"
        if !gearOf.isEmpty {
            text += "aliases:\n"
            for (bike, gear) in gearOf.sorted(by: { $0.key < $1.key }) { text += "  \(quoted(bike)): \(quoted(gear))\n" }
        }
        let parts = garage.parts.map(\.part).sorted { $0.id < $1.id }
        if !parts.isEmpty {
            text += "components:\n"
            for p in parts {
                var fields = ["name: \(quoted(p.name))"]
                if p.priorDistance > 0 { fields.append("kms: \(ImportPlanWriter.number(p.priorDistance / 1000))") }
                if p.priorHours > 0 { fields.append("hours: \(ImportPlanWriter.number(p.priorHours))") }
                text += "  \(quoted(p.id.rawValue)): {\(fields.joined(separator: ", "))}\n"
            }
        }
        // Who holds each role from each day on: bikes by alias, hashtags by tag.
        var days = Set<Int>()
        var spans: [(part: Part, mount: Mount, key: String)] = []
        for p in parts {
            for m in p.mounts {
                let retiredEnd = p.retired.map { $0.ordinal }
                let end = [m.to?.ordinal, retiredEnd].compactMap { $0 }.min()
                if let tag = m.tag {
                    spans.append((p, m, "#" + tag))
                } else if gearOf[m.bike.value.rawValue] != nil {
                    if !m.unlessTags.isEmpty
                        && !m.unlessTags.allSatisfy({ t in
                            parts.contains { q in q.slot?.value == p.slot?.value && q.id != p.id && q.mounts.contains { $0.tag == t } }
                        })
                    {
                        leftOut.append(
                            .init(
                                message:
                                    "part '\(p.id)': unless_tag on \(m.bike.value) from \(m.from): strava-gear drops a role's component for a tag only when the tag's rule fills the same role",
                                location: m.location))
                    }
                    spans.append((p, m, m.bike.value.rawValue))
                } else {
                    leftOut.append(
                        .init(
                            message: "part '\(p.id)' on bike '\(m.bike.value)' from \(m.from): the bike has no Strava gear id (strava:)", location: m.location))
                    continue
                }
                days.insert(m.from.ordinal)
                if let end { days.insert(end + 1) }
            }
        }
        var rules = ""
        var previous: [String: [String: String]] = [:]
        for day in days.sorted() {
            var now: [String: [String: String]] = [:]
            for s in spans
            where s.mount.from.ordinal <= day && (s.mount.to.map { day <= $0.ordinal } ?? true) && (s.part.retired.map { day <= $0.ordinal } ?? true) {
                now[s.key, default: [:]][s.part.slot?.value ?? s.part.id.rawValue] = s.part.id.rawValue
            }
            var lines: [String] = []
            for key in Set(now.keys).union(previous.keys).sorted() {
                let was = previous[key] ?? [:], will = now[key] ?? [:]
                var changes: [String] = []
                for role in Set(was.keys).union(will.keys).sorted() where was[role] != will[role] {
                    changes.append("\(quoted(role)): \(will[role].map(quoted) ?? "null")")
                }
                if !changes.isEmpty { lines.append("    \(quoted(key)): {\(changes.joined(separator: ", "))}") }
            }
            previous = now
            guard !lines.isEmpty else { continue }
            rules += "  - since: \(Day(ordinal: day))\n" + lines.joined(separator: "\n") + "\n"
        }
        if !rules.isEmpty { text += "rules:\n" + rules }
        return (text, leftOut)
    }

    /// A YAML key or value: plain when it is a plain word, else a JSON string (which YAML reads).
    static func quoted(_ s: String) -> String {
        let plain =
            !s.isEmpty && s.first.map { $0.isLetter || $0.isNumber } == true
            && s.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." || $0 == " " } && s.last != " "
            && !["null", "true", "false", "yes", "no", "on", "off", "~"].contains(s.lowercased()) && Double(s) == nil && Day(s) == nil
        if plain { return s }
        var out = "\""
        for ch in s.unicodeScalars {
            switch ch {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if ch.value < 0x20 { out += String(format: "\\u%04x", ch.value) } else { out.unicodeScalars.append(ch) }
            }
        }
        return out + "\""
    }
}
