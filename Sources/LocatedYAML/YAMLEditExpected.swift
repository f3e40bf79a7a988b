import Diagnostics

/// The tree an edit must leave: the old one with exactly one change at `path`, to the node
/// there or to one entry or item of the mapping or list there. Checked against the re-parsed
/// tree node by node, beside the old tree: the meaning (`YAMLShape`) of a whole file is never
/// built, as for a 50 MB bike log two of them cost many times the file.
struct Expected {
    enum Change {
        /// The node at `path` reads back as this.
        case replaced(YAMLShape)
        /// A new entry (with `key`) or item (key nil) at `index` of the mapping or list at `path`.
        case inserted(key: String?, YAMLShape, at: Int)
        /// The entry or item at `index` of the mapping or list at `path` is gone.
        case removed(at: Int)
        /// The list at `path` holds these items: old ones (by index, as they were) and new ones.
        case items([Item])
    }

    enum Item {
        case old(Int)
        case new(YAMLShape)
    }

    var path: YAMLPath
    var change: Change

    /// Whether `new` reads as `old` with exactly this change.
    func isMet(by new: YAMLNode, old: YAMLNode) -> Bool { check(new, old, path[...]) }

    /// Whether `new` reads as `old` with exactly these changes, at paths none of which is inside
    /// another.
    static func allMet(_ expected: [Expected], by new: YAMLNode, old: YAMLNode) -> Bool {
        check(new, old, expected.map { ($0, $0.path[...]) })
    }

    private static func check(_ new: YAMLNode, _ old: YAMLNode, _ pending: [(Expected, ArraySlice<YAMLPathComponent>)]) -> Bool {
        if pending.count == 1, pending[0].1.isEmpty { return pending[0].0.changed(new, old) }
        guard pending.allSatisfy({ !$0.1.isEmpty }) else { return false }
        var matched = 0
        func here(_ component: YAMLPathComponent) -> [(Expected, ArraySlice<YAMLPathComponent>)] {
            pending.filter { $0.1.first == component }.map { ($0.0, $0.1.dropFirst()) }
        }
        switch (old, new) {
        case (.mapping(let o), .mapping(let n)):
            guard o.entries.count == n.entries.count else { return false }
            for j in o.entries.indices {
                let key = o.entries[j].keyText ?? ""
                guard key == (n.entries[j].keyText ?? "") else { return false }
                let inside = here(.key(key))
                matched += inside.count
                guard inside.isEmpty ? YAMLShape.same(n.entries[j].value, o.entries[j].value) : check(n.entries[j].value, o.entries[j].value, inside)
                else { return false }
            }
        case (.sequence(let o), .sequence(let n)):
            guard o.items.count == n.items.count else { return false }
            for j in o.items.indices {
                let inside = here(.index(j))
                matched += inside.count
                guard inside.isEmpty ? YAMLShape.same(n.items[j], o.items[j]) : check(n.items[j], o.items[j], inside) else { return false }
            }
        default:
            return false
        }
        return matched == pending.count
    }

    private func check(_ new: YAMLNode, _ old: YAMLNode, _ path: ArraySlice<YAMLPathComponent>) -> Bool {
        guard let first = path.first else { return changed(new, old) }
        switch (first, old, new) {
        case (.key(let k), .mapping(let o), .mapping(let n)):
            guard o.entries.count == n.entries.count, let i = o.entries.firstIndex(where: { ($0.keyText ?? "") == k }) else { return false }
            for j in o.entries.indices {
                guard (o.entries[j].keyText ?? "") == (n.entries[j].keyText ?? "") else { return false }
                let same = j == i ? check(n.entries[j].value, o.entries[j].value, path.dropFirst()) : YAMLShape.same(n.entries[j].value, o.entries[j].value)
                guard same else { return false }
            }
            return true
        case (.index(let i), .sequence(let o), .sequence(let n)):
            guard o.items.count == n.items.count, o.items.indices.contains(i) else { return false }
            for j in o.items.indices {
                let same = j == i ? check(n.items[j], o.items[j], path.dropFirst()) : YAMLShape.same(n.items[j], o.items[j])
                guard same else { return false }
            }
            return true
        default:
            return false
        }
    }

    /// The node at `path`: the change, and everything else in it as it was.
    private func changed(_ new: YAMLNode, _ old: YAMLNode) -> Bool {
        switch (change, old, new) {
        case (.items(let items), .sequence(let o), .sequence(let n)):
            guard n.items.count == items.count else { return false }
            for (item, node) in zip(items, n.items) {
                switch item {
                case .old(let k): guard o.items.indices.contains(k), YAMLShape.same(node, o.items[k]) else { return false }
                case .new(let shape): guard YAMLShape(node) == shape else { return false }
                }
            }
            return true
        case (.replaced(let shape), _, _):
            return YAMLShape(new) == shape
        case (.inserted(let key?, let shape, let index), .mapping(let o), .mapping(let n)):
            guard n.entries.count == o.entries.count + 1, (0...o.entries.count).contains(index) else { return false }
            for j in n.entries.indices {
                if j == index {
                    guard n.entries[j].keyText == key, YAMLShape(n.entries[j].value) == shape else { return false }
                } else {
                    let was = o.entries[j < index ? j : j - 1]
                    guard (n.entries[j].keyText ?? "") == (was.keyText ?? ""), YAMLShape.same(n.entries[j].value, was.value) else { return false }
                }
            }
            return true
        case (.inserted(nil, let shape, let index), .sequence(let o), .sequence(let n)):
            guard n.items.count == o.items.count + 1, (0...o.items.count).contains(index) else { return false }
            for j in n.items.indices {
                let same = j == index ? YAMLShape(n.items[j]) == shape : YAMLShape.same(n.items[j], o.items[j < index ? j : j - 1])
                guard same else { return false }
            }
            return true
        case (.removed(let index), .mapping(let o), .mapping(let n)):
            guard o.entries.indices.contains(index), n.entries.count == o.entries.count - 1 else { return false }
            for j in n.entries.indices {
                let was = o.entries[j < index ? j : j + 1]
                guard (n.entries[j].keyText ?? "") == (was.keyText ?? ""), YAMLShape.same(n.entries[j].value, was.value) else { return false }
            }
            return true
        case (.removed(let index), .sequence(let o), .sequence(let n)):
            guard o.items.indices.contains(index), n.items.count == o.items.count - 1 else { return false }
            for j in n.items.indices {
                guard YAMLShape.same(n.items[j], o.items[j < index ? j : j + 1]) else { return false }
            }
            return true
        default:
            return false
        }
    }
}
