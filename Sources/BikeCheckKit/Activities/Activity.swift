/// One ride (or other activity) as Strava describes it, with Strava's own field names and units:
/// seconds, metres, ISO 8601 times.
package struct Activity: Sendable, Hashable {
    package var id: Int64
    package var name: String
    package var sportType: String
    /// Strava's older, coarser activity type; kept as received.
    package var type: String?
    /// UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    package var startDate: String
    /// The rider's wall-clock time, written with a `Z` as Strava does.
    package var startDateLocal: String?
    package var timezone: String?
    package var movingTime: Int
    package var elapsedTime: Int
    package var distance: Double
    package var totalElevationGain: Double
    package var gearID: String?
    package var trainer: Bool
    package var commute: Bool
    package var manual: Bool
    /// Where a ride not from Strava came from: `fit`, `tcx` or `gpx` for a file `import files`
    /// read (its id is then `Activity.importedIDs`'); nil for Strava's.
    package var source: String?
    /// The serial number of the device that recorded it, when its file says.
    package var device: Int64?
    /// The Strava athlete whose activity it is (the listing's `athlete.id`); nil in caches
    /// written before households, and for rides from files: the garage's one (default) rider.
    package var athlete: Int64?

    /// Ids of rides imported from files: derived from the file's content, at 2^62 and above,
    /// where Strava's (about 2^34 today) never reach. `sync` never deletes these.
    package static let importedIDs: PartialRangeFrom<Int64> = (1 << 62)...

    package init(
        id: Int64, name: String, sportType: String, type: String? = nil, startDate: String, startDateLocal: String? = nil,
        timezone: String? = nil, movingTime: Int, elapsedTime: Int, distance: Double, totalElevationGain: Double = 0,
        gearID: String? = nil, trainer: Bool = false, commute: Bool = false, manual: Bool = false, source: String? = nil,
        device: Int64? = nil, athlete: Int64? = nil
    ) {
        self.id = id
        self.name = name
        self.sportType = sportType
        self.type = type
        self.startDate = startDate
        self.startDateLocal = startDateLocal
        self.timezone = timezone
        self.movingTime = movingTime
        self.elapsedTime = elapsedTime
        self.distance = distance
        self.totalElevationGain = totalElevationGain
        self.gearID = gearID
        self.trainer = trainer
        self.commute = commute
        self.manual = manual
        self.source = source
        self.device = device
        self.athlete = athlete
    }

    /// The day the rider rode, on their own calendar.
    package var localDay: Day? {
        // Bytes, not Characters: status asks this of every cached activity.
        var text = startDateLocal ?? startDate
        return text.withUTF8 { $0.count >= 10 ? Day(utf8: UnsafeBufferPointer(rebasing: $0[0..<10])) : nil }
    }

    /// `YYYY-MM`, naming the cache file this activity lives in (by its UTC start).
    package var monthKey: String { String(startDate.prefix(7)) }

    /// Whether this activity starts in `month` (`YYYY-MM`), i.e. `monthKey == month`, without
    /// making a String.
    package func starts(inMonth month: String) -> Bool {
        var date = startDate, month = month
        return date.withUTF8 { d in month.withUTF8 { m in min(d.count, 7) == m.count && d.prefix(7).elementsEqual(m) } }
    }

    /// Cache order: start date, then id.
    package static func cacheOrder(_ a: Activity, _ b: Activity) -> Bool {
        a.startDate != b.startDate ? a.startDate < b.startDate : a.id < b.id
    }
}
