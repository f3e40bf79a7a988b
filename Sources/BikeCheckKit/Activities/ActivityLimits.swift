/// The one set of limits of the activity cache format. Every way into the cache is held to it:
/// the cache reader (`ActivityCacheFormat.decode`), the writer (`ActivityCacheFormat.encode`
/// refuses an activity outside them), the store (`upsert`), Strava's API decoder and the bulk
/// export reader. So bikecheck never writes a cache that `validate` then rejects.
///
/// The bounds keep every later sum exact and every conversion to an integer safe.
package enum ActivityLimits {
    /// The longest believable moving or elapsed time: 30 days, in seconds.
    package static let maxDuration: Double = Quantity.longestRide
    /// The farthest believable distance, in metres (100,000 km).
    package static let maxDistance: Double = 100_000_000

    /// A field the limits apply to, by its name in the cache.
    package enum Field: String, Sendable, CaseIterable {
        case id, startDate = "start_date", startDateLocal = "start_date_local", movingTime = "moving_time"
        case elapsedTime = "elapsed_time", distance, totalElevationGain = "total_elevation_gain"

        /// What the field must hold, as messages say it.
        package var expected: String {
            switch self {
            case .id: "a positive whole number"
            case .startDate: "a UTC time like 2025-10-02T06:12:00Z"
            case .startDateLocal: "a time like 2025-10-02T08:12:00Z"
            case .movingTime, .elapsedTime: "seconds, from 0 to 30 days"
            case .distance: "metres, from 0 to 100,000 km"
            case .totalElevationGain: "metres, from -100,000 km to 100,000 km"
            }
        }

        /// The range of a numeric field (nil for the others).
        @inline(__always)
        package var range: ClosedRange<Double>? {
            switch self {
            case .movingTime, .elapsedTime: 0...ActivityLimits.maxDuration
            case .distance: 0...ActivityLimits.maxDistance
            case .totalElevationGain: -ActivityLimits.maxDistance...ActivityLimits.maxDistance
            case .id, .startDate, .startDateLocal: nil
            }
        }
    }

    /// A value outside the limits: which field, the value as given, and what was expected.
    package struct Violation: Error, Equatable, Sendable, CustomStringConvertible {
        package var field: Field
        package var value: String
        package init(field: Field, value: String) {
            self.field = field
            self.value = value
        }
        /// A number outside the limits, shown as messages show numbers (whole ones without a fraction).
        package init(field: Field, number: Double) {
            self.init(field: field, value: ActivityLimits.format(number))
        }
        /// `distance 200000000000 is out of range: expected metres, from 0 to 100,000 km`.
        package var description: String { "\(field.rawValue) \(value) is out of range: expected \(field.expected)" }
    }

    /// An activity the cache may not hold: its id and the first field outside the limits.
    package struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        package var activityID: Int64
        package var violation: Violation
        package init(activityID: Int64, violation: Violation) {
            self.activityID = activityID
            self.violation = violation
        }
        package var description: String { "activity \(activityID): \(violation)" }
    }

    /// Whether `value` may be stored in the numeric `field` (finite, within its range). Inlined:
    /// the cache reader asks it four times an activity, of a field it names.
    @inline(__always)
    package static func allows(_ value: Double, _ field: Field) -> Bool {
        guard let range = field.range else { return false }
        // Finite bounds: NaN and the infinities fail the comparisons, no `isFinite` needed
        // (which took 20 instructions, four times an activity, in the cache reader).
        return range.lowerBound <= value && value <= range.upperBound
    }

    /// The first field of `a` outside the limits, or nil when the cache may hold it.
    package static func check(_ a: Activity) -> Violation? {
        if a.id <= 0 { return Violation(field: .id, value: String(a.id)) }
        if timestampDay(a.startDate) == nil { return Violation(field: .startDate, value: "'\(a.startDate)'") }
        if let local = a.startDateLocal, timestampDay(local) == nil { return Violation(field: .startDateLocal, value: "'\(local)'") }
        for (field, value) in [
            (Field.movingTime, Double(a.movingTime)), (.elapsedTime, Double(a.elapsedTime)),
            (.distance, a.distance), (.totalElevationGain, a.totalElevationGain),
        ]
        where !allows(value, field) {
            return Violation(field: field, number: value)
        }
        return nil
    }

    /// The day of a cache timestamp `YYYY-MM-DDTHH:MM:SS…Z` (checked loosely: what
    /// `Activity.localDay` and the month checks rely on), or nil when it is not one.
    package static func timestampDay(_ text: String) -> Day? {
        var text = text
        return text.withUTF8 { timestampDay(utf8: $0) }
    }

    static func timestampDay(utf8 u: UnsafeBufferPointer<UInt8>) -> Day? {
        guard u.count >= 20, u[u.count - 1] == UInt8(ascii: "Z"), u[10] == UInt8(ascii: "T"), u[13] == UInt8(ascii: ":"),
            u[16] == UInt8(ascii: ":")
        else { return nil }
        return Day(utf8: UnsafeBufferPointer(rebasing: u[0..<10]))
    }

    /// Whole seconds for a duration within the limits, else nil (so `Int` can never trap).
    package static func wholeSeconds(_ value: Double) -> Int? {
        allows(value, .movingTime) ? Int(value.rounded()) : nil
    }

    /// A number as a message shows it: whole numbers without a fraction.
    package static func format(_ v: Double) -> String {
        if v.isFinite, v == v.rounded(), abs(v) < 1e18 { return String(Int64(v)) }
        return String(v)
    }
}
