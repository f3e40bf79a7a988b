/// A part's rides: runs of the rides of the bikes it was mounted on (`CountedRides`' engine).
extension CountedRides {
    /// The rides behind a part: those of each bike it was mounted on, on the days it was there
    /// (through `through` and the day it was retired), through the part's filter over the
    /// bike's, as `part list` and status count them; each entry says its bike.
    package static func entries(
        of part: Part, garage: Garage, index: Index, through: Day, countedOnly: Bool = false
    ) -> [Entry] {
        var cache = BikeRides(garage: garage, index: index, through: through, countedOnly: countedOnly)
        return entries(of: part, cache: &cache)
    }

    /// The same, from each bike's rides through each filter made once for every part that was
    /// on the bike (a garage of 200 wheelsets has thousands of mounts on 50 bikes).
    package static func entries(of part: Part, filter: RideFilterSpec? = nil, cache: inout BikeRides) -> [Entry] {
        var out: [Entry] = []
        forEachEntry(of: part, filter: filter, cache: &cache) { out.append($0) }
        return out
    }

    /// The same one by one, in order, without gathering them: a part's rides are runs of its
    /// bikes' lists.
    /// `filter` is the part's by default; an interval's (over the part's) for the rides behind it.
    package static func forEachEntry(of part: Part, filter: RideFilterSpec? = nil, cache: inout BikeRides, _ body: (Entry) -> Void) {
        let end = min(cache.through, part.retired ?? cache.through)
        let spec = filter ?? part.rideFilter
        for m in part.mounts.sorted(by: { $0.from < $1.from }) where m.from <= end {
            guard let b = cache.bikeIndex[m.bike.value] else { continue }
            let all = cache.rides(bike: b, filter: m.narrowing(spec.over(cache.garage.bikes[b].filter)))
            // Days are in order: the mount's days are one run of the bike's rides.
            let first = Int32(clamping: m.from.ordinal), last = Int32(clamping: min(m.to ?? end, end).ordinal)
            var k = lowerBound(all, first)
            let stop = lowerBound(all, last == Int32.max ? last : last + 1)
            while k < stop {
                var e = all[k]
                e.bike = Int32(b)
                body(e)
                k += 1
            }
        }
    }
}
