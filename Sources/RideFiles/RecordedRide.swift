import BikeCheckKit

/// A ride as a device recorded it, read from a FIT, TCX or GPX file: what the activity cache
/// needs of it, and the serial numbers of the devices that recorded it.
package struct RecordedRide: Sendable, Equatable {
    package enum Format: String, Sendable {
        case fit, tcx, gpx
    }

    package var format: Format
    /// Unix seconds, UTC.
    package var start: Int64
    /// Strava's name for the sport (`Ride`, `MountainBikeRide`, `VirtualRide`, …).
    package var sport: String
    /// Ridden indoors: the file says so (an indoor-cycling or virtual sub-sport) or has no
    /// positions.
    package var indoor: Bool
    /// Seconds: the device's timer time, else the time moving over the track.
    package var movingTime: Double
    /// Seconds from start to finish.
    package var elapsedTime: Double
    /// Metres: the device's total, else the distance over the track.
    package var distance: Double
    /// Metres climbed.
    package var ascent: Double
    /// Serial numbers, the recording device's first.
    package var devices: [UInt32]
    /// Seconds east of UTC of the rider's clock, when the file says (FIT's `activity` message).
    package var utcOffset: Int64? = nil
}

/// Why a file could not be read, and where in it: a byte offset (FIT) or a line (XML).
package struct RideFileError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    package var offset: Int?
    package var line: Int?

    package init(_ message: String, offset: Int? = nil, line: Int? = nil) {
        self.message = message
        self.offset = offset
        self.line = line
    }

    /// `byte 1234: …` or `line 12: …`, for after the file's name.
    package var description: String {
        if let line { return "line \(line): \(message)" }
        if let offset { return "byte \(offset): \(message)" }
        return message
    }
}

/// A point of a recorded track.
struct TrackPoint: Sendable {
    /// Unix seconds.
    var time: Int64?
    var latitude: Double?
    var longitude: Double?
    var elevation: Double?
    /// The device's running distance, metres.
    var distance: Double?
}

/// Distance, moving time and climbing over a track's points, for files that do not give totals.
struct Track {
    /// Below this speed between two points the rider is stopped: 1 km/h, as gpxpy counts moving
    /// time.
    static let stoppedBelow = 1.0 / 3.6
    static let earthRadius = 6_371_000.0

    var points: [TrackPoint]

    /// Metres: the device's own running distance when the points carry one, else along the points
    /// (great-circle).
    var distance: Double {
        if let last = points.last(where: { $0.distance != nil })?.distance, last > 0 { return last }
        var total = 0.0
        forEachStep { total += $0.metres }
        return total
    }

    /// Seconds spent moving faster than `stoppedBelow`.
    var movingTime: Double {
        var total = 0.0
        forEachStep { step in
            if step.seconds > 0, step.metres / step.seconds >= Self.stoppedBelow { total += step.seconds }
        }
        return total
    }

    /// Metres climbed: the sum of the rises between points.
    var ascent: Double {
        var total = 0.0
        var previous: Double?
        for p in points {
            guard let e = p.elevation else { continue }
            if let previous, e > previous { total += e - previous }
            previous = e
        }
        return total
    }

    /// Each step between consecutive points that say how far apart they are (by the device's
    /// running distance, else by their positions): its length and duration.
    func forEachStep(_ body: ((metres: Double, seconds: Double)) -> Void) {
        var previous: TrackPoint?
        for p in points {
            defer { previous = p }
            guard let q = previous else { continue }
            let metres: Double
            if let a = q.distance, let b = p.distance {
                metres = max(0, b - a)
            } else if let lat1 = q.latitude, let lon1 = q.longitude, let lat2 = p.latitude, let lon2 = p.longitude {
                metres = Self.greatCircle(lat1, lon1, lat2, lon2)
            } else {
                continue
            }
            let seconds = p.time.flatMap { t in q.time.map { Double(t - $0) } } ?? 0
            body((metres, seconds))
        }
    }

    /// Haversine distance in metres.
    static func greatCircle(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let r = Double.pi / 180
        let dLat = (lat2 - lat1) * r, dLon = (lon2 - lon1) * r
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * r) * cos(lat2 * r) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * earthRadius * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The numbers a ride file gives, range-checked before they are converted: a value out of range
/// makes the file a bad file (`RideFileError`), never a trap.
enum FileNumber {
    /// The start times a ride may have: from 1900 to the end of 9999 (four-digit years).
    static let starts: ClosedRange<Int64> = -2_208_988_800...253_402_300_799
    /// Latitudes and longitudes, degrees.
    static let latitudes: ClosedRange<Double> = -90...90
    static let longitudes: ClosedRange<Double> = -180...180

    /// `v` as a whole number of `T` (towards zero), or nil when it is not finite or outside `T`'s
    /// range: a conversion that can never trap.
    static func whole<T: BinaryInteger>(_ v: Double, as _: T.Type = T.self) -> T? {
        v.isFinite ? T(exactly: v.rounded(.towardZero)) : nil
    }

    /// `v` when the cache may hold it in `field` (`ActivityLimits`), else nil.
    static func within(_ v: Double, _ field: ActivityLimits.Field) -> Double? {
        ActivityLimits.allows(v, field) ? v : nil
    }

    /// Why `v` cannot be `what`: `lap time 1e+19 is out of range: expected seconds, from 0 to 30 days`.
    static func outOfRange(_ what: String, _ v: Double, _ field: ActivityLimits.Field) -> String {
        "\(what) \(ActivityLimits.format(v)) is out of range: expected \(field.expected)"
    }
}

extension RecordedRide {
    /// The ride when all of its numbers are within the cache's limits (`ActivityLimits`) and its
    /// start between 1900 and 9999; else the first that is not, as the file's error. The
    /// decoders check each value where they read it (with its line or byte); this holds the
    /// totals over a whole file.
    package func checked() throws(RideFileError) -> RecordedRide {
        guard FileNumber.starts.contains(start) else {
            throw RideFileError("the start time \(start) (Unix seconds) is out of range: expected a time from 1900 to 9999")
        }
        for (what, value, field) in [
            ("the moving time", movingTime, ActivityLimits.Field.movingTime), ("the elapsed time", elapsedTime, .elapsedTime),
            ("the distance", distance, .distance), ("the ascent", ascent, .totalElevationGain),
        ] where !ActivityLimits.allows(value, field) {
            throw RideFileError(FileNumber.outOfRange(what, value, field))
        }
        if let utcOffset, abs(utcOffset) > 86_400 { throw RideFileError("the offset from UTC \(utcOffset) s is more than a day") }
        return self
    }
}
