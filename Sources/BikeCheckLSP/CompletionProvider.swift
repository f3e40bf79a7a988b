import BikeCheckKit
import Diagnostics
import Foundation

/// Where the cursor is in a garage file, read from the text around it (the buffer may not parse
/// while it is typed): the id-like word under it and the key whose value, list item or mapping
/// key that word is.
struct CursorContext {
    /// The key the word belongs to: `templates`, `done`, `snooze`, `intervals`, `component`, `bike`…
    var key: String?
    /// The word is a key of the mapping under `key` (`intervals:` overrides, `snooze:` entries).
    var isMapKey = false
    /// The word follows a number (`every: 10 h`, `every: [3000 km, 6 mo`): a unit.
    var isUnit = false
    /// Bytes of the word around the cursor, and the part before the cursor (what completion matches).
    var word: Swift.Range<Int>
    var typed: Swift.Range<Int>

    init(_ text: SourceText, at position: Position) {
        let bytes = text.bytes
        let cursor = text.offset(of: position)
        let line = text.lineRange(text.position(ofByte: cursor).line + 1) ?? cursor..<cursor
        func isWord(_ b: UInt8) -> Bool { b >= 0x80 || (b >= 48 && b <= 57) || (b | 0x20 >= 97 && b | 0x20 <= 122) || b == 45 || b == 95 || b == 46 }
        var start = cursor, end = cursor
        while start > line.lowerBound, isWord(bytes[start - 1]) { start -= 1 }
        while end < line.upperBound, isWord(bytes[end]) { end += 1 }
        word = start..<end
        typed = start..<cursor
        let before = String(decoding: bytes[line.lowerBound..<start], as: UTF8.self)
        if before.last == " " {
            var rest = Substring(before)
            while rest.last == " " { rest.removeLast() }
            let number = rest.reversed().prefix { $0.isNumber || $0 == "." }
            if !number.isEmpty {
                rest.removeLast(number.count)
                while rest.last == " " || rest.last == "," || rest.last == "[" { rest.removeLast() }
                // What stays is `every:` or the list's earlier quantities after it.
                while let last = rest.last, last != ":" && last != "[" { rest.removeLast() }
                if rest.last == "[" { rest.removeLast() }
                if Self.inlineKey(String(rest) + " ") == "every" {
                    key = "every"
                    isUnit = true
                    return
                }
            }
        }
        if let mapping = Self.flowMappingKey(before) {
            key = mapping
            isMapKey = true
            return
        }
        if let inline = Self.inlineKey(before) {
            key = inline
            return
        }
        let trimmed = before.trimmingCharacters(in: .whitespaces)
        guard trimmed.isEmpty || trimmed == "-" else { return }
        // A block list item or a mapping key: the key is on the nearest line above that is less
        // indented (or, for a list item, as indented: `done:` then `- chain-lube`).
        let indent = before.prefix { $0 == " " }.count
        let item = trimmed == "-"
        var number = text.position(ofByte: line.lowerBound).line
        while number >= 1 {
            guard let above = text.line(number) else { break }
            number -= 1
            let content = above.drop { $0 == " " }
            if content.isEmpty || content.hasPrefix("#") { continue }
            let aboveIndent = above.count - content.count
            if aboveIndent < indent || (item && aboveIndent == indent && !content.hasPrefix("-")) {
                if let k = Self.blockKey(String(content)) {
                    key = k
                    isMapKey = !item
                }
                return
            }
        }
    }

    /// `templates: [road, gr` → templates; `- {bike: gr` → bike; `component: ch` → component.
    static func inlineKey(_ before: String) -> String? {
        var s = Substring(before)
        // Inside a flow list: the key before its `[`.
        if let open = s.lastIndex(of: "["), !s[open...].contains("]") {
            s = s[..<open]
            while s.last == " " { s.removeLast() }
            guard s.last == ":" else { return nil }
            s.removeLast()
            return lastKey(s)
        }
        while s.last == " " { s.removeLast() }
        guard s.last == ":" else { return nil }
        s.removeLast()
        return lastKey(s)
    }

    /// `readings: {chain-re` or `snooze: {a: 2026-12-01, b` → readings, snooze: the word is a key
    /// of a one-line mapping, the value of that key.
    static func flowMappingKey(_ before: String) -> String? {
        guard let open = before.lastIndex(of: "{"), !before[open...].contains("}") else { return nil }
        let inside = before[before.index(after: open)...]
        let entry = inside.lastIndex(of: ",").map { inside[inside.index(after: $0)...] } ?? inside
        guard !entry.contains(":") else { return nil }
        var s = before[..<open]
        while s.last == " " { s.removeLast() }
        guard s.last == ":" else { return nil }
        s.removeLast()
        return lastKey(s)
    }

    /// The key a line such as `  done:` or `- done:` opens, if nothing follows it.
    static func blockKey(_ content: String) -> String? {
        var s = Substring(content)
        if let hash = s.range(of: " #") { s = s[..<hash.lowerBound] }
        while s.last == " " { s.removeLast() }
        guard s.last == ":" else { return nil }
        s.removeLast()
        return lastKey(s)
    }

    private static func lastKey(_ s: Substring) -> String? {
        let key = s.reversed().prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        return key.isEmpty ? nil : String(key.reversed())
    }
}

/// Completion, go-to-definition and hover in one garage file, from the garage of the last check
/// (`CompletionCandidates` gives the names, as it does to the shells).
struct CompletionProvider {
    var garage: Garage
    var root: String
    /// The file, relative to the garage.
    var file: String
    var text: SourceText
    /// The client takes snippets: a new interval's and a log entry's come with placeholders.
    var snippets = false

    /// What the file is about: `bikes/grail.yaml` → grail (a bike or a part id).
    private var subject: String? {
        let parts = file.split(separator: "/")
        guard parts.count == 2, ["bikes", "gear", "parts"].contains(parts[0]) else { return nil }
        return (String(parts[1]) as NSString).deletingPathExtension
    }

    private var isTemplate: Bool { file.hasPrefix("templates/") }

    private func candidates(_ prefix: String) -> CompletionCandidates {
        var c = CompletionCandidates(words: ["bikecheck", "--garage", root], prefix: prefix, environment: [:], workingDirectory: root)
        c.loaded = garage
        return c
    }

    func items(at position: Position) -> [CompletionItem] {
        let context = CursorContext(text, at: position)
        let prefix = String(decoding: text.bytes[context.typed], as: UTF8.self)
        let names = candidates(prefix)
        let range = text.range(of: SourceRange(start: at(context.typed.lowerBound), end: at(context.typed.upperBound)))
        func item(_ label: String, _ kind: Int, _ detail: String?) -> CompletionItem {
            CompletionItem(label: label, kind: kind, detail: detail, documentation: nil, textEdit: TextEdit(range: range, newText: label))
        }
        if context.isUnit {
            return Quantity.units.keys.filter { $0.hasPrefix(prefix) }.sorted().map { item($0, 11, "unit") }
        }
        switch (context.key, context.isMapKey) {
        case ("templates", false):
            return names.templates.map { id in item(id, 7, garage.templates.first { $0.id.rawValue == id }?.name) }
        case ("intervals", true):
            // A new interval, and (in a bike's or part's file) the ids of those it has, to override.
            return (isTemplate ? [] : names.intervals(of: subject).map { id in item(id, 12, task(of: id)) })
                + [snippet("new interval", context.typed, intervalSnippet)]
        case ("log", false) where text.bytes[..<context.typed.lowerBound].last(where: { $0 != 32 }) == UInt8(ascii: "-"):
            // A new entry's keys, and the entry as a whole.
            return keys(at: position) + [snippet("new log entry", context.typed, logSnippet)]
        case ("done", false), ("snooze", true), ("readings", true):
            return names.intervals(of: subject).map { id in item(id, 12, task(of: id)) }
        case ("component", false), ("replaces", false):
            return names.parts(of: isTemplate ? nil : subject).map { item($0, 5, "component") }
        case ("bike", false):
            return names.bikes.map { id in item(id, 7, garage.bikes.first { $0.bike.id.rawValue == id }?.bike.name) }
        default:
            return keys(at: position)
        }
    }

    /// A new interval under `intervals:` (`id`, task, `every`), as a snippet with placeholders
    /// or as plain text, each line indented as the cursor's.
    private var intervalSnippet: (snippet: String, plain: String) {
        (
            "${1:new-interval}:\n  task: ${2:What to do}\n  every: ${3:10 h}$0",
            "new-interval:\n  task: What to do\n  every: 10 h"
        )
    }

    /// A log entry after `- ` under `log:`: today's date and the intervals done.
    private var logSnippet: (snippet: String, plain: String) {
        ("date: ${1:YYYY-MM-DD}\ndone: [${2}]$0", "date: YYYY-MM-DD\ndone: []")
    }

    /// A completion item that inserts `text` (a snippet when the client takes them) in place of
    /// what was typed, its later lines indented as the cursor's line.
    private func snippet(_ label: String, _ typed: Swift.Range<Int>, _ inserted: (snippet: String, plain: String)) -> CompletionItem {
        let lineStart = text.bytes[..<typed.lowerBound].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        let indent = String(repeating: " ", count: typed.lowerBound - lineStart)
        let body = (snippets ? inserted.snippet : inserted.plain).replacingOccurrences(of: "\n", with: "\n" + indent)
        let range = text.range(ofBytes: typed)
        return CompletionItem(
            label: label, kind: 15, detail: nil, documentation: nil, textEdit: TextEdit(range: range, newText: body), insertTextFormat: snippets ? 2 : nil)
    }

    /// At a key's place: the keys the file's JSON Schema allows in that mapping and it does not
    /// have yet, each with the schema's description.
    private func keys(at position: Position) -> [CompletionItem] {
        guard let schema = SchemaKeys(file: file), let place = KeyPosition(text, at: position) else { return [] }
        let prefix = String(decoding: text.bytes[place.typed], as: UTF8.self)
        let range = text.range(ofBytes: place.typed)
        return schema.keys(at: place.path, except: place.present).filter { $0.name.hasPrefix(prefix) }.map { key in
            CompletionItem(
                label: key.name, kind: 10, detail: nil, documentation: key.documentation.map { MarkupContent(value: $0) },
                textEdit: TextEdit(range: range, newText: key.name + (key.takesScalar ? ": " : ":")))
        }
    }

    private func at(_ offset: Int) -> SourcePosition { SourcePosition(offset: offset, line: 0, column: 0) }

    private func task(of interval: String) -> String? {
        let bikes = garage.bikes.filter { $0.bike.id.rawValue == subject }
        return (bikes.isEmpty ? garage.bikes : bikes).lazy.flatMap(\.intervals).first { $0.id.rawValue == interval }?.task
    }

    /// Where the id under the cursor is defined: a file relative to the garage and a span of it
    /// (nil: the start of the file).
    func definition(at position: Position) -> (file: String, range: SourceRange?)? {
        let context = CursorContext(text, at: position)
        let word = String(decoding: text.bytes[context.word], as: UTF8.self)
        guard !word.isEmpty else { return nil }
        switch (context.key, context.isMapKey) {
        case ("done", false), ("snooze", true), ("intervals", true), ("readings", true):
            if let found = intervalDefinition(word) { return found }
        case ("component", false), ("replaces", false):
            let bike = garage.bikes.first { $0.bike.id.rawValue == subject }
            if let component = bike?.bike.component(ComponentID(word)) { return (component.location.file, component.location.range) }
        default: break
        }
        if context.key == "templates" || context.key == nil || context.key == "bike" {
            if let t = garage.templates.first(where: { $0.id.rawValue == word }) { return (t.location.file, nil) }
            if let b = garage.bikes.first(where: { $0.bike.id.rawValue == word }) { return (b.bike.location.file, nil) }
            if let p = garage.parts.first(where: { $0.part.id.rawValue == word }) { return (p.part.location.file, nil) }
        }
        return nil
    }

    /// An interval of this file's bike or part: where its template defines it, else where the
    /// bike or part does.
    private func intervalDefinition(_ word: String) -> (file: String, range: SourceRange?)? {
        let id = IntervalID(word)
        let own: [IntervalSpec]
        let resolved: [ResolvedInterval]
        if let bike = garage.bikes.first(where: { $0.bike.id.rawValue == subject }) {
            (own, resolved) = (bike.bike.intervals, bike.intervals)
        } else if let part = garage.parts.first(where: { $0.part.id.rawValue == subject }) {
            (own, resolved) = (part.part.intervals, part.intervals)
        } else {
            return nil
        }
        if let template = resolved.first(where: { $0.id == id })?.template,
            let spec = garage.templates.first(where: { $0.id == template })?.intervals.first(where: { $0.id == id })
        {
            return (spec.location.file, spec.location.range)
        }
        if let spec = own.first(where: { $0.id == id }) { return (spec.location.file, spec.location.range) }
        return nil
    }

    /// The interval under the cursor that `bikecheck done` can log for this file's bike or part:
    /// an id under `intervals:` or `snooze:`, or in a log entry's `done:`, that it has (its own
    /// or from its templates).
    func loggableInterval(at position: Position) -> (subject: String, interval: String)? {
        guard let subject else { return nil }
        let context = CursorContext(text, at: position)
        switch (context.key, context.isMapKey) {
        case ("done", false), ("snooze", true), ("intervals", true): break
        default: return nil
        }
        let word = String(decoding: text.bytes[context.word], as: UTF8.self)
        let intervals = garage.bike(BikeID(subject))?.intervals ?? garage.part(PartID(subject))?.intervals ?? []
        guard !word.isEmpty, intervals.contains(where: { $0.id.rawValue == word }) else { return nil }
        return (subject, word)
    }

    /// On an interval of a bike: its line of `bikecheck status`; on a template id: its
    /// intervals; on a bike id (a part's mount) or on the `name:` of a bike's or part's own
    /// file: its summary, as `status` and `part show` give it.
    func hover(at position: Position, activities: ActivitySummaries, today: Day) -> Hover? {
        let context = CursorContext(text, at: position)
        let word = String(decoding: text.bytes[context.word], as: UTF8.self)
        let range = text.range(ofBytes: context.word)
        let line = text.line(position.line + 1) ?? ""
        if let subject, line.hasPrefix("name:"), let summary = summary(of: subject, activities: activities, today: today) {
            return Hover(contents: MarkupContent(value: summary), range: range)
        }
        guard !word.isEmpty else { return nil }
        switch (context.key, context.isMapKey) {
        case ("done", false), ("snooze", true), ("intervals", true), ("readings", true):
            guard let subject else { return nil }
            let lines = statusText(of: subject, activities: activities, today: today).split(separator: "\n")
            guard let line = lines.first(where: { $0.split(separator: " ").dropFirst(1).contains { $0 == word } }) else { return nil }
            return Hover(contents: MarkupContent(value: "```\n" + line.trimmingCharacters(in: .whitespaces) + "\n```"), range: range)
        case ("templates", false):
            guard let template = garage.templates.first(where: { $0.id.rawValue == word }) else { return nil }
            let intervals = template.intervals.map { "- `\($0.id)`" + ($0.task.map { ": " + $0 } ?? "") }
            return Hover(contents: MarkupContent(value: (["**\(template.name)**"] + intervals).joined(separator: "\n")), range: range)
        case ("bike", false):
            return summary(of: word, activities: activities, today: today).map { Hover(contents: MarkupContent(value: $0), range: range) }
        default:
            return nil
        }
    }

    /// `bikecheck status ID` for a bike or a part, as text.
    private func statusText(of id: String, activities: ActivitySummaries, today: Day) -> String {
        let isBike = garage.bike(BikeID(id)) != nil
        let report = StatusPlanner(asOf: today).plan(
            garage, summaries: activities, only: isBike ? [BikeID(id)] : [], parts: isBike ? [] : [PartID(id)])
        return StatusTextRenderer().render(report).string
    }

    /// A bike's (or gear's) or a part's summary: its name and kind, then what `bikecheck status ID` says of
    /// its intervals and, for a part, what `bikecheck part show ID` says of where it has been.
    private func summary(of id: String, activities: ActivitySummaries, today: Day) -> String? {
        var blocks: [String]
        if let bike = garage.bike(BikeID(id)) {
            blocks = ["**\(bike.bike.name)** (\(bike.bike.noun) `\(id)`)", statusText(of: id, activities: activities, today: today)]
        } else if let part = garage.part(PartID(id)) {
            let lives = StatusPlanner(asOf: today).lives(garage, summaries: activities, only: [part.part.id])
            blocks = [
                "**\(part.part.name)** (part `\(id)`)", statusText(of: id, activities: activities, today: today),
                PartLifeTextRenderer().renderShow(lives).string,
            ]
        } else {
            return nil
        }
        for i in blocks.indices.dropFirst() {
            blocks[i] = "```text\n" + blocks[i].trimmingCharacters(in: .newlines) + "\n```"
        }
        return blocks.joined(separator: "\n\n")
    }
}
