import Foundation

/// Strava's rate-limit budget as the last response reported it: `X-RateLimit-*` for all
/// requests, `X-ReadRateLimit-*` for reads; each "15-minute,daily".
package struct RateLimitBudget: Sendable, Equatable {
    package struct Pair: Sendable, Equatable {
        package var usage: (Int, Int)
        package var limit: (Int, Int)
        package static func == (a: Pair, b: Pair) -> Bool { a.usage == b.usage && a.limit == b.limit }
    }
    package var overall: Pair?
    package var read: Pair?

    package init() {}

    /// Takes the budget from a reply's headers (names are already lower-case).
    package mutating func update(from headers: [String: String]) {
        if let p = Self.pair(headers["x-ratelimit-usage"], headers["x-ratelimit-limit"]) { overall = p }
        if let p = Self.pair(headers["x-readratelimit-usage"], headers["x-readratelimit-limit"]) { read = p }
    }

    static func pair(_ usage: String?, _ limit: String?) -> Pair? {
        func two(_ s: String?) -> (Int, Int)? {
            guard let parts = s?.split(separator: ",").map({ Int($0.trimmingCharacters(in: .whitespaces)) }),
                parts.count == 2, let a = parts[0], let b = parts[1]
            else { return nil }
            return (a, b)
        }
        guard let u = two(usage), let l = two(limit) else { return nil }
        return Pair(usage: u, limit: l)
    }

    /// The window that the next request would exceed ("daily" wins over "15-minute"), if any.
    package func exhausted(reading: Bool) -> String? {
        var daily = false, short = false
        for p in [overall, reading ? read : nil].compactMap({ $0 }) {
            if p.limit.1 > 0, p.usage.1 >= p.limit.1 { daily = true }
            if p.limit.0 > 0, p.usage.0 >= p.limit.0 { short = true }
        }
        return daily ? "daily" : short ? "15-minute" : nil
    }

    /// When a window resets: the next quarter hour, or the next midnight UTC.
    package static func reset(of window: String, after now: Date) -> Date {
        let t = now.timeIntervalSince1970
        if window == "daily" { return Date(timeIntervalSince1970: (floor(t / 86400) + 1) * 86400) }
        return Date(timeIntervalSince1970: (floor(t / 900) + 1) * 900)
    }

    /// "read 12/100 (15 min), 40/1000 (day)", for progress lines.
    package var summary: String {
        guard let p = read ?? overall else { return "rate limit unknown" }
        return "rate limit \(p.usage.0)/\(p.limit.0) (15 min), \(p.usage.1)/\(p.limit.1) (day)"
    }
}
