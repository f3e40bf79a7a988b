import CYAML
import Diagnostics

/// A parsed YAML file: its text, its located tree, and what went wrong on the way.
package struct YAMLDocument: Sendable {
    package let source: SourceText
    /// The root node, when the file could be composed at all.
    package let root: YAMLNode?
    /// Problems found while reading and composing, in file order.
    package let diagnostics: [Diagnostic]
    /// False when the tree is missing or untrustworthy (syntax error, alias), so later stages skip it.
    package let isUsable: Bool

    package var path: String { source.path }

    /// Limits that keep hostile input cheap: nesting depth and diagnostics per file.
    package struct Limits: Sendable {
        package var maxDepth: Int
        package var maxDiagnostics: Int
        /// The help lines of this layer's diagnostics, in the words of the files' owner.
        package var help: Help

        package init(maxDepth: Int = 64, maxDiagnostics: Int = Diagnostic.perFileLimit, help: Help = Help()) {
            self.maxDepth = maxDepth
            self.maxDiagnostics = maxDiagnostics
            self.help = help
        }
    }

    /// The help lines a user of this layer may word for its own files: the layer knows YAML,
    /// not what the files hold, so its defaults speak of YAML only.
    package struct Help: Sendable {
        /// Under an anchor or alias that was refused.
        package var alias = "write the value out where it is used"
        /// Under a file that nests too deep.
        package var depth = "nest fewer levels"
        /// Under a '[' that is never closed.
        package var unclosedList = "end the list with ']' on the same line"
        /// Under a '{' that is never closed.
        package var unclosedMapping = "end it with '}' on the same line"
        /// Under an edit refused because the file has YAML problems.
        package var editRefused = "fix the file's YAML problems, then try again"

        package init() {}
    }

    /// The limits and help lines it was parsed with; an edit of it re-parses with the same.
    package let limits: Limits

    /// Parses `bytes` as a single YAML document. Never throws: every problem is a diagnostic.
    package init(path: String, bytes: [UInt8], limits: Limits = Limits()) {
        let source = SourceText(path: path, bytes: bytes)
        var composer = Composer(source: source, limits: limits)
        let root = composer.compose()
        self.source = source
        self.limits = limits
        self.root = root
        var diagnostics = composer.diagnostics
        if let first = composer.firstOmitted {
            diagnostics.append(.tooManyProblems(composer.omitted, at: first.location, severity: composer.worstOmitted))
        }
        self.diagnostics = diagnostics
        self.isUsable = root != nil && !composer.fatal
    }
}

/// Builds the located tree from libyaml's event stream with an explicit stack (no recursion).
private struct Composer {
    let source: SourceText
    let limits: YAMLDocument.Limits
    var diagnostics: [Diagnostic] = []
    /// Problems past the limit: how many, the first, and the worst severity among them.
    var omitted = 0
    var firstOmitted: Diagnostic?
    var worstOmitted = Diagnostic.Severity.note
    var fatal = false
    private var anchors = 0
    /// Where the YAML starts: after a UTF-8 byte-order mark, which libyaml is not shown.
    let bodyStart: Int
    /// Maps libyaml's character index to a byte offset; nil when the file is ASCII (they agree).
    let scalarOffsets: [Int]?
    let hasOtherLineBreaks: Bool
    /// Whether the YAML after any byte-order mark is ASCII (so valid UTF-8, with no line
    /// break but LF and CR): most files, which then skip the checks for those.
    let isASCII: Bool

    init(source: SourceText, limits: YAMLDocument.Limits) {
        self.source = source
        self.limits = limits
        let bytes = source.bytes
        bodyStart = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        // The text has looked at every byte already; only a file with a byte-order mark (not
        // ASCII itself) is asked again about what follows the mark.
        isASCII = source.isASCII || (bodyStart > 0 && SourceText.isASCII(bytes[bodyStart...]))
        hasOtherLineBreaks = isASCII && !SourceText.contains(0x0D, in: bytes) ? false : Self.hasOtherLineBreaks(bytes)
        if isASCII {
            scalarOffsets = nil
        } else {
            var table: [Int] = []
            table.reserveCapacity(bytes.count + 1)
            for i in bodyStart..<bytes.count where bytes[i] & 0xC0 != 0x80 {
                table.append(i)
            }
            table.append(bytes.count)
            scalarOffsets = table
        }
    }

    /// A collection being composed; its children so far are `nodes` from `first` on (a
    /// mapping's as key, value, key, value…, an odd count while a key waits for its value).
    private struct Frame {
        var isMapping: Bool
        var start: SourcePosition
        var flow: Bool
        var first: Int
        /// A long mapping's keys by text (see `firstRange`), empty until it is long.
        var firstSeen: [String: SourceRange] = [:]
    }

    private func location(_ range: SourceRange?) -> SourceLocation {
        SourceLocation(file: source.path, range: range)
    }

    private func position(_ mark: yaml_mark_t) -> SourcePosition {
        let index = Int(mark.index)
        let offset: Int
        if let table = scalarOffsets {
            offset = table[min(index, table.count - 1)]
        } else {
            offset = min(bodyStart + index, source.bytes.count)
        }
        // libyaml also breaks lines at a lone CR, NEL, U+2028 and U+2029; lines everywhere else
        // (excerpts, the edit engine) break at LF only, so such files get positions from the bytes.
        // libyaml's end-of-input mark after a last line with no newline is one line past the end.
        if hasOtherLineBreaks || Int(mark.line) >= source.lineStarts.count { return source.position(ofOffset: offset) }
        return SourcePosition(offset: offset, line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    /// Whether the file has a line break other than LF and CRLF.
    private static func hasOtherLineBreaks(_ b: [UInt8]) -> Bool {
        for i in b.indices {
            switch b[i] {
            case 0x0D where i + 1 == b.count || b[i + 1] != 0x0A: return true
            case 0xC2 where i + 1 < b.count && b[i + 1] == 0x85: return true
            case 0xE2 where i + 2 < b.count && b[i + 1] == 0x80 && (b[i + 2] == 0xA8 || b[i + 2] == 0xA9): return true
            default: continue
            }
        }
        return false
    }

    private mutating func report(_ d: Diagnostic) {
        if diagnostics.count < limits.maxDiagnostics {
            diagnostics.append(d)
        } else {
            omitted += 1
            if firstOmitted == nil { firstOmitted = d }
            worstOmitted = min(worstOmitted, d.severity)
        }
    }

    /// Returns the root, or nil when there is no usable tree.
    mutating func compose() -> YAMLNode? {
        if !isASCII, let bad = firstInvalidUTF8() {
            let at = source.position(ofOffset: bad)
            report(
                .error(
                    .invalidUtf8, "the file is not valid UTF-8 (byte 0x\(hex(source.bytes[bad])))",
                    at: location(SourceRange(start: at, end: at)),
                    help: "save the file as UTF-8"))
            fatal = true
            return nil
        }
        if isBlank() {
            let at = SourcePosition(offset: 0, line: 1, column: 1)
            report(
                .error(
                    .emptyFile, "the file is empty", at: location(SourceRange(at: at)),
                    help: "write a mapping of keys to values, or delete the file"))
            fatal = true
            return nil
        }

        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) == 1 else {
            fatal = true
            return nil
        }
        defer { yaml_parser_delete(parser) }

        return source.bytes.withUnsafeBufferPointer { buffer -> YAMLNode? in
            yaml_parser_set_input_string(parser, buffer.baseAddress.map { $0 + bodyStart }, buffer.count - bodyStart)
            yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
            return run(parser)
        }
    }

    private mutating func run(_ parser: UnsafeMutablePointer<yaml_parser_t>) -> YAMLNode? {
        var stack: [Frame] = []
        let nodes = NodeStack()
        let texts = ShortTexts()
        var root: YAMLNode?
        var documents = 0
        var event = yaml_event_t()

        while true {
            guard yaml_parser_parse(parser, &event) == 1 else {
                reportSyntaxError(parser.pointee)
                fatal = true
                return nil
            }
            defer { yaml_event_delete(&event) }
            // An event's start and end are made where they are used: most events need one of them.

            switch event.type {
            case YAML_STREAM_END_EVENT:
                return root
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                if documents > 1 {
                    report(
                        .error(
                            .yamlMultipleDocuments, "the file holds more than one YAML document",
                            at: location(SourceRange(start: position(event.start_mark), end: position(event.end_mark))),
                            help: "keep one document per file: remove this '---' and what follows, or move it to its own file"))
                    fatal = true
                    return nil
                }
            case YAML_SCALAR_EVENT:
                let range = SourceRange(start: position(event.start_mark), end: position(event.end_mark))
                let data = event.data.scalar
                // Most scalars have neither (a call for each cost more than the test).
                if data.anchor != nil || data.tag != nil {
                    checkAnchorAndTag(anchor: data.anchor, tag: data.tag, implicit: data.plain_implicit == 1 || data.quoted_implicit == 1, range: range)
                }
                let value = texts.text(data.value, count: Int(data.length))
                let style: ScalarStyle
                switch data.style {
                case YAML_SINGLE_QUOTED_SCALAR_STYLE: style = .singleQuoted
                case YAML_DOUBLE_QUOTED_SCALAR_STYLE: style = .doubleQuoted
                case YAML_LITERAL_SCALAR_STYLE: style = .literal
                case YAML_FOLDED_SCALAR_STYLE: style = .folded
                default: style = .plain
                }
                add(.scalar(YAMLScalar(value: value, style: style, range: range)), to: &stack, nodes: nodes, root: &root)
            case YAML_ALIAS_EVENT:
                let range = SourceRange(start: position(event.start_mark), end: position(event.end_mark))
                // One diagnostic says it all; a "billion laughs" file has thousands of aliases.
                if !fatal {
                    report(
                        .error(
                            .yamlAlias, "aliases ('*name') are not supported",
                            at: location(range),
                            help: limits.help.alias))
                }
                fatal = true
                add(.scalar(YAMLScalar(value: "", style: .plain, range: range)), to: &stack, nodes: nodes, root: &root)
            case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                if stack.count >= limits.maxDepth {
                    report(
                        .error(
                            .yamlTooDeep, "the file nests deeper than \(limits.maxDepth) levels",
                            at: location(SourceRange(start: position(event.start_mark), end: position(event.end_mark))),
                            help: limits.help.depth))
                    fatal = true
                    return nil
                }
                let start = position(event.start_mark)
                if event.type == YAML_SEQUENCE_START_EVENT {
                    let data = event.data.sequence_start
                    if data.anchor != nil || data.tag != nil {
                        checkAnchorAndTag(
                            anchor: data.anchor, tag: data.tag, implicit: data.implicit == 1,
                            range: SourceRange(start: position(event.start_mark), end: position(event.end_mark)))
                    }
                    stack.append(Frame(isMapping: false, start: start, flow: data.style == YAML_FLOW_SEQUENCE_STYLE, first: nodes.count))
                } else {
                    let data = event.data.mapping_start
                    if data.anchor != nil || data.tag != nil {
                        checkAnchorAndTag(
                            anchor: data.anchor, tag: data.tag, implicit: data.implicit == 1,
                            range: SourceRange(start: position(event.start_mark), end: position(event.end_mark)))
                    }
                    stack.append(Frame(isMapping: true, start: start, flow: data.style == YAML_FLOW_MAPPING_STYLE, first: nodes.count))
                }
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let frame = stack.popLast() else { continue }
                let end = position(event.end_mark)
                let node: YAMLNode
                if frame.isMapping {
                    // A key with no value (never from libyaml) is dropped, as it always was.
                    if (nodes.count - frame.first) % 2 == 1 { nodes.dropLast() }
                    let entries = nodes.takeEntries(from: frame.first)
                    let stop = frame.flow ? end : (entries.last?.value.range.end ?? end)
                    node = .mapping(YAMLMapping(entries: entries, isFlow: frame.flow, range: SourceRange(start: frame.start, end: stop)))
                } else {
                    let items = nodes.take(from: frame.first)
                    let stop = frame.flow ? end : (items.last?.range.end ?? end)
                    node = .sequence(YAMLSequence(items: items, isFlow: frame.flow, range: SourceRange(start: frame.start, end: stop)))
                }
                add(node, to: &stack, nodes: nodes, root: &root)
            default:
                continue
            }
        }
    }

    /// Where `text` is already a key of the mapping being composed, whose `count` entries are
    /// in `nodes` from `first` on. Most mappings (a log entry, an interval) have a few keys,
    /// found faster by a scan than by hashing each; a long mapping indexes its keys in `index`
    /// once, then keeps it up to date.
    private static func firstRange(
        of text: String, in nodes: NodeStack, from first: Int, count: Int, index: inout [String: SourceRange]
    ) -> SourceRange? {
        guard count > 8 else {
            for k in 0..<count {
                if case .scalar(let key) = nodes.base[first + 2 * k], key.value == text { return key.range }
            }
            return nil
        }
        if index.isEmpty {
            for k in 0..<count {
                if case .scalar(let key) = nodes.base[first + 2 * k] { index[key.value] = key.range }
            }
        }
        return index[text]
    }

    /// Puts a finished node where it belongs: the root, an item, a key, or the value of the key
    /// before it (dropped with its key when the key is a duplicate or not a scalar).
    private mutating func add(_ node: consuming YAMLNode, to stack: inout [Frame], nodes: NodeStack, root: inout YAMLNode?) {
        guard !stack.isEmpty else {
            root = node
            return
        }
        let top = stack.count - 1
        let first = stack[top].first
        guard stack[top].isMapping, (nodes.count - first) % 2 == 1 else {
            nodes.push(node)
            return
        }
        let keyIndex = nodes.count - 1
        guard case .scalar(let key) = nodes.base[keyIndex] else {
            let key = nodes.base[keyIndex]
            nodes.dropLast()
            report(
                .error(
                    .yamlComplexKey, "a key must be a plain value, not \(key.kindDescription)",
                    at: location(key.range), help: "write keys as simple names"))
            return
        }
        let text = key.value
        if let firstRange = Self.firstRange(of: text, in: nodes, from: first, count: (keyIndex - first) / 2, index: &stack[top].firstSeen) {
            nodes.dropLast()
            report(
                .error(
                    .duplicateKey, "duplicate key '\(shown(text))'",
                    at: location(key.range),
                    notes: [.init("'\(shown(text))' first defined here", at: location(firstRange))],
                    help: "keep one '\(shown(text))' and remove or rename the other"))
            return
        }
        if !stack[top].firstSeen.isEmpty { stack[top].firstSeen[text] = key.range }
        nodes.push(node)
    }

    private mutating func checkAnchorAndTag(
        anchor: UnsafeMutablePointer<yaml_char_t>?, tag: UnsafeMutablePointer<yaml_char_t>?, implicit: Bool,
        range: SourceRange
    ) {
        if let anchor {
            anchors += 1
            guard anchors == 1 else { return }
            let name = String(cString: anchor)
            report(
                .error(
                    .yamlAnchor, "anchors ('&\(name)') are not supported",
                    at: location(SourceRange(at: range.start)),
                    help: limits.help.alias))
        }
        if let tag, !implicit {
            let name = String(cString: tag)
            report(
                .error(
                    .yamlTag, "tags ('\(name.replacingPrefix("tag:yaml.org,2002:", with: "!!"))') are not supported",
                    at: location(SourceRange(at: range.start)),
                    help: "remove the tag; quote a value to make it text"))
        }
    }

    private mutating func reportSyntaxError(_ parser: yaml_parser_t) {
        let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
        var at = position(parser.problem_mark)
        if parser.error == YAML_READER_ERROR {
            at = source.position(ofOffset: bodyStart + Int(parser.problem_offset))
        }
        let byte = at.offset < source.bytes.count ? source.bytes[at.offset] : 0
        if byte == UInt8(ascii: "\t") {
            report(
                .error(
                    .yamlTab, "tab character where YAML expects spaces",
                    at: location(SourceRange(start: at, end: source.position(ofOffset: at.offset + 1))),
                    help: "indent with spaces; YAML does not allow tabs for indentation"))
            return
        }
        let context = parser.context.map { String(cString: $0) }
        if context == "while scanning a simple key" {
            // libyaml notices the missing ':' only at the next line; the key is what needs it.
            let key = position(parser.context_mark)
            report(
                .error(
                    .yamlSyntax, "this line is missing the ':' after its key", at: location(SourceRange(at: key)),
                    help: "write 'key: value', or indent a continuation line under its key"))
            return
        }
        // An unclosed quote or bracket is noticed lines later, where the text stops making sense;
        // the rider has to edit the opening one, so that is where the error points.
        if let context, let opener = unclosedOpener(context: context, at: position(parser.context_mark)) {
            report(
                .error(
                    .yamlSyntax, opener.message, at: location(SourceRange(at: opener.at)),
                    notes: [.init("YAML noticed it here", at: location(SourceRange(at: at)))], help: opener.help))
            return
        }
        var message = problem
        if let context {
            message += " " + context
            if parser.context_mark.line != parser.problem_mark.line || parser.context_mark.column != parser.problem_mark.column {
                let c = position(parser.context_mark)
                message += " (started at line \(c.line), column \(c.column))"
            }
        }
        let help =
            parser.error == YAML_READER_ERROR
            ? "remove the invisible control character here (often pasted in from a web page or a PDF)"
            : "check the indentation and punctuation near here: 'key: value', '- item', matching quotes and brackets"
        report(.error(.yamlSyntax, message, at: location(SourceRange(at: at)), help: help))
    }

    /// What to say about a quote, `[` or `{` that libyaml found unclosed, in the rider's words.
    private func unclosedOpener(context: String, at start: SourcePosition) -> (message: String, help: String, at: SourcePosition)? {
        guard start.offset < source.bytes.count else { return nil }
        let opener = source.bytes[start.offset]
        switch (context, opener) {
        case ("while scanning a quoted scalar", UInt8(ascii: "\"")), ("while scanning a quoted scalar", UInt8(ascii: "'")):
            let quote = opener == UInt8(ascii: "'") ? "'" : "\""
            return ("this \(quote) quote is never closed", "end the text with \(quote) on the same line, or leave the quotes out", start)
        case ("while parsing a flow sequence", UInt8(ascii: "[")):
            return ("this '[' is never closed", limits.help.unclosedList, start)
        case ("while parsing a flow mapping", UInt8(ascii: "{")):
            return ("this '{' is never closed", limits.help.unclosedMapping, start)
        default:
            return nil
        }
    }

    private func isBlank() -> Bool {
        var inComment = false
        for b in source.bytes {
            switch b {
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"): inComment = false
            case UInt8(ascii: "#"): inComment = true
            case UInt8(ascii: " "), UInt8(ascii: "\t"), 0xEF, 0xBB, 0xBF: continue
            default: if !inComment { return false }
            }
        }
        return true
    }

    private func firstInvalidUTF8() -> Int? {
        let bytes = source.bytes
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b < 0x80 { i += 1; continue }
            let length: Int
            var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
            switch b {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upper = 0x9F
            case 0xF0: length = 4; lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upper = 0x8F
            default: return i
            }
            guard i + length <= n else { return i }
            for k in 1..<length {
                let c = bytes[i + k]
                let lo: UInt8 = k == 1 ? lower : 0x80
                let hi: UInt8 = k == 1 ? upper : 0xBF
                if c < lo || c > hi { return i }
            }
            i += length
        }
        return nil
    }

    private func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(b >> 4)], digits[Int(b & 0xF)]])
    }
}

/// The scalars' texts, the short ones kept by their bytes: a long log repeats its keys and its
/// services' names thousands of times, and a look-up here costs a fraction of making a `String`.
/// A text is reused only for exactly the same bytes, so it is the `String` they would make.
private final class ShortTexts {
    private static let slots = 256
    /// Each slot's bytes (up to 16, zero-padded, as two words), their count (0: an empty slot)
    /// and text.
    private let words: UnsafeMutablePointer<UInt64>
    private let counts: UnsafeMutablePointer<Int>
    private let texts: UnsafeMutablePointer<String>

    init() {
        words = .allocate(capacity: 2 * Self.slots)
        words.initialize(repeating: 0, count: 2 * Self.slots)
        counts = .allocate(capacity: Self.slots)
        counts.initialize(repeating: 0, count: Self.slots)
        texts = .allocate(capacity: Self.slots)
        texts.initialize(repeating: "", count: Self.slots)
    }

    deinit {
        words.deallocate()
        counts.deallocate()
        texts.deinitialize(count: Self.slots)
        texts.deallocate()
    }

    func text(_ start: UnsafePointer<UInt8>?, count: Int) -> String {
        guard let start, count > 0, count <= 16 else {
            return String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
        }
        var bytes: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &bytes) { $0.baseAddress?.copyMemory(from: start, byteCount: count) }
        let mixed = (bytes.0 &* 0x9E37_79B9_7F4A_7C15) ^ (bytes.1 &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(count)
        let slot = Int(truncatingIfNeeded: mixed >> 56)
        if counts[slot] == count, words[2 * slot] == bytes.0, words[2 * slot + 1] == bytes.1 { return texts[slot] }
        let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
        (words[2 * slot], words[2 * slot + 1], counts[slot]) = (bytes.0, bytes.1, count)
        texts[slot] = text
        return text
    }
}

/// The finished children of the collections being composed, end to end: each collection's are
/// moved out into an array of their exact size when it ends, so no array grows item by item.
private final class NodeStack {
    private(set) var base: UnsafeMutablePointer<YAMLNode>
    private(set) var count = 0
    private var capacity = 64

    init() { base = .allocate(capacity: capacity) }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    @inline(__always) func push(_ node: consuming YAMLNode) {
        if count == capacity {
            let grown = UnsafeMutablePointer<YAMLNode>.allocate(capacity: capacity * 2)
            grown.moveInitialize(from: base, count: count)
            base.deallocate()
            base = grown
            capacity *= 2
        }
        (base + count).initialize(to: node)
        count += 1
    }

    func dropLast() {
        count -= 1
        (base + count).deinitialize(count: 1)
    }

    /// The nodes from `first` on, moved out. (Reserved, then appended: `Array`'s uninitialized
    /// initializer allocates through unspecialised generic code, about a thousand instructions more.)
    func take(from first: Int) -> [YAMLNode] {
        var items: [YAMLNode] = []
        items.reserveCapacity(count - first)
        for at in first..<count { items.append((base + at).move()) }
        count = first
        return items
    }

    /// The nodes from `first` on, as key, value pairs, moved out.
    func takeEntries(from first: Int) -> [YAMLEntry] {
        var entries: [YAMLEntry] = []
        entries.reserveCapacity((count - first) / 2)
        for at in stride(from: first, to: count - 1, by: 2) {
            entries.append(YAMLEntry(key: (base + at).move(), value: (base + at + 1).move()))
        }
        count = first
        return entries
    }
}

extension String {
    fileprivate func replacingPrefix(_ prefix: String, with replacement: String) -> String {
        hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
    }
}
