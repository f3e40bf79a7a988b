import CYAML  // memcmp
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
        /// Each conflict's values, in the same order: ours, theirs and where both started (as
        /// written in a message: "removed" for a value a side removed; base nil when it was new).
        package var conflictValues: [(ours: String, theirs: String, base: String?)] = []
        /// The indices of edits that only bring the other side's comments and layout to what an
        /// edit before them added: when one cannot be made, the merge goes on without it.
        package var cosmetic: Set<Int> = []
        /// The edits of a list merged as a set (a range of `edits`), as one `.mergeItems`.
        package var lists: [(edits: Range<Int>, edit: YAMLEdit)] = []

        /// The same changes with each list's edits as one: for `YAMLEditor.applyTogether`.
        package var together: [YAMLEdit] {
            var out: [YAMLEdit] = []
            var at = 0
            for list in lists {
                out += edits[at..<list.edits.lowerBound]
                out.append(list.edit)
                at = list.edits.upperBound
            }
            return out + edits[at...]
        }
    }

    /// Plans the merge of parsed documents; `ours` must be usable (its path names the file in
    /// conflicts). Comments travel with the entries they sit on: an entry whose text only the
    /// other side changed is taken as they wrote it, and a comment changed on one side survives.
    package func plan(base: YAMLDocument?, ours: YAMLDocument, theirs: YAMLDocument) -> Plan {
        var plan = Plan()
        guard let o = ours.root, let t = theirs.root else { return plan }
        var walk = Walk(merge: self, file: ours.path, plan: plan, documents: (base, ours, theirs))
        walk.node([], o, base?.root, t)
        plan = walk.plan
        return plan
    }

    /// Merges three versions of a file: the merged bytes (our file edited), or the conflicts.
    /// A version that is not one usable YAML document is a conflict too (nothing to merge by tree).
    package func merge(base: [UInt8], ours: [UInt8], theirs: [UInt8], path: String, limits: YAMLDocument.Limits = .init()) -> Result<
        [UInt8], YAMLEditFailure
    > {
        mergeDocument(base: base, ours: ours, theirs: theirs, path: path, limits: limits).map(\.source.bytes)
    }

    /// `merge`, giving the merged file as the document its last check parsed (at `path`, with
    /// `limits`), so that a caller reading it need not parse it again.
    package func mergeDocument(base: [UInt8], ours: [UInt8], theirs: [UInt8], path: String, limits: YAMLDocument.Limits = .init()) -> Result<
        YAMLDocument, YAMLEditFailure
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
        let plan = plan(base: b, ours: o, theirs: t)
        guard plan.conflicts.isEmpty else { return .failure(YAMLEditFailure(plan.conflicts)) }
        // All at once, checked with one parse; else (two changes in one place, a cosmetic one
        // that does not read back) one at a time, as planned.
        if plan.edits.count > 1, let merged = try? YAMLEditor.applyTogether(plan.together, to: o) { return .success(merged) }
        var current = o
        // One edit at a time: each is planned on the file as the previous one left it (the
        // document the last edit parsed to check itself, not parsed again).
        for (index, edit) in plan.edits.enumerated() {
            do {
                current = try YAMLEditor.apply(edit, to: current)
            } catch {
                if plan.cosmetic.contains(index) { continue }
                return .failure(
                    YAMLEditFailure(
                        [
                            .error(
                                .mergeConflict, "the other side's change to '\(Self.describe(edit.path))' cannot be made without rewriting more of the file",
                                at: error.diagnostics.first?.location ?? SourceLocation(file: path), help: "merge this file by hand")
                        ]))
            }
        }
        return .success(current)
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
        let documents: (base: YAMLDocument?, ours: YAMLDocument, theirs: YAMLDocument)

        /// Both sides have a node at `path`.
        mutating func node(_ path: YAMLPath, _ o: YAMLNode, _ b: YAMLNode?, _ t: YAMLNode) {
            guard !merge.skipped(path) else { return }
            if !path.isEmpty, path.allSatisfy({ if case .key = $0 { true } else { false } }),
                let ol = documents.ours.lines(at: path), let tl = documents.theirs.lines(at: path)
            {
                guard text(path, o, ol, b, t, tl) else { return }
            }
            if case .mapping(let om) = o, case .mapping(let tm) = t {
                // Even when the meaning is the same on both sides: a comment inside may have changed.
                var bm: YAMLMapping?
                if case .mapping(let m)? = b { bm = m }
                mapping(path, om, bm, tm)
                return
            }
            // By walking the trees: the meaning of a long log is not built to be compared.
            if YAMLShape.same(o, t) || b.map({ YAMLShape.same(t, $0) }) == true { return }
            if let rule = merge.sets(path), isList(o), isList(t), b.map(isList) ?? true {
                set(path, o, b, t, rule)
                return
            }
            if b.map({ YAMLShape.same(o, $0) }) == true {
                replace(path, o, with: t)
                return
            }
            conflict(path, o, b, t)
        }

        /// The entry at `path` by its text (`YAMLLines`), comments included: unchanged on their
        /// side, ours stays; unchanged on ours, theirs is taken as they wrote it; changed on
        /// both, the comments above it and (for a one-line value) after it are merged here, and
        /// true says the value is still to merge by its meaning.
        mutating func text(_ path: YAMLPath, _ o: YAMLNode, _ ol: YAMLLines, _ b: YAMLNode?, _ t: YAMLNode, _ tl: YAMLLines) -> Bool {
            let (ours, theirs) = (documents.ours.source.bytes, documents.theirs.source.bytes)
            let bl = documents.base?.lines(at: path)
            let base = documents.base?.source.bytes ?? []
            // The text after a value starts mid-line: only the lines after it lose their indentation.
            func part(_ bytes: [UInt8], _ range: Range<Int>, _ column: Int, midLine: Bool = false) -> String {
                Self.dedent(String(decoding: bytes[range], as: UTF8.self), by: column, midLine: midLine)
            }
            // Whether two sides' texts are the same once dedented: by their bytes first (a long
            // log's text is compared, not copied, on every merge).
            func same(_ x: [UInt8], _ xl: YAMLLines, _ y: [UInt8], _ yl: YAMLLines) -> Bool {
                if Self.sameBytes(x, xl.start..<xl.end, y, yl.start..<yl.end) { return true }
                if xl.column == 0, yl.column == 0 {
                    return String(decoding: x[xl.start..<xl.end], as: UTF8.self) == String(decoding: y[yl.start..<yl.end], as: UTF8.self)
                }
                return part(x, xl.start..<xl.end, xl.column) == part(y, yl.start..<yl.end, yl.column)
            }
            if same(ours, ol, theirs, tl) || bl.map({ same(base, $0, theirs, tl) }) == true { return false }
            let column = String(repeating: " ", count: ol.column)
            func ourColumn(_ text: String) -> String { Self.indent(text, by: column) }
            if bl.map({ same(base, $0, ours, ol) }) == true {
                plan.edits.append(.replaceLines(path, text: ourColumn(part(theirs, tl.start..<tl.end, tl.column)), shape: YAMLShape(t)))
                return false
            }
            // Changed on both sides: the notes above it, three ways.
            let above = (
                o: part(ours, ol.start..<ol.keyLine, ol.column), t: part(theirs, tl.start..<tl.keyLine, tl.column),
                b: bl.map { part(base, $0.start..<$0.keyLine, $0.column) } ?? ""
            )
            guard let notes = Self.threeWay(above.o, above.b, above.t) else {
                conflict(path, o, b, t, why: "the comments above it were changed differently")
                return false
            }
            guard let ov = ol.valueEnd, let tv = tl.valueEnd, case .scalar = o, case .scalar = t else {
                if notes != above.o {
                    let body = part(ours, ol.keyLine..<ol.end, ol.column)
                    plan.edits.append(.replaceLines(path, text: ourColumn(notes + body), shape: YAMLShape(o)))
                }
                return true
            }
            // A one-line value: the value by its meaning, the comment after it three ways.
            let (os, bs, ts) = (YAMLShape(o), b.map(YAMLShape.init), YAMLShape(t))
            let theirsWins = os != ts && os == bs
            if os != ts, os != bs, ts != bs {
                conflict(path, o, b, t)
                return false
            }
            let after = (
                o: part(ours, ov..<ol.end, ol.column, midLine: true), t: part(theirs, tv..<tl.end, tl.column, midLine: true),
                b: bl.flatMap { l in l.valueEnd.map { part(base, $0..<l.end, l.column, midLine: true) } } ?? ""
            )
            guard let comment = Self.threeWay(after.o, after.b, after.t) else {
                conflict(path, o, b, t, why: "the comments after it were changed differently")
                return false
            }
            let head = theirsWins ? part(theirs, tl.keyLine..<tv, tl.column) : part(ours, ol.keyLine..<ov, ol.column)
            let merged = notes + head + comment
            if merged != part(ours, ol.start..<ol.end, ol.column) {
                plan.edits.append(.replaceLines(path, text: ourColumn(merged), shape: theirsWins ? ts : os))
            }
            return false
        }

        /// After an edit that wrote their new entry or item at `path` in our style: their lines for
        /// it, as they wrote them (comments included), at our indentation `column`. Cosmetic: when
        /// it cannot be made, the entry stays as written in our style.
        mutating func asWritten(_ path: YAMLPath, theirs theirPath: YAMLPath, _ t: YAMLNode, column: Int?) {
            guard let text = written(path, theirs: theirPath, column: column) else { return }
            plan.cosmetic.insert(plan.edits.count)
            plan.edits.append(.replaceLines(path, text: text, shape: YAMLShape(t)))
        }

        /// Their lines for the entry or item at `theirPath`, as `asWritten` writes them at `path`.
        func written(_ path: YAMLPath, theirs theirPath: YAMLPath, column: Int?) -> String? {
            guard let column, path.dropLast().allSatisfy({ if case .key = $0 { true } else { false } }),
                let tl = documents.theirs.lines(at: theirPath)
            else { return nil }
            var text = Self.dedent(String(decoding: documents.theirs.source.bytes[tl.start..<tl.end], as: UTF8.self), by: tl.column)
            if !text.hasSuffix("\n") { text += "\n" }
            return Self.indent(text, by: String(repeating: " ", count: column))
        }

        /// Whether `x[xr]` and `y[yr]` are the same bytes: by `memcmp`, as a long log's text is
        /// compared whole on every merge.
        static func sameBytes(_ x: [UInt8], _ xr: Range<Int>, _ y: [UInt8], _ yr: Range<Int>) -> Bool {
            guard xr.count == yr.count else { return false }
            guard xr.count > 0 else { return true }
            return x[xr].withUnsafeBufferPointer { a in
                y[yr].withUnsafeBufferPointer { b in
                    guard let a = a.baseAddress, let b = b.baseAddress else { return false }
                    return memcmp(a, b, xr.count) == 0
                }
            }
        }

        /// Text changed on at most one side: that side's; nil when both changed it differently.
        static func threeWay(_ o: String, _ b: String, _ t: String) -> String? {
            if o == t || t == b { return o }
            if o == b { return t }
            return nil
        }

        /// Each line without the first `column` spaces (as many as it has).
        static func dedent(_ text: String, by column: Int, midLine: Bool = false) -> String {
            guard column > 0 else { return text }
            var out = ""
            var atStart = !midLine
            var dropped = 0
            for c in text {
                if atStart, c == " ", dropped < column {
                    dropped += 1
                    continue
                }
                atStart = c == "\n" || c == "\r\n"
                dropped = 0
                out.append(c)
            }
            return out
        }

        /// Each line that is not empty indented by `prefix`.
        static func indent(_ text: String, by prefix: String) -> String {
            guard !prefix.isEmpty else { return text }
            var out = ""
            var atStart = true
            for c in text {
                if atStart, c != "\n", c != "\r\n" { out += prefix }
                atStart = c == "\n" || c == "\r\n"
                out.append(c)
            }
            return out
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
                        asWritten(
                            child, theirs: child, tv,
                            column: o.entries.first.flatMap { e in e.keyText.flatMap { documents.ours.lines(at: path + [.key($0)])?.column } })
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
            let (os, bs, ts) = (oi.map(NodeKey.init), bi.map(NodeKey.init), ti.map(NodeKey.init))
            var added: [YAMLNode] = []
            // Where each new item is in their list, for its lines as they wrote them.
            var theirIndex: [NodeKey: Int] = [:]
            // The base's items, each marked when theirs has it too: one look-up (and comparison)
            // for each of their items answers both what they added and what they removed.
            var kept = [NodeKey: Bool](bs.lazy.map { ($0, false) }, uniquingKeysWith: { first, _ in first })
            let ourShapes = Set(os)
            for (index, (item, shape)) in zip(ti, ts).enumerated() {
                if let at = kept.index(forKey: shape) {
                    kept.values[at] = true
                } else if !ourShapes.contains(shape) && theirIndex[shape] == nil {
                    added.append(item)
                    theirIndex[shape] = index
                }
            }
            let removed = Set(kept.lazy.filter { !$0.value }.map(\.key))
            let removing = removed.isEmpty ? [] : os.indices.filter { removed.contains(os[$0]) }
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
            var current: [(order: String?, removed: Bool)] = oi.indices.map { (order?(oi[$0]), removed.contains(os[$0])) }
            // The same list as one edit (`Plan.lists`).
            var merged: [YAMLListItem] = current.indices.map { current[$0].removed ? .removed($0) : .old($0) }
            let firstEdit = plan.edits.count
            let column = documents.ours.lines(at: path + [.index(0)])?.column
            let sorted: Bool = {
                guard order != nil, current.allSatisfy({ $0.order != nil }) else { return false }
                return zip(current, current.dropFirst()).allSatisfy { $0.order! <= $1.order! }
            }()
            for item in added {
                var at = current.count
                if sorted, let key = order?(item) {
                    // The first later item, by halving: the list stays in order as items go in.
                    var (low, high) = (0, current.count)
                    while low < high {
                        let mid = (low + high) / 2
                        if current[mid].order! > key { high = mid } else { low = mid + 1 }
                    }
                    at = low
                }
                plan.edits.append(.insert(YAMLValue(item), into: path, at: at))
                if let index = theirIndex[NodeKey(item)] {
                    asWritten(path + [.index(at)], theirs: path + [.index(index)], item, column: column)
                }
                current.insert((order?(item), false), at: at)
                let text = theirIndex[NodeKey(item)].flatMap { written(path + [.index(at)], theirs: path + [.index($0)], column: column) }
                merged.insert(text.map { .written($0, shape: YAMLShape(item)) } ?? .new(YAMLValue(item)), at: at)
            }
            let gone = current.indices.filter { current[$0].removed }
            if gone.count == current.count, case .key(let key)? = path.last {
                plan.edits.append(.removeKey(key, from: Array(path.dropLast())))
                return
            }
            for index in gone.reversed() { plan.edits.append(.removeItem(index, from: path)) }
            plan.lists.append((firstEdit..<plan.edits.count, .mergeItems(path, merged)))
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
            plan.conflictValues.append((shown(o), shown(t), b.map(shown)))
            plan.conflicts.append(
                .error(
                    .mergeConflict, message, at: SourceLocation(file: file, range: o?.range),
                    notes: b.map { [.init("both sides started from \(shown($0))", at: SourceLocation(file: file))] } ?? [],
                    help: "choose one of the two values by hand, then 'git add' the file"))
        }
    }
}

/// A node compared by its meaning (`YAMLShape.same`) and hashed the same way, without building
/// its `YAMLShape`: a set merge of a long log hashes every entry of three lists. The node is
/// hashed once, when the key is made: a set merge puts each key in several sets. The hash reads
/// a part of what equality compares (equal nodes hash the same): a collection's size and its
/// scalars' texts, a nested collection's size only (a log entry's date and cost, how many
/// services it lists); the few nodes that share a hash are compared whole.
struct NodeKey: Hashable {
    let node: YAMLNode
    private let hashed: Int

    init(_ node: YAMLNode) {
        self.node = node
        var hasher = Hasher()
        Self.hash(node, into: &hasher)
        hashed = hasher.finalize()
    }

    static func == (a: NodeKey, b: NodeKey) -> Bool { a.hashed == b.hashed && YAMLShape.same(a.node, b.node) }

    func hash(into hasher: inout Hasher) { hasher.combine(hashed) }

    /// A collection by its size and its scalars' texts, a nested collection by its size alone.
    static func hash(_ node: YAMLNode, into hasher: inout Hasher) {
        switch node {
        case .scalar(let s): hasher.combine(s.value)
        case .mapping(let m):
            hasher.combine(m.entries.count)
            for e in m.entries { shallow(e.value, into: &hasher) }
        case .sequence(let q):
            hasher.combine(q.items.count)
            for item in q.items { shallow(item, into: &hasher) }
        }
    }

    private static func shallow(_ node: YAMLNode, into hasher: inout Hasher) {
        switch node {
        case .scalar(let s): hasher.combine(s.value)
        case .mapping(let m): hasher.combine(m.entries.count)
        case .sequence(let q): hasher.combine(q.items.count)
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
        case .replaceLines(let p, _, _): p
        case .mergeItems(let p, _): p
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
