import Diagnostics

/// How a scalar was written; the write engine keeps it, the decoder reads meaning from it.
package enum ScalarStyle: Sendable, Hashable {
    case plain, singleQuoted, doubleQuoted, literal, folded
}

/// A scalar with its text, its style and its exact span in the file.
package struct YAMLScalar: Sendable, Hashable {
    package var value: String
    package var style: ScalarStyle
    package var range: SourceRange

    package init(value: String, style: ScalarStyle, range: SourceRange) {
        self.value = value
        self.style = style
        self.range = range
    }

    /// A plain `~`, `null`, `Null`, `NULL` or nothing at all.
    package var isNull: Bool {
        style == .plain && (value.isEmpty || value == "~" || value == "null" || value == "Null" || value == "NULL")
    }
}

/// One `key: value` pair of a mapping.
package struct YAMLEntry: Sendable, Hashable {
    package var key: YAMLNode
    package var value: YAMLNode

    /// The key's text when it is a scalar (the only kind of key a garage uses).
    package var keyText: String? {
        if case .scalar(let s) = key { return s.value }
        return nil
    }
}

package struct YAMLMapping: Sendable, Hashable {
    package var entries: [YAMLEntry]
    /// Written `{ a: 1 }` rather than as a block.
    package var isFlow: Bool
    package var range: SourceRange

    /// The first entry with this scalar key.
    package func entry(_ key: String) -> YAMLEntry? {
        entries.first { $0.keyText == key }
    }

    package subscript(key: String) -> YAMLNode? { entry(key)?.value }
}

package struct YAMLSequence: Sendable, Hashable {
    package var items: [YAMLNode]
    /// Written `[a, b]` rather than as a block.
    package var isFlow: Bool
    package var range: SourceRange
}

/// A node of the located tree: every scalar, mapping and sequence knows where it starts and ends.
package enum YAMLNode: Sendable, Hashable {
    case scalar(YAMLScalar)
    case mapping(YAMLMapping)
    case sequence(YAMLSequence)

    package var range: SourceRange {
        switch self {
        case .scalar(let s): s.range
        case .mapping(let m): m.range
        case .sequence(let q): q.range
        }
    }

    /// What kind of value this is, for messages ("expected a mapping, found a list").
    package var kindDescription: String {
        switch self {
        case .scalar(let s): s.isNull ? "nothing" : "'\(s.value)'"
        case .mapping: "a mapping"
        case .sequence: "a list"
        }
    }
}
