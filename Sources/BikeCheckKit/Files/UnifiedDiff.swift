/// A unified diff of two versions of a file, as `git diff` prints it, for `--dry-run`.
package enum UnifiedDiff {
    /// The diff of `old` (nil: a new file) and `new`, labelled with `path`; empty when equal.
    package static func diff(path: String, old: [UInt8]?, new: [UInt8], context: Int = 3) -> String {
        if let old, old == new { return "" }
        let a = old.map(lines) ?? []
        let b = lines(new)
        let ops = script(a, b)
        var out = "--- " + (old == nil ? "/dev/null" : "a/" + path) + "\n+++ b/" + path + "\n"
        // Group changes into hunks with `context` unchanged lines around them.
        var i = 0
        while i < ops.count {
            guard ops[i].kind != .same else { i += 1; continue }
            var start = i
            var back = 0
            while start > 0, back < context, ops[start - 1].kind == .same { start -= 1; back += 1 }
            // `trailing` counts the unchanged lines at the end of ops[i..<end]. A gap of up to
            // 2 × context unchanged lines joins the next change into this hunk; a longer one
            // ends it with exactly `context` lines after the last change.
            var end = i
            var trailing = 0
            while end < ops.count {
                if ops[end].kind == .same {
                    if trailing == 2 * context { break }
                    trailing += 1
                } else {
                    trailing = 0
                }
                end += 1
            }
            end -= max(0, trailing - context)
            let hunk = ops[start..<end]
            let oldStart = hunk.first.map { $0.oldLine } ?? 0
            let newStart = hunk.first.map { $0.newLine } ?? 0
            let oldCount = hunk.filter { $0.kind != .added }.count
            let newCount = hunk.filter { $0.kind != .removed }.count
            out += "@@ -\(range(oldStart, oldCount)) +\(range(newStart, newCount)) @@\n"
            for op in hunk {
                let prefix = op.kind == .same ? " " : op.kind == .removed ? "-" : "+"
                var text = op.text
                let terminated = text.last == UInt8(ascii: "\n")
                if terminated { text.removeLast() }
                out += prefix + String(decoding: text, as: UTF8.self) + "\n"
                if !terminated { out += "\\ No newline at end of file\n" }
            }
            i = end
        }
        return out
    }

    private static func range(_ start: Int, _ count: Int) -> String {
        let first = count == 0 ? start - 1 : start
        return count == 1 ? "\(first + 1)" : "\(first + 1),\(count)"
    }

    /// Lines with their line breaks, so a change of the final newline shows.
    static func lines(_ bytes: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var current: [UInt8] = []
        for b in bytes {
            current.append(b)
            if b == UInt8(ascii: "\n") {
                out.append(current)
                current = []
            }
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    struct Op {
        enum Kind { case same, removed, added }
        var kind: Kind
        var text: [UInt8]
        /// 0-based line numbers in the old and new file where this op sits.
        var oldLine: Int
        var newLine: Int
    }

    /// An edit script by longest common subsequence, after trimming the common ends (edits
    /// touch a few lines, so the middle is small).
    static func script(_ a: [[UInt8]], _ b: [[UInt8]]) -> [Op] {
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        let midA = Array(a[prefix..<(a.count - suffix)]), midB = Array(b[prefix..<(b.count - suffix)])
        var ops: [Op] = []
        for k in 0..<prefix { ops.append(Op(kind: .same, text: a[k], oldLine: k, newLine: k)) }
        var middle: [(Op.Kind, [UInt8])] = []
        if midA.count * midB.count > 4_000_000 {
            middle = midA.map { (.removed, $0) } + midB.map { (.added, $0) }
        } else {
            let n = midA.count, m = midB.count
            var table = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
            if n > 0 && m > 0 {
                for i in stride(from: n - 1, through: 0, by: -1) {
                    for j in stride(from: m - 1, through: 0, by: -1) {
                        table[i][j] = midA[i] == midB[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
                    }
                }
            }
            var i = 0, j = 0
            while i < n || j < m {
                if i < n, j < m, midA[i] == midB[j] {
                    middle.append((.same, midA[i])); i += 1; j += 1
                } else if i < n, j == m || table[i + 1][j] >= table[i][j + 1] {
                    middle.append((.removed, midA[i])); i += 1
                } else {
                    middle.append((.added, midB[j])); j += 1
                }
            }
        }
        var oldLine = prefix, newLine = prefix
        for (kind, text) in middle {
            ops.append(Op(kind: kind, text: text, oldLine: oldLine, newLine: newLine))
            if kind != .added { oldLine += 1 }
            if kind != .removed { newLine += 1 }
        }
        for k in 0..<suffix {
            ops.append(Op(kind: .same, text: a[a.count - suffix + k], oldLine: oldLine + k, newLine: newLine + k))
        }
        return ops
    }
}
