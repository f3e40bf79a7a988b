import Diagnostics

/// A three-way merge of YAML trees: the common ancestor (base), our version and theirs. It
/// plans edits of our file for the edit engine, so our comments and layout stay and only the
/// lines the other side changed are touched.
///
/// The rules: a key changed on one side only is taken from that side; mappings changed on both
/// sides are merged key by key; a list the policy names a set is merged as a set (an item on
/// both sides once, an item the other side removed removed, new items placed by their order
/// key); anything else changed differently on both sides is a conflict, never a silent pick.
package struct YAMLMerge: Sendable {
    /// How a list is merged as a set.
    package struct SetRule: Sendable {
        /// The text that orders items (a `date:`, as `YYYY-MM-DD`); a new item goes before the
        /// first later one when the list is in that order, else at the end. Nil: at the end.
        package var order: (@Sendable (YAMLNode) -> String?)?

        package init(order: (@Sendable (YAMLNode) -> String?)? = nil) { self.order = order }
    }

    /// Which lists are sets, by their path.
    package var sets: @Sendable (YAMLPath) -> SetRule?
    /// Paths the merge leaves as they are in our file (the caller merges them its own way).
    package var skipped: @Sendable (YAMLPath) -> Bool

    package init(sets: @escaping @Sendable (YAMLPath) -> SetRule? = { _ in nil }, skipped: @escaping @Sendable (YAMLPath) -> Bool = { _ in false }) {
        self.sets = sets
        self.skipped = skipped
    }

    /// The edits that bring their changes into ours, and the places both changed differently.
    package struct Plan: Sendable {
        package var edits: [YAMLEdit] = []
        /// One `merge-conflict` error per place, located in our file.
        package var conflicts: [Diagnostic] = []
        /// Where each conflict is, in the same order.
        package var conflictPaths: [YAMLPath] = []
    }

    /// Plans the merge of parsed trees; `ours` must be usable (its path names the file in conflicts).
    package func plan(base: YAMLNode?, ours: YAMLDocument, theirs: YAMLNode) -> Plan {
        var plan = Plan()
        guard let o = ours.root else { return plan }
        var walk = Walk(merge: self, file: ours.path, plan: plan)
        walk.node([], o, base, theirs)
        plan = walk.plan
        return plan
    }

    /// Merges three versions of a file: the merged bytes (our file edited), or the conflicts.
    /// A version that is not one usable YAML document is a conflict too (nothing to merge by tree).
    package func merge(base: [UInt8], ours: [UInt8], theirs: [UInt8], path: String, limits: YAMLDocument.Limits = .init()) -> Result<
        [UInt8], YAMLEditFailure
    > {
        let o = YAMLDocument(path: path, bytes: ours, limits: limits)
        let t = YAMLDocument(path: path + " (theirs)", bytes: theirs, limits: limits)
        // An empty base: the file was added on both sides.
        let b = base.isEmpty ? nil : YAMLDocument(path: path + " (base)", bytes: base, limits: limits)
        for (doc, side) in [(o, "our"), (t, "their")] + (b.map { [($0, "the base")] } ?? []) {
            guard doc.diagnostics.isEmpty, doc.isUsable, doc.root != nil else {
                let at = doc.diagnostics.first?.location ?? SourceLocation(file: path)
                return .failure(
                    YAMLEditFailure(
                        [
                            .error(
                                .mergeConflict,
                                "\(side == "the base" ? side : side + " version") of '\(path)' is not one readable YAML document, so it cannot be merged by its keys",
                                at: SourceLocation(file: path, range: side == "our" ? at.range : nil),
                                help: "merge this file by hand")
                        ] + (side == "our" ? doc.diagnostics : [])))
            }
        }
        let plan = plan(base: b?.root, ours: o, theirs: t.root!)
        guard plan.conflicts.isEmpty else { return .failure(YAMLEditFailure(plan.conflicts)) }
        var bytes = ours
        // One edit at a time: each is planned on the file as the previous one left it.
        for edit in plan.edits {
            do {
                bytes = try YAMLEditor(path: path, bytes: bytes, limits: limits).apply([edit])
            } catch {
                return .failure(
                    YAMLEditFailure(
                        [
                            .error(
                                .mergeConflict, "the other side's change to '\(Self.describe(edit.path))' cannot be made without rewriting more of the file",
                                at: error.diagnostics.first?.location ?? SourceLocation(file: path), help: "merge this file by hand")
                        ]))
            }
        }
        return .success(bytes)
    }

    /// A path as the rider reads it: `components.chain.installed`, `log[2]`.
    package static func describe(_ path: YAMLPath) -> String {
        var text = ""
        for component in path {
            switch component {
            case .key(let k): text += (text.isEmpty ? "" : ".") + k
            case .index(let i): text += "[\(i)]"
            }
        }
        return text.isEmpty ? "(the whole file)" : text
    }

    /// The walk over the three trees, collecting edits and conflicts.
    private struct Walk {
        let merge: YAMLMerge
        let file: String
        var plan: Plan

        /// Both sides have a node at `path`.
        mutating func node(_ path: YAMLPath, _ o: YAMLNode, _ b: YAMLNode?, _ t: YAMLNode) {
            guard !merge.skipped(path) else { return }
            let (os, bs, ts) = (YAMLShape(o), b.map(YAMLShape.init), YAMLShape(t))
            if os == ts || ts == bs { return }
            if case .mapping(let om) = o, case .mapping(let tm) = t {
                var bm: YAMLMapping?
                if case .mapping(let m)? = b { bm = m }
                mapping(path, om, bm, tm)
                return
            }
            if let rule = merge.sets(path), isList(o), isList(t), b.map(isList) ?? true {
                set(path, o, b, t, rule)
                return
            }
            if os == bs {
                replace(path, o, with: t)
                return
            }
            conflict(path, o, b, t)
        }

        /// Key by key: ours' order first, then keys only theirs has.
        mutating func mapping(_ path: YAMLPath, _ o: YAMLMapping, _ b: YAMLMapping?, _ t: YAMLMapping) {
            var keys: [String] = []
            for key in (o.entries + (b?.entries ?? []) + t.entries).compactMap(\.keyText) where !keys.contains(key) { keys.append(key) }
            for key in keys {
                let child = path + [.key(key)]
                guard !merge.skipped(child) else { continue }
                let (ov, bv, tv) = (o[key], b?[key], t[key])
                switch (ov, tv) {
                case (let ov?, let tv?):
                    previousKey[child] = o.entries.compactMap(\.keyText).prefix { $0 != key }.suffix(1).map { $0 }
                    node(child, ov, bv, tv)
                case (nil, let tv?):
                    // Theirs added it (or changed it where we removed it).
                    if let bv {
                        if YAMLShape(bv) != YAMLShape(tv) { conflict(child, nil, bv, tv) }
                    } else {
                        let before = t.entries.compactMap(\.keyText).prefix { $0 != key }.reversed().filter { o[$0] != nil }
                        plan.edits.append(.addKey(key, YAMLValue(tv), in: path, after: Array(before.prefix(1))))
                    }
                case (let ov?, nil):
                    // Theirs removed it: taken when we left it as it was.
                    if let bv {
                        if YAMLShape(bv) == YAMLShape(ov) { plan.edits.append(.removeKey(key, from: path)) } else { conflict(child, ov, bv, nil) }
                    }
                case (nil, nil): break
                }
            }
        }

        /// Their value in place of ours (ours is as the base had it).
        mutating func replace(_ path: YAMLPath, _ o: YAMLNode, with t: YAMLNode) {
            if case .scalar = o {
                plan.edits.append(.set(path, YAMLValue(t)))
                return
            }
            // A collection is replaced whole: its key removed and added again in its place.
            guard case .key(let key)? = path.last else {
                conflict(path, o, nil, t)
                return
            }
            let parent = Array(path.dropLast())
            plan.edits.append(.removeKey(key, from: parent))
            plan.edits.append(.addKey(key, YAMLValue(t), in: parent, after: previousKey[path] ?? []))
        }

        /// The key before each key of ours, for putting a replaced value back in its place.
        var previousKey: [YAMLPath: [String]] = [:]

        func isList(_ node: YAMLNode) -> Bool {
            if case .sequence = node { return true }
            return YAMLShape(node).isEmptyValue
        }

        func items(_ node: YAMLNode?) -> [YAMLNode] {
            if case .sequence(let q)? = node { return q.items }
            return []
        }

        /// A list merged as a set: ours, less what theirs removed, plus what theirs added.
        mutating func set(_ path: YAMLPath, _ o: YAMLNode, _ b: YAMLNode?, _ t: YAMLNode, _ rule: SetRule) {
            let (oi, bi, ti) = (items(o), items(b), items(t))
            let (os, bs, ts) = (oi.map(YAMLShape.init), bi.map(YAMLShape.init), ti.map(YAMLShape.init))
            var added: [YAMLNode] = []
            var addedShapes: [YAMLShape] = []
            for (item, shape) in zip(ti, ts) where !bs.contains(shape) && !os.contains(shape) && !addedShapes.contains(shape) {
                added.append(item)
                addedShapes.append(shape)
            }
            let removed = Set(bs.filter { !ts.contains($0) })
            let removing = os.indices.filter { removed.contains(os[$0]) }
            guard !added.isEmpty || !removing.isEmpty else { return }
            let order = rule.order
            // New items in their order (stable: theirs' order among equals).
            if let order, added.allSatisfy({ order($0) != nil }) {
                added = added.enumerated().sorted { a, b in
                    let (x, y) = (order(a.element)!, order(b.element)!)
                    return x != y ? x < y : a.offset < b.offset
                }.map(\.element)
            }
            guard case .sequence(let q) = o, !q.items.isEmpty else {
                // Ours has no items: theirs' new ones are the list.
                if !added.isEmpty { plan.edits.append(.set(path, .list(added.map(YAMLValue.init)))) }
                return
            }
            if q.isFlow {
                guard removing.isEmpty else {
                    conflict(path, o, b, t, why: "the list is written in '[ ]' and items were removed on the other side")
                    return
                }
                for item in added { plan.edits.append(.append(YAMLValue(item), to: path)) }
                return
            }
            // The list as it will stand after each insertion: each item's order text, and
            // whether it is one theirs removed.
            var current: [(order: String?, removed: Bool)] = oi.indices.map { (order?(oi[$0]), removing.contains($0)) }
            let sorted: Bool = {
                guard order != nil, current.allSatisfy({ $0.order != nil }) else { return false }
                return zip(current, current.dropFirst()).allSatisfy { $0.order! <= $1.order! }
            }()
            for item in added {
                var at = current.count
                if sorted, let key = order?(item), let later = current.firstIndex(where: { $0.order! > key }) { at = later }
                plan.edits.append(.insert(YAMLValue(item), into: path, at: at))
                current.insert((order?(item), false), at: at)
            }
            let gone = current.indices.filter { current[$0].removed }
            if gone.count == current.count, case .key(let key)? = path.last {
                plan.edits.append(.removeKey(key, from: Array(path.dropLast())))
                return
            }
            for index in gone.reversed() { plan.edits.append(.removeItem(index, from: path)) }
        }

        mutating func conflict(_ path: YAMLPath, _ o: YAMLNode?, _ b: YAMLNode?, _ t: YAMLNode?, why: String? = nil) {
            func shown(_ node: YAMLNode?) -> String {
                guard let node else { return "removed" }
                let text = YAMLShape(node).description
                return text.count > 60 ? String(text.prefix(57)) + "…" : text
            }
            let name = YAMLMerge.describe(path)
            let message =
                why.map { "'\(name)' was changed on both sides and cannot be merged: \($0)" }
                ?? "'\(name)' was changed on both sides: here to \(shown(o)), on the other side to \(shown(t))"
            plan.conflictPaths.append(path)
            plan.conflicts.append(
                .error(
                    .mergeConflict, message, at: SourceLocation(file: file, range: o?.range),
                    notes: b.map { [.init("both sides started from \(shown($0))", at: SourceLocation(file: file))] } ?? [],
                    help: "choose one of the two values by hand, then 'git add' the file"))
        }
    }
}

extension YAMLEdit {
    /// The path an edit changes (the list or mapping it adds to, or the value it sets).
    var path: YAMLPath {
        switch self {
        case .set(let p, _): p
        case .addKey(let k, _, let p, _): p + [.key(k)]
        case .append(_, let p): p
        case .insert(_, let p, _): p
        case .removeKey(let k, let p): p + [.key(k)]
        case .removeItem(let i, let p): p + [.index(i)]
        }
    }
}

extension YAMLValue {
    /// A node of a file as a value to write, in its own style.
    package init(_ node: YAMLNode) {
        switch node {
        case .scalar(let s):
            if s.isNull {
                self = .null
            } else {
                self = s.style == .plain ? .plain(s.value) : .text(s.value)
            }
        case .sequence(let q): self = q.isFlow ? .flowList(q.items.map(YAMLValue.init)) : .list(q.items.map(YAMLValue.init))
        case .mapping(let m):
            let pairs = m.entries.compactMap { e in e.keyText.map { YAMLPair($0, YAMLValue(e.value)) } }
            self = m.isFlow ? .flowMapping(pairs) : .mapping(pairs)
        }
    }
}
