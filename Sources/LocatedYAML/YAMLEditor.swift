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

/// The tree an edit must leave: the old one with exactly one change at `path`, to the node
/// there or to one entry or item of the mapping or list there. Checked against the re-parsed
/// tree node by node, beside the old tree: the meaning (`YAMLShape`) of a whole file is never
/// built, as for a 50 MB bike log two of them cost many times the file.
struct Expected {
    enum Change {
        /// The node at `path` reads back as this.
        case replaced(YAMLShape)
        /// A new entry (with `key`) or item (key nil) at `index` of the mapping or list at `path`.
        case inserted(key: String?, YAMLShape, at: Int)
        /// The entry or item at `index` of the mapping or list at `path` is gone.
        case removed(at: Int)
        /// The list at `path` holds these items: old ones (by index, as they were) and new ones.
        case items([Item])
    }

    enum Item {
        case old(Int)
        case new(YAMLShape)
    }

    var path: YAMLPath
    var change: Change

    /// Whether `new` reads as `old` with exactly this change.
    func isMet(by new: YAMLNode, old: YAMLNode) -> Bool { check(new, old, path[...]) }

    /// Whether `new` reads as `old` with exactly these changes, at paths none of which is inside
    /// another.
    static func allMet(_ expected: [Expected], by new: YAMLNode, old: YAMLNode) -> Bool {
        check(new, old, expected.map { ($0, $0.path[...]) })
    }

    private static func check(_ new: YAMLNode, _ old: YAMLNode, _ pending: [(Expected, ArraySlice<YAMLPathComponent>)]) -> Bool {
        if pending.count == 1, pending[0].1.isEmpty { return pending[0].0.changed(new, old) }
        guard pending.allSatisfy({ !$0.1.isEmpty }) else { return false }
        var matched = 0
        func here(_ component: YAMLPathComponent) -> [(Expected, ArraySlice<YAMLPathComponent>)] {
            pending.filter { $0.1.first == component }.map { ($0.0, $0.1.dropFirst()) }
        }
        switch (old, new) {
        case (.mapping(let o), .mapping(let n)):
            guard o.entries.count == n.entries.count else { return false }
            for j in o.entries.indices {
                let key = o.entries[j].keyText ?? ""
                guard key == (n.entries[j].keyText ?? "") else { return false }
                let inside = here(.key(key))
                matched += inside.count
                guard inside.isEmpty ? YAMLShape.same(n.entries[j].value, o.entries[j].value) : check(n.entries[j].value, o.entries[j].value, inside)
                else { return false }
            }
        case (.sequence(let o), .sequence(let n)):
            guard o.items.count == n.items.count else { return false }
            for j in o.items.indices {
                let inside = here(.index(j))
                matched += inside.count
                guard inside.isEmpty ? YAMLShape.same(n.items[j], o.items[j]) : check(n.items[j], o.items[j], inside) else { return false }
            }
        default:
            return false
        }
        return matched == pending.count
    }

    private func check(_ new: YAMLNode, _ old: YAMLNode, _ path: ArraySlice<YAMLPathComponent>) -> Bool {
        guard let first = path.first else { return changed(new, old) }
        switch (first, old, new) {
        case (.key(let k), .mapping(let o), .mapping(let n)):
            guard o.entries.count == n.entries.count, let i = o.entries.firstIndex(where: { ($0.keyText ?? "") == k }) else { return false }
            for j in o.entries.indices {
                guard (o.entries[j].keyText ?? "") == (n.entries[j].keyText ?? "") else { return false }
                let same = j == i ? check(n.entries[j].value, o.entries[j].value, path.dropFirst()) : YAMLShape.same(n.entries[j].value, o.entries[j].value)
                guard same else { return false }
            }
            return true
        case (.index(let i), .sequence(let o), .sequence(let n)):
            guard o.items.count == n.items.count, o.items.indices.contains(i) else { return false }
            for j in o.items.indices {
                let same = j == i ? check(n.items[j], o.items[j], path.dropFirst()) : YAMLShape.same(n.items[j], o.items[j])
                guard same else { return false }
            }
            return true
        default:
            return false
        }
    }

    /// The node at `path`: the change, and everything else in it as it was.
    private func changed(_ new: YAMLNode, _ old: YAMLNode) -> Bool {
        switch (change, old, new) {
        case (.items(let items), .sequence(let o), .sequence(let n)):
            guard n.items.count == items.count else { return false }
            for (item, node) in zip(items, n.items) {
                switch item {
                case .old(let k): guard o.items.indices.contains(k), YAMLShape.same(node, o.items[k]) else { return false }
                case .new(let shape): guard YAMLShape(node) == shape else { return false }
                }
            }
            return true
        case (.replaced(let shape), _, _):
            return YAMLShape(new) == shape
        case (.inserted(let key?, let shape, let index), .mapping(let o), .mapping(let n)):
            guard n.entries.count == o.entries.count + 1, (0...o.entries.count).contains(index) else { return false }
            for j in n.entries.indices {
                if j == index {
                    guard n.entries[j].keyText == key, YAMLShape(n.entries[j].value) == shape else { return false }
                } else {
                    let was = o.entries[j < index ? j : j - 1]
                    guard (n.entries[j].keyText ?? "") == (was.keyText ?? ""), YAMLShape.same(n.entries[j].value, was.value) else { return false }
                }
            }
            return true
        case (.inserted(nil, let shape, let index), .sequence(let o), .sequence(let n)):
            guard n.items.count == o.items.count + 1, (0...o.items.count).contains(index) else { return false }
            for j in n.items.indices {
                let same = j == index ? YAMLShape(n.items[j]) == shape : YAMLShape.same(n.items[j], o.items[j < index ? j : j - 1])
                guard same else { return false }
            }
            return true
        case (.removed(let index), .mapping(let o), .mapping(let n)):
            guard o.entries.indices.contains(index), n.entries.count == o.entries.count - 1 else { return false }
            for j in n.entries.indices {
                let was = o.entries[j < index ? j : j + 1]
                guard (n.entries[j].keyText ?? "") == (was.keyText ?? ""), YAMLShape.same(n.entries[j].value, was.value) else { return false }
            }
            return true
        case (.removed(let index), .sequence(let o), .sequence(let n)):
            guard o.items.indices.contains(index), n.items.count == o.items.count - 1 else { return false }
            for j in n.items.indices {
                guard YAMLShape.same(n.items[j], o.items[j < index ? j : j + 1]) else { return false }
            }
            return true
        default:
            return false
        }
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

private struct Planner {
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

    /// The splices of one edit, and the tree it must leave (the old one plus exactly this change).
    func plan(_ edit: YAMLEdit) throws(YAMLEditFailure) -> ([Splice], Expected) {
        switch edit {
        case .set(let path, let value): return try planReplacement(at: path, with: value)
        case .addKey(let key, let value, let path, let after): return try planAddKey(key, value, in: path, after: after)
        case .append(let value, let path): return try planAppend(value, to: path)
        case .insert(let value, let path, let index): return try planInsert(value, into: path, at: index)
        case .removeKey(let key, let path): return try planRemoveKey(key, from: path)
        case .removeItem(let index, let path): return try planRemoveItem(index, from: path)
        case .replaceLines(let path, let text, let shape):
            guard let lines = lines(at: path) else {
                throw refuse("cannot replace the lines of '\(describe(path))': it is not an entry or item on lines of its own", node(at: path))
            }
            return ([Splice(range: lines.start..<lines.end, text: Array(text.utf8))], Expected(path: path, change: .replaced(shape)))
        case .mergeItems(let path, let items): return try planMergeItems(items, in: path)
        }
    }

    /// `.mergeItems`: each removed item's lines taken out (as `.removeItem` takes them), and
    /// the new items after an old one inserted together after its lines (as `.insert` puts
    /// one). Only in a block list whose items each start a line, in a file that ends with a
    /// line break.
    func planMergeItems(_ items: [YAMLListItem], in path: YAMLPath) throws(YAMLEditFailure) -> ([Splice], Expected) {
        guard let target = node(at: path), case .sequence(let q) = target, !q.isFlow, let first = q.items.first,
            let dash = dashOffset(before: first.range.start.offset, in: bytes), bytes.last == UInt8(ascii: "\n")
        else { throw refuse("cannot merge the items of '\(describe(path))' in one change", node(at: path)) }
        let column = lineColumn(of: dash)
        let offset = max(1, first.range.start.offset - dash)
        var splices: [Splice] = []
        var expected: [Expected.Item] = []
        var next = 0
        var anchor: Int?
        var pending: [UInt8] = []
        func flush() throws(YAMLEditFailure) {
            guard !pending.isEmpty else { return }
            guard let anchor else { throw refuse("cannot merge new items before the first of '\(describe(path))' in one change", target) }
            let at = insertion(after: q.items[anchor], lines: [], ownerColumn: column).range.lowerBound
            splices.append(Splice(range: at..<at, text: pending))
            pending = []
        }
        for item in items {
            switch item {
            case .old(let k), .removed(let k):
                guard k == next else { throw refuse("the old items of '\(describe(path))' must all be named, in order", target) }
                try flush()
                next += 1
                anchor = k
                if case .old = item {
                    expected.append(.old(k))
                    continue
                }
                guard let itemDash = dashOffset(before: q.items[k].range.start.offset, in: bytes) else {
                    throw refuse("cannot find where this item starts", q.items[k])
                }
                let lineStart = doc.source.lineStarts[doc.source.position(ofOffset: itemDash).line - 1]
                guard bytes[lineStart..<itemDash].allSatisfy({ $0 == UInt8(ascii: " ") }) else {
                    throw refuse("cannot remove an item that shares its line with other text", q.items[k])
                }
                let end = insertion(after: q.items[k], lines: [], ownerColumn: lineColumn(of: itemDash)).range.lowerBound
                splices.append(Splice(range: lineStart..<end, text: []))
            case .new(let value):
                pending += Array(style.itemLines(value, dashIndent: column, offset: offset).map { $0 + style.eol }.joined().utf8)
                expected.append(.new(style.shape(of: value, keepQuotes: nil)))
            case .written(let text, let shape):
                pending += Array(text.utf8)
                expected.append(.new(shape))
            }
        }
        try flush()
        guard next == q.items.count else { throw refuse("the old items of '\(describe(path))' must all be named, in order", target) }
        return (splices, Expected(path: path, change: .items(expected)))
    }

    /// The lines of the block mapping entry or block list item at `path` (see `YAMLLines`), or
    /// nil when it shares a line with other text (the first key of a `- key: value` item) or is
    /// in a `{ }` or `[ ]` collection.
    func lines(at path: YAMLPath) -> YAMLLines? {
        guard let last = path.last, let parent = node(at: Array(path.dropLast())), let value = node(at: path) else { return nil }
        let first: Int
        switch (last, parent) {
        case (.key(let k), .mapping(let m)) where !m.isFlow:
            guard let entry = m.entry(k) else { return nil }
            first = entry.key.range.start.offset
        case (.index, .sequence(let q)) where !q.isFlow:
            guard let dash = dashOffset(before: value.range.start.offset, in: bytes) else { return nil }
            first = dash
        default:
            return nil
        }
        let starts = doc.source.lineStarts
        let line = doc.source.position(ofOffset: first).line - 1
        let lineStart = starts[line]
        guard bytes[lineStart..<first].allSatisfy({ $0 == UInt8(ascii: " ") }) else { return nil }
        let column = first - lineStart
        // Comment lines right above, at the entry's own indentation, are its notes.
        var top = line
        while top > 0, commentIndent(line: top - 1) == column { top -= 1 }
        let end = insertion(after: value, lines: [], ownerColumn: column).range.lowerBound
        var valueEnd: Int?
        if case .scalar(let s) = value, s.style != .literal, s.style != .folded, s.range.start.line == s.range.end.line,
            doc.source.position(ofOffset: first).line == s.range.start.line
        {
            valueEnd = s.range.end.offset
        }
        guard end >= lineStart else { return nil }
        return YAMLLines(start: starts[top], keyLine: lineStart, valueEnd: valueEnd, end: end, column: column)
    }

    /// `.set`: the value at `path` replaced in place.
    func planReplacement(at path: YAMLPath, with value: YAMLValue) throws(YAMLEditFailure) -> ([Splice], Expected) {
        guard let last = path.last else { throw refuse("cannot replace a whole document", root) }
        let parentPath = Array(path.dropLast())
        guard let parent = node(at: parentPath), let target = node(at: path) else {
            throw refuse("there is no '\(describe(path))' to set", nil)
        }
        let splices = try planSet(target, to: value, parent: parent, component: last)
        let expected = Expected(path: path, change: .replaced(style.shape(of: value, keepQuotes: target)))
        return (splices, expected)
    }

    /// `.addKey`: a new `key: value` line (or lines) after an existing entry of a block mapping.
    func planAddKey(_ key: String, _ value: YAMLValue, in path: YAMLPath, after: [String]) throws(YAMLEditFailure) -> ([Splice], Expected) {
        guard let target = node(at: path), case .mapping(let m) = target else {
            throw refuse("there is no mapping at '\(describe(path))' to add '\(key)' to", node(at: path))
        }
        guard m.entry(key) == nil else { throw refuse("'\(key)' already exists", m.entry(key)?.key) }
        if m.isFlow, style.isScalar(value), !m.entries.isEmpty, m.range.start.line == m.range.end.line {
            // `{bike: grail, from: 2025-03-01}` on one line: the new entry goes in after its
            // anchor, `, to: 2025-06-30`, and nothing else on the line moves.
            let anchorIndex = after.lazy.compactMap { a in m.entries.firstIndex { $0.keyText == a } }.first ?? (m.entries.count - 1)
            let end = m.entries[anchorIndex].value.range.end.offset
            let text = ", " + style.writer.render(.text(key), inFlow: true).text + ": " + style.inlineText(value, keepQuotes: nil, inFlow: true)
            let expected = Expected(
                path: path, change: .inserted(key: key, style.shape(of: value, keepQuotes: nil, inFlow: true), at: anchorIndex + 1))
            return ([Splice(range: end..<end, text: Array(text.utf8))], expected)
        }
        guard !m.isFlow, let lastEntry = m.entries.last, let firstEntry = m.entries.first else {
            throw refuse(
                "cannot add '\(key)' to a mapping written in '{ }' style without rewriting it", target,
                help: "rewrite the mapping as 'key: value' lines, then try again")
        }
        let anchorIndex = after.lazy.compactMap { a in m.entries.firstIndex { $0.keyText == a } }.first ?? (m.entries.count - 1)
        let anchorEntry = anchorIndex < m.entries.count ? m.entries[anchorIndex] : lastEntry
        let indent = lineColumn(of: firstEntry.key.range.start.offset)
        let lines = style.entryLines(key, value, indent: indent)
        let splice = insertion(after: anchorEntry.value, lines: lines, ownerColumn: indent)
        let expected = Expected(path: path, change: .inserted(key: key, style.shape(of: value, keepQuotes: nil), at: anchorIndex + 1))
        return ([splice], expected)
    }

    /// `.append`: a new item after the last one, as `- item` lines or `, item` in a one-line flow list.
    func planAppend(_ value: YAMLValue, to path: YAMLPath) throws(YAMLEditFailure) -> ([Splice], Expected) {
        guard let target = node(at: path), case .sequence(let q) = target else {
            throw refuse("there is no list at '\(describe(path))' to append to", node(at: path))
        }
        let splice: Splice
        let newShape: YAMLShape
        if q.isFlow {
            // One line of scalars, or of one-line `{ }` mappings (a list of mounts), takes one
            // more item of the same kind at its end.
            let scalars = style.isScalar(value) && q.items.allSatisfy({ if case .scalar = $0 { true } else { false } })
            let mappings =
                style.isFlatFlowMapping(value) && !q.items.isEmpty
                && q.items.allSatisfy({ if case .mapping(let m) = $0 { m.isFlow } else { false } })
            guard scalars || mappings, q.range.start.line == q.range.end.line else {
                throw refuse(
                    "cannot add to this '[ ]' list without rewriting it", target,
                    help: "rewrite the list as '- item' lines, then try again")
            }
            let rendered = (text: style.inlineText(value, keepQuotes: nil, inFlow: true), plain: true)
            newShape = style.shape(of: value, keepQuotes: nil, inFlow: true)
            if let lastItem = q.items.last {
                splice = Splice(range: lastItem.range.end.offset..<lastItem.range.end.offset, text: Array((", " + rendered.text).utf8))
            } else {
                let close = q.range.end.offset - 1
                guard close >= 0, bytes[close] == UInt8(ascii: "]") else { throw refuse("cannot find the end of this list", target) }
                splice = Splice(range: close..<close, text: Array(rendered.text.utf8))
            }
        } else {
            guard let first = q.items.first, let lastItem = q.items.last,
                let dash = dashOffset(before: first.range.start.offset, in: bytes)
            else {
                throw refuse("cannot find where this list's items start", target)
            }
            let offset = max(1, first.range.start.offset - dash)
            let lines = style.itemLines(value, dashIndent: lineColumn(of: dash), offset: offset)
            splice = insertion(after: lastItem, lines: lines, ownerColumn: lineColumn(of: dash))
            newShape = style.shape(of: value, keepQuotes: nil)
        }
        let expected = Expected(path: path, change: .inserted(key: nil, newShape, at: q.items.count))
        return ([splice], expected)
    }

    /// `.insert`: a new item of a block list, after the lines of the item before it.
    func planInsert(_ value: YAMLValue, into path: YAMLPath, at index: Int) throws(YAMLEditFailure) -> ([Splice], Expected) {
        guard let target = node(at: path), case .sequence(let q) = target else {
            throw refuse("there is no list at '\(describe(path))' to insert into", node(at: path))
        }
        if index == q.items.count { return try planAppend(value, to: path) }
        guard !q.isFlow, q.items.indices.contains(index), let first = q.items.first,
            let dash = dashOffset(before: first.range.start.offset, in: bytes),
            let itemDash = dashOffset(before: q.items[index].range.start.offset, in: bytes)
        else {
            throw refuse(
                "cannot insert into this list without rewriting it", target,
                help: "rewrite the list as '- item' lines, then try again")
        }
        let column = lineColumn(of: dash)
        let lines = style.itemLines(value, dashIndent: column, offset: max(1, first.range.start.offset - dash))
        let splice: Splice
        if index > 0 {
            splice = insertion(after: q.items[index - 1], lines: lines, ownerColumn: column)
        } else {
            // Before the first item: at the start of its line, under whatever is above it.
            let lineStart = doc.source.lineStarts[doc.source.position(ofOffset: itemDash).line - 1]
            guard bytes[lineStart..<itemDash].allSatisfy({ $0 == UInt8(ascii: " ") }) else {
                throw refuse("cannot insert before an item that shares its line with other text", q.items[index])
            }
            splice = Splice(range: lineStart..<lineStart, text: Array(lines.map { $0 + style.eol }.joined().utf8))
        }
        let newShape = style.shape(of: value, keepQuotes: nil)
        let expected = Expected(path: path, change: .inserted(key: nil, newShape, at: index))
        return ([splice], expected)
    }

    /// `.removeKey`: the lines of one entry of a block mapping taken out, or one `key: value`
    /// of a one-line flow mapping.
    func planRemoveKey(_ key: String, from path: YAMLPath) throws(YAMLEditFailure) -> ([Splice], Expected) {
        guard let target = node(at: path), case .mapping(let m) = target else {
            throw refuse("there is no mapping at '\(describe(path))' to remove '\(key)' from", node(at: path))
        }
        guard let index = m.entries.firstIndex(where: { $0.keyText == key }) else {
            throw refuse("there is no '\(key)' to remove", target)
        }
        guard m.entries.count > 1 else { throw refuse("cannot remove the only entry of a mapping", target) }
        let expected = Expected(path: path, change: .removed(at: index))
        if m.isFlow {
            // `{a: 1, b: 2}` on one line: `b: 2` goes with the comma before it (the first entry
            // with the comma after it), and nothing else on the line moves.
            guard m.range.start.line == m.range.end.line else {
                throw refuse(
                    "cannot remove '\(key)' from a '{ }' mapping over several lines without rewriting it", target,
                    help: "rewrite the mapping as 'key: value' lines, then try again")
            }
            let range =
                index > 0
                ? m.entries[index - 1].value.range.end.offset..<m.entries[index].value.range.end.offset
                : m.entries[0].key.range.start.offset..<m.entries[1].key.range.start.offset
            return ([Splice(range: range, text: [])], expected)
        }
        let entry = m.entries[index]
        let keyStart = entry.key.range.start.offset
        let lineStart = doc.source.lineStarts[entry.key.range.start.line - 1]
        guard bytes[lineStart..<keyStart].allSatisfy({ $0 == UInt8(ascii: " ") }) else {
            throw refuse("cannot remove '\(key)': it shares its line with other text", entry.key)
        }
        let end = insertion(after: entry.value, lines: [])
        var range = lineStart..<end.range.lowerBound
        if end.range.lowerBound == bytes.count, !bytes.isEmpty, bytes.last != UInt8(ascii: "\n") {
            // Removing the last line of a file without a final newline: take the break before it.
            var s = lineStart
            if s > 0, bytes[s - 1] == UInt8(ascii: "\n") { s -= 1 }
            if s > 0, bytes[s - 1] == UInt8(ascii: "\r") { s -= 1 }
            range = s..<bytes.count
        }
        return ([Splice(range: range, text: [])], expected)
    }

    /// `.removeItem`: the lines of one item of a block sequence taken out.
    func planRemoveItem(_ index: Int, from path: YAMLPath) throws(YAMLEditFailure) -> ([Splice], Expected) {
        guard let target = node(at: path), case .sequence(let q) = target else {
            throw refuse("there is no list at '\(describe(path))' to remove an item from", node(at: path))
        }
        guard !q.isFlow else {
            throw refuse(
                "cannot remove an item from this '[ ]' list without rewriting it", target,
                help: "rewrite the list as '- item' lines, then try again")
        }
        guard q.items.indices.contains(index) else { throw refuse("there is no item \(index) to remove", target) }
        guard q.items.count > 1 else { throw refuse("cannot remove the only item of a list", target) }
        let item = q.items[index]
        guard let dash = dashOffset(before: item.range.start.offset, in: bytes) else {
            throw refuse("cannot find where this item starts", item)
        }
        let lineStart = doc.source.lineStarts[doc.source.position(ofOffset: dash).line - 1]
        guard bytes[lineStart..<dash].allSatisfy({ $0 == UInt8(ascii: " ") }) else {
            throw refuse("cannot remove an item that shares its line with other text", item)
        }
        let end = insertion(after: item, lines: [], ownerColumn: lineColumn(of: dash))
        var range = lineStart..<end.range.lowerBound
        if end.range.lowerBound == bytes.count, !bytes.isEmpty, bytes.last != UInt8(ascii: "\n") {
            // The last line of a file without a final newline: take the break before it.
            var s = lineStart
            if s > 0, bytes[s - 1] == UInt8(ascii: "\n") { s -= 1 }
            if s > 0, bytes[s - 1] == UInt8(ascii: "\r") { s -= 1 }
            range = s..<bytes.count
        }
        let expected = Expected(path: path, change: .removed(at: index))
        return ([Splice(range: range, text: [])], expected)
    }

    func planSet(_ target: YAMLNode, to value: YAMLValue, parent: YAMLNode, component: YAMLPathComponent) throws(YAMLEditFailure) -> [Splice] {
        let replaceable: Bool
        switch target {
        case .scalar(let s): replaceable = s.style != .literal && s.style != .folded
        case .mapping(let m): replaceable = m.entries.isEmpty && m.isFlow
        case .sequence(let q): replaceable = q.items.isEmpty && q.isFlow
        }
        guard replaceable, target.range.start.line == target.range.end.line else {
            throw refuse("cannot replace this value without rewriting more than it", target)
        }
        let range = target.range.start.offset..<target.range.end.offset
        if style.isScalar(value) || style.isInline(value) {
            let text = style.inlineText(value, keepQuotes: target)
            if range.isEmpty {
                let before = range.lowerBound > 0 ? bytes[range.lowerBound - 1] : UInt8(ascii: " ")
                return [Splice(range: range, text: Array(((before == UInt8(ascii: " ") ? "" : " ") + text).utf8))]
            }
            return [Splice(range: range, text: Array(text.utf8))]
        }
        // A block collection replaces an empty value: it goes on the lines after the key.
        guard case .mapping(let pm) = parent, !pm.isFlow, case .key(let key) = component, let entry = pm.entry(key),
            entry.key.range.start.line == target.range.start.line
        else {
            throw refuse("cannot put a block of lines here", target)
        }
        let keyColumn = lineColumn(of: entry.key.range.start.offset)
        let lines: [String]
        switch value {
        case .list(let items): lines = items.flatMap { style.itemLines($0, dashIndent: keyColumn + style.sequenceIndent, offset: style.itemOffset) }
        case .mapping(let pairs): lines = pairs.flatMap { style.entryLines($0.key, $0.value, indent: keyColumn + style.step) }
        default: lines = []
        }
        var removal = range
        while removal.lowerBound > 0, bytes[removal.lowerBound - 1] == UInt8(ascii: " ") {
            removal = (removal.lowerBound - 1)..<removal.upperBound
        }
        let insert = insertion(after: target, lines: lines)
        var splices = [insert]
        if !range.isEmpty { splices.append(Splice(range: removal, text: [])) }
        return splices
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
