import Diagnostics

/// The one table layout for text: columns two spaces apart, numbers right-aligned, text
/// left-aligned; on a terminal narrower than the table, text columns are cut with `…`, widest
/// first, before any number is touched.
package struct TableTextRenderer: Sendable {
    /// Characters per line, or nil for no limit (not a terminal).
    package var width: Int?

    package init(width: Int? = nil) { self.width = width }

    package func render(_ table: ReportTable) -> TerminalText {
        var out: TerminalText = ""
        render(table) { out += $0 }
        return out
    }

    /// The table in pieces of about a megabyte, so that a table of a million rows is never
    /// held whole.
    package func render(_ table: ReportTable, into write: (TerminalText) -> Void) {
        // Escape first, so widths count what the terminal shows.
        let header = table.columns.map { TerminalText(escaping: $0.title).string }
        guard let stream = table.stream, width == nil else {
            return render(header: header, rows: table.allRows, table, into: write)
        }
        // Streamed rows: cells of printable ASCII are their own width and need no escaping; a
        // row with any other goes through the Strings path, line for line the same. Held rows
        // (`holdsRows`) are written once, one after the other, in chunks of about a megabyte (a
        // single array, grown by doubling, held its bytes twice at its last growth): row k's
        // cells are `held[k].first..<held[k].end` of `chunks[held[k].chunk]`, and `plain[k]`
        // says whether they are printable ASCII.
        var widths = header.map(\.count)
        var cells = ReportCells()
        var chunks: [ReportCells] = []
        var held: [(chunk: Int32, first: Int32, end: Int32)] = []
        var plain: [Bool] = []
        for k in 0..<stream.count {
            if !stream.holdsRows {
                cells.removeAll()
            } else if cells.bytes.count >= 1 << 20 || cells.count >= 1 << 16 {
                chunks.append(cells)
                cells = ReportCells()
            }
            let first = cells.count
            stream.write(k, &cells)
            let ascii = Self.measure(cells, first..<cells.count, into: &widths)
            if stream.holdsRows {
                held.append((Int32(chunks.count), Int32(first), Int32(cells.count)))
                plain.append(ascii)
            }
        }
        if stream.holdsRows {
            chunks.append(cells)
            cells = ReportCells()
        }
        var out: [UInt8] = []
        out.reserveCapacity(1 << 20)
        out += Array(line(header, widths: widths, table).utf8)
        let numeric = table.columns.map(\.numeric)
        // Room for the widest line: every column at its width, two spaces between, a line feed.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: widths.reduce(0, +) + 2 * widths.count + 1) { line in
            for k in 0..<stream.count {
                if stream.holdsRows {
                    let h = held[k]
                    layOut(
                        chunks[Int(h.chunk)], Int(h.first)..<Int(h.end), plain: plain[k], widths: widths, numeric: numeric, table, line: line,
                        into: &out)
                } else {
                    cells.removeAll()
                    stream.write(k, &cells)
                    layOut(cells, 0..<cells.count, plain: nil, widths: widths, numeric: numeric, table, line: line, into: &out)
                }
                if out.count >= 1 << 20 { flushBytes(&out, write) }
            }
        }
        if stream.count == 0 { out += Array("(nothing in this span)\n".utf8) }
        for f in table.footer { out += Array((TerminalText(escaping: f).string + "\n").utf8) }
        flushBytes(&out, write)
    }

    /// Widens `widths` to the cells `row` of `cells` (a row's, in column order); whether those
    /// cells are printable ASCII. A row's cells are one run of bytes: checked at once, eight
    /// bytes at a time, each plain cell's width then its length.
    private static func measure(_ cells: ReportCells, _ row: Range<Int>, into widths: inout [Int]) -> Bool {
        let n = min(row.count, widths.count)
        guard n > 0 else { return true }
        let bytes = cells.start(row.lowerBound)..<cells.range(row.lowerBound + n - 1).upperBound
        let plain = cells.bytes.withUnsafeBufferPointer { Self.printableASCII($0, bytes) }
        guard plain else {
            for c in 0..<n {
                let range = cells.range(row.lowerBound + c)
                let w = cells.bytes.withUnsafeBufferPointer { Self.printableASCII($0, range) } ? range.count : Self.escaped(cells.bytes[range]).count
                if w > widths[c] { widths[c] = w }
            }
            return false
        }
        cells.ends.withUnsafeBufferPointer { ends in
            widths.withUnsafeMutableBufferPointer { w in
                var start = bytes.lowerBound
                for c in 0..<n {
                    let end = ends[row.lowerBound + c]
                    if end - start > w[c] { w[c] = end - start }
                    start = end
                }
            }
        }
        return true
    }

    /// One streamed row's line (cells `row` of `cells`; `plain`: whether they are printable
    /// ASCII, when measured), spaces at its end dropped. The cells after the last with text
    /// would add only spaces, and are not laid out; the two spaces before a cell and its
    /// padding go in as one run. A plain row is written into `line` (room for the widest line
    /// and its line feed) and appended at once.
    private func layOut(
        _ cells: ReportCells, _ row: Range<Int>, plain: Bool?, widths: [Int], numeric: [Bool], _ table: ReportTable,
        line: UnsafeMutableBufferPointer<UInt8>, into out: inout [UInt8]
    ) {
        let n = min(row.count, widths.count)
        let plain =
            plain ?? cells.bytes.withUnsafeBufferPointer { b in (0..<n).allSatisfy { Self.printableASCII(b, cells.range(row.lowerBound + $0)) } }
        guard plain, let p = line.baseAddress else {
            out += Array(self.line(cells.strings(row).map { TerminalText(escaping: $0).string }, widths: widths, table).utf8)
            return
        }
        var last = n
        while last > 0, cells.range(row.lowerBound + last - 1).isEmpty { last -= 1 }
        var at = 0
        cells.bytes.withUnsafeBufferPointer { b in
            cells.ends.withUnsafeBufferPointer { ends in
                // Spaces owed before the next cell's text: the last cell's padding, the two between.
                var spaces = 0
                var start = cells.start(row.lowerBound)
                for c in 0..<last {
                    let end = ends[row.lowerBound + c]
                    let pad = widths[c] - (end - start)
                    if c > 0 { spaces += 2 }
                    if numeric[c] { spaces += pad }
                    if spaces > 0 {
                        (p + at).initialize(repeating: 0x20, count: spaces)
                        at += spaces
                    }
                    if let base = b.baseAddress, end > start { (p + at).initialize(from: base + start, count: end - start) }
                    at += end - start
                    spaces = numeric[c] ? 0 : pad
                    start = end
                }
            }
        }
        while at > 0, p[at - 1] == 0x20 { at -= 1 }
        p[at] = 0x0A
        out.append(contentsOf: UnsafeBufferPointer(start: p, count: at + 1))
    }

    /// Bytes a terminal shows as they are, one column each.
    package static func printableASCII(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        guard let base = bytes.baseAddress, !range.isEmpty else { return true }
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count)
        let raw = UnsafeRawPointer(base + range.lowerBound)
        var k = 0
        let count = range.count
        // Eight at a time: no byte with its high bit set, below 0x20, or equal to 0x7F.
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        while k + 8 <= count {
            let x = raw.loadUnaligned(fromByteOffset: k, as: UInt64.self)
            let below = (x &- 0x20 &* ones) & ~x
            let del = x ^ (0x7F &* ones)
            if (x | below | ((del &- ones) & ~del)) & highs != 0 { return false }
            k += 8
        }
        while k < count {
            let v = raw.load(fromByteOffset: k, as: UInt8.self)
            if v < 0x20 || v >= 0x7F { return false }
            k += 1
        }
        return true
    }

    static func escaped(_ bytes: ArraySlice<UInt8>) -> String { TerminalText(escaping: String(decoding: bytes, as: UTF8.self)).string }

    /// A cell as the terminal is to show it: printable ASCII as it is (the same String, not a
    /// copy), anything else escaped.
    static func escaped(_ cell: String) -> String {
        cell.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } ? cell : TerminalEscaping.escape(cell)
    }

    /// Rows of Strings, escaped, in pieces of about a megabyte.
    private func render(header: [String], rows table: [[String]], _ t: ReportTable, into write: (TerminalText) -> Void) {
        let rows = table.map { $0.map(Self.escaped) }
        var widths = header.map(Self.columns)
        for row in rows { for (k, cell) in row.enumerated() where k < widths.count { widths[k] = max(widths[k], Self.columns(cell)) } }
        if let width {
            var overflow = widths.reduce(0, +) + 2 * max(0, widths.count - 1) - width
            while overflow > 0 {
                let candidates = widths.indices.filter { !t.columns[$0].numeric && widths[$0] > max(6, header[$0].count) }
                guard let widest = candidates.max(by: { widths[$0] < widths[$1] }) else { break }
                widths[widest] -= 1
                overflow -= 1
            }
        }
        var out = Array(line(header, widths: widths, t).utf8)
        let numeric = t.columns.map(\.numeric)
        for row in rows {
            // A row of ASCII cells that fit is laid out in bytes; any other the Strings way.
            let n = min(row.count, widths.count)
            guard (0..<n).allSatisfy({ k in row[k].utf8.allSatisfy { $0 < 0x80 } && row[k].utf8.count <= widths[k] }) else {
                out += Array(line(row, widths: widths, t).utf8)
                continue
            }
            for k in 0..<n {
                let pad = widths[k] - row[k].utf8.count
                if k > 0 { out.append(contentsOf: [0x20, 0x20]) }
                if numeric[k] { for _ in 0..<pad { out.append(0x20) } }
                out.append(contentsOf: row[k].utf8)
                if !numeric[k] && k != row.count - 1 { for _ in 0..<pad { out.append(0x20) } }
            }
            while out.last == 0x20 { out.removeLast() }
            out.append(0x0A)
            if out.count >= 1 << 20 { flushBytes(&out, write) }
        }
        if rows.isEmpty { out += Array("(nothing in this span)\n".utf8) }
        for f in t.footer { out += Array((TerminalText(escaping: f).string + "\n").utf8) }
        // Every cell was escaped above.
        flushBytes(&out, write)
    }

    /// The columns an escaped cell takes: its characters, which for ASCII (escaped: no control
    /// characters, so no CR LF pair) are its bytes, counted without breaking graphemes.
    static func columns(_ cell: String) -> Int { cell.utf8.allSatisfy { $0 < 0x80 } ? cell.utf8.count : cell.count }

    /// One line of escaped cells.
    private func line(_ cells: [String], widths: [Int], _ table: ReportTable) -> String {
        var out = ""
        for (k, cell) in cells.enumerated() where k < widths.count {
            let fitted = Self.columns(cell) > widths[k] ? String(cell.prefix(widths[k] - 1)) + "…" : cell
            let pad = String(repeating: " ", count: widths[k] - Self.columns(fitted))
            if k > 0 { out += "  " }
            out += table.columns[k].numeric ? pad + fitted : fitted + (k == cells.count - 1 ? "" : pad)
        }
        while out.hasSuffix(" ") { out.removeLast() }
        return out + "\n"
    }
}

/// RFC 4180: a header row of the columns' names, CRLF line ends, fields with a comma, a quote or
/// a line break in double quotes (quotes doubled). Numbers are plain, in the units the names say.
package enum TableCSVRenderer {
    package static func render(_ table: ReportTable) -> TerminalText {
        var out: TerminalText = ""
        render(table) { out += $0 }
        return out
    }

    /// The table in pieces of about a megabyte.
    package static func render(_ table: ReportTable, into write: (TerminalText) -> Void) {
        guard let stream = table.stream else {
            var out: TerminalText = ""
            for row in [table.columns.map(\.name)] + table.rows { out += line(row) }
            return write(out)
        }
        var out: [UInt8] = Array(line(table.columns.map(\.name)).string.utf8)
        var cells = ReportCells()
        for k in 0..<stream.count {
            cells.removeAll()
            stream.write(k, &cells)
            // Printable ASCII without a comma or quote is written as it is; anything else the
            // same way as unstreamed rows.
            guard cells.bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ",") && $0 != UInt8(ascii: "\"") }) else {
                out += Array(line(cells.strings).string.utf8)
                continue
            }
            for c in 0..<cells.count {
                if c > 0 { out.append(UInt8(ascii: ",")) }
                out += cells.bytes[cells.range(c)]
            }
            out += [0x0D, 0x0A]
            if out.count >= 1 << 20 { flushBytes(&out, write) }
        }
        flushBytes(&out, write)
    }

    private static func line(_ row: [String]) -> TerminalText {
        func field(_ s: String) -> String {
            guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
            return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        // A line break inside a quoted field is data; any other control character is escaped.
        return "\(lines: row.map(field).joined(separator: ","))" + "\r\n"
    }
}

/// A GitHub-flavoured Markdown table (numbers right-aligned), then the footer lines.
package enum TableMarkdownRenderer {
    package static func render(_ table: ReportTable) -> TerminalText {
        func cell(_ s: String) -> String {
            s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "|", with: "\\|")
                .replacingOccurrences(of: "\r\n", with: " ").replacingOccurrences(of: "\n", with: " ")
        }
        var out: TerminalText = "| \(table.columns.map { cell($0.title) }.joined(separator: " | ")) |\n"
        out += "|" + TerminalText(stringLiteral: table.columns.map { $0.numeric ? " ---: |" : " --- |" }.joined()) + "\n"
        for row in table.allRows { out += "| \(row.map(cell).joined(separator: " | ")) |\n" }
        if !table.footer.isEmpty {
            out += "\n\(table.footer.map(cell).joined(separator: "\n\n"))\n"
        }
        return out
    }
}

/// Writes the bytes so far as text (valid UTF-8: every cell was escaped or is ASCII) and empties
/// them. A function of its own, not a closure over the buffer, which would box it and check
/// exclusive access on every byte appended.
private func flushBytes(_ out: inout [UInt8], _ write: (TerminalText) -> Void) {
    write(TerminalText(stringLiteral: String(decoding: out, as: UTF8.self)))
    out.removeAll(keepingCapacity: true)
}
