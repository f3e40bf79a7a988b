import Diagnostics

/// One step of a path into a YAML tree: a mapping key or a sequence index.
package enum YAMLPathComponent: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case key(String)
    case index(Int)

    package init(stringLiteral value: String) { self = .key(value) }
    package init(integerLiteral value: Int) { self = .index(value) }

    package var description: String {
        switch self {
        case .key(let k): k
        case .index(let i): "[\(i)]"
        }
    }
}

/// A path from the root of a document to one node; empty means the root.
package typealias YAMLPath = [YAMLPathComponent]

/// A value to write: the edit engine renders it in the file's own style.
package indirect enum YAMLValue: Sendable, Hashable {
    /// Text: written plain when plain style reads back as the same text, else quoted.
    case text(String)
    /// A typed plain scalar the reader interprets (a date, a number, an id): written as is
    /// when that is valid plain YAML, else quoted.
    case plain(String)
    /// Nothing: `key:` with no value.
    case null
    /// A list of scalars written on one line: `[a, b]`.
    case flowList([YAMLValue])
    /// A mapping of scalars and flow values written on one line: `{a: 1, b: [x]}`.
    case flowMapping([YAMLPair])
    /// A list written as `- item` lines.
    case list([YAMLValue])
    /// A mapping written as `key: value` lines, in this order.
    case mapping([YAMLPair])
}

/// A key and its value, for building mappings to write.
package struct YAMLPair: Sendable, Hashable {
    package var key: String
    package var value: YAMLValue
    package init(_ key: String, _ value: YAMLValue) {
        self.key = key
        self.value = value
    }
}

/// One intended change to a document. The engine turns it into a text splice on the exact
/// ranges of the located tree and checks the re-parsed result before handing back bytes.
package enum YAMLEdit: Sendable, Hashable {
    /// Replaces the value at `path` (a scalar, or an empty `[]`/`{}`/null) with `value`.
    case set(YAMLPath, YAMLValue)
    /// Adds `key: value` to the block mapping at `path`, after the first of `after` that exists
    /// (else at the end). The key must not exist yet.
    case addKey(String, YAMLValue, in: YAMLPath, after: [String] = [])
    /// Appends an item to the sequence at `path` (a block sequence, or a flow list of scalars).
    case append(YAMLValue, to: YAMLPath)
    /// Inserts an item into the block sequence at `path` so that it becomes item `index`
    /// (after the lines of the item before it, comments included).
    case insert(YAMLValue, into: YAMLPath, at: Int)
    /// Removes the entry `key` from the mapping at `path`: its lines from a block mapping, or
    /// `key: value` and one comma from a flow mapping written on one line.
    case removeKey(String, from: YAMLPath)
    /// Removes item `index` (its lines, comments indented under it included) from the block
    /// sequence at `path`; the sequence must keep at least one item.
    case removeItem(Int, from: YAMLPath)
    /// Replaces the lines of the block mapping entry or block list item at `path` (its
    /// `YAMLLines`: the comment lines right above it, its own lines with their trailing comments,
    /// the comment lines indented under it) with `text`, written as it is; it must read back as
    /// `shape` at `path`. A merge takes the other side's lines this way, comments and layout kept.
    case replaceLines(YAMLPath, text: String, shape: YAMLShape)
    /// The block sequence at `path` made into `items`, in order: every old item by its index,
    /// in their order, kept or removed, and new items after the old item before them (never
    /// before the first). What a set merge does to a list, planned as one edit so that a long
    /// log is parsed again once, not once per entry (`YAMLEditor.applyTogether`).
    case mergeItems(YAMLPath, [YAMLListItem])
}

/// One item of a list as `YAMLEdit.mergeItems` leaves it.
package enum YAMLListItem: Sendable, Hashable {
    /// Old item `index`, as it is.
    case old(Int)
    /// Old item `index`, removed with its lines.
    case removed(Int)
    /// A new item, written in the file's style.
    case new(YAMLValue)
    /// A new item written as `text` (its lines, at the list's indentation, ending in a line
    /// break), which must read back as `shape`.
    case written(String, shape: YAMLShape)
}

extension YAMLEdit {
    /// Adds `entry` to the top-level list `key` whose node is `current`: a new key when there is
    /// none, a new block list in place of a null or empty value, else an append.
    package static func appendOrCreate(_ entry: YAMLValue, list key: String, current: YAMLNode?) -> YAMLEdit {
        switch current {
        case nil: .addKey(key, .list([entry]), in: [])
        case .sequence(let q)? where !q.isFlow: .append(entry, to: [.key(key)])
        case let value? where YAMLShape(value).isEmptyValue: .set([.key(key)], .list([entry]))
        default: .append(entry, to: [.key(key)])
        }
    }
}

/// The meaning of a tree with positions and quoting styles left out, for checking edits:
/// a scalar keeps its text and whether it was plain (plain `2024` and quoted `'2024'` differ).
package indirect enum YAMLShape: Sendable, Hashable, CustomStringConvertible {
    case scalar(String, plain: Bool)
    case mapping([YAMLShapeEntry])
    case sequence([YAMLShape])

    package init(_ node: YAMLNode) {
        switch node {
        case .scalar(let s): self = .scalar(s.value, plain: s.style == .plain)
        case .mapping(let m): self = .mapping(m.entries.map { YAMLShapeEntry(key: $0.keyText ?? "", value: YAMLShape($0.value)) })
        case .sequence(let q): self = .sequence(q.items.map(YAMLShape.init))
        }
    }

    /// Whether two nodes have the same meaning (`YAMLShape(a) == YAMLShape(b)`), found by
    /// walking both: nothing is built.
    package static func same(_ a: YAMLNode, _ b: YAMLNode) -> Bool {
        // Children read in place (no copy of each entry or item): a merge compares whole logs.
        switch a {
        case .scalar(let x):
            guard case .scalar(let y) = b else { return false }
            return (x.style == .plain) == (y.style == .plain) && x.value == y.value
        case .mapping(let x):
            guard case .mapping(let y) = b, x.entries.count == y.entries.count else { return false }
            return x.entries.withUnsafeBufferPointer { p in
                y.entries.withUnsafeBufferPointer { q in
                    for i in 0..<p.count {
                        guard keyText(p[i].key) == keyText(q[i].key), same(p[i].value, q[i].value) else { return false }
                    }
                    return true
                }
            }
        case .sequence(let x):
            guard case .sequence(let y) = b, x.items.count == y.items.count else { return false }
            return x.items.withUnsafeBufferPointer { p in
                y.items.withUnsafeBufferPointer { q in
                    for i in 0..<p.count where !same(p[i], q[i]) { return false }
                    return true
                }
            }
        }
    }

    /// A key's text as `same` compares it (`keyText`, or nothing for a key that is not a scalar).
    private static func keyText(_ key: YAMLNode) -> String {
        if case .scalar(let s) = key { return s.value }
        return ""
    }

    /// True for a null or empty value, which a new value may replace outright.
    package var isEmptyValue: Bool {
        switch self {
        case .scalar(let text, let plain): plain && ["", "~", "null", "Null", "NULL"].contains(text)
        case .mapping(let entries): entries.isEmpty
        case .sequence(let items): items.isEmpty
        }
    }

    package var description: String {
        switch self {
        case .scalar(let text, let plain): plain ? text : "'\(text)'"
        case .mapping(let entries): "{" + entries.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .sequence(let items): "[" + items.map(\.description).joined(separator: ", ") + "]"
        }
    }
}

/// One `key: value` of a `YAMLShape` mapping.
package struct YAMLShapeEntry: Sendable, Hashable {
    package var key: String
    package var value: YAMLShape
    package init(key: String, value: YAMLShape) {
        self.key = key
        self.value = value
    }
}

/// Why an edit was refused: located diagnostics, and nothing written.
package struct YAMLEditFailure: Error, Sendable {
    package var diagnostics: [Diagnostic]
    package init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }
}
