import Diagnostics

extension Resolver {
    /// A part's intervals: its templates' in order, overridden by its own by id, as for a bike.
    /// `component:` and `replaces:` in them name the part itself, so they are not looked up.
    mutating func resolve(_ part: Part) -> ResolvedPart {
        var (order, merged, missingTemplate) = mergeTemplates(part.templates)
        missingTemplate = missingTemplate || part.misspelledKeys.contains("templates")
        for spec in part.intervals {
            if let base = merged[spec.id] {
                merged[spec.id] = (override(base.spec, with: spec), base.template)
            } else {
                order.append(spec.id)
                merged[spec.id] = (spec, nil)
            }
        }
        var intervals: [ResolvedInterval] = []
        // Where each interval's id is in `order` (`adopting`).
        var positions: [Int] = []
        for (position, id) in order.enumerated() {
            guard let (spec, template) = merged[id] else { continue }
            guard let every = spec.every else {
                if template == nil && !spec.everyIsInvalid { diagnostics.append(FileDecoders.missingLimit(spec)) }
                continue
            }
            positions.append(position)
            intervals.append(
                ResolvedInterval(
                    id: id, task: spec.task ?? id.rawValue, component: nil, replaces: nil,
                    limits: every.value, dueSoon: spec.dueSoon ?? settings.dueSoon, template: template,
                    rideFilter: spec.rideFilter.over(part.rideFilter), repeatRule: spec.repeatRule ?? .fromDone, wearLimit: spec.wearLimit?.value))
        }
        guard !missingTemplate && !part.misspelledKeys.contains("intervals") else { return ResolvedPart(part: part, intervals: intervals) }
        let known = Set(order)
        var ids = order
        let unknownDone = Self.unknownDone(in: part.log, known: &ids)
        Self.adopting(ids, positions: positions, in: &intervals)
        for done in unknownDone {
            let meant = Suggestion(done.value.rawValue, among: order.map(\.rawValue))
            diagnostics.append(
                Diagnostic.error(
                    .unknownInterval, "unknown interval '\(done.value)' for part '\(part.id)'\(meant.hint)",
                    at: done.location,
                    help: order.isEmpty
                        ? "the part has no intervals; add a template or intervals:"
                        : "intervals: \(order.map(\.rawValue).joined(separator: ", "))"
                ).fixed(by: meant.name))
        }
        diagnostics += Self.unknownSnoozes(part.snoozes, owner: "part '\(part.id)'", known: known, intervals: order)
        diagnostics += Self.readingProblems(part.log, owner: "part '\(part.id)'", known: known, intervals: order, merged: merged)
        return ResolvedPart(part: part, intervals: intervals)
    }

    /// Parts on parts: each stretch a part spent on another part becomes, for every stretch that
    /// part (through its own parents, to any depth) spent on a bike within it, a mount on that
    /// bike `via` it. A parent that is no part, and a chain of mounts that leads back to the part
    /// it started from, are errors; neither puts the part on a bike.
    mutating func mountOnParts(_ parts: inout [Part]) {
        guard parts.contains(where: { !$0.partMounts.isEmpty }) else { return }
        let index = Dictionary(parts.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        let ids = parts.map(\.id.rawValue)
        var effective: [Int: [Mount]] = [:]
        var visiting: Set<Int> = []
        var found: [Diagnostic] = []
        func resolve(_ k: Int) -> [Mount] {
            if let done = effective[k] { return done }
            visiting.insert(k)
            var out = parts[k].mounts.filter(\.via.isEmpty)
            for pm in parts[k].partMounts {
                guard let p = index[pm.parent.value] else { continue }
                if visiting.contains(p) {
                    found.append(
                        .error(
                            .mountCycle,
                            p == k
                                ? "part '\(parts[k].id)' is mounted on itself"
                                : "part '\(parts[k].id)' is mounted on part '\(pm.parent.value)', which is on '\(parts[k].id)' (directly or through other parts): a part cannot be on itself",
                            at: pm.parent.location, help: "end one of the mounts, or mount the part on a bike"))
                    continue
                }
                for m in resolve(p) {
                    let from = max(m.from, pm.from)
                    let to: Day? = [m.to, pm.to].compactMap { $0 }.min()
                    guard to.map({ from <= $0 }) ?? true else { continue }
                    out.append(
                        Mount(
                            bike: m.bike, from: from, to: to, fromLocation: pm.fromLocation, toLocation: pm.toLocation, location: pm.location,
                            entry: pm.entry, via: [pm.parent.value] + m.via, tag: m.tag, unlessTags: m.unlessTags))
                }
            }
            visiting.remove(k)
            out.sort { ($0.from, $0.entry) < ($1.from, $1.entry) }
            effective[k] = out
            return out
        }
        for k in parts.indices {
            for pm in parts[k].partMounts where index[pm.parent.value] == nil {
                found.append(Self.unknown(.unknownPart, "part", pm.parent.value.rawValue, at: pm.parent.location, among: ids, folder: "parts"))
            }
        }
        for k in parts.indices { parts[k].mounts = resolve(k) }
        diagnostics += found
    }

    /// Where a part has been: on bikes that exist (`byID`; `ids`: the garage's bike ids, in
    /// order), one bike at a time, after it was bought and not after the bike was retired.
    /// `checkSlots` checks the parts together.
    mutating func checkMounts(of part: Part, byID: [BikeID: Bike], ids: [String]) {
        // `status ID` and `done ID` look for a bike first.
        if let bike = byID[BikeID(part.id.rawValue)] {
            diagnostics.append(
                .warning(
                    .partIdIsBikeId, "part '\(part.id)' has the id of bike '\(bike.id)'",
                    at: SourceLocation(file: part.location.file), notes: [.init("the bike", at: SourceLocation(file: bike.location.file))],
                    help: "'bikecheck status \(part.id)' and 'bikecheck done \(part.id) …' mean the bike; rename the part's file"))
        }
        for mount in part.mounts where mount.via.isEmpty {
            guard let bike = byID[mount.bike.value] else {
                diagnostics.append(Self.unknown(.unknownBike, "bike", mount.bike.value.rawValue, at: mount.bike.location, among: ids, folder: "bikes"))
                continue
            }
            if let retired = bike.retired, mount.from > retired {
                diagnostics.append(
                    .warning(
                        .mountAfterRetired, "part '\(part.id)' is mounted on bike '\(bike.id)' on \(mount.from), after the bike was retired (\(retired))",
                        at: mount.fromLocation, notes: [.init("retired here", at: bike.fieldLocations["retired"] ?? bike.location)],
                        help: "nothing is ridden on a retired bike; check the date or the bike"))
            }
            // Left on when the bike was retired: it stops counting with the bike, which is
            // seldom what the rider meant (the wheels went on the next bike, or the shelf).
            if let retired = bike.retired, mount.from <= retired, mount.to.map({ $0 > retired }) ?? true,
                part.retired.map({ $0 > retired }) ?? true
            {
                diagnostics.append(
                    .warning(
                        .partOnRetiredBike, "part '\(part.id)' is still on bike '\(bike.id)', retired \(retired); it stops counting that day",
                        at: mount.toLocation ?? mount.location, notes: [.init("retired here", at: bike.fieldLocations["retired"] ?? bike.location)],
                        help: "take it off on the day after: bikecheck part unmount \(part.id) --date \(retired.adding(days: 1))"))
            }
        }
        // Bought before it went on anything, bike or part.
        let written = part.writtenMounts
        for mount in written {
            if let bought = part.bought, mount.from < bought {
                diagnostics.append(
                    .warning(
                        .mountBeforeBought, "part '\(part.id)' is mounted on \(mount.from), before it was bought (\(bought))",
                        at: mount.fromLocation, notes: [.init("bought here", at: part.fieldLocations["bought"] ?? part.location)],
                        help: "check the mount's 'from' date, or the part's 'bought' date"))
            }
        }
        // One bike or part at a time: in date order, each mount as written starts after the
        // one before ends.
        // A mount for tagged rides only shares its days with the others.
        let sorted = written.filter { $0.tag == nil }.sorted { $0.from < $1.from }
        for (earlier, later) in zip(sorted, sorted.dropFirst()) where later.from <= (earlier.to ?? later.from) {
            let until = earlier.to.map { "through \($0)" } ?? "with no end"
            diagnostics.append(
                .error(
                    .overlappingMounts, "part '\(part.id)' is on \(later.on) from \(later.from) while on \(earlier.on) \(until)",
                    at: later.fromLocation, notes: [.init("the earlier mount", at: earlier.location)],
                    help: "a part is on one bike or part at a time: end the earlier mount the day before (to: \(later.from.adding(days: -1)))"))
        }
    }

    /// One part per slot of a bike at a time.
    mutating func checkSlots(_ parts: [Part]) {
        var bySlot: [String: [(part: Part, mount: Mount)]] = [:]
        for part in parts { if let slot = part.slot?.value { for m in part.mounts where m.tag == nil { bySlot[slot, default: []].append((part, m)) } } }
        for slot in bySlot.keys.sorted() {
            let claims = bySlot[slot]!.sorted { ($0.mount.from, $0.part.id) < ($1.mount.from, $1.part.id) }
            for (i, a) in claims.enumerated() {
                for b in claims[(i + 1)...]
                where b.part.id != a.part.id && b.mount.bike.value == a.mount.bike.value
                    && b.mount.from <= (a.mount.to ?? b.mount.from)
                {
                    diagnostics.append(
                        .error(
                            .slotTaken, "parts '\(a.part.id)' and '\(b.part.id)' both fill slot '\(slot)' of bike '\(b.mount.bike.value)' on \(b.mount.from)",
                            at: b.mount.fromLocation, notes: [.init("'\(a.part.id)' is mounted here", at: a.mount.location)],
                            help: "a slot holds one part at a time: unmount '\(a.part.id)' the day before (to: \(b.mount.from.adding(days: -1)))"))
                }
            }
        }
    }
}
