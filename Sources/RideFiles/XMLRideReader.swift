import BikeCheckKit
import Foundation

/// Reads a TCX or GPX file with Foundation's XML parser (libxml2, external entities off): TCX's
/// own totals (its laps' timer time and distance) when it has them, else the track's; GPX from
/// its track points (distance over the points, moving time above `Track.stoppedBelow`). The
/// parser is in libBikeCheckRideXML (Sources/RideFilesXML), loaded with dlopen the first time a
/// file is read, so that no other command loads FoundationXML and libxml2.
package enum XMLRideReader {
    package static func decode(_ bytes: [UInt8], format: RecordedRide.Format) throws(RideFileError) -> RecordedRide {
        // Foundation's parser traps on some text that is not UTF-8 (the fuzz test found it): such
        // a file is refused first, at the line of its first bad byte.
        if let bad = firstInvalidUTF8(bytes) {
            throw RideFileError("not UTF-8 text (byte \(bad))", line: 1 + bytes[..<bad].reduce(0) { $0 + ($1 == 10 ? 1 : 0) })
        }
        let parse: XMLLibrary.Parse
        switch XMLLibrary.parse {
        case .success(let function): parse = function
        case .failure(let failure):
            throw RideFileError("TCX and GPX files are read by \(failure.path), and \(failure.reason): install it beside bikecheck")
        }
        let collector = Collector()
        var errorCode = -1
        var lastLine = 0
        let parsed = withExtendedLifetime(collector) {
            bytes.withUnsafeBufferPointer { buffer in
                parse(
                    buffer.baseAddress, buffer.count, Unmanaged.passUnretained(collector).toOpaque(), XMLLibrary.start, XMLLibrary.text,
                    XMLLibrary.end, &errorCode, &lastLine)
            }
        }
        // libxml2 recovers from some errors (a tag left open) and still reports them: a file with
        // any error is refused, never half-read.
        if parsed == 0 {
            let reason = collector.failure ?? (errorCode >= 0 ? "not well-formed XML (\(errorCode))" : "not well-formed XML")
            throw RideFileError(reason, line: max(1, lastLine))
        }
        if let failure = collector.failure { throw RideFileError(failure, line: collector.failureLine) }
        switch format {
        case .tcx: return try collector.tcx()
        case .gpx: return try collector.gpx()
        case .fit: throw RideFileError("not an XML format")
        }
    }

    /// The offset of the first byte that is not part of well-formed UTF-8, or nil.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    /// ISO 8601 date-time (`2026-05-01T08:00:00Z`, fractions and `+02:00` offsets too) as Unix
    /// seconds; nil when it is not one.
    static func unixSeconds(_ text: String) -> Int64? {
        let b = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        func digits(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= b.count else { return nil }
            var v = 0
            for k in from..<(from + count) {
                guard b[k] >= 48, b[k] <= 57 else { return nil }
                v = v * 10 + Int(b[k] - 48)
            }
            return v
        }
        guard b.count >= 19, b[4] == 45, b[7] == 45, b[10] == 84 || b[10] == 32, b[13] == 58, b[16] == 58,
            let y = digits(0, 4), let m = digits(5, 2), let d = digits(8, 2), let hh = digits(11, 2), let mm = digits(14, 2),
            let ss = digits(17, 2), (1...12).contains(m), (1...31).contains(d), hh < 24, mm < 60, ss < 61
        else { return nil }
        var k = 19
        if k < b.count, b[k] == 46 {
            k += 1
            while k < b.count, b[k] >= 48, b[k] <= 57 { k += 1 }
        }
        var offset = 0
        if k < b.count {
            if b[k] == 90 {
                k += 1
            } else if b[k] == 43 || b[k] == 45, let oh = digits(k + 1, 2) {
                let om = (k + 3 < b.count && b[k + 3] == 58) ? digits(k + 4, 2) : digits(k + 3, 2)
                guard let om else { return nil }
                offset = (oh * 3600 + om * 60) * (b[k] == 45 ? -1 : 1)
                k += b.count > k + 3 && b[k + 3] == 58 ? 6 : 5
            } else {
                return nil
            }
        }
        guard k == b.count else { return nil }
        // Days from the civil date (Howard Hinnant's algorithm).
        let yy = m <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return Int64(days * 86_400 + hh * 3600 + mm * 60 + ss - offset)
    }

    /// The offset from UTC an ISO 8601 date-time writes (`+02:00` is 7200), in seconds; nil for
    /// `Z`, for none, or for text that is not a date-time: the rider's clock only when written.
    static func writtenOffset(_ text: String) -> Int64? {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard unixSeconds(t) != nil, t.count >= 25 else { return nil }
        let tail = Array(t.utf8.suffix(6))
        guard tail[0] == 43 || tail[0] == 45, tail[3] == 58 else { return nil }
        let digits = [tail[1], tail[2], tail[4], tail[5]].map { Int64($0) - 48 }
        guard digits.allSatisfy({ (0...9).contains($0) }) else { return nil }
        let seconds = (digits[0] * 10 + digits[1]) * 3600 + (digits[2] * 10 + digits[3]) * 60
        return tail[0] == 45 ? -seconds : seconds
    }

    /// The sport a TCX `Sport` attribute or a GPX `<type>` names, as Strava names it. Bikecheck
    /// counts rides: a file that names no sport is a ride.
    static func sport(_ text: String?) -> String {
        guard let text = text?.lowercased(), !text.isEmpty else { return "Ride" }
        if text.contains("virtual") { return "VirtualRide" }
        if text.contains("mountain") || text.contains("mtb") { return "MountainBikeRide" }
        if text.contains("gravel") { return "GravelRide" }
        if text.contains("e-bike") || text.contains("ebike") || text.contains("e_bik") { return "EBikeRide" }
        if text.contains("bik") || text.contains("cycl") || text.contains("ride") || text == "1" { return "Ride" }
        if text.contains("run") || text == "9" { return "Run" }
        if text.contains("walk") { return "Walk" }
        if text.contains("hik") { return "Hike" }
        return "Workout"
    }

    /// What the parser's events make of a file; `fail` records the first problem and stops the
    /// parse (the event's return value).
    final class Collector {
        /// Element names from the root, without namespace prefixes.
        var path: [String] = []
        var text = ""
        var failure: String?
        var failureLine: Int?
        /// The parser's line at the event being handled.
        var line = 0
        var points: [TrackPoint] = []
        var point: TrackPoint?
        /// The offset from UTC written in the file's first time that writes one (`+02:00`).
        var utcOffset: Int64?
        // TCX
        var activitySport: String?
        var activityID: Int64?
        var lapStarts: [Int64] = []
        var lapTime = 0.0
        var lapDistance = 0.0
        var lapAscent: Double?
        var hasLapTotals = false
        var unitID: UInt32?
        // GPX
        var trackType: String?
        var elements = 0

        /// A file may be large, but not absurd: 20 million elements (a track point a second, with
        /// its children, for more than a month) is more than any ride.
        static let maximumElements = 20_000_000

        func didStartElement(_ elementName: String, attributes: XMLAttributes) {
            let name = elementName.split(separator: ":").last.map(String.init) ?? elementName
            path.append(name)
            text = ""
            elements += 1
            if elements > Self.maximumElements {
                fail("more than \(Self.maximumElements) elements")
                return
            }
            switch name {
            case "Activity" where path.count >= 2 && path[path.count - 2] == "Activities":
                activitySport = activitySport ?? attributes["Sport"]
            case "Lap":
                if let s = attributes["StartTime"].flatMap(XMLRideReader.unixSeconds) { lapStarts.append(s) }
            case "Trackpoint":
                point = TrackPoint()
            case "trkpt":
                var p = TrackPoint()
                guard let lat = attributes["lat"].flatMap(Double.init), let lon = attributes["lon"].flatMap(Double.init),
                    FileNumber.latitudes.contains(lat), FileNumber.longitudes.contains(lon)
                else {
                    fail("a track point without a valid lat and lon")
                    return
                }
                p.latitude = lat
                p.longitude = lon
                point = p
            default: break
            }
        }

        func foundCharacters(_ string: String) {
            if text.utf8.count < 4096 { text += string }
        }

        func didEndElement(_ elementName: String) {
            let name = path.last ?? elementName
            let parent = path.count >= 2 ? path[path.count - 2] : ""
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            defer {
                path.removeLast()
                text = ""
            }
            func number() -> Double? {
                guard let v = Double(value), v.isFinite else {
                    fail("<\(name)> is '\(value.prefix(40))', not a number")
                    return nil
                }
                return v
            }
            if utcOffset == nil, ["Id", "Time", "time"].contains(name) { utcOffset = XMLRideReader.writtenOffset(value) }
            // Every number is range-checked where it is read, so the file is named with its line.
            func number(_ field: ActivityLimits.Field) -> Double? {
                guard let v = number() else { return nil }
                guard let checked = FileNumber.within(v, field) else {
                    fail(FileNumber.outOfRange("<\(name)>", v, field))
                    return nil
                }
                return checked
            }
            func number(_ range: ClosedRange<Double>) -> Double? {
                guard let v = number() else { return nil }
                guard range.contains(v) else {
                    fail("<\(name)> \(value.prefix(40)) is out of range: expected \(range.lowerBound) to \(range.upperBound) degrees")
                    return nil
                }
                return v
            }
            /// A lap's total added to the sum of the laps, which stays within the limits too.
            func sum(_ total: inout Double, _ field: ActivityLimits.Field) -> Bool {
                guard let v = number(field) else { return false }
                guard ActivityLimits.allows(total + v, field) else {
                    fail(FileNumber.outOfRange("the laps' <\(name)> up to here", total + v, field))
                    return false
                }
                total += v
                return true
            }
            switch (name, parent) {
            case ("Id", "Activity"): activityID = XMLRideReader.unixSeconds(value)
            case ("TotalTimeSeconds", "Lap"): if sum(&lapTime, .movingTime) { hasLapTotals = true }
            case ("DistanceMeters", "Lap"): _ = sum(&lapDistance, .distance)
            case ("UnitId", "Creator"): unitID = UInt32(value)
            case ("Time", "Trackpoint"), ("time", "trkpt"): point?.time = XMLRideReader.unixSeconds(value)
            case ("LatitudeDegrees", "Position"): point?.latitude = number(FileNumber.latitudes)
            case ("LongitudeDegrees", "Position"): point?.longitude = number(FileNumber.longitudes)
            case ("AltitudeMeters", "Trackpoint"), ("ele", "trkpt"): point?.elevation = number(.totalElevationGain)
            case ("DistanceMeters", "Trackpoint"): point?.distance = number(.distance)
            case ("type", "trk"): trackType = value
            case ("Trackpoint", _), ("trkpt", _):
                if let p = point { points.append(p) }
                point = nil
            default: break
            }
        }

        func fail(_ message: String) {
            guard failure == nil else { return }
            failure = message
            failureLine = line
        }

        func tcx() throws(RideFileError) -> RecordedRide {
            let track = Track(points: points)
            let times = points.compactMap(\.time)
            guard let start = activityID ?? lapStarts.min() ?? times.min() else {
                throw RideFileError("no activity: a TCX file needs an <Activity> with an <Id> or a lap's StartTime")
            }
            let end = times.max() ?? start
            let sport = XMLRideReader.sport(activitySport)
            let positioned = points.contains { $0.latitude != nil }
            return RecordedRide(
                format: .tcx, start: start, sport: sport, indoor: !positioned || sport == "VirtualRide",
                movingTime: hasLapTotals ? lapTime : track.movingTime, elapsedTime: Double(max(0, end - start)),
                distance: lapDistance > 0 ? lapDistance : track.distance, ascent: track.ascent, devices: unitID.map { [$0] } ?? [],
                utcOffset: utcOffset)
        }

        func gpx() throws(RideFileError) -> RecordedRide {
            let track = Track(points: points)
            let times = points.compactMap(\.time)
            guard let start = times.min(), let end = times.max() else {
                throw RideFileError("no timed track points: a GPX ride needs <trkpt> elements with <time>")
            }
            let sport = XMLRideReader.sport(trackType)
            return RecordedRide(
                format: .gpx, start: start, sport: sport, indoor: sport == "VirtualRide", movingTime: track.movingTime,
                elapsedTime: Double(end - start), distance: track.distance, ascent: track.ascent, devices: [], utcOffset: utcOffset)
        }
    }
}

/// An element's attributes as the parser gives them, looked up by name.
struct XMLAttributes {
    var pairs: [(name: String, value: String)] = []

    subscript(name: String) -> String? { pairs.first { $0.name == name }?.value }
}

/// libBikeCheckRideXML's parse function, loaded once, and the callbacks that hand its events to a
/// `Collector` (the context pointer). Its C interface is described in
/// Sources/RideFilesXML/RideFilesXML.swift; these types must match it.
enum XMLLibrary {
    typealias Start =
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<UnsafePointer<CChar>?>?, Int,
            Int
        ) -> Int32
    typealias Text = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, Int) -> Void
    typealias End = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int) -> Int32
    typealias Parse =
        @convention(c) (
            UnsafePointer<UInt8>?, Int, UnsafeMutableRawPointer?, Start, Text, End, UnsafeMutablePointer<Int>?, UnsafeMutablePointer<Int>?
        ) -> Int32

    #if canImport(Darwin)
        static let fileName = "libBikeCheckRideXML.dylib"
    #else
        static let fileName = "libBikeCheckRideXML.so"
    #endif

    /// Loaded the first time a TCX or GPX file is read.
    static let parse: Result<Parse, CompanionLibrary.LoadFailure> = CompanionLibrary.symbol("bikecheck_xml_parse", in: fileName).map {
        unsafeBitCast($0, to: Parse.self)
    }

    static func collector(_ context: UnsafeMutableRawPointer?) -> XMLRideReader.Collector? {
        context.map { Unmanaged<XMLRideReader.Collector>.fromOpaque($0).takeUnretainedValue() }
    }

    static let start: Start = { context, name, names, values, count, line in
        guard let collector = collector(context), let name else { return 1 }
        var attributes = XMLAttributes()
        for k in 0..<count {
            guard let n = names?[k], let v = values?[k] else { continue }
            attributes.pairs.append((String(cString: n), String(cString: v)))
        }
        collector.line = line
        collector.didStartElement(String(cString: name), attributes: attributes)
        return collector.failure == nil ? 0 : 1
    }

    static let text: Text = { context, utf8, count in
        guard let collector = collector(context), let utf8 else { return }
        collector.foundCharacters(String(decoding: UnsafeBufferPointer(start: utf8, count: count), as: UTF8.self))
    }

    static let end: End = { context, name, line in
        guard let collector = collector(context), let name else { return 1 }
        collector.line = line
        collector.didEndElement(String(cString: name))
        return collector.failure == nil ? 0 : 1
    }
}
