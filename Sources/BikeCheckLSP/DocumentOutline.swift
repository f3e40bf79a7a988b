import Diagnostics
import LocatedYAML

/// The outline of a garage file for the editor: its top-level keys, and under `components`,
/// `intervals`, `log`, `mounts` and `snooze` their entries.
struct DocumentOutline {
    var text: SourceText

    var symbols: [DocumentSymbol] {
        // The YAML layer's own limits (the garage's differ only in their help lines, unused here).
        let document = YAMLDocument(path: text.path, bytes: text.bytes)
        guard let root = document.root, case .mapping(let top) = root else { return [] }
        return top.entries.compactMap { entry in
            guard let key = entry.keyText else { return nil }
            var symbol = self.symbol(key, 8, entry)
            switch (key, entry.value) {
            case ("components", .mapping(let m)), ("intervals", .mapping(let m)), ("snooze", .mapping(let m)):
                symbol.children = m.entries.compactMap { e in e.keyText.map { self.symbol($0, key == "components" ? 5 : 6, e) } }
            case ("log", .sequence(let s)), ("mounts", .sequence(let s)), ("rides", .sequence(let s)):
                symbol.children = s.items.map { item in
                    var name = "entry"
                    if case .mapping(let m) = item {
                        name = [m["date"], m["bike"], m["from"]].compactMap { node -> String? in
                            if case .scalar(let s)? = node { return s.value }
                            return nil
                        }.joined(separator: " ")
                    }
                    let range = text.range(of: item.range)
                    return DocumentSymbol(name: name.isEmpty ? "entry" : name, kind: 23, range: range, selectionRange: range)
                }
            default: break
            }
            return symbol
        }
    }

    private func symbol(_ name: String, _ kind: Int, _ entry: YAMLEntry) -> DocumentSymbol {
        let whole = SourceRange(start: entry.key.range.start, end: max(entry.key.range.end, entry.value.range.end))
        return DocumentSymbol(name: name, kind: kind, range: text.range(of: whole), selectionRange: text.range(of: entry.key.range))
    }
}
