import Diagnostics

/// Plans an edit on one parsed file: its splices, in the file's style, and what the re-parsed
/// tree must be (see `YAMLEditor`). The plans of each kind of edit are in YAMLEditPlans.swift.
struct Planner {
    let doc: YAMLDocument
    let root: YAMLNode
    let style: FileStyle
    var bytes: [UInt8] { doc.source.bytes }

    init(doc: YAMLDocument, root: YAMLNode, style: FileStyle? = nil) {
        self.doc = doc
        self.root = root
        self.style = style ?? FileStyle(doc, root: root)
    }

    func location(_ offset: Int) -> SourceLocation {
        let p = doc.source.position(ofOffset: offset)
        return SourceLocation(file: doc.path, range: SourceRange(at: p))
    }

    func refuse(_ message: String, _ node: YAMLNode?, help: String = "make this change by hand") -> YAMLEditFailure {
        let range = node?.range ?? SourceRange(at: SourcePosition(offset: 0, line: 1, column: 1))
        return YAMLEditFailure([.error(.yamlEditRefused, message, at: SourceLocation(file: doc.path, range: range), help: help)])
    }

    // MARK: Positions

    /// Bytes from the start of the line to `offset` (indentation is ASCII, so bytes are columns).
    func lineColumn(of offset: Int) -> Int {
        let line = doc.source.position(ofOffset: offset).line
        return indentation(offset, lineStart: doc.source.lineStarts[line - 1], in: bytes)
    }

    /// Inserts whole lines after the last line of `node` (after a trailing comment on that line,
    /// before any comment lines or blank lines that follow it).
    /// Comment lines right below, indented deeper than `ownerColumn` (the entry's key or `-`),
    /// belong to the entry and stay above the new lines.
    func insertion(after node: YAMLNode, lines: [String], ownerColumn: Int? = nil) -> Splice {
        let starts = doc.source.lineStarts
        var lastNode = node
        while true {
            switch lastNode {
            case .mapping(let m) where !m.isFlow: if let e = m.entries.last { lastNode = e.value; continue }
            case .sequence(let q) where !q.isFlow: if let i = q.items.last { lastNode = i; continue }
            default: break
            }
            break
        }
        var end = lastNode.range.end.offset
        if case .scalar(let s) = lastNode, s.style == .literal || s.style == .folded {
            // A block scalar's range runs over the blank lines after it; unless it keeps them
            // (`|+`), new lines go straight after its last line of text.
            var header = s.range.start.offset + 1
            var keeps = false
            while header < bytes.count,
                [UInt8(ascii: "+"), UInt8(ascii: "-")].contains(bytes[header]) || (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(bytes[header])
            {
                if bytes[header] == UInt8(ascii: "+") { keeps = true }
                header += 1
            }
            if !keeps {
                while end > s.range.start.offset, [UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: " ")].contains(bytes[end - 1]) { end -= 1 }
            } else if starts.contains(end) && end > s.range.start.offset {
                return Splice(range: end..<end, text: Array(lines.map { $0 + style.eol }.joined().utf8))
            }
        } else {
            end = max(end, node.range.end.offset)
        }
        let probe = max(0, end - 1)
        var line = doc.source.position(ofOffset: probe).line
        if let ownerColumn {
            while line < starts.count, let indent = commentIndent(line: line), indent > ownerColumn { line += 1 }
        }
        if line < starts.count {
            let at = starts[line]
            return Splice(range: at..<at, text: Array(lines.map { $0 + style.eol }.joined().utf8))
        }
        let text = lines.isEmpty ? "" : style.eol + lines.joined(separator: style.eol)
        return Splice(range: bytes.count..<bytes.count, text: Array(text.utf8))
    }

    /// The indentation of a 0-based line that holds only a comment, else nil.
    func commentIndent(line: Int) -> Int? {
        let starts = doc.source.lineStarts
        let start = starts[line]
        let end = line + 1 < starts.count ? starts[line + 1] : bytes.count
        var i = start
        while i < end, bytes[i] == UInt8(ascii: " ") { i += 1 }
        guard i < end, bytes[i] == UInt8(ascii: "#") else { return nil }
        return indentation(i, lineStart: start, in: bytes)
    }

    // MARK: Paths

    func node(at path: YAMLPath) -> YAMLNode? {
        var current = root
        for component in path {
            switch (component, current) {
            case (.key(let k), .mapping(let m)):
                guard let v = m[k] else { return nil }
                current = v
            case (.index(let i), .sequence(let q)):
                guard q.items.indices.contains(i) else { return nil }
                current = q.items[i]
            default: return nil
            }
        }
        return current
    }

    func describe(_ path: YAMLPath) -> String {
        path.isEmpty ? "the top level" : path.map(\.description).joined(separator: ".")
    }
}
