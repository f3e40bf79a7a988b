import Foundation

/// UTC timestamps in the cache's form, `YYYY-MM-DDTHH:MM:SSZ`.
package enum Timestamps {
    /// Accepts Strava's form (and fractional seconds or offsets), returns the cache's form.
    package static func normalise(_ s: String) -> String? {
        let u = Array(s.utf8)
        if u.count == 20, u[4] == 0x2D, u[7] == 0x2D, u[10] == 0x54, u[13] == 0x3A, u[16] == 0x3A, u[19] == 0x5A,
            Day(String(s.prefix(10))) != nil
        {
            return s
        }
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = parser.date(from: s) { return format(d) }
        parser.formatOptions = [.withInternetDateTime]
        if let d = parser.date(from: s) { return format(d) }
        return nil
    }

    /// The cache's form of `date`, its fraction of a second dropped.
    package static func format(_ date: Date) -> String {
        string(epoch: Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    /// Epoch seconds of a timestamp in the cache's form (`YYYY-MM-DDTHH:MM:SSZ`), else of any
    /// form `normalise` accepts; computed by hand, as a sync asks this of every listed activity.
    package static func epoch(_ s: String) -> Int64? {
        let u = Array(s.utf8)
        guard u.count == 20, u[4] == 0x2D, u[7] == 0x2D, u[10] == 0x54, u[13] == 0x3A, u[16] == 0x3A, u[19] == 0x5A else {
            return normalise(s).flatMap { $0.utf8.count == 20 ? epoch($0) : nil }
        }
        func digits(_ r: Range<Int>) -> Int64? {
            var v: Int64 = 0
            for i in r {
                guard (0x30...0x39).contains(u[i]) else { return nil }
                v = v * 10 + Int64(u[i] - 0x30)
            }
            return v
        }
        guard let y = digits(0..<4), let m = digits(5..<7), let d = digits(8..<10), let h = digits(11..<13),
            let mi = digits(14..<16), let sec = digits(17..<19), (1...12).contains(m), (1...31).contains(d),
            h < 24, mi < 60, sec < 61
        else { return nil }
        let days = Int64(Day.ordinal(year: Int(y), month: Int(m), day: Int(d)))
        return days * 86_400 + h * 3600 + mi * 60 + sec
    }

    /// The cache's form of epoch seconds, computed by hand (an import asks this twice a ride; a
    /// date formatter per call was 40 % of importing 1,000 FIT files). The inverse of `epoch`.
    package static func string(epoch: Int64) -> String {
        let days = epoch >= 0 ? epoch / 86_400 : -((-epoch + 86_399) / 86_400)
        let secs = epoch - days * 86_400
        let civil = Day(ordinal: Int(days)).components
        let (y, m, d) = (Int64(civil.year), Int64(civil.month), Int64(civil.day))
        guard (0...9999).contains(y) else {
            let f = ISO8601DateFormatter()
            f.formatOptions = [.withInternetDateTime]
            f.timeZone = TimeZone(identifier: "UTC")
            return f.string(from: Date(timeIntervalSince1970: TimeInterval(epoch)))
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        func put(_ v: Int64, _ width: Int) {
            var div: Int64 = 1
            for _ in 1..<width { div *= 10 }
            var v = v
            for _ in 0..<width {
                bytes.append(0x30 + UInt8(truncatingIfNeeded: v / div % 10))
                v %= div
                div /= 10
            }
        }
        put(y, 4)
        bytes.append(0x2D)
        put(m, 2)
        bytes.append(0x2D)
        put(d, 2)
        bytes.append(0x54)
        put(secs / 3600, 2)
        bytes.append(0x3A)
        put(secs / 60 % 60, 2)
        bytes.append(0x3A)
        put(secs % 60, 2)
        bytes.append(0x5A)
        return String(decoding: bytes, as: UTF8.self)
    }
}
