import Diagnostics
/// Renders a status report as an aligned table per bike, most urgent first.
///
/// With a `width` (a terminal's columns), no line is longer: a row's task and dates wrap at
/// spaces onto lines indented under the task (or by four spaces when the columns before the task
/// leave too little room). Without one, each row is one line, for pipes and files.
package struct StatusTextRenderer: Sendable {
    package var colored: Bool
    package var width: Int?
    /// One list across the garage, most urgent first (`status --by urgency`), not a table per bike.
    package var byUrgency = false
    /// The window the report was cut to (`status --within`), in days, for the header.
    package var window: Int?

    package init(colored: Bool = false, width: Int? = nil, byUrgency: Bool = false, window: Int? = nil) {
        self.colored = colored
        self.width = width.map { max(20, $0) }
        self.byUrgency = byUrgency
        self.window = window
    }

    package func render(_ report: StatusReport) -> TerminalText {
        var counts: [IntervalState: Int] = [:]
        var todos: [TodoStatus] = []
        for bike in report.bikes {
            for i in bike.intervals { counts[i.state, default: 0] += 1 }
            todos += bike.todos
        }
        // A named part on a shown bike is already counted under the bike.
        let shownBikes = Set(report.bikes.map(\.id))
        for part in report.parts where !(part.bike.map(shownBikes.contains) ?? false) {
            for i in part.intervals { counts[i.state, default: 0] += 1 }
            todos += part.todos
        }
        let scope = window.map { " (overdue or due within \($0) day\($0 == 1 ? "" : "s"))" } ?? ""
        var head = "As of \(report.asOf)\(scope): \(counts[.overdue] ?? 0) overdue, \(counts[.dueSoon] ?? 0) due soon, \(counts[.ok] ?? 0) ok"
        if let snoozed = counts[.snoozed] { head += ", \(snoozed) snoozed" }
        if !todos.isEmpty {
            let late = todos.filter { $0.state == .overdue }.count
            head += ", \(todos.count) to-do\(todos.count == 1 ? "" : "s")" + (late > 0 ? " (\(late) overdue)" : "")
        }
        var out = fit([TerminalText(stringLiteral: head)], after: "", indent: 2)
        if let window, report.bikes.isEmpty, report.parts.isEmpty {
            return out + "nothing is overdue or forecast due within \(window) day\(window == 1 ? "" : "s")\n"
        }
        if byUrgency {
            // One table: each row names the bike (and part) it is about; then the to-dos, likewise.
            let rows = report.byUrgency().map { u -> IntervalStatus in
                var row = u.status
                row.id = [u.bike, u.part, u.status.id].compactMap { $0 }.joined(separator: ": ")
                row.part = nil
                return row
            }
            if !rows.isEmpty { out += "\n" + table(rows, underBike: false, report.units) }
            let named = (report.bikes.map { ($0.id, $0.todos) } + report.parts.map { ($0.id, $0.todos) }).flatMap { owner, todos in
                todos.map { t -> TodoStatus in
                    var t = t
                    t.task = [owner, t.part, t.task].compactMap { $0 }.joined(separator: ": ")
                    t.part = nil
                    return t
                }
            }
            if !named.isEmpty { out += "\n" + todoLines(TodoStatus.sortedByUrgency(named), underBike: false) }
            return out
        }
        // A household's status is grouped by rider (by name; the shared bikes last), each bike
        // naming its rider.
        let grouped = report.bikes.contains { $0.rider != nil }
        let bikes =
            grouped
            ? report.bikes.enumerated().sorted { a, b in
                let (x, y) = ((a.element.rider == nil ? 1 : 0, a.element.rider ?? ""), (b.element.rider == nil ? 1 : 0, b.element.rider ?? ""))
                return x != y ? x < y : a.offset < b.offset
            }.map(\.element) : report.bikes
        for bike in bikes {
            let title: TerminalText =
                "\(bike.id) · \(bike.name)" + (bike.kind.map { " (\($0.rawValue))" } ?? "") + (bike.retired.map { " (retired \($0))" } ?? "")
                + (bike.rider.map { " · rider \($0)" } ?? "")
            out += "\n" + fit([title], after: "", indent: 2, paintingFirst: "1")
            if bike.intervals.isEmpty {
                out += fit(["no intervals: add a template or intervals to \(bike.kind == nil ? "bikes" : "gear")/\(bike.id).yaml"], after: "  ", indent: 4)
            } else {
                out += table(bike.intervals, underBike: true, report.units)
            }
            out += todoLines(bike.todos, underBike: true)
        }
        for part in report.parts {
            let place: TerminalText = part.retired.map { "retired \($0)" } ?? part.bike.map { "part, on \($0)" } ?? "part, on the shelf"
            out +=
                "\n"
                + fit(["\(part.id) · \(part.name) (" + place + ")" + (part.rider.map { " · rider \($0)" } ?? "")], after: "", indent: 2, paintingFirst: "1")
            if part.intervals.isEmpty {
                out += fit(["no intervals: add a template or intervals to parts/\(part.id).yaml"], after: "  ", indent: 4)
            } else {
                out += table(part.intervals, underBike: false, report.units)
            }
            out += todoLines(part.todos, underBike: false)
        }
        return out
    }

    /// One line per to-do: `to-do` painted by its state, its text, and its due day.
    private func todoLines(_ todos: [TodoStatus], underBike: Bool) -> TerminalText {
        var out: TerminalText = ""
        for todo in todos {
            let task = todo.part.flatMap { underBike ? "\($0): \(todo.task)" : nil } ?? todo.task
            var when = todo.due.map { "due \($0)" } ?? ""
            switch todo.state {
            case .overdue: when += " (overdue)"
            case .dueSoon: when += " (due soon)"
            case .ok, .snoozed: break
            }
            out += fit(
                [TerminalText(escaping: task), TerminalText(stringLiteral: when)], after: "  " + paint("to-do", color(todo.state)) + "  ", prefixCount: 9)
        }
        return out
    }

    /// Rows of intervals: state, id, progress and amount are aligned columns; task and dates may wrap.
    /// Without a width, a row of ASCII is written as bytes: its line as `fit` makes it, without
    /// a TerminalText per piece (a garage of 500 bikes has thousands of rows).
    private func table(_ intervals: [IntervalStatus], underBike: Bool, _ units: UnitSystem) -> TerminalText {
        var out: [UInt8] = []
        let rows = intervals.map { row($0, underBike: underBike, units) }
        let ascii = rows.map { $0.allSatisfy(Self.isASCII) }
        let widths = (0..<rows[0].count).map { c in zip(rows, ascii).map { $1 ? $0[c].utf8.count : $0[c].count }.max() ?? 0 }
        // As many aligned columns as fit the width (a part's interval has a longer id); the
        // columns that do not fit wrap with the task and dates.
        var aligned = 4
        if let width {
            while aligned > 1, 2 + widths[..<aligned].reduce(0, { $0 + $1 + 2 }) > width { aligned -= 1 }
        }
        for (k, (interval, cells)) in zip(intervals, rows).enumerated() {
            if width == nil, ascii[k] {
                Self.line(cells, widths: widths, painting: colored ? color(interval.state) : nil, into: &out)
                continue
            }
            let texts = cells.map { TerminalText(stringLiteral: $0) }
            var prefix: TerminalText = "  "
            var plainCount = 2
            for c in 0..<aligned {
                let padded = c == 2 || c == 3 ? leftPad(texts[c], widths[c]) : rightPad(texts[c], widths[c])
                prefix += (c == 0 ? paint(padded, color(interval.state)) : padded) + "  "
                plainCount += padded.string.count + 2
            }
            out += Array(fit(Array(texts[aligned...]), after: prefix, prefixCount: plainCount).string.utf8)
        }
        return TerminalText(stringLiteral: String(decoding: out, as: UTF8.self))
    }

    private static func isASCII(_ s: String) -> Bool { s.utf8.allSatisfy { $0 < 0x80 } }

    /// A row of ASCII cells as one unwrapped line: two spaces, the four aligned columns (the
    /// state painted in `code`, when given; progress and amount right-aligned), each followed by
    /// two spaces, then the task and the dates (those not empty), two spaces apart; spaces at
    /// the end dropped. What `fit` makes of the same cells without a width.
    private static func line(_ cells: [String], widths: [Int], painting code: StaticString?, into out: inout [UInt8]) {
        out += [0x20, 0x20]
        for c in 0..<4 {
            let pad = widths[c] - cells[c].utf8.count
            if c == 0, let code {
                out += [0x1B, UInt8(ascii: "[")]
                code.withUTF8Buffer { out += $0 }
                out.append(UInt8(ascii: "m"))
            }
            if c == 2 || c == 3 { out += repeatElement(0x20, count: max(0, pad)) }
            out += cells[c].utf8
            if c != 2 && c != 3 { out += repeatElement(0x20, count: max(0, pad)) }
            if c == 0, code != nil { out += [0x1B, UInt8(ascii: "["), UInt8(ascii: "0"), UInt8(ascii: "m")] }
            out += [0x20, 0x20]
        }
        var first = true
        for c in 4..<cells.count where !cells[c].isEmpty {
            if !first { out += [0x20, 0x20] }
            first = false
            out += cells[c].utf8
        }
        while out.last == 0x20 { out.removeLast() }
        out.append(0x0A)
    }

    /// A row's cells, as TerminalText interpolation makes them: the values escaped, the words
    /// between as written. A limit in a distance unit other than the rider's reads in theirs
    /// (`units.limitText`).
    private func row(_ i: IntervalStatus, underBike: Bool, _ units: UnitSystem) -> [String] {
        let state: String
        switch i.state {
        case .overdue: state = "overdue"
        case .dueSoon: state = "due soon"
        case .ok: state = "ok"
        case .snoozed: state = "snoozed"
        }
        let escape = { (s: String) in TerminalEscaping.escape(s) }
        let amount = i.deciding.map { escape(units.usedText($0)) + " / " + escape(units.limitText($0)) } ?? ""
        var when: [String] = []
        if let since = i.since { when.append("since \(since)") } else { when.append("never done") }
        if let wear = i.wear { when.append("measured \(WearAmount.number(wear.latest.value)) / \(WearAmount(amount: wear.limit, unit: wear.unit))") }
        if let until = i.snoozedUntil {
            when.append("snoozed until \(until)")
        } else if let due = i.due {
            // The limit that gives the day, when it is not the one shown.
            when.append("due ~\(due)" + (i.dueByWear ? " by measurement" : i.dueLimit.map { " by \(units.limitText($0))" } ?? ""))
        }
        // A part's interval under a bike names the part it follows.
        let id = i.part.flatMap { underBike ? "\($0): \(i.id)" : nil } ?? i.id
        return [state, escape(id), escape(String(ReportNumber.percent(i.progress))) + "%", amount, escape(i.task), escape(when.joined(separator: ", "))]
    }

    /// `prefix` then the segments, two spaces apart, as one line; with a width, wrapped at spaces
    /// so no line is longer, a segment that fits on a line of its own kept whole. Continuation lines are indented under the segments, or by `indent`
    /// when fewer than 24 columns would be left for them. A word longer than a line is cut.
    private func fit(
        _ segments: [TerminalText], after prefix: TerminalText, prefixCount: Int? = nil, indent: Int = 4,
        paintingFirst style: StaticString? = nil
    ) -> TerminalText {
        let prefixCount = prefixCount ?? prefix.string.count
        let texts = segments.map(\.string).filter { !$0.isEmpty }
        let whole = texts.joined(separator: "  ")
        func painted(_ text: String) -> TerminalText {
            let t = TerminalText(stringLiteral: text)
            return style.map { paint(t, $0) } ?? t
        }
        guard let width, prefixCount + whole.count > width else {
            return TerminalText(stringLiteral: (prefix + painted(whole)).string.trimmingTrailingSpaces()) + "\n"
        }
        let hanging = width - prefixCount >= 24 ? prefixCount : indent
        var lines: [String] = []
        // Too little room after the prefix: the first line holds the prefix alone.
        if hanging != prefixCount { lines.append("") }
        var current = ""
        // The room on the line being filled: after the prefix on the first, after the indent below.
        func room() -> Int { width - (lines.isEmpty ? prefixCount : hanging) }
        func add(_ word: String, separator: String) {
            if !current.isEmpty {
                if current.count + separator.count + word.count <= room() {
                    current += separator + word
                    return
                }
                lines.append(current)
            }
            var word = Substring(word)
            while word.count > room() {
                let r = room()
                lines.append(String(word.prefix(r)))
                word = word.dropFirst(r)
            }
            current = String(word)
        }
        for text in texts {
            // A segment that fits on a line of its own is not broken.
            if !current.isEmpty, current.count + 2 + text.count > room(), text.count <= width - hanging {
                lines.append(current)
                current = ""
            }
            for (k, word) in text.split(separator: " ").enumerated() {
                add(String(word), separator: k == 0 ? "  " : " ")
            }
        }
        lines.append(current)
        var out: TerminalText = lines[0].isEmpty ? prefix.trimmingTrailingSpaces() : prefix + painted(lines[0])
        for line in lines.dropFirst() { out += "\n" + .spaces(hanging) + painted(line) }
        return out + "\n"
    }

    private func color(_ s: IntervalState) -> StaticString {
        switch s {
        case .overdue: "1;31"
        case .dueSoon: "1;33"
        case .ok: "32"
        case .snoozed: "36"
        }
    }

    private func paint(_ s: TerminalText, _ code: StaticString) -> TerminalText { .styled(s, code, if: colored) }
    private func rightPad(_ s: TerminalText, _ w: Int) -> TerminalText { s + .spaces(w - s.string.count) }
    private func leftPad(_ s: TerminalText, _ w: Int) -> TerminalText { .spaces(w - s.string.count) + s }
}

extension TerminalText {
    func trimmingTrailingSpaces() -> TerminalText { TerminalText(stringLiteral: string.trimmingTrailingSpaces()) }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
