import Foundation

/// Forecast due dates as an iCalendar (RFC 5545) file: one all-day event per interval with a
/// forecast, its UID stable per bike and interval so a calendar app updates the event rather than
/// adding another. Nothing in it depends on the wall clock: DTSTAMP is the as-of day, so the same
/// garage and `--as-of` give the same bytes.
public enum CalendarExport {
    public static func build(_ status: StatusReport, garageName: String?) -> String {
        let stamp = compact(status.asOf) + "T000000Z"
        var lines = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//bikecheck//bikecheck calendar//EN", "CALSCALE:GREGORIAN",
            "X-WR-CALNAME:" + escape(garageName.map { "\($0): bike maintenance" } ?? "Bike maintenance"),
        ]
        for bike in status.bikes {
            for interval in bike.intervals {
                guard let due = interval.due else { continue }
                let limits = interval.limits.map { "\($0.every): \(Int(($0.progress * 100).rounded())) %" }.joined(separator: ", ")
                lines += [
                    "BEGIN:VEVENT",
                    "UID:" + escape("\(bike.id).\(interval.id)@bikecheck"),
                    "DTSTAMP:" + stamp,
                    "DTSTART;VALUE=DATE:" + compact(due),
                    "DTEND;VALUE=DATE:" + compact(Day(ordinal: due.ordinal + 1)),
                    "SUMMARY:" + escape("\(bike.name): \(interval.task)"),
                    "DESCRIPTION:" + escape("Forecast at the recent pace, as of \(status.asOf): \(limits). bikecheck status \(bike.id)"),
                    "TRANSP:TRANSPARENT",
                    "END:VEVENT",
                ]
            }
        }
        lines.append("END:VCALENDAR")
        return lines.map(fold).joined(separator: "\r\n") + "\r\n"
    }

    static func compact(_ day: Day) -> String { day.description.replacingOccurrences(of: "-", with: "") }

    /// TEXT values escape backslash, semicolon, comma and line breaks (RFC 5545 3.3.11); other
    /// control characters are not allowed and become spaces.
    static func escape(_ text: String) -> String {
        var out = ""
        for ch in text {
            switch ch {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\n", "\r\n", "\r": out += "\\n"
            default: out += ch.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } ? " " : String(ch)
            }
        }
        return out
    }

    /// Lines longer than 75 octets are folded: CRLF and a space, never inside a UTF-8 sequence.
    static func fold(_ line: String) -> String {
        var out = "", count = 0
        for ch in line {
            let size = String(ch).utf8.count
            if count + size > 75 {
                out += "\r\n "
                count = 1
            }
            out += String(ch)
            count += size
        }
        return out
    }
}
