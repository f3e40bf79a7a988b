/// One ride that reached the activity cache twice: from Strava and from a file, or from two
/// files. Two activities are the same ride when they start within `startWithin` seconds and their
/// distances differ by at most `distanceWithin` of the longer; the cache keeps one of them,
/// whichever arrived first (`import files` and `sync` both ask this rule).
///
/// Strava's copy is the one kept: `sync` keeps it current (a rename, a bike chosen on Strava, a
/// deletion), and a ride a file brought is not Strava's to delete, so keeping the file's would
/// leave a ride deleted on Strava counting forever. What only the file knew, which bike its
/// device (or `--bike`) put it on, goes onto Strava's copy while Strava names no bike
/// (`kept(strava:file:)`), so the ride does not lose its bike for arriving second.
package enum SameRide {
    /// Two rides are one when they start within this many seconds...
    package static let startWithin: Int64 = 120
    /// ...and their distances differ by at most this share of the longer.
    package static let distanceWithin = 0.05

    /// Strava's copy of a ride, carrying the bike and device of `file` (the same ride from a
    /// file, or Strava's cached copy that carried them before) when Strava names no bike.
    /// `device` marks the bike as the file's: a later listing with no gear keeps it, one that
    /// names a bike replaces it.
    package static func kept(strava: Activity, file: Activity) -> Activity {
        guard strava.gearID == nil, let gear = file.gearID, file.device != nil || file.source != nil else { return strava }
        var kept = strava
        kept.gearID = gear
        kept.device = file.device ?? kept.device
        return kept
    }

    /// Whether a cached Strava activity holds a bike a file gave it (not one Strava named), so a
    /// listing without gear must not take it away.
    package static func holdsFileBike(_ a: Activity) -> Bool { a.source == nil && a.device != nil && a.gearID != nil }

    /// Activities' starts in order, to find the one a ride may already be.
    package struct Starts: Sendable {
        private var entries: [(start: Int64, distance: Double, id: Int64)] = []

        package init(_ activities: some Sequence<Activity>) {
            entries = activities.compactMap { a in Timestamps.epoch(a.startDate).map { ($0, a.distance, a.id) } }.sorted {
                ($0.start, $0.id) < ($1.start, $1.id)
            }
        }

        package var isEmpty: Bool { entries.isEmpty }

        /// The first activity, other than `id`, that is the same ride as one starting at `start`
        /// (epoch seconds) over `distance` metres.
        package func match(_ start: Int64, distance: Double, except id: Int64) -> Int64? {
            var k = position(of: (start - SameRide.startWithin, .min))
            while k < entries.count, entries[k].start <= start + SameRide.startWithin {
                let e = entries[k]
                if e.id != id, abs(e.distance - distance) <= SameRide.distanceWithin * max(e.distance, distance) { return e.id }
                k += 1
            }
            return nil
        }

        package mutating func add(_ a: Activity) {
            guard let start = Timestamps.epoch(a.startDate) else { return }
            entries.insert((start, a.distance, a.id), at: position(of: (start, a.id)))
        }

        package mutating func remove(_ a: Activity) {
            guard let start = Timestamps.epoch(a.startDate) else { return }
            let k = position(of: (start, a.id))
            if k < entries.count, entries[k].id == a.id { entries.remove(at: k) }
        }

        /// The first entry at or after `key` (start, id).
        private func position(of key: (Int64, Int64)) -> Int {
            var low = 0, high = entries.count
            while low < high {
                let mid = (low + high) / 2
                if (entries[mid].start, entries[mid].id) < key { low = mid + 1 } else { high = mid }
            }
            return low
        }
    }
}
