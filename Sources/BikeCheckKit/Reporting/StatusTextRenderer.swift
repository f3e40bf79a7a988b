import Diagnostics
/// Renders a status report as an aligned table per bike, most urgent first.
public struct StatusTextRenderer: Sendable {
    public var colored: Bool

    public init(colored: Bool = false) { self.colored = colored }

    public func render(_ report: StatusReport) -> TerminalText {
        var counts: [IntervalState: Int] = [:]
        for bike in report.bikes { for i in bike.intervals { counts[i.state, default: 0] += 1 } }
        var out: TerminalText = "As of \(report.asOf): \(counts[.overdue] ?? 0) overdue, \(counts[.dueSoon] ?? 0) due soon, \(counts[.ok] ?? 0) ok\n"
        for bike in report.bikes {
            out += "\n" + paint("\(bike.id) · \(bike.name)", "1") + (bike.retired.map { " (retired \($0))" } ?? "") + "\n"
            if bike.intervals.isEmpty {
                out += "  no intervals: add a template or intervals to bikes/\(bike.id).yaml\n"
                continue
            }
            let rows = bike.intervals.map(row)
            let widths = (0..<rows[0].count).map { c in rows.map { $0[c].string.count }.max() ?? 0 }
            for (interval, cells) in zip(bike.intervals, rows) {
                var line: TerminalText = "  "
                for (c, cell) in cells.enumerated() {
                    let last = c == cells.count - 1
                    let padded = last ? cell : c == 2 || c == 3 ? leftPad(cell, widths[c]) : rightPad(cell, widths[c])
                    line += (c == 0 ? paint(padded, color(interval.state)) : padded) + (last ? "" : "  ")
                }
                out += line.trimmingTrailingSpaces() + "\n"
            }
        }
        return out
    }

    private func row(_ i: IntervalStatus) -> [TerminalText] {
        let state: TerminalText
        switch i.state {
        case .overdue: state = "overdue"
        case .dueSoon: state = "due soon"
        case .ok: state = "ok"
        }
        let deciding = i.limits.max { $0.progress < $1.progress }
        let amount: TerminalText = deciding.map { "\(format($0.used / $0.unitSize)) / \($0.every)" } ?? ""
        var when: [String] = []
        if let since = i.since { when.append("since \(since)") } else { when.append("never done") }
        if let due = i.due { when.append("due ~\(due)") }
        return [state, "\(i.id)", "\(Int((i.progress * 100).rounded(.down)))%", amount, "\(i.task)", "\(when.joined(separator: ", "))"]
    }

    private func format(_ v: Double) -> String {
        if v >= 100 { return String(Int(v.rounded())) }
        let tenths = (v * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }

    private func color(_ s: IntervalState) -> StaticString {
        switch s {
        case .overdue: "1;31"
        case .dueSoon: "1;33"
        case .ok: "32"
        }
    }

    private func paint(_ s: TerminalText, _ code: StaticString) -> TerminalText { .styled(s, code, if: colored) }
    private func rightPad(_ s: TerminalText, _ w: Int) -> TerminalText { s + .spaces(w - s.string.count) }
    private func leftPad(_ s: TerminalText, _ w: Int) -> TerminalText { .spaces(w - s.string.count) + s }
}

extension TerminalText {
    func trimmingTrailingSpaces() -> TerminalText {
        var s = Substring(string)
        while s.last == " " { s = s.dropLast() }
        return TerminalText(stringLiteral: String(s))
    }
}
