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

    /// One stretch of days over which the rules' mapping holds: from `from` (from the start when
    /// nil) to the next segment's `from`.
    typealias Segment = (from: Day?, bikes: Mapping, hashtags: Mapping)

    /// A rule without `since` holds from the start.
    static let start = Day(ordinal: Day.ordinal(year: 1970, month: 1, day: 1))

    /// The plan for `sources` over the garage's bikes (matched by Strava gear id, else by id or name).
    package static func plan(_ sources: [Source], garage: Garage) throws(WriteFailure) -> ImportPlan {
        var reader = Reader(plan: ImportPlan(format: "strava-gear", files: sources.map(\.path)))
        for source in sources { try reader.read(source) }
        var plan = reader.plan
        let firstFile = SourceLocation(file: sources.first?.path ?? "")
        let bikeOf = bikes(reader, garage: garage, plan: &plan, firstFile: firstFile)
        // Tagged rides may be on any bike with Strava gear.
        var taggedBikes = garage.bikes.filter { $0.bike.strava != nil }.map(\.bike.id.rawValue)
        taggedBikes += plan.bikes.map(\.id)
        taggedBikes = Array(Set(taggedBikes)).sorted()
        let segments = segments(reader.rules)

        // Components named in rules only are components too.
        var components = reader.components
        var known = Set(components.map(\.id))
        for (rule, _) in reader.rules {
            for c in (rule.bikes.values.flatMap(\.values) + rule.hashtags.values.flatMap(\.values)).sorted() where !c.isEmpty && !known.contains(c) {
                known.insert(c)
                components.append(Listed(id: c, name: c, at: reader.ruleLocations[c] ?? firstFile))
            }
        }
        for c in components {
            guard isIdentifier(c.id) else {
                plan.unplaced.append(
                    .init(location: c.at, record: "component '\(c.id)'", reason: "its id cannot be a part's file name: use letters, digits, '-', '_' and '.'"))
                continue
            }
            let (mounts, roles) = mounts(of: c.id, segments, bikeOf: bikeOf, taggedBikes: taggedBikes)
            place(c, mounts: mounts, roles: roles, garage: garage, plan: &plan)
        }
        plan.parts.sort { $0.id < $1.id }
        plan.sortFindings()
        return plan
    }

    /// The garage's bike id for each gear id the rules name: a bike's by its `strava:`, else by its
    /// id or name; a new bike for a Strava gear id no bike has; left out (in `unplaced`) otherwise.
    static func bikes(_ reader: Reader, garage: Garage, plan: inout ImportPlan, firstFile: SourceLocation) -> [String: String] {
        let names = Dictionary(reader.aliases.map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        var bikeOf: [String: String] = [:]
        var gearIDs = Set<String>()
        for (r, _) in reader.rules { gearIDs.formUnion(r.bikes.keys) }
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
                        location: reader.ruleLocations["bike " + gear] ?? firstFile, record: "bike '\(gear)'",
                        reason:
                            "no bike in the garage has this Strava gear id, id or name, and it is not a Strava gear id (b…) to add one by; its roles are left out"
                    ))
            }
        }
        return bikeOf
    }

    /// The effective mapping from each `since` on: rules in order of `since` (those without
    /// first), as strava-gear accumulates them.
    static func segments(_ rules: [(rule: Rule, order: Int)]) -> [Segment] {
        let ordered = rules.sorted { ($0.rule.since?.ordinal ?? Int.min, $0.order) < ($1.rule.since?.ordinal ?? Int.min, $1.order) }
        var bikes: Mapping = [:], hashtags: Mapping = [:]
        var segments: [Segment] = []
        for (rule, _) in ordered {
            let moved = Set(rule.bikes.values.flatMap(\.values).filter { !$0.isEmpty })
            for gear in bikes.keys { bikes[gear] = bikes[gear]?.filter { !moved.contains($0.value) } }
            for (gear, roles) in rule.bikes { bikes[gear, default: [:]].merge(roles) { _, b in b } }
            for (tag, roles) in rule.hashtags { hashtags[tag, default: [:]].merge(roles) { _, b in b } }
            for k in bikes.keys { bikes[k] = bikes[k]?.filter { !$0.value.isEmpty } }
            for k in hashtags.keys { hashtags[k] = hashtags[k]?.filter { !$0.value.isEmpty } }
            if let last = segments.last, last.from == rule.since { segments.removeLast() }
            segments.append((rule.since, bikes, hashtags))
        }
        return segments
    }

    /// A component's mounts, one per run of segments of the same kind on the same bike, and the
    /// roles it is given.
    static func mounts(of id: String, _ segments: [Segment], bikeOf: [String: String], taggedBikes: [String]) -> ([ImportPlan.Mount], Set<String>) {
        var roles = Set<String>()
        var stretches: [(from: Day, to: Day?, key: ImportPlan.Mount)] = []
        for (k, segment) in segments.enumerated() {
            let next = segments.indices.contains(k + 1) ? segments[k + 1].from : nil
            let from = segment.from ?? start
            let to = next.map { $0.adding(days: -1) }
            for (gear, map) in segment.bikes {
                guard let role = map.first(where: { $0.value == id })?.key, let bike = bikeOf[gear] else { continue }
                roles.insert(role)
                // Rides tagged for another component in this role, or for this one (counted by its tagged mount).
                let unless = segment.hashtags.filter { $0.value[role] != nil || $0.value.values.contains(id) }.keys.sorted()
                stretches.append((from, to, .init(bike: bike, from: from, tag: nil, unlessTags: unless)))
            }
            for tag in segment.hashtags.filter({ $0.value.values.contains(id) }).keys.sorted() {
                if let role = segment.hashtags[tag]?.first(where: { $0.value == id })?.key { roles.insert(role) }
                for bike in taggedBikes { stretches.append((from, to, .init(bike: bike, from: from, tag: tag))) }
            }
        }
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
        return (mounts.sorted { ($0.from, $0.bike ?? "", $0.tag ?? "") < ($1.from, $1.bike ?? "", $1.tag ?? "") }, roles)
    }

    /// A component in the plan: on one bike in one role from its first day on, for every ride, a
    /// component of that bike (unless an earlier import made it a part); else a part.
    static func place(_ c: Listed, mounts: [ImportPlan.Mount], roles: Set<String>, garage: Garage, plan: inout ImportPlan) {
        if mounts.count == 1, let m = mounts.first, let bike = m.bike, m.to == nil, m.tag == nil, m.unlessTags.isEmpty, roles.count == 1,
            let role = roles.first, isIdentifier(role), garage.part(PartID(c.id)) == nil
        {
            plan.components.append(
                .init(bike: bike, role: role, name: c.name, installed: m.from == start ? nil : m.from, hours: c.hours, kilometres: c.kms))
            return
        }
        var part = ImportPlan.Part(id: c.id, name: c.name, hours: c.hours, kilometres: c.kms)
        part.mounts = mounts
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
