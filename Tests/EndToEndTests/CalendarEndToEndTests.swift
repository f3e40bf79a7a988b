import Foundation
import TestSupport
import Testing

/// `calendar` read back by a real iCalendar parser (PyPI icalendar, in .build-tools/venv): one
/// all-day event per forecast, UIDs unique and stable per bike or part and interval (or to-do),
/// the same bytes for the same garage and --as-of. A missing parser fails the test, never skips it.
@Suite struct CalendarEndToEndTests {
    /// Each event as `UID DTSTART SUMMARY | DESCRIPTION`, parsed by icalendar.
    static func parse(_ ics: String, in garage: TemporaryFolder) throws -> [String]? {
        guard FileManager.default.isExecutableFile(atPath: toolsPython.path),
            (try? runProcess(toolsPython, ["-c", "import icalendar"], in: garage.root))?.status == 0
        else {
            Issue.record("icalendar is not installed in \(toolsPython.path): run scripts/bootstrap")
            return nil
        }
        try garage.write("bikes.ics", ics)
        let script = """
            import sys, icalendar
            cal = icalendar.Calendar.from_ical(open(sys.argv[1], "rb").read())
            assert cal["VERSION"] == "2.0" and cal["PRODID"]
            for e in cal.walk("VEVENT"):
                start, end = e.decoded("DTSTART"), e.decoded("DTEND")
                assert type(start).__name__ == "date" and (end - start).days == 1, (start, end)
                assert e.decoded("DTSTAMP")
                print(e["UID"], start.isoformat(), e["SUMMARY"], "|", e["DESCRIPTION"])
            """
        let r = try runProcess(toolsPython, ["-c", script, "bikes.ics"], in: garage.root)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        return r.stdout.split(separator: "\n").map(String.init)
    }

    /// `UID DAY` of a parsed event line: the UID may hold spaces (a to-do's text), the day never.
    static func uidAndDay(_ line: String) -> String {
        guard let match = line.firstMatch(of: #/^(.*?@bikecheck) (\d{4}-\d{2}-\d{2}) /#) else { return line }
        return "\(match.1) \(match.2)"
    }

    /// A to-do's text in a UID, as reminders key it: RFC 3986's unreserved characters kept.
    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~"))
            ?? ""
    }

    /// A bike and the part mounted on it with an interval of the same id, and a to-do of the same
    /// text each: four events, four UIDs; the part's stay the same when it moves to another bike.
    @Test func aPartAndItsBikeSharingAnIntervalIDAreTwoEventsWithUIDsThatFollowThePart() throws {
        let every = "intervals:\n  service:\n    task: Service\n    every: 6 months\ntodo:\n  - {task: bleed the brakes, due: 2026-12-01}\n"
        let garage = try TemporaryFolder([
            "garage.yaml": "name: Shared ids\n",
            "bikes/grail.yaml": "name: Grail\nbought: 2025-01-01\n" + every,
            "bikes/stumpy.yaml": "name: Stumpy\nbought: 2025-01-01\n",
            "parts/fork.yaml": "name: Fork\nbought: 2025-01-01\n" + every
                + "mounts:\n  - {bike: grail, from: 2025-01-01, to: 2026-02-28}\n  - {bike: stumpy, from: 2026-03-01}\n",
        ])
        let expected = [
            "bike/grail/service@bikecheck", "part/fork/service@bikecheck", "bike/grail/todo/bleed%20the%20brakes@bikecheck",
            "part/fork/todo/bleed%20the%20brakes@bikecheck",
        ]
        for (asOf, bike) in [("2026-01-15", "Grail"), ("2026-06-15", "Stumpy")] {
            let r = try garage.run(["calendar", "--as-of", asOf])
            #expect(r.status == 0, "\(r.stderr)")
            guard let events = try Self.parse(r.stdout, in: garage) else { return }
            let uids = events.map { Self.uidAndDay($0).split(separator: " ").first.map(String.init) ?? "" }
            #expect(uids.sorted() == expected.sorted(), "\(asOf): \(events)")
            #expect(Set(uids).count == uids.count, "unique UIDs: \(uids)")
            // The part's events name the bike it is on that day.
            #expect(events.contains { $0.hasPrefix("part/fork/service@bikecheck \(asOf) \(bike): ") && $0.contains("(overdue)") }, "\(events)")
        }
    }

    @Test func everyForecastIsOneAllDayEventWithAStableUID() throws {
        let garage = try TemporaryFolder(copying: true)
        let r = try garage.run(["calendar", "--as-of", "2026-11-15"])
        #expect(r.status == 0, "\(r.stderr)")
        let bytes = Array(r.stdout.utf8)
        #expect(bytes.indices.allSatisfy { bytes[$0] != 0x0A || ($0 > 0 && bytes[$0 - 1] == 0x0D) } && bytes.last == 0x0A, "every line ends with CRLF")
        guard let events = try Self.parse(r.stdout, in: garage) else { return }
        // The same intervals and days as status forecasts.
        let status = try garage.run(["status", "--as-of", "2026-11-15", "--format", "json"])
        struct Report: Decodable {
            struct Bike: Decodable {
                struct Interval: Decodable { var id: String; var state: String; var due: String?; var part: String? }
                struct Todo: Decodable { var task: String; var id: String?; var due: String?; var part: String? }
                var id: String; var intervals: [Interval]; var todos: [Todo]
            }
            var bikes: [Bike]
        }
        let report = try JSONDecoder().decode(Report.self, from: Data(status.stdout.utf8))
        // Overdue intervals on the as-of day; to-dos with a due day on that day (none is past it here).
        let intervals = report.bikes.flatMap { b in
            b.intervals.compactMap { i in
                (i.state == "overdue" ? "2026-11-15" : i.due).map { "\(i.part.map { "part/\($0)" } ?? "bike/\(b.id)")/\(i.id)@bikecheck \($0)" }
            }
        }
        let todos = report.bikes.flatMap { b in
            b.todos.compactMap { t in t.due.map { "\(t.part.map { "part/\($0)" } ?? "bike/\(b.id)")/todo/\(Self.encoded(t.id ?? t.task))@bikecheck \($0)" } }
        }
        let expected = (intervals + todos).sorted()
        #expect(events.map(Self.uidAndDay).sorted() == expected)
        #expect(intervals.count >= 10 && !todos.isEmpty)
        #expect(intervals.contains { $0.hasPrefix("part/race-wheels/") }, "the example's wheelset shows under tarmac")
        #expect(events.contains { $0.hasPrefix("bike/tarmac/brake-pads@bikecheck 2026-11-15 ") && $0.contains("(overdue)") }, "\(events)")
        let again = try garage.run(["calendar", "--as-of", "2026-11-15"])
        #expect(again.stdout == r.stdout, "same garage and --as-of, same bytes")
    }

    @Test func aToDoPastItsDayIsOnTheAsOfDayAndMovesWithIt() throws {
        let garage = try TemporaryFolder(copying: true)
        for (asOf, day) in [("2026-11-20", "2026-11-30"), ("2026-12-05", "2026-12-05"), ("2026-12-06", "2026-12-06")] {
            let r = try garage.run(["calendar", "grail", "--as-of", asOf])
            #expect(r.status == 0, "\(r.stderr)")
            guard let events = try Self.parse(r.stdout, in: garage) else { return }
            let mudguards = events.filter { $0.hasPrefix("bike/grail/todo/fit%20mudguards%20for%20the%20winter@bikecheck ") }
            #expect(mudguards.count == 1 && mudguards.first.map(Self.uidAndDay)?.hasSuffix(" \(day)") == true, "\(asOf): \(events)")
            #expect(mudguards.first?.contains("(overdue)") == (asOf > "2026-11-30"), "\(mudguards)")
            #expect(!events.contains { $0.contains("rear derailleur hanger") }, "a to-do without a day has no event")
        }
    }

    @Test func namesWithICalendarSpecialCharactersAndLongLinesReadBackExactly() throws {
        let name = "Grail; the, \\\"gravel\\\" one \\\\ with a name far longer than seventy-five octets: üüüüüüüüüüüü"
        let garage = try TemporaryFolder([
            "garage.yaml": "name: Sam's garage\n",
            "bikes/grail.yaml": "name: \"\(name)\"\nbought: 2026-10-01\nintervals:\n  chain-lube:\n    task: Lube, then wipe; twice\n    every: 10 h\n",
            "rides.yaml": "rides:\n" + (1...6).map { "  - {date: 2026-11-0\($0), bike: grail, time: 1h}\n" }.joined(),
        ])
        let r = try garage.run(["calendar", "--as-of", "2026-11-10"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 75 }, "lines are folded at 75 octets")
        guard let events = try Self.parse(r.stdout, in: garage) else { return }
        #expect(events.count == 1)
        let unescaped = "Grail; the, \"gravel\" one \\ with a name far longer than seventy-five octets: üüüüüüüüüüüü"
        // Six 1 h rides in the 41 days the bike has existed: 4 h left at 0.193 h a day.
        #expect(events.first?.hasPrefix("bike/grail/chain-lube@bikecheck 2026-12-01 ") == true, "\(events)")
        #expect(events.first?.contains(" \(unescaped): Lube, then wipe; twice |") == true, "\(events)")
    }
}

extension CalendarEndToEndTests {
    /// Folding went by grapheme cluster, so one longer than a line (a letter with 60 combining
    /// marks is 121 octets) was never folded. It is now folded between its scalars.
    @Test func aGraphemeClusterLongerThanALineIsFoldedAndReadsBackExactly() throws {
        let cluster = "e" + String(repeating: "\u{0301}", count: 60)
        let name = "Grail " + cluster + " and " + String(repeating: "\u{1F6B2}\u{200D}", count: 30) + "x"
        let garage = try TemporaryFolder([
            "garage.yaml": "name: Sam's garage\n",
            "bikes/grail.yaml": "name: \"\(name)\"\nbought: 2026-10-01\nintervals:\n  chain-lube:\n    task: Lube\n    every: 10 h\n",
            "rides.yaml": "rides:\n" + (1...6).map { "  - {date: 2026-11-0\($0), bike: grail, time: 1h}\n" }.joined(),
        ])
        let r = try garage.run(["calendar", "--as-of", "2026-11-10"])
        #expect(r.status == 0, "\(r.stderr)")
        let long = r.stdout.components(separatedBy: "\r\n").filter { $0.utf8.count > 75 }
        #expect(long.isEmpty, "lines over 75 octets: \(long.map { $0.utf8.count })")
        guard let events = try Self.parse(r.stdout, in: garage) else { return }
        #expect(events.first?.contains(" \(name): Lube |") == true, "\(events)")
    }
}
