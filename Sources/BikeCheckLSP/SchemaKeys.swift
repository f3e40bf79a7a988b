import BikeCheckKit
import Diagnostics
import Foundation

/// The keys a garage file's JSON Schema allows at one place in it, with their one-line
/// descriptions, for completion. The schemas are the ones `init` copies into a garage
/// (`EmbeddedSchemas`, generated from `schemas/`), so the editor offers what yaml-language-server
/// would check, walked by the path of keys above the cursor.
struct SchemaKeys {
    /// One step down a YAML tree: the value of a key, or an item of a list.
    enum Step: Equatable {
        case key(String)
        case item
    }

    struct Key: Equatable {
        var name: String
        var documentation: String?
        /// Its value may be a scalar (then `key: ` is written), else only a mapping or a list.
        var takesScalar: Bool
    }

    private let root: [String: Any]

    /// The schema of a garage file, by its path relative to the garage (as the merge driver
    /// tells its kind); nil for other files.
    init?(file: String) {
        let name: String
        switch GarageMerge.Kind(path: file) {
        case .settings: name = "garage"
        case .rides: name = "rides"
        case .bike: name = "bike"
        case .gear: name = "gear"
        case .part: name = "part"
        case .template: name = "template"
        case nil: return nil
        }
        guard let text = EmbeddedSchemas.files.first(where: { $0.name == "\(name).schema.json" })?.text,
            let schema = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
        else { return nil }
        root = schema
    }

    /// The keys allowed in the mapping at `path`, except `present`; empty
    /// where the schema fixes no keys (a mapping of ids, a scalar, a path it does not know).
    func keys(at path: [Step], except present: Set<String>) -> [Key] {
        var found: [Key] = []
        let schemas = schemas(at: path)
        // `oneOf` of required keys (a mount's `bike` or `part`): once one is written, the others'
        // are not offered.
        var excluded: Set<String> = []
        for schema in schemas {
            guard let branches = schema["oneOf"] as? [[String: Any]] else { continue }
            let required = branches.map { Set($0["required"] as? [String] ?? []) }
            guard let chosen = required.firstIndex(where: { !$0.isDisjoint(with: present) }) else { continue }
            for (i, keys) in required.enumerated() where i != chosen { excluded.formUnion(keys.subtracting(required[chosen])) }
        }
        for schema in schemas {
            guard let properties = schema["properties"] as? [String: Any] else { continue }
            for name in orderedKeys(of: schema) where !present.contains(name) && !excluded.contains(name) && !found.contains(where: { $0.name == name }) {
                guard let property = properties[name] as? [String: Any] else { continue }
                let documentation = (property["markdownDescription"] ?? property["description"]) as? String
                found.append(Key(name: name, documentation: documentation, takesScalar: takesScalar(property)))
            }
        }
        return found
    }

    /// Alphabetical: a parsed JSON object keeps no order (an editor sorts by label anyway).
    private func orderedKeys(of schema: [String: Any]) -> [String] {
        (schema["properties"] as? [String: Any] ?? [:]).keys.sorted()
    }

    /// The schemas a value at `path` must match (several where the schema offers alternatives).
    private func schemas(at path: [Step]) -> [[String: Any]] {
        var current = alternatives(root)
        for step in path {
            current = current.flatMap { schema -> [[String: Any]] in
                switch step {
                case .key(let name):
                    if let property = (schema["properties"] as? [String: Any])?[name] as? [String: Any] { return alternatives(property) }
                    if let other = schema["additionalProperties"] as? [String: Any] { return alternatives(other) }
                    return []
                case .item:
                    return (schema["items"] as? [String: Any]).map { alternatives($0) } ?? []
                }
            }
        }
        return current
    }

    /// A schema with its `$ref` followed and its `anyOf` / `oneOf` / `allOf` branches beside it.
    private func alternatives(_ schema: [String: Any], depth: Int = 0) -> [[String: Any]] {
        guard depth < 16 else { return [] }
        var out: [[String: Any]] = []
        if let ref = schema["$ref"] as? String, let target = resolve(ref) { out += alternatives(target, depth: depth + 1) }
        out.append(schema)
        for combinator in ["anyOf", "oneOf", "allOf"] {
            for branch in schema[combinator] as? [[String: Any]] ?? [] { out += alternatives(branch, depth: depth + 1) }
        }
        return out
    }

    /// `#/definitions/quantity` → that schema.
    private func resolve(_ ref: String) -> [String: Any]? {
        guard ref.hasPrefix("#/") else { return nil }
        var node: Any = root
        for part in ref.dropFirst(2).split(separator: "/") {
            guard let object = node as? [String: Any], let next = object[String(part)] else { return nil }
            node = next
        }
        return node as? [String: Any]
    }

    private func takesScalar(_ property: [String: Any]) -> Bool {
        let types = alternatives(property).flatMap { schema -> [String] in
            if let type = schema["type"] as? String { return [type] }
            return schema["type"] as? [String] ?? []
        }
        return types.isEmpty || types.contains { !["object", "array", "null"].contains($0) }
    }
}

/// A key being written at the cursor, read from the text around it (the buffer may not parse):
/// the path of keys above it, the keys its mapping already has, and the part of it typed.
struct KeyPosition {
    var path: [SchemaKeys.Step] = []
    var present: Set<String> = []
    /// The bytes typed so far, which a completion replaces.
    var typed: Swift.Range<Int>

    /// One line's shape: its indentation, whether it is a list item, the column of its key (or
    /// its item's first key) and that key, and whether the key's value is on the lines below.
    private struct Line {
        var indent: Int
        var dash: Bool
        var column: Int
        var key: String?
        var opensBlock: Bool

        /// nil for a blank line, a comment or a document marker.
        init?(_ text: String) {
            let chars = Array(text)
            indent = chars.prefix { $0 == " " }.count
            var i = indent
            guard i < chars.count, chars[i] != "#", !text.hasPrefix("---"), !text.hasPrefix("...") else { return nil }
            dash = chars[i] == "-" && (i + 1 == chars.count || chars[i + 1] == " ")
            if dash {
                i += 1
                while i < chars.count, chars[i] == " " { i += 1 }
            }
            column = i
            let rest = chars[i...]
            guard let colon = rest.firstIndex(of: ":"), colon > i, colon + 1 == chars.count || chars[colon + 1] == " ",
                !rest[..<colon].contains(where: { " #{}[],\"'".contains($0) })
            else {
                key = nil
                opensBlock = false
                return
            }
            key = String(rest[..<colon])
            let value = chars[(colon + 1)...].drop { $0 == " " }
            opensBlock = value.isEmpty || value.first == "#"
        }
    }

    /// nil when the cursor is not where a key is written: at the start of a line (after its
    /// indentation or a list item's `- `), on a word with nothing after it but a comment.
    init?(_ text: SourceText, at position: Position) {
        let cursor = text.offset(of: position)
        let number = text.position(ofByte: cursor).line + 1
        guard let range = text.lineRange(number) else { return nil }
        func isWord(_ b: UInt8) -> Bool { b >= 0x80 || (b >= 48 && b <= 57) || (b | 0x20 >= 97 && b | 0x20 <= 122) || b == 45 || b == 95 || b == 46 }
        var start = cursor
        while start > range.lowerBound, isWord(text.bytes[start - 1]) { start -= 1 }
        var end = cursor
        while end < range.upperBound, isWord(text.bytes[end]) { end += 1 }
        let before = String(decoding: text.bytes[range.lowerBound..<start], as: UTF8.self)
        let after = String(decoding: text.bytes[end..<range.upperBound], as: UTF8.self).drop { $0 == " " }
        guard before.allSatisfy({ $0 == " " || $0 == "-" }), before.filter({ $0 == "-" }).count <= 1, !before.hasSuffix("-"),
            after.isEmpty || after.hasPrefix("#")
        else { return nil }
        typed = start..<cursor
        let dash = before.contains("-")
        let column = before.count
        let indent = before.prefix { $0 == " " }.count

        // Up from the cursor: the keys that own its mapping, and the list items between.
        var reversed: [SchemaKeys.Step] = []
        enum Looking {
            /// The owner of a mapping whose keys are at this column.
            case mapping(Int)
            /// The owner of a list whose `-` are at this column.
            case list(Int)
        }
        var looking = Looking.mapping(column)
        if dash {
            reversed.append(.item)
            looking = .list(indent)
        }
        /// A line with a key that opens the block below it owns that block: step up to the block
        /// that holds the line (a list's when the line is an item). False when it opens none.
        func stepUp(through line: Line) -> Bool {
            guard let key = line.key, line.opensBlock else { return false }
            reversed.append(.key(key))
            if line.dash {
                reversed.append(.item)
                looking = .list(line.indent)
            } else {
                looking = .mapping(line.indent)
            }
            return true
        }
        var above = number - 1
        search: while true {
            if case .mapping(0) = looking { break search }
            guard above >= 1 else { return nil }
            defer { above -= 1 }
            guard let line = text.line(above).flatMap(Line.init) else { continue }
            switch looking {
            case .mapping(let c):
                if line.dash, line.column == c {
                    reversed.append(.item)
                    looking = .list(line.indent)
                } else if line.indent < c, line.column < c {
                    guard stepUp(through: line) else { return nil }
                } else if line.indent < c {
                    return nil
                }
            case .list(let d):
                if line.indent > d || (line.dash && line.indent == d) { continue }
                guard stepUp(through: line) else { return nil }
            }
        }
        path = reversed.reversed()

        // The keys its mapping already has: above it (up to its item's `- ` line) and below.
        if !dash {
            var n = number - 1
            while n >= 1, let content = text.line(n) {
                n -= 1
                guard let line = Line(content) else { continue }
                if line.column == column, let key = line.key { present.insert(key) }
                if line.dash && line.column == column || line.indent < column { break }
            }
        }
        var n = number + 1
        while let content = text.line(n) {
            n += 1
            guard let line = Line(content) else { continue }
            if line.indent < column { break }
            if line.indent == column, !line.dash, let key = line.key { present.insert(key) }
        }
    }
}
