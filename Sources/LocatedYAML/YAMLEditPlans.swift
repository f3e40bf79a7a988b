import Diagnostics

/// The plan of each kind of edit: where its lines go, and what must change.
extension Planner {
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
        return ([Splice(range: removalRange(lineStart: lineStart, end: end.range.lowerBound), text: [])], expected)
    }

    /// The bytes that removing the lines from `lineStart` up to `end` takes out. The last line
    /// of a file without a final newline takes the line break before it, so the line above
    /// does not end up with a dangling break.
    func removalRange(lineStart: Int, end: Int) -> Range<Int> {
        guard end == bytes.count, !bytes.isEmpty, bytes.last != UInt8(ascii: "\n") else { return lineStart..<end }
        var s = lineStart
        if s > 0, bytes[s - 1] == UInt8(ascii: "\n") { s -= 1 }
        if s > 0, bytes[s - 1] == UInt8(ascii: "\r") { s -= 1 }
        return s..<bytes.count
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
        let expected = Expected(path: path, change: .removed(at: index))
        return ([Splice(range: removalRange(lineStart: lineStart, end: end.range.lowerBound), text: [])], expected)
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
}
