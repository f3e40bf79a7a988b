import Diagnostics
/// Renders a status report as an aligned table per bike, most urgent first.
public struct StatusTextRenderer: Sendable {
    public var colored: Bool

    public init(colored: Bool = false) { self.colored = colored }

    public func render(_ report: StatusReport) -> String {
        var counts: [IntervalState: Int] = [:]
        for bike in report.bikes { for i in bike.intervals { counts[i.state, default: 0] += 1 } }
        // A named part on a shown bike is already counted under the bike.
        let shownBikes = Set(report.bikes.map(\.id))
        for part in report.parts where !(part.bike.map(shownBikes.contains) ?? false) {
            for i in part.intervals { counts[i.state, default: 0] += 1 }
        }
        var out = "As of \(report.asOf): \(counts[.overdue] ?? 0) overdue, \(counts[.dueSoon] ?? 0) due soon, \(counts[.ok] ?? 0) ok\n"
        for bike in report.bikes {
            out += "\n" + paint("\(bike.id) · \(bike.name.escapingControlCharacters())", "1") + (bike.retired.map { " (retired \($0))" } ?? "") + "\n"
            if bike.intervals.isEmpty {
                out += "  no intervals: add a template or intervals to bikes/\(bike.id).yaml\n"
                continue
            }
            out += table(bike.intervals)
        }
        for part in report.parts {
            let where_ = part.retired.map { "retired \($0)" } ?? part.bike.map { "part, on \($0)" } ?? "part, on the shelf"
            out += "\n" + paint("\(part.id) · \(part.name.escapingControlCharacters())", "1") + " (\(where_))\n"
            if part.intervals.isEmpty {
                out += "  no intervals: add a template or intervals to parts/\(part.id).yaml\n"
                continue
            }
            out += table(part.intervals, underBike: false)
        }
        return out
    }

    private func table(_ intervals: [IntervalStatus], underBike: Bool = true) -> String {
        var out = ""
        let rows = intervals.map { row($0, underBike: underBike) }
        let widths = (0..<rows[0].count).map { c in rows.map { $0[c].count }.max() ?? 0 }
        for (interval, cells) in zip(intervals, rows) {
            var line = "  "
            for (c, cell) in cells.enumerated() {
                let last = c == cells.count - 1
                let padded = last ? cell : c == 2 || c == 3 ? leftPad(cell, widths[c]) : rightPad(cell, widths[c])
                line += (c == 0 ? paint(padded, color(interval.state)) : padded) + (last ? "" : "  ")
            }
            out += line.trimmingTrailingSpaces() + "\n"
        }
        return out
    }

    private func row(_ i: IntervalStatus, underBike: Bool) -> [String] {
        let state: String
        switch i.state {
        case .overdue: state = "overdue"
        case .dueSoon: state = "due soon"
        case .ok: state = "ok"
        }
        let deciding = i.limits.max { $0.progress < $1.progress }
        let amount = deciding.map { "\(format($0.used / $0.unitSize)) / \($0.every)" } ?? ""
        var when: [String] = []
        if let since = i.since { when.append("since \(since)") } else { when.append("never done") }
        if let due = i.due { when.append("due ~\(due)") }
        // A part's interval under a bike names the part it follows.
        return [state, i.part.flatMap { underBike ? "\($0): \(i.id)" : nil } ?? i.id, "\(Int((i.progress * 100).rounded(.down)))%", amount, i.task.escapingControlCharacters(), when.joined(separator: ", ")]
    }

    private func format(_ v: Double) -> String {
        if v >= 100 { return String(Int(v.rounded())) }
        let tenths = (v * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }

    private func color(_ s: IntervalState) -> String {
        switch s {
        case .overdue: "1;31"
        case .dueSoon: "1;33"
        case .ok: "32"
        }
    }

    private func paint(_ s: String, _ code: String) -> String { colored ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
    private func rightPad(_ s: String, _ w: Int) -> String { s + String(repeating: " ", count: max(0, w - s.count)) }
    private func leftPad(_ s: String, _ w: Int) -> String { String(repeating: " ", count: max(0, w - s.count)) + s }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
