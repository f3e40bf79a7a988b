import JSONRPC

/// A tool the MCP server offers: its name, what it does, its arguments (declared once: the JSON
/// Schema `tools/list` shows and the check `tools/call` makes both come from them), how it
/// behaves (MCP's annotations) and what a call does.
package struct MCPTool: Sendable {
    package var name: String
    package var title: String
    package var description: String
    package var arguments: [Argument]
    package var annotations: Annotations
    /// Runs the tool on arguments already checked against `arguments`.
    package var call: @Sendable (Arguments) -> Result

    package init(
        name: String, title: String, description: String, arguments: [Argument], annotations: Annotations,
        call: @escaping @Sendable (Arguments) -> Result
    ) {
        self.name = name
        self.title = title
        self.description = description
        self.arguments = arguments
        self.annotations = annotations
        self.call = call
    }

    /// One argument: its name (a command's option with `_` for `-`), what it takes, a line of help.
    package struct Argument: Sendable {
        package enum Kind: Sendable, Equatable {
            case string
            /// YYYY-MM-DD, checked by the command as its option is.
            case date
            case strings
            case boolean
            /// One of these words.
            case choice([String])
            /// Money as a log's `cost:` takes it: a number, or text with a currency code.
            case amount
        }

        package var name: String
        package var kind: Kind
        package var help: String
        package var required: Bool

        package init(_ name: String, _ kind: Kind, _ help: String, required: Bool = false) {
            self.name = name
            self.kind = kind
            self.help = help
            self.required = required
        }

        /// This argument's JSON Schema.
        var schema: JSONValue {
            var s: [String: JSONValue] = ["description": .string(help)]
            switch kind {
            case .string: s["type"] = .string("string")
            case .date:
                s["type"] = .string("string")
                s["format"] = .string("date")
                s["pattern"] = .string("^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
            case .strings: s["type"] = .string("array"); s["items"] = .object(["type": .string("string")])
            case .boolean: s["type"] = .string("boolean")
            case .choice(let words):
                s["type"] = .string("string")
                s["enum"] = .array(words.map(JSONValue.string))
            case .amount: s["type"] = .array([.string("string"), .string("number")])
            }
            return .object(s)
        }

        /// The value's text form for the tool, or why it does not fit.
        func accept(_ value: JSONValue) -> Checked<Arguments.Value> {
            switch (kind, value) {
            case (.string, .string(let s)), (.date, .string(let s)), (.amount, .string(let s)): return .ok(.text(s))
            case (.amount, .integer(let n)): return .ok(.text(String(n)))
            case (.amount, .number(let n)) where n.isFinite: return .ok(.text("\(n)"))
            case (.choice(let words), .string(let s)):
                return words.contains(s) ? .ok(.text(s)) : .bad("is '\(s)', expected one of \(words.joined(separator: ", "))")
            case (.boolean, .bool(let b)): return .ok(.flag(b))
            case (.strings, .array(let items)):
                var texts: [String] = []
                for item in items {
                    guard case .string(let s) = item else { return .bad("holds \(item.kind), expected strings only") }
                    texts.append(s)
                }
                return .ok(.texts(texts))
            case (.strings, .string(let s)): return .ok(.texts([s]))
            default:
                let expected =
                    switch kind {
                    case .string, .choice: "a string"
                    case .date: "a date as a string, YYYY-MM-DD"
                    case .strings: "an array of strings"
                    case .boolean: "true or false"
                    case .amount: "a number or a string such as \"45.99 USD\""
                    }
                return .bad("is \(value.kind), expected \(expected)")
            }
        }
    }

    /// MCP's tool annotations: hints for the client, all stated.
    package struct Annotations: Sendable {
        package var readOnly: Bool
        package var destructive: Bool
        package var idempotent: Bool

        package static let readOnly = Annotations(readOnly: true, destructive: false, idempotent: true)

        package init(readOnly: Bool, destructive: Bool, idempotent: Bool) {
            self.readOnly = readOnly
            self.destructive = destructive
            self.idempotent = idempotent
        }
    }

    /// A call's arguments, checked: each given one as text, texts or a flag.
    package struct Arguments: Sendable {
        package enum Value: Sendable, Equatable {
            case text(String)
            case texts([String])
            case flag(Bool)
        }

        package var values: [String: Value]

        package init(_ values: [String: Value]) { self.values = values }

        package subscript(text name: String) -> String? {
            if case .text(let s)? = values[name] { return s }
            return nil
        }

        package subscript(texts name: String) -> [String] {
            if case .texts(let s)? = values[name] { return s }
            return []
        }

        package subscript(flag name: String) -> Bool {
            if case .flag(let b)? = values[name] { return b }
            return false
        }
    }

    /// What a call gives back: its one text item, the same as JSON when it is JSON (MCP's
    /// `structuredContent`), and whether the tool failed (`isError`: the model reads why).
    package struct Result: Sendable {
        package var text: String
        package var structured: JSONValue?
        package var isError: Bool

        package init(text: String, structured: JSONValue? = nil, isError: Bool = false) {
            self.text = text
            self.structured = structured
            self.isError = isError
        }

        /// JSON text, carried also as structured content when it is an object (as MCP wants it).
        package static func json(_ text: String, isError: Bool = false) -> Result {
            let value = JSONValue(parsing: text)
            if case .object? = value { return Result(text: text, structured: value, isError: isError) }
            return Result(text: text, isError: isError)
        }
    }

    /// The arguments checked against the declaration, or why they do not fit.
    func check(_ given: [String: JSONValue]) -> Checked<Arguments> {
        var values: [String: Arguments.Value] = [:]
        for key in given.keys.sorted() {
            guard let argument = arguments.first(where: { $0.name == key }) else {
                let names = arguments.map(\.name)
                return .bad(
                    "tool '\(name)' has no argument '\(key)'; "
                        + (names.isEmpty ? "it takes none" : "it takes: \(names.joined(separator: ", "))"))
            }
            if case .null? = given[key] { continue }
            switch argument.accept(given[key] ?? .null) {
            case .ok(let value): values[key] = value
            case .bad(let why): return .bad("argument '\(key)' of tool '\(name)' \(why)")
            }
        }
        if let missing = arguments.first(where: { $0.required && values[$0.name] == nil }) {
            return .bad("tool '\(name)' needs the argument '\(missing.name)': \(missing.help)")
        }
        return .ok(Arguments(values))
    }

    /// What `tools/list` shows of it; annotations only to a client of 2025-03-26 or later, which
    /// knows them.
    func listing(annotated: Bool) -> JSONValue {
        var properties: [String: JSONValue] = [:]
        for argument in arguments { properties[argument.name] = argument.schema }
        var schema: [String: JSONValue] = [
            "type": .string("object"), "properties": .object(properties), "additionalProperties": .bool(false),
        ]
        let required = arguments.filter(\.required).map { JSONValue.string($0.name) }
        if !required.isEmpty { schema["required"] = .array(required) }
        var tool: [String: JSONValue] = [
            "name": .string(name), "title": .string(title), "description": .string(description), "inputSchema": .object(schema),
        ]
        if annotated {
            tool["annotations"] = .object([
                "title": .string(title), "readOnlyHint": .bool(annotations.readOnly), "destructiveHint": .bool(annotations.destructive),
                "idempotentHint": .bool(annotations.idempotent), "openWorldHint": .bool(false),
            ])
        }
        return .object(tool)
    }
}

/// A value that passed a check, or why it did not.
enum Checked<T> {
    case ok(T)
    case bad(String)
}
