/// One ride behind the numbers of a report, and whether it counts toward the bike's wear.
public struct ReportRide: Sendable, Encodable {
    /// Why a ride of the bike counts, or does not: the rule `status` counts by.
    public enum Verdict: String, Sendable, Encodable, CaseIterable {
        case counted
        /// Its sport type is not among the bike's `counts`.
        case sportType = "sport-type"
        /// Ridden on a trainer, and the bike does not count trainer rides.
        case indoor
        /// A ride of a counted sport type with no gear on Strava: it counts for no bike.
        case noGear = "no-gear"
    }

    public enum Source: String, Sendable, Encodable {
        case strava
        case hand = "rides.yaml"
    }

    public var subject: ReportSubject
    public var day: Day
    public var source: Source
    /// Strava's activity id, for rides from the cache.
    public var activity: Int64?
    public var name: String?
    public var sport: String?
    public var trainer: Bool
    /// Seconds.
    public var movingTime: Double
    /// Metres.
    public var distance: Double
    /// Metres climbed.
    public var elevation: Double
    public var verdict: Verdict

    enum CodingKeys: String, CodingKey {
        case subject, day, source, activity, name, sport, trainer, verdict
        case movingTime = "moving_time"
        case distance, elevation
    }
}

/// The rides of each bike, each with its verdict, by the same rule as `StatusPlanner`: a cached
/// activity is the bike's when its gear id is the bike's; it counts when its sport type is in the
/// bike's `counts` and, on a trainer, when the bike counts trainer rides (or it is a VirtualRide
/// the bike counts); a hand-entered ride counts unless its sport type is not counted.
/// Strava rides of a counted sport type with no gear are listed too, as not counted, since they
/// are the usual answer to "why does this ride not count?". `ReportTests` holds usage to status.
public enum CountedRides {
    /// Cached activities by gear id, built once per report so that each bike reads only its own
    /// (50 bikes over a million activities would otherwise scan fifty million).
    public struct Index: Sendable {
        let activities: [Activity]
        let byGear: [String: [Int]]
        let noGear: [Int]

        public init(_ activities: [Activity]) {
            self.activities = activities
            var byGear: [String: [Int]] = [:]
            var noGear: [Int] = []
            for (k, a) in activities.enumerated() {
                if let g = a.gearID { byGear[g, default: []].append(k) } else { noGear.append(k) }
            }
            self.byGear = byGear
            self.noGear = noGear
        }
    }

    /// The rides of `bike`, oldest first (then by activity id), counted or not, up to `through`.
    public static func rides(of resolved: ResolvedBike, activities: [Activity], handEntered: [Ride], through: Day? = nil) -> [ReportRide] {
        rides(of: resolved, index: Index(activities), handEntered: handEntered, through: through)
    }

    public static func rides(of resolved: ResolvedBike, index: Index, handEntered: [Ride], through: Day? = nil) -> [ReportRide] {
        let bike = resolved.bike
        let subject = ReportSubject.bike(bike)
        var out: [ReportRide] = []
        if let gear = bike.strava?.value {
            let own = (index.byGear[gear] ?? []) + index.noGear.filter { resolved.counts.contains(index.activities[$0].sportType) }
            for a in own.sorted().map({ index.activities[$0] }) {
                guard let day = a.localDay, through.map({ day <= $0 }) ?? true else { continue }
                let verdict: ReportRide.Verdict
                if a.gearID == nil {
                    verdict = .noGear
                } else if !resolved.counts.contains(a.sportType) {
                    verdict = .sportType
                } else if !resolved.filter.admits(sport: a.sportType, indoor: a.trainer) {
                    // The bike's own filter, as status applies it (`trainer:`; a VirtualRide
                    // counts where `counts` lists it).
                    verdict = .indoor
                } else {
                    verdict = .counted
                }
                out.append(
                    ReportRide(
                        subject: subject, day: day, source: .strava, activity: a.id, name: a.name, sport: a.sportType,
                        trainer: a.trainer, movingTime: Double(a.movingTime), distance: a.distance,
                        elevation: a.totalElevationGain, verdict: verdict))
            }
        }
        for r in handEntered where r.bike.value == bike.id && (through.map { r.date <= $0 } ?? true) {
            let verdict: ReportRide.Verdict = resolved.filter.admitsHandEntered(sport: r.sport) ? .counted : .sportType
            out.append(
                ReportRide(
                    subject: subject, day: r.date, source: .hand, activity: nil, name: r.name, sport: r.sport, trainer: false,
                    movingTime: r.movingTime, distance: r.distance, elevation: 0, verdict: verdict))
        }
        return out.sorted { ($0.day, $0.activity ?? Int64.max) < ($1.day, $1.activity ?? Int64.max) }
    }
}
