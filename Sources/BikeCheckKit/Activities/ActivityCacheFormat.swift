import Diagnostics

/// The activity cache file format, `activities/YYYY-MM.json`: a JSON array sorted by start date
/// then id, one activity per line with keys in sorted order, and a trailing newline. The same
/// activities always give the same bytes. Its limits are `ActivityLimits`, checked both ways:
/// what `encode` writes, `decode` reads without a diagnostic.
package enum ActivityCacheFormat {
    /// Whether a name in `activities/` is a cache file at all (`*.json`, not hidden): the
    /// reader reads each, and refuses one not named after a month.
    static func isCacheFile(_ name: String) -> Bool { name.hasSuffix(".json") && !name.hasPrefix(".") }

    /// `YYYY-MM` when `name` is `YYYY-MM.json`, else nil: the one rule for which files hold a
    /// month's activities, for the reader (`ActivityCacheLoader`) and the writer
    /// (`ActivityCacheStore`) alike.
    package static func month(ofFileNamed name: String) -> String? {
        guard isCacheFile(name) else { return nil }
        let month = String(name.dropLast(5))
        guard month.utf8.count == 7, Day(month + "-01")?.monthKey == month else { return nil }
        return month
    }

    /// The name of the file holding the activities of `month` (`YYYY-MM`).
    static func fileName(month: String) -> String { month + ".json" }

    /// The bytes of a month file. Throws, writing nothing, when an activity is outside
    /// `ActivityLimits`: bikecheck never writes a cache its own reader would reject.
    package static func encode(_ activities: [Activity]) throws(ActivityLimits.Failure) -> [UInt8] {
        for a in activities {
            if let violation = ActivityLimits.check(a) { throw ActivityLimits.Failure(activityID: a.id, violation: violation) }
        }
        let sorted = activities.sorted(by: Activity.cacheOrder)
        var out: [UInt8] = []
        out.reserveCapacity(sorted.count * 360 + 4)
        out.append(contentsOf: "[".utf8)
        for (i, a) in sorted.enumerated() {
            out.append(contentsOf: (i == 0 ? "\n" : ",\n").utf8)
            encode(a, into: &out)
        }
        out.append(contentsOf: (sorted.isEmpty ? "]\n" : "\n]\n").utf8)
        return out
    }

    static func encode(_ a: Activity, into out: inout [UInt8]) {
        var first = true
        func key(_ k: String) {
            out.append(contentsOf: (first ? "{\"" : ",\"").utf8)
            first = false
            out.append(contentsOf: k.utf8)
            out.append(contentsOf: "\":".utf8)
        }
        func string(_ k: String, _ v: String?) {
            key(k)
            if let v { appendJSONString(v, to: &out) } else { out.append(contentsOf: "null".utf8) }
        }
        func bool(_ k: String, _ v: Bool) { key(k); out.append(contentsOf: (v ? "true" : "false").utf8) }
        func number(_ k: String, _ v: Double) { key(k); out.append(contentsOf: formatNumber(v).utf8) }
        if let athlete = a.athlete { key("athlete"); out.append(contentsOf: String(athlete).utf8) }
        bool("commute", a.commute)
        if let device = a.device { key("device"); out.append(contentsOf: String(device).utf8) }
        number("distance", a.distance)
        number("elapsed_time", Double(a.elapsedTime))
        string("gear_id", a.gearID)
        key("id"); out.append(contentsOf: String(a.id).utf8)
        bool("manual", a.manual)
        number("moving_time", Double(a.movingTime))
        string("name", a.name)
        if let source = a.source { string("source", source) }
        string("sport_type", a.sportType)
        string("start_date", a.startDate)
        if let local = a.startDateLocal { string("start_date_local", local) }
        if let tz = a.timezone { string("timezone", tz) }
        number("total_elevation_gain", a.totalElevationGain)
        bool("trainer", a.trainer)
        if let type = a.type { string("type", type) }
        out.append(UInt8(ascii: "}"))
    }

    /// Integers without a fraction; other numbers in Swift's shortest round-tripping form. (JSON
    /// has no infinity or NaN; `encode` refuses them, and `null` here only keeps the file JSON.)
    static func formatNumber(_ v: Double) -> String {
        guard v.isFinite else { return "null" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(v)
    }

    static func appendJSONString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case UInt8(ascii: "\n"): out.append(contentsOf: "\\n".utf8)
            case UInt8(ascii: "\r"): out.append(contentsOf: "\\r".utf8)
            case UInt8(ascii: "\t"): out.append(contentsOf: "\\t".utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0xF)])
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Reads a cache file. Every activity that can be read is returned; every problem is a
    /// located diagnostic. Unknown fields are skipped, so newer files still load.
    package static func decode(_ bytes: [UInt8], path: String) -> (activities: [Activity], diagnostics: [Diagnostic]) {
        bytes.withUnsafeBufferPointer { buffer -> (activities: [Activity], diagnostics: [Diagnostic]) in
            var reader = ActivityCacheReader<ActivityBuilder>(buffer, path: path)
            let read = reader.readFile()
            return (read.records, read.diagnostics)
        }
    }
}
