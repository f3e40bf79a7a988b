import Diagnostics

/// Edits a hand-written YAML file the way a careful person would: each edit becomes a splice on
/// the exact byte ranges of the located tree, in the file's own indentation, line endings and
/// quoting; the result is re-parsed and must equal the old tree plus exactly the intended change.
/// When an edit cannot be made safely it is refused with a located diagnostic.
package struct YAMLEditor: Sendable {
    package let document: YAMLDocument

    /// An editor for a parsed file; edits of a file with YAML problems are refused.
    package init(document: YAMLDocument) { self.document = document }

    /// An editor for a file's bytes, parsed here.
    package init(path: String, bytes: [UInt8], limits: YAMLDocument.Limits = .init()) {
        self.init(document: YAMLDocument(path: path, bytes: bytes, limits: limits))
    }

    /// A new file's text for a mapping, in the common style (two-space indent, `- ` items,
    /// LF), after `header` comment lines; verified to read back as `pairs`.
    package static func render(_ pairs: [YAMLPair], header: [String] = []) throws(YAMLEditFailure) -> [UInt8] {
        let style = FileStyle()
        let lines = header + pairs.flatMap { style.entryLines($0.key, $0.value, indent: 0) }
        let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
        let doc = YAMLDocument(path: "new.yaml", bytes: bytes)
        guard doc.diagnostics.isEmpty, let root = doc.root,
            YAMLShape(root) == .mapping(pairs.map { YAMLShapeEntry(key: $0.key, value: style.shape(of: $0.value, keepQuotes: nil)) })
        else {
            throw YAMLEditFailure([.error(.yamlEditUnsafe, "the new file would not read back as intended", at: SourceLocation(file: "new.yaml"))])
        }
        return bytes
    }

    /// Applies `edits` in order and returns the new bytes; no edits gives the same bytes back.
    package func apply(_ edits: [YAMLEdit]) throws(YAMLEditFailure) -> [UInt8] {
        guard !edits.isEmpty else { return document.source.bytes }
        var current = document
        for edit in edits {
            current = try Self.apply(edit, to: current)
        }
        return current.source.bytes
    }

    /// Several edits planned on the same document and checked with one parse: each edit's path
    /// is its own (none inside another's) and no two splices overlap, else it is refused, as is
    /// a result that does not read back as every change and nothing else. For the edits of a
    /// merge, where one at a time would parse a long file again for each.
    package static func applyTogether(_ edits: [YAMLEdit], to doc: YAMLDocument) throws(YAMLEditFailure) -> YAMLDocument {
        guard doc.diagnostics.isEmpty, let root = doc.root, doc.isUsable else {
            throw YAMLEditFailure([.error(.yamlEditRefused, "cannot edit '\(doc.path)' while it has YAML problems", at: SourceLocation(file: doc.path))])
        }
        let planner = Planner(doc: doc, root: root)
        var splices: [Splice] = []
        var expected: [Expected] = []
        for edit in edits {
            let (s, e) = try planner.plan(edit)
            splices += s
            expected.append(e)
        }
        let refused = YAMLEditFailure([
            .error(.yamlEditRefused, "these changes cannot be made together", at: SourceLocation(file: doc.path), help: "make them one at a time")
        ])
        for (i, a) in expected.enumerated() {
            for b in expected[(i + 1)...] where a.path.starts(with: b.path) || b.path.starts(with: a.path) { throw refused }
        }
        // In file order; at one offset, new text before what is taken out from there.
        splices.sort { ($0.range.lowerBound, $0.range.isEmpty ? 0 : 1) < ($1.range.lowerBound, $1.range.isEmpty ? 0 : 1) }
        let bytes = doc.source.bytes
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + splices.reduce(0) { $0 + $1.text.count })
        var at = 0
        for (index, splice) in splices.enumerated() {
            guard splice.range.lowerBound >= at, index == 0 || !(splice.range.isEmpty && splices[index - 1].range == splice.range) else { throw refused }
            out += bytes[at..<splice.range.lowerBound]
            out += splice.text
            at = splice.range.upperBound
        }
        out += bytes[at...]
        let next = YAMLDocument(path: doc.path, bytes: out, limits: doc.limits)
        guard next.diagnostics.isEmpty, let newRoot = next.root, next.isUsable, Expected.allMet(expected, by: newRoot, old: root) else {
            throw YAMLEditFailure([
                .error(
                    .yamlEditUnsafe, "the changes would not read back as intended, so nothing was written",
                    at: planner.location(splices.first?.range.lowerBound ?? 0), help: "make these changes by hand")
            ])
        }
        return next
    }

    /// One edit, checked: plan the splices, apply them back to front, re-parse, compare (node by
    /// node: the meaning of a whole large file is never built, see `Expected`).
    static func apply(_ edit: YAMLEdit, to doc: YAMLDocument) throws(YAMLEditFailure) -> YAMLDocument {
        guard doc.diagnostics.isEmpty, let root = doc.root, doc.isUsable else {
            let at = doc.diagnostics.first?.location ?? SourceLocation(file: doc.path)
            throw YAMLEditFailure(
                [
                    .error(
                        .yamlEditRefused, "cannot edit '\(doc.path)' while it has YAML problems",
                        at: at, help: doc.limits.help.editRefused)
                ] + doc.diagnostics)
        }
        let planner = Planner(doc: doc, root: root)
        let (splices, expected) = try planner.plan(edit)
        var bytes = doc.source.bytes
        for splice in splices.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            bytes.replaceSubrange(splice.range, with: splice.text)
        }
        let next = YAMLDocument(path: doc.path, bytes: bytes, limits: doc.limits)
        let anchor = planner.location(splices.map(\.range.lowerBound).min() ?? 0)
        guard next.diagnostics.isEmpty, let newRoot = next.root, next.isUsable else {
            throw YAMLEditFailure([
                .error(
                    .yamlEditUnsafe, "the change would not read back as valid YAML, so nothing was written",
                    at: anchor, help: "make this change by hand")
            ])
        }
        guard expected.isMet(by: newRoot, old: root) else {
            throw YAMLEditFailure([
                .error(
                    .yamlEditUnsafe, "the change would not read back as intended, so nothing was written",
                    at: anchor, help: "make this change by hand")
            ])
        }
        return next
    }
}

/// Where the lines of one block mapping entry or block list item are in a file: the comment
/// lines right above it (at its indentation), then its own lines up to the start of the next
/// line after it (trailing comments and comment lines indented under it included).
package struct YAMLLines: Sendable, Hashable {
    /// The start of the first comment line above it (`keyLine` when there is none).
    package var start: Int
    /// The start of the line of its key or `-`.
    package var keyLine: Int
    /// For a one-line scalar on the key's line: where the value ends (its trailing comment follows).
    package var valueEnd: Int?
    /// The start of the line after it (or the end of the file).
    package var end: Int
    /// The column of its key or `-`.
    package var column: Int
}

extension YAMLDocument {
    /// The lines of the block mapping entry or block list item at `path`, or nil when it has no
    /// lines of its own (see `YAMLLines`) or the document cannot be edited.
    package func lines(at path: YAMLPath) -> YAMLLines? {
        guard diagnostics.isEmpty, isUsable, let root else { return nil }
        // Finding lines writes nothing: the file's style (a walk of the whole tree) is not needed.
        return Planner(doc: self, root: root, style: FileStyle()).lines(at: path)
    }
}

/// A replacement of a byte range by new bytes.
struct Splice {
    var range: Range<Int>
    var text: [UInt8]
}

/// How a file is written: line ending, indentation, sequence style, quotes.
struct FileStyle {
    var eol = "\n"
    /// Spaces from a key to its nested keys.
    var step = 2
    /// Spaces from a key to the `-` of a block sequence under it (0: `- ` flush with the key).
    var sequenceIndent = 2
    /// Spaces from `-` to the item's text.
    var itemOffset = 2
    var writer = YAMLScalarWriter()

    init() {}

    init(_ doc: YAMLDocument, root: YAMLNode) {
        let bytes = doc.source.bytes
        if let nl = bytes.firstIndex(of: UInt8(ascii: "\n")), nl > 0, bytes[nl - 1] == UInt8(ascii: "\r") { eol = "\r\n" }
        var single = 0, double = 0
        var foundStep = false, foundSequence = false, foundOffset = false
        let text = doc.source
        func column(_ offset: Int) -> Int {
            let line = text.position(ofOffset: offset).line
            return indentation(offset, lineStart: text.lineStarts[line - 1], in: bytes)
        }
        // Depth first, children in order, so the walk meets the file's first examples first (the
        // composer bounds the depth). A key's column is looked up only while an example is missing.
        func visit(_ node: YAMLNode) {
            switch node {
            case .scalar(let s):
                if s.style == .singleQuoted { single += 1 }
                if s.style == .doubleQuoted { double += 1 }
            case .sequence(let q):
                if !q.isFlow, !foundOffset, let first = q.items.first, let dash = dashOffset(before: first.range.start.offset, in: bytes) {
                    if first.range.start.line == text.position(ofOffset: dash).line {
                        itemOffset = max(2, first.range.start.offset - dash)
                        foundOffset = true
                    }
                }
                for item in q.items { visit(item) }
            case .mapping(let m):
                if !m.isFlow, !foundStep || !foundSequence {
                    for entry in m.entries {
                        if case .mapping(let child) = entry.value, !child.isFlow, !foundStep, let firstKey = child.entries.first?.key,
                            firstKey.range.start.line > entry.key.range.start.line
                        {
                            let d = column(firstKey.range.start.offset) - column(entry.key.range.start.offset)
                            if d > 0 { step = d; foundStep = true }
                        }
                        if case .sequence(let child) = entry.value, !child.isFlow, !foundSequence, let first = child.items.first,
                            let dash = dashOffset(before: first.range.start.offset, in: bytes)
                        {
                            let d = column(dash) - column(entry.key.range.start.offset)
                            if d >= 0 { sequenceIndent = d; foundSequence = true }
                        }
                    }
                }
                for entry in m.entries { visit(entry.value) }
            }
        }
        visit(root)
        if !foundSequence { sequenceIndent = step }
        writer = YAMLScalarWriter(quote: single > double ? .single : .double)
    }
}

extension FileStyle {
    func isScalar(_ v: YAMLValue) -> Bool {
        switch v {
        case .text, .plain, .null: true
        default: false
        }
    }

    func isInline(_ v: YAMLValue) -> Bool {
        switch v {
        case .text, .plain, .flowList, .flowMapping, .null: true
        case .list(let items): items.isEmpty
        case .mapping(let pairs): pairs.isEmpty
        }
    }

    /// A value on one line: a scalar, `[a, b]` or `{k: v}`; a quoted value being replaced keeps
    /// its quotes.
    /// `{k: v, …}` with scalar values only.
    func isFlatFlowMapping(_ v: YAMLValue) -> Bool {
        if case .flowMapping(let pairs) = v { return pairs.allSatisfy { isScalar($0.value) } }
        return false
    }

    func inlineText(_ value: YAMLValue, keepQuotes: YAMLNode?, inFlow: Bool = false) -> String {
        switch value {
        case .text(let s):
            if case .scalar(let old)? = keepQuotes, old.style == .singleQuoted || old.style == .doubleQuoted {
                return YAMLScalarWriter(quote: old.style == .singleQuoted ? .single : .double).quoted(s)
            }
            return writer.render(value, inFlow: inFlow).text
        case .plain, .null: return writer.render(value, inFlow: inFlow).text
        case .flowList(let items): return "[" + items.map { inlineText($0, keepQuotes: nil, inFlow: true) }.joined(separator: ", ") + "]"
        case .flowMapping(let pairs):
            return "{"
                + pairs.map { writer.render(.text($0.key), inFlow: true).text + ": " + inlineText($0.value, keepQuotes: nil, inFlow: true) }
                .joined(separator: ", ") + "}"
        case .list: return "[]"
        case .mapping: return "{}"
        }
    }

    /// What `value` reads back as once written (inside `[ ]` or `{ }` when `inFlow`).
    func shape(of value: YAMLValue, keepQuotes: YAMLNode?, inFlow: Bool = false) -> YAMLShape {
        switch value {
        case .text(let s), .plain(let s):
            let text = inlineText(value, keepQuotes: keepQuotes, inFlow: inFlow)
            return .scalar(s, plain: !(text.hasPrefix("'") || text.hasPrefix("\"")))
        case .null: return .scalar("", plain: true)
        case .flowList(let items): return .sequence(items.map { shape(of: $0, keepQuotes: nil, inFlow: true) })
        case .flowMapping(let pairs): return .mapping(pairs.map { YAMLShapeEntry(key: $0.key, value: shape(of: $0.value, keepQuotes: nil, inFlow: true)) })
        case .list(let items): return .sequence(items.map { shape(of: $0, keepQuotes: nil) })
        case .mapping(let pairs): return .mapping(pairs.map { YAMLShapeEntry(key: $0.key, value: shape(of: $0.value, keepQuotes: nil)) })
        }
    }

    func key(_ k: String) -> String { writer.render(.text(k)).text }

    func spaces(_ n: Int) -> String { String(repeating: " ", count: max(0, n)) }

    func entryLines(_ k: String, _ value: YAMLValue, indent: Int) -> [String] {
        let head = spaces(indent) + key(k) + ":"
        if value == .null { return [head] }
        if isInline(value) { return [head + " " + inlineText(value, keepQuotes: nil)] }
        switch value {
        case .mapping(let pairs): return [head] + pairs.flatMap { entryLines($0.key, $0.value, indent: indent + step) }
        case .list(let items): return [head] + items.flatMap { itemLines($0, dashIndent: indent + sequenceIndent, offset: itemOffset) }
        default: return [head]
        }
    }

    func itemLines(_ value: YAMLValue, dashIndent: Int, offset: Int) -> [String] {
        let dash = spaces(dashIndent) + "-" + spaces(offset - 1)
        if value == .null { return [spaces(dashIndent) + "-"] }
        if isInline(value) { return [dash + inlineText(value, keepQuotes: nil)] }
        var lines: [String]
        switch value {
        case .mapping(let pairs): lines = pairs.flatMap { entryLines($0.key, $0.value, indent: dashIndent + offset) }
        case .list(let items): lines = items.flatMap { itemLines($0, dashIndent: dashIndent + offset, offset: offset) }
        default: lines = []
        }
        if let first = lines.first { lines[0] = dash + first.dropFirst(dashIndent + offset) }
        return lines
    }

}

/// Columns from the start of the line to `offset`, in bytes (indentation is ASCII), not counting
/// a byte-order mark at the start of the file.
func indentation(_ offset: Int, lineStart: Int, in bytes: [UInt8]) -> Int {
    let bom = lineStart == 0 && bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    return max(0, offset - lineStart - bom)
}

/// The offset of the `-` that introduces a block sequence item starting at `offset`.
func dashOffset(before offset: Int, in bytes: [UInt8]) -> Int? {
    var i = offset - 1
    while i >= 0, bytes[i] == UInt8(ascii: " ") { i -= 1 }
    guard i >= 0, bytes[i] == UInt8(ascii: "-") else { return nil }
    return i
}
