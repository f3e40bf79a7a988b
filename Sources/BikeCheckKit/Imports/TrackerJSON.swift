import Diagnostics
import Foundation
import LocatedYAML

/// How the tracker imports read their files: JSON through the YAML reader (JSON is YAML's flow
/// style), so every record is a node with its file, line and column, and a broken file gets the
/// YAML reader's diagnostics in JSON's words; and the values of a record's nodes (of a YAML file's
/// too: Dreeve's gear maintenance uses them). A reader conforms to use them by their names.
protocol TrackerJSONReader {}

/// The YAML reader's limits, its help lines in JSON's words.
private let jsonLimits: YAMLDocument.Limits = {
    var limits = YAMLDocument.Limits()
    limits.help.unclosedList = "end the array with ']', or put a ',' before its next item"
    limits.help.unclosedMapping = "end the object with '}', or put a ',' before its next member"
    limits.help.depth = "a tracker's export nests only a few levels"
    return limits
}()

extension TrackerJSONReader {

    /// A source's root value, or the reader's diagnostics as a refusal (`cannot read 'F' as JSON`).
    static func openJSON(_ source: ImportPlan.Source, help: String? = nil) throws(WriteFailure) -> YAMLNode {
        // JSON allows tabs before its value, YAML only spaces; a space for each keeps every place.
        var bytes = source.bytes
        for i in bytes.indices {
            guard [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) else { break }
            if bytes[i] == 0x09 { bytes[i] = 0x20 }
        }
        let doc = YAMLDocument(path: source.path, bytes: bytes, limits: jsonLimits)
        guard doc.isUsable, let root = doc.root else {
            throw WriteFailure(
                .refused, "cannot read '\(source.path)' as JSON", help: help, diagnostics: doc.diagnostics, sources: [source.path: doc.source])
        }
        return root
    }

    /// Where a node is in its file.
    static func at(_ node: YAMLNode, in source: ImportPlan.Source) -> SourceLocation { SourceLocation(file: source.path, range: node.range) }

    // MARK: - Reading values

    /// A scalar's text; nil for null, a list or an object.
    static func text(_ node: YAMLNode?) -> String? {
        guard case .scalar(let s)? = node, !s.isNull else { return nil }
        let t = s.value.trimmingCharacters(in: .whitespaces)
        return t.isEmpty ? nil : t
    }

    /// A JSON number (a scalar written without quotes) as a number; nil for anything else.
    static func number(_ node: YAMLNode?) -> Double? {
        guard case .scalar(let s)? = node, s.style == .plain, let v = Double(s.value), v.isFinite else { return nil }
        return v
    }

    /// Whether a node is missing or null.
    static func isNull(_ node: YAMLNode?) -> Bool {
        guard let node else { return true }
        if case .scalar(let s) = node { return s.isNull }
        return false
    }

    /// A list's items; none for anything else.
    static func items(_ node: YAMLNode?) -> [YAMLNode] {
        guard case .sequence(let q)? = node else { return [] }
        return q.items
    }

    /// `2025-03-01`, or the day of a timestamp (`2025-03-01T10:00:00.000Z`).
    static func day(_ text: String) -> Day? { Day(String(text.prefix(10))) }

    /// An amount as the garage writes it: `45.99` in its currency, `45.99 USD` in another; nil when
    /// it is not an amount.
    static func amount(_ text: String, currency: String?, garage: Garage) -> String? {
        guard case .success = Money.parseAmount(text[...]) else { return nil }
        guard let currency = currency?.uppercased(), currency != garage.settings.currency else { return text }
        guard currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else { return nil }
        return "\(text) \(currency)"
    }
}
