import Diagnostics

/// The one table layout for text: columns two spaces apart, numbers right-aligned, text
/// left-aligned; on a terminal narrower than the table, text columns are cut with `…`, widest
/// first, before any number is touched.
public struct TableTextRenderer: Sendable {
    /// Characters per line, or nil for no limit (not a terminal).
    public var width: Int?

    public init(width: Int? = nil) { self.width = width }

    public func render(_ table: ReportTable) -> TerminalText {
        // Escape first, so widths count what the terminal shows.
        let header = table.columns.map { TerminalText(escaping: $0.title).string }
        let rows = table.rows.map { $0.map { TerminalText(escaping: $0).string } }
        var widths = header.map(\.count)
        for row in rows { for (k, cell) in row.enumerated() where k < widths.count { widths[k] = max(widths[k], cell.count) } }
        if let width {
            var overflow = widths.reduce(0, +) + 2 * max(0, widths.count - 1) - width
            while overflow > 0 {
                let candidates = widths.indices.filter { !table.columns[$0].numeric && widths[$0] > max(6, header[$0].count) }
                guard let widest = candidates.max(by: { widths[$0] < widths[$1] }) else { break }
                widths[widest] -= 1
                overflow -= 1
            }
        }
        func line(_ cells: [String]) -> String {
            var out = ""
            for (k, cell) in cells.enumerated() where k < widths.count {
                let fitted = cell.count > widths[k] ? String(cell.prefix(widths[k] - 1)) + "…" : cell
                let pad = String(repeating: " ", count: widths[k] - fitted.count)
                if k > 0 { out += "  " }
                out += table.columns[k].numeric ? pad + fitted : fitted + (k == cells.count - 1 ? "" : pad)
            }
            while out.hasSuffix(" ") { out.removeLast() }
            return out + "\n"
        }
        var out = line(header)
        for row in rows { out += line(row) }
        if rows.isEmpty { out += "(nothing in this span)\n" }
        for f in table.footer { out += TerminalText(escaping: f).string + "\n" }
        // Every cell was escaped above.
        return TerminalText(stringLiteral: out)
    }
}

/// RFC 4180: a header row of the columns' names, CRLF line ends, fields with a comma, a quote or
/// a line break in double quotes (quotes doubled). Numbers are plain, in the units the names say.
public enum TableCSVRenderer {
    public static func render(_ table: ReportTable) -> TerminalText {
        func field(_ s: String) -> String {
            guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
            return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        var out: TerminalText = ""
        for row in [table.columns.map(\.name)] + table.rows {
            // A line break inside a quoted field is data; any other control character is escaped.
            out += "\(lines: row.map(field).joined(separator: ","))" + "\r\n"
        }
        return out
    }
}

/// A GitHub-flavoured Markdown table (numbers right-aligned), then the footer lines.
public enum TableMarkdownRenderer {
    public static func render(_ table: ReportTable) -> TerminalText {
        func cell(_ s: String) -> String {
            s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "|", with: "\\|")
                .replacingOccurrences(of: "\r\n", with: " ").replacingOccurrences(of: "\n", with: " ")
        }
        var out: TerminalText = "| \(table.columns.map { cell($0.title) }.joined(separator: " | ")) |\n"
        out += "|" + TerminalText(stringLiteral: table.columns.map { $0.numeric ? " ---: |" : " --- |" }.joined()) + "\n"
        for row in table.rows { out += "| \(row.map(cell).joined(separator: " | ")) |\n" }
        if !table.footer.isEmpty {
            out += "\n\(table.footer.map(cell).joined(separator: "\n\n"))\n"
        }
        return out
    }
}
