/// Renders diagnostics the way compilers do, so editors and CI can parse them:
///
///     bikes/grail.yaml:12:12: error: unknown unit 'hrs' in '10 hrs' [bad-quantity]
///        |
///     12 |     every: 10 hrs
///        |            ^^^^^^
///        = help: write a number and a unit: 10 h, 90 min, 1500 km
package struct DiagnosticRenderer: Sendable {
    package var colored: Bool
    /// Source texts by the path diagnostics use, for excerpts.
    package var sources: [String: SourceText]

    package init(sources: [String: SourceText] = [:], colored: Bool = false) {
        self.sources = sources
        self.colored = colored
    }

    package func render(_ diagnostics: [Diagnostic]) -> TerminalText {
        // A secret one diagnostic masks stays masked in every excerpt of its file.
        var masked: [String: [Range<Int>]] = [:]
        for d in diagnostics where !d.redactions.isEmpty { masked[d.location.file, default: []] += d.redactions }
        return diagnostics.map { render($0, masking: masked) }.joined()
    }

    /// Messages and help quote values cut to a readable length where they are made; this bounds
    /// what any one of them can print, whatever made it.
    static let longestText = 1000

    package func render(_ d: Diagnostic) -> TerminalText {
        render(d, masking: d.redactions.isEmpty ? [:] : [d.location.file: d.redactions])
    }

    private func render(_ d: Diagnostic, masking masked: [String: [Range<Int>]]) -> TerminalText {
        var out: TerminalText = ""
        let color: (plain: StaticString, bold: StaticString)
        switch d.severity {
        case .error: color = ("31", "1;31")
        case .warning: color = ("33", "1;33")
        case .note: color = ("36", "1;36")
        }
        out += paint(Self.header(of: d.location), "1")
        out += " " + paint("\(d.severity.rawValue):", color.bold)
        out += " " + paint("\(Self.bounded(d.message))", "1") + " [\(d.id)]\n"
        out += excerpt(d.location, color: color.bold, masking: masked[d.location.file] ?? [])
        for note in d.notes {
            out += "\(Self.header(of: note.location)) " + paint("note:", "1;36") + " \(Self.bounded(note.message))\n"
            out += excerpt(note.location, color: "1;36", masking: masked[note.location.file] ?? [])
        }
        if let help = d.help {
            out += "   = " + paint("help:", "1") + " \(Self.bounded(help))\n"
        }
        return out
    }

    /// `file:line:column:` or `file:` when the position is unknown.
    package static func header(of location: SourceLocation) -> TerminalText {
        guard let r = location.range else { return "\(location.file):" }
        return "\(location.file):\(r.start.line):\(r.start.column):"
    }

    static func bounded(_ text: String) -> String {
        text.unicodeScalars.count > longestText ? String(String.UnicodeScalarView(text.unicodeScalars.prefix(longestText - 1))) + "…" : text
    }

    /// How many scalars of a line an excerpt shows at most; longer lines (minified or hostile
    /// files) are cut to a window around the caret, with '…' where text is left out.
    static let window = 100

    /// The line of a location with carets under its span. Works on the line's bytes around the
    /// position only: its cost does not grow with the length of the line.
    private func excerpt(_ location: SourceLocation, color: StaticString, masking masked: [Range<Int>]) -> TerminalText {
        guard let range = location.range, let text = sources[location.file],
            var line = text.lineRange(range.start.line)
        else { return "" }
        let bytes = text.bytes
        // A byte-order mark is not a column anyone sees.
        if range.start.line == 1, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { line = min(3, line.upperBound)..<line.upperBound }
        let caret = Self.caretByte(range.start, line: line, bytes: bytes)
        let shownWindow = ShownWindow(around: caret, line: line, bytes: bytes)
        let (shownAfter, ends) = (shownWindow.shownAfter, shownWindow.ends)

        // Carets: under the span on this line, or to the end of the line for a span running on.
        var width: Int
        if range.end.line == range.start.line {
            if (caret...line.upperBound).contains(range.end.offset), range.end.offset >= range.start.offset {
                width = ends.prefix(shownAfter).filter { $0 <= range.end.offset }.count
            } else {
                width = range.end.column - range.start.column
            }
        } else {
            width = shownAfter
        }
        width = max(1, min(width, shownAfter == 0 ? 1 : shownAfter))
        let spanEnd = shownAfter == 0 ? caret : ends[width - 1]
        let (out, caretColumn, spanEndColumn) = Self.shownText(
            bytes, shownWindow.start..<shownWindow.end, caret: caret, spanEnd: spanEnd, masking: masked)
        var shown = out.shownInExcerpt()
        var pad = caretColumn
        if shownWindow.shownBefore < shownWindow.before {
            shown = "…" + shown
            pad += 1
        }
        if shownAfter < shownWindow.after { shown += "…" }
        if !masked.isEmpty { width = max(1, spanEndColumn - caretColumn) }
        let number = String(range.start.line)
        let gutter = String(repeating: " ", count: number.count)
        let carets = String(repeating: "^", count: width)
        return "\(gutter) |\n\(number) | \(shown)\n\(gutter) | " + .spaces(pad) + paint("\(carets)", color) + "\n"
    }

    /// The caret's byte: the position's offset when it lies on its line, else found from the column.
    private static func caretByte(_ position: SourcePosition, line: Range<Int>, bytes: [UInt8]) -> Int {
        var caret = position.offset
        guard !(line.lowerBound...line.upperBound).contains(caret) else { return caret }
        caret = line.lowerBound
        var column = 1
        while caret < line.upperBound, column < position.column {
            caret += 1
            while caret < line.upperBound, bytes[caret] & 0xC0 == 0x80 { caret += 1 }
            column += 1
        }
        return caret
    }

    /// The part of a line an excerpt shows: at most `window` scalars around the caret.
    private struct ShownWindow {
        /// Scalars before the caret and from it to the end of the line, each counted up to window + 1.
        var before = 0, after = 0
        var shownBefore: Int, shownAfter: Int
        /// The byte offset after each scalar from the caret.
        var ends: [Int] = []
        /// The shown bytes.
        var start: Int, end: Int

        init(around caret: Int, line: Range<Int>, bytes: [UInt8]) {
            let window = DiagnosticRenderer.window
            var from = caret
            while from > line.lowerBound, before <= window {
                from -= 1
                while from > line.lowerBound, bytes[from] & 0xC0 == 0x80 { from -= 1 }
                before += 1
            }
            var to = caret
            while to < line.upperBound, after <= window {
                to += 1
                while to < line.upperBound, bytes[to] & 0xC0 == 0x80 { to += 1 }
                after += 1
                ends.append(to)
            }
            // As many before the caret as fit with what follows, at least half the window.
            shownBefore = before + after <= window ? before : min(before, max(window / 2, window - after))
            shownAfter = min(after, window - shownBefore)
            start = caret
            for _ in 0..<shownBefore {
                start -= 1
                while start > line.lowerBound, bytes[start] & 0xC0 == 0x80 { start -= 1 }
            }
            end = shownAfter == 0 ? caret : ends[shownAfter - 1]
        }
    }

    /// The shown bytes, each masked run as one '****', and the columns of the caret and the
    /// span's end: counted as they come out, so the carets stay under their text wherever a mask
    /// shortens the line.
    private static func shownText(_ bytes: [UInt8], _ shown: Range<Int>, caret: Int, spanEnd: Int, masking masked: [Range<Int>]) -> (
        String, caret: Int, spanEnd: Int
    ) {
        let (start, end) = (shown.lowerBound, shown.upperBound)
        var out = ""
        var column = 0, caretColumn = 0, spanEndColumn = 0
        var i = start, run = start  // `run`: where the bytes not yet copied into `out` begin
        while i < end {
            if i == caret { caretColumn = column }
            if i == spanEnd { spanEndColumn = column }
            var next = i + 1
            while next < end, bytes[next] & 0xC0 == 0x80 { next += 1 }
            if masked.contains(where: { $0.contains(i) }) {
                if run < i || i == start {
                    out += String(decoding: bytes[run..<i], as: UTF8.self) + Diagnostic.mask
                    column += 4
                }
                run = next
            } else {
                column += 1
            }
            i = next
        }
        out += String(decoding: bytes[run..<end], as: UTF8.self)
        if end == caret { caretColumn = column }
        if end == spanEnd { spanEndColumn = column }
        return (out, caretColumn, spanEndColumn)
    }

    private func paint(_ s: TerminalText, _ code: StaticString) -> TerminalText { .styled(s, code, if: colored) }
}

extension String {
    /// For a line of an excerpt: tabs shown as one space and every other character
    /// `TerminalEscaping` would escape as one '�', so carets under the line still line up by
    /// column and nothing in a file can drive the terminal.
    fileprivate func shownInExcerpt() -> TerminalText {
        let cleaned = String(
            String.UnicodeScalarView(
                unicodeScalars.map {
                    $0 == "\t" ? " " : TerminalEscaping.isUnsafe($0) ? "\u{FFFD}" : $0
                }))
        return TerminalText(stringLiteral: cleaned)
    }

}

/// A diagnostic as plain data, for `--format json`.
package struct DiagnosticRecord: Sendable, Codable, Equatable {
    package struct Position: Sendable, Codable, Equatable {
        package var line: Int
        package var column: Int
    }

    package struct Note: Sendable, Codable, Equatable {
        package var message: String
        package var file: String
        package var line: Int?
        package var column: Int?
    }

    package var id: String
    package var severity: String
    package var message: String
    package var file: String
    package var start: Position?
    package var end: Position?
    package var notes: [Note]
    package var help: String?

    package init(_ d: Diagnostic) {
        id = d.id
        severity = d.severity.rawValue
        message = d.message
        file = d.location.file
        start = d.location.range.map { Position(line: $0.start.line, column: $0.start.column) }
        end = d.location.range.map { Position(line: $0.end.line, column: $0.end.column) }
        notes = d.notes.map {
            Note(
                message: $0.message, file: $0.location.file,
                line: $0.location.range?.start.line, column: $0.location.range?.start.column)
        }
        help = d.help
    }
}
