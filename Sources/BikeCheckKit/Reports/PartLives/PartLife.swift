/// Usage over a stretch of days, in Strava's units, with the first and last day ridden.
package struct LifeUsage: Sendable, Codable, Equatable {
    /// Distance, in metres.
    package var distance: Double = 0
    /// Moving time, in seconds.
    package var movingTime: Double = 0
    package var rides: Int = 0
    package var firstUse: Day?
    package var lastUse: Day?

    package init(distance: Double = 0, movingTime: Double = 0, rides: Int = 0, firstUse: Day? = nil, lastUse: Day? = nil) {
        self.distance = distance
        self.movingTime = movingTime
        self.rides = rides
        self.firstUse = firstUse
        self.lastUse = lastUse
    }

    enum CodingKeys: String, CodingKey {
        case distance
        case movingTime = "moving_time"
        case rides
        case firstUse = "first_use"
        case lastUse = "last_use"
    }

    mutating func add(_ other: LifeUsage) {
        distance += other.distance
        movingTime += other.movingTime
        rides += other.rides
        if let f = other.firstUse, firstUse.map({ f < $0 }) ?? true { firstUse = f }
        if let l = other.lastUse, lastUse.map({ l > $0 }) ?? true { lastUse = l }
    }
}

/// One stretch of a part on a bike and what it did there.
package struct MountLife: Sendable, Encodable, Equatable {
    package var bike: String
    package var from: Day
    package var to: Day?
    package var usage: LifeUsage
    /// The parts it was on the bike through, nearest first (tyres on a wheelset: the wheelset);
    /// empty when it was on the bike itself.
    package var via: [String] = []

    enum CodingKeys: String, CodingKey { case bike, from, to, via }

    /// Flat, as Strava's own records: the usage's fields sit beside `bike`, `from` and `to`.
    package func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(bike, forKey: .bike)
        try c.encode(from, forKey: .from)
        try c.encodeIfPresent(to, forKey: .to)
        if !via.isEmpty { try c.encode(via, forKey: .via) }
        try usage.encode(to: encoder)
    }
}

/// The life so far of a part (`parts/`) or of a component written in a bike file.
package struct PartLife: Sendable, Encodable, Equatable {
    package enum Kind: String, Sendable, Codable { case part, component }
    package var kind: Kind
    /// The part's id, or the component's key in its bike file.
    package var id: String
    package var name: String?
    /// Where it is now: a part's bike as of the report day (nil on the shelf), a component's bike.
    package var bike: String?
    package var retired: Day?
    /// A component's current one: since when it counts (its install or latest replacement).
    package var since: Day?
    /// Its whole life: every ride on the bikes it was on, on the days it was there, plus its
    /// usage before tracking. For a component, the current one's life.
    package var usage: LifeUsage
    /// Usage before tracking, included in `usage`.
    package var prior: LifeUsage
    /// A part's mounts, oldest first, with the usage on each.
    package var mounts: [MountLife]?
    /// A component's slot: every ride of its bike that counts through the component's filter,
    /// whichever component filled it, plus the usage before tracking written for it.
    package var slot: LifeUsage?

    enum CodingKeys: String, CodingKey { case kind, id, name, bike, retired, since, prior, mounts, slot }

    /// Flat: `distance`, `moving_time`, `rides`, `first_use` and `last_use` beside `id`.
    package func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(id, forKey: .id)
        try c.encodeIfPresent(name, forKey: .name)
        try c.encodeIfPresent(bike, forKey: .bike)
        try c.encodeIfPresent(retired, forKey: .retired)
        try c.encodeIfPresent(since, forKey: .since)
        try c.encode(prior, forKey: .prior)
        try c.encodeIfPresent(mounts, forKey: .mounts)
        try c.encodeIfPresent(slot, forKey: .slot)
        try usage.encode(to: encoder)
    }
}

/// What `bikecheck part list` and `part show` report.
package struct PartLifeReport: Sendable, Encodable, Equatable {
    package var asOf: Day
    /// The figures are SI (`"units": "si"`); `units` is what the rider reads (`display_units`).
    package var jsonUnits = JSONUnits.si
    package var units: UnitSystem
    package var parts: [PartLife]

    enum CodingKeys: String, CodingKey {
        case asOf = "as_of"
        case jsonUnits = "units"
        case units = "display_units"
        case parts
    }
}

extension RideLedger {
    /// The rides from `from` through `through`, both inclusive.
    func life(from: Int, through: Int) -> LifeUsage {
        let a = lowerBound(from), b = lowerBound(through + 1)
        guard b > a else { return LifeUsage() }
        return LifeUsage(
            distance: distance[b] - distance[a], movingTime: time[b] - time[a], rides: b - a,
            firstUse: Day(ordinal: days[a]), lastUse: Day(ordinal: days[b - 1]))
    }
}

extension StatusPlanner {
    /// The life so far of every part (or only those named) and, when none is named, of every
    /// component written in a bike file, as of `asOf`.
    package func lives(_ garage: Garage, summaries: ActivitySummaries, only: [PartID] = []) -> PartLifeReport {
        var rides = CountedRides.BikeRides(garage: garage, summaries: summaries, through: asOf)
        return lives(garage, rides: &rides, only: only)
    }

    /// The same from rides counted once for several reports of one garage.
    package func lives(_ garage: Garage, rides: inout CountedRides.BikeRides, only: [PartID] = []) -> PartLifeReport {
        let parts = only.isEmpty ? garage.parts : garage.parts.filter { only.contains($0.part.id) }
        let bikeFilters = Dictionary(garage.bikes.map { ($0.bike.id, $0.filter) }, uniquingKeysWith: { a, _ in a })
        // Ledgers through the part's filter on each bike it was on, a component's on its bike, and the bike's own.
        var keys: [LedgerKey] = []
        var seen: Set<LedgerKey> = []
        func need(_ key: LedgerKey) { if seen.insert(key).inserted { keys.append(key) } }
        func key(_ bike: BikeID, _ spec: RideFilterSpec) -> LedgerKey? { bikeFilters[bike].map { LedgerKey(bike: bike, filter: spec.over($0)) } }
        // A part's on one mount: narrowed by its `tag:` or `unless_tag:`.
        func key(_ m: Mount, _ spec: RideFilterSpec) -> LedgerKey? {
            bikeFilters[m.bike.value].map { LedgerKey(bike: m.bike.value, filter: m.narrowing(spec.over($0))) }
        }
        for p in parts { for m in p.part.mounts { if let k = key(m, p.part.rideFilter) { need(k) } } }
        if only.isEmpty {
            for b in garage.bikes where !b.bike.components.isEmpty {
                need(LedgerKey(bike: b.bike.id, filter: b.filter))
                for c in b.bike.components { if let k = key(b.bike.id, c.rideFilter) { need(k) } }
            }
        }
        let ledgers = rides.ledgers(keys.map { ($0.bike, $0.filter) })
        let end = asOf.ordinal
        var out: [PartLife] = []
        for rp in parts.sorted(by: { $0.part.id < $1.part.id }) {
            let part = rp.part
            let through = min(end, part.retired?.ordinal ?? end)
            let prior = LifeUsage(distance: part.priorDistance, movingTime: part.priorHours * 3600, rides: Int(part.priorRides))
            var usage = prior
            var mounts: [MountLife] = []
            for m in part.mounts.sorted(by: { $0.from < $1.from }) where m.from.ordinal <= through {
                let u =
                    key(m, part.rideFilter).flatMap { ledgers[$0] }.map {
                        $0.life(from: m.from.ordinal, through: min(m.to?.ordinal ?? through, through))
                    } ?? LifeUsage()
                usage.add(u)
                mounts.append(MountLife(bike: m.bike.value.rawValue, from: m.from, to: m.to, usage: u, via: m.via.map(\.rawValue)))
            }
            let retired = part.retired.map { $0 <= asOf } ?? false
            out.append(
                PartLife(
                    kind: .part, id: part.id.rawValue, name: part.name,
                    bike: retired ? nil : part.mount(on: asOf)?.bike.value.rawValue, retired: part.retired,
                    since: nil, usage: usage.rounded, prior: prior,
                    mounts: mounts.map {
                        var m = $0; m.usage = m.usage.rounded; return m
                    },
                    slot: nil))
        }
        if only.isEmpty {
            for resolved in garage.bikes {
                let bike = resolved.bike
                guard let ledger = ledgers[LedgerKey(bike: bike.id, filter: resolved.filter)], !bike.components.isEmpty else { continue }
                // A retired bike's clock stopped on its `retired:` day: an install or replacement
                // written after it is not counted (`component-after-retired`), as status says.
                let day = min(asOf, bike.retired ?? asOf)
                let services = Services(of: resolved, asOf: day)
                for c in bike.components {
                    // The current one counts from its install, or from the latest log entry that
                    // replaced it; an install date after the day counts as none (since bought).
                    var since = c.installed.flatMap { $0 <= day ? $0 : nil } ?? bike.bought.flatMap { $0 <= day ? $0 : nil }
                    var replaced = false
                    if let r = services.lastReplaced(c.id), since.map({ r.day >= $0 }) ?? true { since = r.day; replaced = true }
                    let written = LifeUsage(distance: c.priorDistance, movingTime: c.priorHours * 3600, rides: Int(c.priorRides))
                    let prior = replaced ? LifeUsage() : written
                    let own = key(bike.id, c.rideFilter).flatMap { ledgers[$0] } ?? ledger
                    var usage = own.life(from: since?.ordinal ?? Int.min / 2, through: end)
                    usage.add(prior)
                    // The slot: every ride of the bike that counts through the component's filter,
                    // whichever component filled it, plus the usage before tracking written for
                    // it; so never less than the life of any component that filled it.
                    var slot = own.life(from: Int.min / 2, through: end)
                    slot.add(written)
                    out.append(
                        PartLife(
                            kind: .component, id: c.id.rawValue, name: c.name, bike: bike.id.rawValue, retired: bike.retired,
                            since: since, usage: usage.rounded, prior: prior, mounts: nil, slot: slot.rounded))
                }
            }
        }
        return PartLifeReport(asOf: asOf, units: garage.settings.units, parts: out)
    }
}

extension LifeUsage {
    /// Four decimals, as status reports carry: stable across platforms.
    var rounded: LifeUsage {
        var u = self
        u.distance = (distance * 10_000).rounded() / 10_000
        u.movingTime = (movingTime * 10_000).rounded() / 10_000
        return u
    }
}
