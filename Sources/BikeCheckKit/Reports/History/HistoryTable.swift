import Foundation

/// The history as a table: text, CSV and Markdown.
extension HistoryReport {
    /// A row per entry, streamed: the entries are written cell by cell into bytes when the
    /// renderer asks, not held as a table of Strings; for text, once (`holdsRows`: the widths
    /// and the lines from one writing, about 150 bytes a row).
    package var table: ReportTable {
        let parts = entries.contains { $0.subject.kind == .part }
        let columns: [ReportTable.Column] =
            [.init("date", "DATE")] + ReportTable.subjectColumns(parts: parts) + [
                .init("tasks", "DONE"), .init("cost", "COST", numeric: true),
                .init("currency", "CUR"), .init("category", "CATEGORY"), .init("note", "NOTE"),
            ]
        var amounts = AmountTexts()
        let costs = entries.map { e in e.cost.map { amounts.text($0) } ?? "" }
        let entries = entries, unit = units.distanceUnit, size = units.distanceSize, unitBytes = Array(unit.utf8)
        var stream = ReportTable.RowStream(count: entries.count) { k, cells in
            // The entry read where it is: passed by value, each was copied (retained) and released.
            entries.withUnsafeBufferPointer { all in
                guard let base = all.baseAddress else { return }
                Self.row(base + k, cost: costs[k], parts: parts, unit: (unit, unitBytes), size: size, into: &cells)
            }
        }
        stream.holdsRows = true
        return ReportTable(columns: columns, stream: stream)
    }

    /// An entry's cells: its day, its subject's (`ReportTable.subjectCells`, without an array per
    /// row), what it did, its cost (`cost`: the amount's text), currency, category and note.
    private static func row(
        _ entry: UnsafePointer<Entry>, cost: String, parts: Bool, unit: (String, [UInt8]), size: Double, into cells: inout ReportCells
    ) {
        cells.day(entry.pointee.date)
        switch entry.pointee.subject.kind {
        case .bike:
            cells.text(entry.pointee.subject.id)
            if parts { cells.empty() }
        case .part:
            cells.text(entry.pointee.bike ?? "")
            cells.text(entry.pointee.subject.id)
        }
        Self.done(entry, unit: unit, size: size, into: &cells)
        cells.end()
        cells.text(cost)
        cells.text(entry.pointee.cost == nil ? "" : entry.pointee.currency ?? "")
        cells.text(entry.pointee.category ?? "")
        cells.text(entry.pointee.note ?? "")
    }

    /// `; TASK (after 12.3 km / 4.5 h since 2025-03-02)` (`; ` unless `first`), written in one
    /// piece (a dozen appends to the cell were half the table's time); false, with nothing
    /// written, for figures or a day beyond the plain forms (`ReportNumber.appendFixed`'s and
    /// `ReportCells.appendDay`'s), which the caller writes piece by piece.
    private static func task(
        _ task: String, first: Bool, distance: Double, hours: Double, previous: Day, unit: [UInt8], into cells: inout ReportCells
    ) -> Bool {
        let (d, h) = ((distance * 10).rounded(), (hours * 10).rounded())
        let (y, m, day) = previous.components
        guard abs(d) < 1e15, abs(h) < 1e15, (0...9999).contains(y) else { return false }
        var task = task
        task.withUTF8 { name in
            cells.append(capacity: 82 + name.count + unit.count) { p in
                var out = ByteCursor(p)
                if !first { out.put("; ") }
                out.put(name)
                out.put(" (after ")
                out.putTenths(d)
                out.put(" ")
                out.put(unit)
                out.put(" / ")
                out.putTenths(h)
                out.put(" h since ")
                out.at += ReportCells.writeDay(y, m, day, to: out.p + out.at)
                out.put(")")
                return out.at
            }
        }
        return true
    }

    /// Writes bytes one after the other from `p` (room made by `ReportCells.append(capacity:)`).
    private struct ByteCursor {
        let p: UnsafeMutablePointer<UInt8>
        var at = 0

        init(_ p: UnsafeMutablePointer<UInt8>) { self.p = p }

        mutating func put(_ s: StaticString) {
            s.withUTF8Buffer { b in
                guard let base = b.baseAddress else { return }
                (p + at).initialize(from: base, count: b.count)
            }
            at += s.utf8CodeUnitCount
        }

        mutating func put(_ bytes: [UInt8]) { bytes.withUnsafeBufferPointer { put($0) } }

        mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let base = bytes.baseAddress else { return }
            (p + at).initialize(from: base, count: bytes.count)
            at += bytes.count
        }

        /// `ReportNumber.appendFixed(value, 1)` of a value whose tenths, rounded, are `scaled`
        /// (below 10^15).
        mutating func putTenths(_ scaled: Double) {
            var n = Int64(scaled)
            if n < 0 {
                p[at] = UInt8(ascii: "-")
                at += 1
                n = -n
            }
            at += ReportNumber.writeDigits(n / 10, to: p + at)
            p[at] = UInt8(ascii: ".")
            p[at + 1] = UInt8(48 + n % 10)
            at += 2
        }
    }

    /// An entry's DONE cell, unended: `TASK (after 12.3 km / 4.5 h since DAY)` or
    /// `TASK (first logged)` per task, then the to-do and the readings, `; ` between.
    private static func done(_ e: UnsafePointer<Entry>, unit: (text: String, bytes: [UInt8]), size: Double, into cells: inout ReportCells) {
        var first = true
        // Each task read in place: a `Task` copied out retained and released its two Strings.
        e.pointee.tasks.withUnsafeBufferPointer { tasks in
            guard let base = tasks.baseAddress else { return }
            for t in base..<(base + tasks.count) {
                if let previous = t.pointee.previous, let d = t.pointee.distance, let h = t.pointee.movingTime,
                    Self.task(t.pointee.task, first: first, distance: d / size, hours: h / 3600, previous: previous, unit: unit.bytes, into: &cells)
                {
                    first = false
                    continue
                }
                if !first { cells.append("; ") }
                first = false
                cells.append(t.pointee.task)
                guard let previous = t.pointee.previous, let d = t.pointee.distance, let h = t.pointee.movingTime else {
                    cells.append(" (first logged)")
                    continue
                }
                cells.append(" (after ")
                cells.appendFixed(d / size, 1)
                cells.append(" ")
                cells.append(unit.text)
                cells.append(" / ")
                cells.appendFixed(h / 3600, 1)
                cells.append(" h since ")
                cells.appendDay(previous)
                cells.append(")")
            }
        }
        if let todo = e.pointee.todo {
            if !first { cells.append("; ") }
            first = false
            cells.append("to-do: ")
            cells.append(todo)
        }
        for r in e.pointee.readings ?? [] {
            if !first { cells.append("; ") }
            first = false
            cells.append("measured \(r.id) \(WearAmount(amount: r.value, unit: r.unit))")
        }
    }
}
