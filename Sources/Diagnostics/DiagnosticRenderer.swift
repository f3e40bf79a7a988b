/// Renders diagnostics the way compilers do, so editors and CI can parse them:
///
///     bikes/grail.yaml:12:12: error: unknown unit 'hrs' in '10 hrs' [bad-quantity]
///        |
///     12 |     every: 10 hrs
///        |            ^^^^^^
///        = help: write a number and a unit: 10 h, 90 min, 1500 km
public struct DiagnosticRenderer: Sendable {
    public var colored: Bool
    /// Source texts by the path diagnostics use, for excerpts.
    public var sources: [String: SourceText]

    public init(sources: [String: SourceText] = [:], colored: Bool = false) {
        self.sources = sources
        self.colored = colored
    }

    public func render(_ diagnostics: [Diagnostic]) -> String {
        diagnostics.map(render).joined()
    }

    public func render(_ d: Diagnostic) -> String {
        var out = ""
        let color: String
        switch d.severity {
        case .error: color = "31"
        case .warning: color = "33"
        case .note: color = "36"
        }
        out += paint(Self.header(of: d.location), "1")
        out += " " + paint("\(d.severity.rawValue):", "1;" + color)
        out += " " + paint(d.message.escapingControlCharacters(), "1") + " [\(d.id)]\n"
        out += excerpt(d.location, color: color)
        for note in d.notes {
            out += Self.header(of: note.location) + " " + paint("note:", "1;36") + " " + note.message + "\n"
            out += excerpt(note.location, color: "36")
        }
        if let help = d.help {
            out += "   = " + paint("help:", "1") + " " + help + "\n"
        }
        return out
    }

    /// `file:line:column:` or `file:` when the position is unknown.
    public static func header(of location: SourceLocation) -> String {
        guard let r = location.range else { return "\(location.file):" }
        return "\(location.file):\(r.start.line):\(r.start.column):"
    }

    private func excerpt(_ location: SourceLocation, color: String) -> String {
        guard let range = location.range, let text = sources[location.file],
              let line = text.line(range.start.line) else { return "" }
        let number = String(range.start.line)
        let gutter = String(repeating: " ", count: number.count)
        var shown = line.replacingTabs()
        var startColumn = range.start.column
        var width: Int
        if range.end.line == range.start.line {
            width = range.end.column - startColumn
        } else {
            width = line.unicodeScalars.count - startColumn + 1
        }
        width = max(1, width)
        // Very long lines (minified or hostile files) are cut to a window around the caret.
        let window = 100
        let scalars = Array(shown.unicodeScalars)
        if scalars.count > window {
            let from = max(0, min(startColumn - 1 - window / 2, scalars.count - window))
            var cut = String(String.UnicodeScalarView(scalars[from..<min(scalars.count, from + window)]))
            if from + window < scalars.count { cut += "…" }
            if from > 0 {
                cut = "…" + cut
                startColumn = startColumn - from + 1
            }
            shown = cut
            width = min(width, window)
        }
        let pad = String(repeating: " ", count: max(0, startColumn - 1))
        let carets = String(repeating: "^", count: width)
        return "\(gutter) |\n\(number) | \(shown)\n\(gutter) | \(pad)\(paint(carets, "1;" + color))\n"
    }

    private func paint(_ s: String, _ code: String) -> String {
        colored ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s
    }
}

extension String {
    /// Tabs shown as one space and other control characters as one '�' each, so carets under the
    /// line still line up by column and nothing in a file can drive the terminal.
    fileprivate func replacingTabs() -> String {
        String(String.UnicodeScalarView(unicodeScalars.map { $0 == "\t" ? " " : $0.properties.generalCategory == .control ? "\u{FFFD}" : $0 }))
    }

    /// Control characters written as `\u{1B}`, for messages that quote user text.
    public func escapingControlCharacters() -> String {
        guard unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return self }
        return unicodeScalars.map { $0.properties.generalCategory == .control ? "\\u{\(String($0.value, radix: 16, uppercase: true))}" : String($0) }.joined()
    }
}

/// A diagnostic as plain data, for `--format json`.
public struct DiagnosticRecord: Sendable, Codable, Equatable {
    public struct Position: Sendable, Codable, Equatable {
        public var line: Int
        public var column: Int
    }

    public struct Note: Sendable, Codable, Equatable {
        public var message: String
        public var file: String
        public var line: Int?
        public var column: Int?
    }

    public var id: String
    public var severity: String
    public var message: String
    public var file: String
    public var start: Position?
    public var end: Position?
    public var notes: [Note]
    public var help: String?

    public init(_ d: Diagnostic) {
        id = d.id
        severity = d.severity.rawValue
        message = d.message
        file = d.location.file
        start = d.location.range.map { Position(line: $0.start.line, column: $0.start.column) }
        end = d.location.range.map { Position(line: $0.end.line, column: $0.end.column) }
        notes = d.notes.map {
            Note(message: $0.message, file: $0.location.file,
                 line: $0.location.range?.start.line, column: $0.location.range?.start.column)
        }
        help = d.help
    }
}
