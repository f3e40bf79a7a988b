import Diagnostics

/// Renders parts' and components' lives as aligned tables, in the garage's units. Every value
/// from the garage's files is escaped for the terminal as it goes in (`shown`), so the tables can
/// be laid out as plain strings and handed over as `TerminalText` whole.
package struct PartLifeTextRenderer: Sendable {
    package init() {}

    /// `part list`: every part, then every component by bike.
    package func renderList(_ report: PartLifeReport) -> TerminalText {
        var out = "As of \(report.asOf)\n"
        let parts = report.parts.filter { $0.kind == .part }
        let components = report.parts.filter { $0.kind == .component }
        if !parts.isEmpty {
            out +=
                "\nparts\n"
                + table(
                    parts.map { p in
                        let place = p.retired.map { $0 <= report.asOf } ?? false ? "retired" : p.bike.map { "on \(shown($0))" } ?? "on the shelf"
                        return [shown(p.id), place] + life(p.usage, report.units) + [shown(p.name ?? "")]
                    })
        }
        if !components.isEmpty {
            out +=
                "\ncomponents (the current one; then the slot's total)\n"
                + table(
                    components.map { c in
                        let head: [String] = ["\(shown(c.bike ?? ""))/\(shown(c.id))", c.since.map { "since \($0)" } ?? "since first ride"]
                        let slot: String = "slot " + distance(c.slot?.distance ?? 0, report.units) + ", " + hours(c.slot?.movingTime ?? 0)
                        return head + life(c.usage, report.units) + [slot, shown(c.name ?? "")]
                    })
        }
        if parts.isEmpty && components.isEmpty { out += "\nno parts or components yet\n" }
        return TerminalText(stringLiteral: out)
    }

    /// `part show`: the part's life and its mounts, each with its usage.
    package func renderShow(_ report: PartLifeReport) -> TerminalText {
        var out = ""
        for p in report.parts {
            let place = p.retired.map { $0 <= report.asOf } ?? false ? "retired \(p.retired!)" : p.bike.map { "on \(shown($0))" } ?? "on the shelf"
            out += "\(shown(p.id)) · \(shown(p.name ?? "")) (\(place), as of \(report.asOf))\n"
            out += "  life: " + life(p.usage, report.units).joined(separator: ", ") + "\n"
            if p.prior.rides > 0 || p.prior.distance > 0 || p.prior.movingTime > 0 {
                out +=
                    "  before tracking: "
                    + [distance(p.prior.distance, report.units), hours(p.prior.movingTime), "\(p.prior.rides) rides"].joined(separator: ", ") + "\n"
            }
            let mounts = p.mounts ?? []
            if mounts.isEmpty {
                out += "  never mounted\n"
            } else {
                out +=
                    "  mounts\n"
                    + table(
                        mounts.map { m in
                            [
                                shown(m.bike) + (m.via.isEmpty ? "" : " (on \(m.via.map(shown).joined(separator: " on ")))"),
                                "\(m.from) – \(m.to.map(\.description) ?? "now")",
                            ]
                                + life(m.usage, report.units)
                        }, indent: "    ")
            }
        }
        return TerminalText(stringLiteral: out)
    }

    /// A value from the garage's files, escaped for the terminal.
    private func shown(_ text: String) -> String { TerminalEscaping.escape(text) }

    private func life(_ u: LifeUsage, _ units: UnitSystem) -> [String] {
        let span = u.firstUse.map { f in "\(f) – \(u.lastUse.map(\.description) ?? "")" } ?? "never ridden"
        return [distance(u.distance, units), hours(u.movingTime), "\(u.rides) rides", span]
    }

    /// Whole kilometres or miles.
    private func distance(_ metres: Double, _ units: UnitSystem) -> String { "\(Int(units.distance(metres).rounded())) \(units.distanceUnit)" }

    private func hours(_ seconds: Double) -> String { "\((seconds / 360).rounded() / 10) h" }

    private func table(_ rows: [[String]], indent: String = "  ") -> String {
        guard let first = rows.first else { return "" }
        let widths = (0..<first.count).map { c in rows.map { $0[c].count }.max() ?? 0 }
        return rows.map { cells in
            indent
                + cells.enumerated().map { c, cell in
                    c == cells.count - 1 ? cell : cell + String(repeating: " ", count: widths[c] - cell.count)
                }.joined(separator: "  ").trimmingTrailingSpaces()
        }.joined(separator: "\n") + "\n"
    }
}
