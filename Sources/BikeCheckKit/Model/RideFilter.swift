/// Whether rides on a trainer count: Strava marks them `trainer: true`, and a `VirtualRide` is
/// indoors by nature, so it is a trainer ride whatever its flag says.
package enum TrainerRule: String, Sendable, Hashable, Codable {
    /// `trainer: false`: outdoor rides only; no VirtualRide, even where `counts` lists it.
    case no = "false"
    /// `trainer: true`: indoor and outdoor rides.
    case yes = "true"
    /// `trainer: only`: indoor rides only (a trainer tyre).
    case only
}

/// Which rides wear something: the sport types that count, and what to do with trainer rides.
package struct RideFilter: Sendable, Hashable {
    package var counts: Set<String>
    package var trainer: TrainerRule
    /// Only rides whose name has this hashtag (without `#`): a mount's `tag:`.
    package var tag: String?
    /// Not rides whose name has one of these hashtags: a mount's `unless_tag:`.
    package var unlessTags: [String] = []

    package init(counts: Set<String>, trainer: TrainerRule, tag: String? = nil, unlessTags: [String] = []) {
        self.counts = counts
        self.trainer = trainer
        self.tag = tag
        self.unlessTags = unlessTags
    }

    /// The same hash for equal filters, without hashing each sport type's name: a report asks
    /// for a ledger by its (bike, filter) tens of thousands of times (every interval of every
    /// mount of every part), and SipHash over every name of a `Set` took most of that time.
    /// The sport types go in as their count and an order-free sum of each name's length and
    /// end bytes; sets that collide are told apart by `==` (which finds a shared set at once).
    package func hash(into hasher: inout Hasher) {
        var names = 0
        for s in counts {
            let utf8 = s.utf8
            names &+= (utf8.count &* 0x9E37_79B9) ^ (Int(utf8.first ?? 0) << 8) ^ (Int(utf8.last ?? 0) << 16)
        }
        hasher.combine(counts.count)
        hasher.combine(names)
        hasher.combine(trainer)
        hasher.combine(tag)
        hasher.combine(unlessTags)
    }

    /// Whether the filter looks at rides' names at all.
    package var readsTags: Bool { tag != nil || !unlessTags.isEmpty }

    /// Whether a ride with these hashtags (as `RideTags.of(name:)` gives them) gets through `tag`
    /// and `unless_tag`.
    package func admits(tags: String?) -> Bool {
        if let tag, !RideTags.contains(tags, tag) { return false }
        return !unlessTags.contains { RideTags.contains(tags, $0) }
    }

    /// Whether a ride of `sport` counts; `indoor` is Strava's trainer flag. One rule: `counts`
    /// says which sport types, `trainer` whether indoor rides, and a VirtualRide is indoors.
    package func admits(sport: String, indoor: Bool) -> Bool {
        counts.contains(sport) && admitsPlace(indoors: Self.isIndoors(sport: sport, trainerFlag: indoor))
    }

    /// Whether `trainer:` lets a ride ridden indoors (or outdoors) through.
    package func admitsPlace(indoors: Bool) -> Bool {
        switch trainer {
        case .yes: return true
        case .no: return !indoors
        case .only: return indoors
        }
    }

    /// Whether a ride was ridden indoors: Strava's trainer flag, or a VirtualRide.
    package static func isIndoors(sport: String, trainerFlag: Bool) -> Bool { trainerFlag || sport == "VirtualRide" }
}

/// A ride filter as written on one level (an interval, a component, a part); what it leaves
/// out comes from the level above: the component or part, then the bike, then the garage.
package struct RideFilterSpec: Sendable, Hashable {
    package var counts: [String]?
    package var trainer: TrainerRule?

    package init(counts: [String]? = nil, trainer: TrainerRule? = nil) {
        self.counts = counts
        self.trainer = trainer
    }

    package var isEmpty: Bool { counts == nil && trainer == nil }

    /// This level over a more general one.
    package func over(_ base: RideFilterSpec) -> RideFilterSpec {
        RideFilterSpec(counts: counts ?? base.counts, trainer: trainer ?? base.trainer)
    }

    /// This level over a resolved filter.
    package func over(_ base: RideFilter) -> RideFilter {
        RideFilter(counts: counts.map(Set.init) ?? base.counts, trainer: trainer ?? base.trainer)
    }
}
