import Diagnostics
import LocatedYAML

/// The entries of a mapping with allowed keys, by key. A mapping has a handful, and a bike's log
/// thousands of mappings: a scan costs less than building and hashing a Dictionary for each.
struct Fields {
    fileprivate(set) var entries: [(key: String, entry: YAMLEntry)] = []
    /// Known keys that were written misspelled (`compnents:`): already reported once, so nothing
    /// that follows from their absence is reported again.
    fileprivate(set) var misspelled: Set<String> = []

    /// The last entry with this key, as when the entries were put in a Dictionary one by one.
    subscript(key: String) -> YAMLEntry? { entries.last { $0.key == key }?.entry }
}

/// Reads typed values out of a located YAML tree, collecting a diagnostic for every mistake.
struct NodeReader {
    let file: String
    var diagnostics: [Diagnostic] = []
    /// False: warnings are not built (a caller that keeps errors only, as the merge driver's
    /// check of a merged file: 604 "no currency" messages formatted for nothing on a long log).
    let warnings: Bool

    init(file: String, warnings: Bool = true) {
        self.file = file
        self.warnings = warnings
    }

    func location(_ node: YAMLNode) -> SourceLocation { SourceLocation(file: file, range: node.range) }
    func location(_ range: SourceRange) -> SourceLocation { SourceLocation(file: file, range: range) }

    /// `fix`: what replaces the node's text to fix it (a did-you-mean's name).
    mutating func error(
        _ id: DiagnosticID, _ message: String, _ node: YAMLNode, help: String? = nil, notes: [Diagnostic.Note] = [], fix: String? = nil
    ) {
        diagnostics.append(Diagnostic.error(id, message, at: location(node), notes: notes, help: help).fixed(by: fix))
    }

    /// A `secret-in-garage` error at `node`; `value` (the node itself unless given) is masked in
    /// every excerpt, so the secret never reaches a terminal or a CI log.
    mutating func secret(_ message: String, _ node: YAMLNode, value: YAMLNode? = nil, help: String) {
        diagnostics.append(Diagnostic.error(.secretInGarage, message, at: location(node), help: help).redacting((value ?? node).range))
    }

    mutating func warning(_ id: DiagnosticID, _ message: @autoclosure () -> String, _ node: YAMLNode, help: String? = nil) {
        guard warnings else { return }
        diagnostics.append(.warning(id, message(), at: location(node), help: help))
    }

    /// A key written with no value (`components:`), which reads as an empty collection.
    func isNull(_ node: YAMLNode) -> Bool {
        if case .scalar(let s) = node { return s.isNull }
        return false
    }

    mutating func mapping(_ node: YAMLNode, _ what: String) -> YAMLMapping? {
        if case .mapping(let m) = node { return m }
        error(
            .wrongType, "\(what) should be a mapping of keys to values, found \(node.kindDescription)", node,
            help: "write 'key: value' lines indented under it")
        return nil
    }

    /// The entries of a mapping by key; unknown keys and missing required ones are reported.
    mutating func fields(
        _ m: YAMLMapping, of what: String, allowed: [String], required: [String] = [], at owner: YAMLNode? = nil
    ) -> Fields {
        var found = Fields()
        // One allocation for a log entry's keys, not one for each as they come.
        found.entries.reserveCapacity(m.entries.count)
        for entry in m.entries {
            guard let key = entry.keyText else { continue }
            if allowed.contains(key) {
                found.entries.append((key, entry))
            } else {
                let suggestion = likelyMeant(key, among: allowed)
                if let suggestion { found.misspelled.insert(suggestion) }
                let meant = Suggestion(key, among: allowed)
                let message = "unknown key '\(shown(key))' in \(what)" + meant.hint
                error(.unknownKey, message, entry.key, help: "known keys: \(allowed.joined(separator: ", "))", fix: meant.name)
            }
        }
        for key in required where found[key] == nil && !found.misspelled.contains(key) {
            let node = owner ?? .mapping(m)
            let at = SourceRange(at: node.range.start)
            diagnostics.append(
                .error(
                    .missingKey, "\(what) is missing required key '\(shown(key))'", at: location(at),
                    help: "add '\(key): …'"))
        }
        return found
    }

    mutating func string(_ node: YAMLNode, _ what: String) -> String? {
        guard case .scalar(let s) = node, !s.isNull else {
            error(.wrongType, "\(what) should be text, found \(node.kindDescription)", node)
            return nil
        }
        return s.value
    }

    /// An identifier: letters, digits, '-', '_' and '.', as used in file names and on the command line.
    mutating func identifier(_ node: YAMLNode, _ what: String) -> String? {
        guard let text = string(node, what) else { return nil }
        guard isIdentifier(text) else {
            error(
                .badId, "'\(shown(text))' is not a valid \(what)", node,
                help: "use letters, digits, '-', '_' and '.', e.g. chain-lube")
            return nil
        }
        return text
    }

    mutating func day(_ node: YAMLNode, _ what: String) -> Day? {
        guard let text = string(node, what) else { return nil }
        switch Day.parse(text) {
        case .success(let day): return day
        case .failure(let why):
            error(.badDate, why.message(shown(text)), node, help: Day.help)
            return nil
        }
    }

    /// A plain number from zero (or just above) up to `maximum`, which keeps every sum exact.
    mutating func number(_ node: YAMLNode, _ what: String, allowZero: Bool = true, maximum: Double = 1e9) -> Double? {
        guard case .scalar(let s) = node, s.style == .plain, let value = Double(s.value), !value.isNaN else {
            error(.wrongType, "\(what) should be a number, found \(node.kindDescription)", node, help: "write a plain number, e.g. 45.99")
            return nil
        }
        if !(value <= maximum) {
            error(.numberTooLarge, "\(what) '\(shown(s.value))' is too large (at most \(ActivityCacheFormat.formatNumber(maximum)))", node)
            return nil
        }
        if value < 0 || (!allowZero && value == 0) {
            error(.negativeNumber, "\(what) must be \(allowZero ? "zero or more" : "more than zero"), found '\(shown(s.value))'", node)
            return nil
        }
        return value
    }

    /// An exact amount of money, read from the scalar's text (`45.99`, `45.99 EUR`), never
    /// through a binary floating-point number. Without a code of its own the amount is in
    /// `currency` (the garage's); with neither it is kept and reported, never silently summed.
    mutating func money(_ node: YAMLNode, _ what: String, currency: String?) -> Located<Money>? {
        guard case .scalar(let s) = node, !s.isNull else {
            error(.wrongType, "\(what) should be an amount, found \(node.kindDescription)", node, help: Money.amountHelp)
            return nil
        }
        switch Money.parse(s.value) {
        case .success(var money):
            if money.currency == nil { money.currency = currency }
            return Located(money, at: location(node))
        case .failure(let why):
            let message = why.message(what, shown(s.value))
            switch why {
            case .negative: error(.negativeNumber, message, node)
            case .tooLarge: error(.numberTooLarge, message, node)
            case .tooPrecise, .notAnAmount: error(.badAmount, message, node, help: Money.amountHelp)
            }
        }
        return nil
    }

    mutating func bool(_ node: YAMLNode, _ what: String) -> Bool? {
        if case .scalar(let s) = node, s.style == .plain {
            if s.value == "true" { return true }
            if s.value == "false" { return false }
        }
        error(.wrongType, "\(what) should be true or false, found \(node.kindDescription)", node)
        return nil
    }

    /// A percentage (`80%`, `80 %`) or a fraction (`0.8`), as a fraction between 0 and 1.
    mutating func fraction(_ node: YAMLNode, _ what: String) -> Double? {
        guard case .scalar(let s) = node, !s.isNull else {
            error(.wrongType, "\(what) should be a percentage, found \(node.kindDescription)", node, help: "write e.g. 80%")
            return nil
        }
        var text = s.value.trimmingSpaces()
        var scale = 1.0
        if text.hasSuffix("%") {
            text = String(text.dropLast()).trimmingSpaces()
            scale = 100
        }
        guard let value = Double(text), value.isFinite, value / scale > 0, value / scale < 1 else {
            let hint = scale == 1 && (Double(text) ?? 0) > 1 && (Double(text) ?? 0) < 100 ? "write \(text)% for \(text) percent" : "write e.g. 80%"
            error(.badPercentage, "\(what) '\(shown(s.value))' should be a percentage between 0% and 100%", node, help: hint)
            return nil
        }
        return value / scale
    }

    /// A single quantity or a list of them ("whichever comes first").
    mutating func quantities(_ node: YAMLNode, _ what: String) -> [Quantity]? {
        let items: [YAMLNode]
        switch node {
        case .sequence(let q):
            items = q.items
            if items.isEmpty {
                error(.wrongType, "\(what) is an empty list", node, help: Quantity.accepted)
                return nil
            }
        default: items = [node]
        }
        var result: [Quantity] = []
        var ok = true
        for item in items {
            if let q = quantity(item, what) { result.append(q) } else { ok = false }
        }
        return ok ? result : nil
    }

    mutating func quantity(_ node: YAMLNode, _ what: String) -> Quantity? {
        guard case .scalar(let s) = node, !s.isNull else {
            error(.badQuantity, "\(what) should be a quantity like '10 h', found \(node.kindDescription)", node, help: Quantity.accepted)
            return nil
        }
        switch Quantity.parse(s.value) {
        case .success(let q): return q
        case .failure(.missingUnit):
            error(.badQuantity, "'\(shown(s.value))' has no unit", node, help: Quantity.accepted)
        case .failure(.unknownUnit(let unit)):
            let known = Array(Quantity.units.keys).sorted()
            let meant = Suggestion(unit, among: known)
            error(.badQuantity, "unknown unit '\(shown(unit))' in '\(shown(s.value))'\(meant.hint)", node, help: Quantity.accepted)
        case .failure(.badNumber):
            error(.badQuantity, "'\(shown(s.value))' does not start with a number", node, help: Quantity.accepted)
        case .failure(.tooLarge(let ceiling)):
            error(.quantityTooLarge, "'\(shown(s.value))' is more than any bike will see (at most \(ceiling))", node, help: Quantity.accepted)
        case .failure(.partialMonths):
            error(
                .badQuantity, "'\(shown(s.value))' is not a whole number of months", node,
                help: "months and years count on the calendar; write whole months, or weeks or days: 6 weeks, 45 days")
        case .failure(.notPositive):
            error(
                .nonPositiveQuantity, "'\(shown(s.value))' must be more than zero", node, help: "a limit of zero or less is always due; write a positive amount"
            )
        }
        return nil
    }

    /// A list of texts, or a single text standing for a list of one.
    mutating func stringList(_ node: YAMLNode, _ what: String) -> [Located<String>]? {
        let items: [YAMLNode]
        if case .sequence(let q) = node { items = q.items } else { items = [node] }
        var result: [Located<String>] = []
        for item in items {
            guard let text = string(item, what) else { return nil }
            result.append(Located(text, at: location(item)))
        }
        return result
    }
}

package func isIdentifier(_ text: String) -> Bool {
    // ASCII (almost every id, each file name of every load): its only alphabetic scalars are the
    // letters, so the same answer without looking up Unicode properties.
    if text.utf8.allSatisfy({ $0 < 0x80 }) {
        func letterOrDigit(_ b: UInt8) -> Bool {
            (b | 0x20 >= UInt8(ascii: "a") && b | 0x20 <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
        }
        guard let first = text.utf8.first, letterOrDigit(first) else { return false }
        return text.utf8.allSatisfy { letterOrDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") }
    }
    guard let first = text.unicodeScalars.first, first.properties.isAlphabetic || ("0"..."9").contains(first) else { return false }
    return text.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" || $0 == "." }
}

/// Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours.
func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var twoBack = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                current[j] = min(current[j], twoBack[j - 2] + 1)
            }
        }
        (twoBack, previous, current) = (previous, current, twoBack)
    }
    return previous[b.count]
}
