/// A calendar date with no time zone: the day a rider wrote down or rode on.
package struct Day: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    /// Days since 1970-01-01.
    package let ordinal: Int

    package init(ordinal: Int) { self.ordinal = ordinal }

    package init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= Day.daysIn(month: month, year: year) else { return nil }
        ordinal = Day.ordinal(year: year, month: month, day: day)
    }

    /// Parses exactly `YYYY-MM-DD`.
    package init?(_ text: String) {
        guard let parts = Day.parts(of: text) else { return nil }
        self.init(year: parts.year, month: parts.month, day: parts.day)
    }

    /// Parses exactly `YYYY-MM-DD`, given as UTF-8 bytes.
    package init?(utf8: UnsafeBufferPointer<UInt8>) {
        guard let parts = Day.parts(utf8: utf8) else { return nil }
        self.init(year: parts.year, month: parts.month, day: parts.day)
    }

    /// Why a text is not a day a rider means.
    package enum ParseError: Error, Equatable, Sendable {
        /// Not `YYYY-MM-DD`.
        case notADate
        /// `YYYY-MM-DD`, but no such month (`2025-13-01`).
        case noSuchMonth(year: Int, month: Int)
        /// `YYYY-MM-DD`, but the month has fewer days (`2025-04-31`).
        case noSuchDay(year: Int, month: Int)
        /// A real date in a year no bicycle has seen (`0025-03-01`, `9999-01-01`): a typo.
        case implausible

        /// The one sentence that says why `text` is not a date: a file's diagnostic and the
        /// command line's usage error say the same.
        package func message(_ text: String) -> String {
            switch self {
            case .notADate: return "'\(text)' is not a date"
            case .noSuchMonth(_, let m): return "'\(text)' is not a real date: there is no month \(m)"
            case .noSuchDay(let y, let m): return "'\(text)' is not a real date: \(Day.monthNames[m - 1]) \(y) has \(Day.daysIn(month: m, year: y)) days"
            case .implausible: return "'\(text)' is not a plausible date"
            }
        }
    }

    /// How to write a date, for every message that refuses one.
    package static let help = "write a date as YYYY-MM-DD, e.g. 2025-03-01"
    /// Bicycles are younger than 1817; a year far outside these is a typo.
    package static let plausibleYears = 1800...2200
    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

    /// Reads exactly `YYYY-MM-DD`, a day that exists, in a plausible year: what the files and
    /// the command line accept as a date, with the reason when the text is not one.
    package static func parse(_ text: String) -> Result<Day, ParseError> {
        guard let (y, m, d) = parts(of: text) else { return .failure(.notADate) }
        guard (1...12).contains(m) else { return .failure(.noSuchMonth(year: y, month: m)) }
        guard let day = Day(year: y, month: m, day: d) else { return .failure(.noSuchDay(year: y, month: m)) }
        guard plausibleYears.contains(y) else { return .failure(.implausible) }
        return .success(day)
    }

    /// `YYYY-MM-DD` split into numbers, without checking that the day exists.
    package static func parts(of text: String) -> (year: Int, month: Int, day: Int)? {
        var text = text
        return text.withUTF8 { parts(utf8: $0) }
    }

    /// `YYYY-MM-DD` as UTF-8 bytes split into numbers, without checking that the day exists.
    package static func parts(utf8 u: UnsafeBufferPointer<UInt8>) -> (year: Int, month: Int, day: Int)? {
        guard u.count == 10, u[4] == UInt8(ascii: "-"), u[7] == UInt8(ascii: "-") else { return nil }
        // Unrolled: the activity cache has two dates an activity.
        let d0 = Int(u[0]) &- 48, d1 = Int(u[1]) &- 48, d2 = Int(u[2]) &- 48, d3 = Int(u[3]) &- 48
        let d5 = Int(u[5]) &- 48, d6 = Int(u[6]) &- 48, d8 = Int(u[8]) &- 48, d9 = Int(u[9]) &- 48
        let digits =
            UInt(bitPattern: d0) < 10 && UInt(bitPattern: d1) < 10 && UInt(bitPattern: d2) < 10 && UInt(bitPattern: d3) < 10
            && UInt(bitPattern: d5) < 10 && UInt(bitPattern: d6) < 10 && UInt(bitPattern: d8) < 10 && UInt(bitPattern: d9) < 10
        guard digits else { return nil }
        return (((d0 * 10 + d1) * 10 + d2) * 10 + d3, d5 * 10 + d6, d8 * 10 + d9)
    }

    package var components: (year: Int, month: Int, day: Int) {
        // Howard Hinnant's civil_from_days.
        let z = ordinal + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return (y, m, d)
    }

    package var description: String {
        let (y, m, d) = components
        // Ten ASCII digits and dashes, written in place (a report prints hundreds of thousands).
        guard (0...9999).contains(y) else { return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))" }
        return String(unsafeUninitializedCapacity: 10) { Self.writeISO(y, m, d, to: $0) }
    }

    /// Writes `YYYY-MM-DD` (a year of 0 through 9999) into the first 10 bytes of `b`.
    @inline(__always)
    package static func writeISO(_ y: Int, _ m: Int, _ d: Int, to b: UnsafeMutableBufferPointer<UInt8>) -> Int {
        b[0] = UInt8(48 + y / 1000)
        b[1] = UInt8(48 + y / 100 % 10)
        b[2] = UInt8(48 + y / 10 % 10)
        b[3] = UInt8(48 + y % 10)
        b[4] = UInt8(ascii: "-")
        b[5] = UInt8(48 + m / 10)
        b[6] = UInt8(48 + m % 10)
        b[7] = UInt8(ascii: "-")
        b[8] = UInt8(48 + d / 10)
        b[9] = UInt8(48 + d % 10)
        return 10
    }

    /// `YYYY-MM`, the name of the activity cache file this day belongs in.
    package var monthKey: String {
        let (y, m, _) = components
        return "\(pad(y, 4))-\(pad(m, 2))"
    }

    package func adding(days: Int) -> Day { Day(ordinal: ordinal + days) }

    /// Calendar arithmetic: Jan 31 + 1 month is the last day of February.
    package func adding(months: Int) -> Day {
        let (y, m, d) = components
        let total = y * 12 + (m - 1) + months
        let ny = total >= 0 ? total / 12 : (total - 11) / 12
        let nm = total - ny * 12 + 1
        let nd = min(d, Day.daysIn(month: nm, year: ny))
        return Day(ordinal: Day.ordinal(year: ny, month: nm, day: nd))
    }

    package static func < (a: Day, b: Day) -> Bool { a.ordinal < b.ordinal }

    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    package static func ordinal(year: Int, month: Int, day: Int) -> Int {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    package init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let day = Day(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a YYYY-MM-DD date: \(text)"))
        }
        self = day
    }

    package func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

func pad(_ n: Int, _ width: Int) -> String {
    let s = String(n)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
}
