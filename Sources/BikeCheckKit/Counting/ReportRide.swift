/// One ride behind the numbers of a report, and whether it counts toward the bike's wear.
package struct ReportRide: Sendable, Encodable {
    /// Why a ride of the bike counts, or does not: the rule `status` counts by.
    package enum Verdict: String, Sendable, Encodable, CaseIterable {
        case counted
        /// Its sport type is not among the bike's `counts`.
        case sportType = "sport-type"
        /// Ridden on a trainer, and the bike does not count trainer rides.
        case indoor
        /// Ridden outdoors, and only trainer rides count (`trainer: only`).
        case outdoor
        /// A ride of a counted sport type with no gear on Strava: it counts for no bike.
        case noGear = "no-gear"
        /// Ridden before the bike's `bought:` day: the bike was not the rider's yet.
        case beforeBought = "before-bought"
        /// Ridden after the bike's `retired:` day, on its gear: a retired bike's clock has stopped.
        case afterRetired = "after-retired"
    }

    package enum Source: String, Sendable, Encodable {
        case strava
        /// A ride `import files` read from a FIT, TCX or GPX file.
        case file
        case hand = "rides.yaml"
    }

    package var subject: ReportSubject
    /// The bike it was ridden on, when the subject is a part.
    package var bike: String?
    package var day: Day
    package var source: Source
    /// Strava's activity id, for rides from the cache.
    package var activity: Int64?
    package var name: String?
    package var sport: String?
    package var trainer: Bool
    /// Seconds.
    package var movingTime: Double
    /// Metres.
    package var distance: Double
    /// Metres climbed.
    package var elevation: Double
    package var verdict: Verdict

    enum CodingKeys: String, CodingKey {
        case subject, bike, day, source, activity, name, sport, trainer, verdict
        case movingTime = "moving_time"
        case distance, elevation
    }
}
