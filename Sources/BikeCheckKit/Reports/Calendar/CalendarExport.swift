import Foundation

/// Forecast due dates as an iCalendar (RFC 5545) file: one all-day event per interval with a
/// forecast (an overdue one on the as-of day) and per to-do with a due day. Its UID is the item's
/// key (`UrgentInterval.key`, `TodoStatus.key`, as reminders name it) and `@bikecheck`: unique,
/// and the same from run to run and day to day, a part's wherever it is mounted, so a calendar
/// app updates the event rather than adding another. Nothing in it depends on the wall clock:
/// DTSTAMP is the as-of day, so the same garage and `--as-of` give the same bytes.
package enum CalendarExport {
    package static func build(_ status: StatusReport, garageName: String?) -> String {
        let stamp = compact(status.asOf) + "T000000Z"
        var lines = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//bikecheck//bikecheck calendar//EN", "CALSCALE:GREGORIAN",
            "X-WR-CALNAME:" + escape(garageName.map { "\($0): bike maintenance" } ?? "Bike maintenance"),
        ]
        func event(uid: String, day: Day, summary: String, description: String) {
            lines += [
                "BEGIN:VEVENT", "UID:" + escape(uid), "DTSTAMP:" + stamp, "DTSTART;VALUE=DATE:" + compact(day),
                "DTEND;VALUE=DATE:" + compact(Day(ordinal: day.ordinal + 1)), "SUMMARY:" + escape(summary),
                "DESCRIPTION:" + escape(description), "TRANSP:TRANSPARENT", "END:VEVENT",
            ]
        }
        for bike in status.bikes {
            for interval in bike.intervals {
                // A part's interval is the part's, not the bike's: a bike and a part on it may
                // both have an interval of one id.
                let uid = UrgentInterval(bike: bike.id, bikeName: bike.name, part: interval.part, status: interval).key + "@bikecheck"
                let limits = interval.limits.map { "\(status.units.limitText($0)): \(ReportNumber.percent($0.progress)) %" }.joined(separator: ", ")
                // Overdue has no forecast: the event is on the as-of day, so it stays in sight
                // (each refresh moves it) until the service is logged.
                if interval.state == .overdue {
                    event(
                        uid: uid, day: status.asOf, summary: "\(bike.name): \(interval.task) (overdue)",
                        description: "Overdue as of \(status.asOf): \(limits). bikecheck status \(bike.id)")
                    continue
                }
                guard let due = interval.due else { continue }
                event(
                    uid: uid, day: due, summary: "\(bike.name): \(interval.task)",
                    description: "Forecast at the recent pace, as of \(status.asOf): \(limits). bikecheck status \(bike.id)")
            }
            // A to-do with a due day: on that day, or on the as-of day once it is past.
            for todo in bike.todos {
                guard let due = todo.due else { continue }
                let late = todo.state == .overdue
                event(
                    uid: todo.key(bike: bike.id) + "@bikecheck", day: late ? status.asOf : due,
                    summary: "\(bike.name): \(todo.task)" + (late ? " (overdue)" : ""),
                    description: "To do by \(due). bikecheck status \(bike.id)")
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

    /// Lines longer than 75 octets are folded: CRLF and a space, never inside a UTF-8 sequence,
    /// and between grapheme clusters where one fits on a line; a cluster longer than a line
    /// (a long run of combining marks) is folded between its scalars, so no line is ever longer.
    static func fold(_ line: String) -> String {
        var out = "", count = 0
        func append(_ piece: String, size: Int) {
            if count + size > 75 {
                out += "\r\n "
                count = 1
            }
            out += piece
            count += size
        }
        for ch in line {
            let size = ch.utf8.count
            if size <= 74 {
                append(String(ch), size: size)
            } else {
                for scalar in ch.unicodeScalars { append(String(scalar), size: scalar.utf8.count) }
            }
        }
        return out
    }
}
