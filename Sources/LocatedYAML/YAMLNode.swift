import Diagnostics

/// How a scalar was written; the write engine keeps it, the decoder reads meaning from it.
public enum ScalarStyle: Sendable, Hashable {
    case plain, singleQuoted, doubleQuoted, literal, folded
}

/// A scalar with its text, its style and its exact span in the file.
public struct YAMLScalar: Sendable, Hashable {
    public var value: String
    public var style: ScalarStyle
    public var range: SourceRange

    public init(value: String, style: ScalarStyle, range: SourceRange) {
        self.value = value
        self.style = style
        self.range = range
    }

    /// A plain `~`, `null`, `Null`, `NULL` or nothing at all.
    public var isNull: Bool {
        style == .plain && (value.isEmpty || value == "~" || value == "null" || value == "Null" || value == "NULL")
    }
}

/// One `key: value` pair of a mapping.
public struct YAMLEntry: Sendable, Hashable {
    public var key: YAMLNode
    public var value: YAMLNode

    /// The key's text when it is a scalar (the only kind of key a garage uses).
    public var keyText: String? {
        if case .scalar(let s) = key { return s.value }
        return nil
    }
}

public struct YAMLMapping: Sendable, Hashable {
    public var entries: [YAMLEntry]
    /// Written `{ a: 1 }` rather than as a block.
    public var isFlow: Bool
    public var range: SourceRange

    /// The first entry with this scalar key.
    public func entry(_ key: String) -> YAMLEntry? {
        entries.first { $0.keyText == key }
    }

    public subscript(key: String) -> YAMLNode? { entry(key)?.value }
}

public struct YAMLSequence: Sendable, Hashable {
    public var items: [YAMLNode]
    /// Written `[a, b]` rather than as a block.
    public var isFlow: Bool
    public var range: SourceRange
}

/// A node of the located tree: every scalar, mapping and sequence knows where it starts and ends.
public enum YAMLNode: Sendable, Hashable {
    case scalar(YAMLScalar)
    case mapping(YAMLMapping)
    case sequence(YAMLSequence)

    public var range: SourceRange {
        switch self {
        case .scalar(let s): s.range
        case .mapping(let m): m.range
        case .sequence(let q): q.range
        }
    }

    /// What kind of value this is, for messages ("expected a mapping, found a list").
    public var kindDescription: String {
        switch self {
        case .scalar(let s): s.isNull ? "nothing" : "'\(s.value)'"
        case .mapping: "a mapping"
        case .sequence: "a list"
        }
    }
}
