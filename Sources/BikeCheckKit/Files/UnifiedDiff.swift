/// A unified diff of two versions of a file, as `git diff` prints it, for `--dry-run`.
package enum UnifiedDiff {
    /// The diff of `old` (nil: a new file) and `new`, labelled with `path`; empty when equal.
    /// Time in proportion to the files, memory to the lines that change: the common lines at
    /// both ends are walked, never copied (a write to a 50 MB file changes a few lines).
    package static func diff(path: String, old: [UInt8]?, new: [UInt8], context: Int = 3) -> String {
        if let old, old == new { return "" }
        let ops = script(old ?? [], new, context: context)
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
    static func lines(_ bytes: ArraySlice<UInt8>) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? bytes.endIndex
            out.append(Array(bytes[start..<end]))
            start = end
        }
        return out
    }

    /// The end of the line that starts at `start` (after its line break).
    static func lineEnd(_ bytes: [UInt8], from start: Int) -> Int {
        bytes[start...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? bytes.count
    }

    /// The start of the line that ends at `end` (after its line break, or the end of the file).
    static func lineStart(_ bytes: [UInt8], endingAt end: Int) -> Int {
        guard end > 0 else { return 0 }
        return bytes[..<(end - 1)].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
    }

    struct Op {
        enum Kind { case same, removed, added }
        var kind: Kind
        var text: [UInt8]
        /// 0-based line numbers in the old and new file where this op sits.
        var oldLine: Int
        var newLine: Int
    }

    /// An edit script by longest common subsequence, after walking past the lines both files
    /// share at their ends (edits touch a few lines, so the middle is small). Only `context` of
    /// those shared lines on each side are in the script: no hunk shows more.
    static func script(_ a: [UInt8], _ b: [UInt8], context: Int = 3) -> [Op] {
        // The common lines at the start: `head` lines, ending at byte `headEnd` of both.
        var head = 0, headEnd = 0
        while headEnd < a.count, headEnd < b.count {
            let endA = lineEnd(a, from: headEnd), endB = lineEnd(b, from: headEnd)
            guard endA == endB, a[headEnd..<endA] == b[headEnd..<endB] else { break }
            head += 1
            headEnd = endA
        }
        // The common lines at the end, not reaching into the head: from `tailA` and `tailB`.
        var tail = 0, tailA = a.count, tailB = b.count
        while tailA > headEnd, tailB > headEnd {
            let startA = lineStart(a, endingAt: tailA), startB = lineStart(b, endingAt: tailB)
            guard startA >= headEnd, startB >= headEnd, a[startA..<tailA] == b[startB..<tailB] else { break }
            tail += 1
            tailA = startA
            tailB = startB
        }
        let midA = lines(a[headEnd..<tailA]), midB = lines(b[headEnd..<tailB])
        var ops: [Op] = []
        // The last `context` lines of the head.
        var before: [[UInt8]] = []
        var end = headEnd
        while before.count < min(context, head) {
            let start = lineStart(a, endingAt: end)
            before.insert(Array(a[start..<end]), at: 0)
            end = start
        }
        for (k, text) in before.enumerated() {
            ops.append(Op(kind: .same, text: text, oldLine: head - before.count + k, newLine: head - before.count + k))
        }
        let middle = lcs(midA, midB)
        var oldLine = head, newLine = head
        for (kind, text) in middle {
            ops.append(Op(kind: kind, text: text, oldLine: oldLine, newLine: newLine))
            if kind != .added { oldLine += 1 }
            if kind != .removed { newLine += 1 }
        }
        // The first `context` lines of the tail.
        var start = tailA
        for k in 0..<min(context, tail) {
            let end = lineEnd(a, from: start)
            ops.append(Op(kind: .same, text: Array(a[start..<end]), oldLine: oldLine + k, newLine: newLine + k))
            start = end
        }
        return ops
    }
    /// The lines of `midA` and `midB` as an edit script by longest common subsequence; past
    /// 4,000,000 pairs of lines, all of one removed and all of the other added.
    static func lcs(_ midA: [[UInt8]], _ midB: [[UInt8]]) -> [(Op.Kind, [UInt8])] {
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
        return middle
    }
}

extension UnifiedDiff {
    /// The changes that turn `old` into `new`, line by line as the diff sees them: each span of
    /// `old`'s bytes that is replaced (empty for an insertion) and what replaces it, in order.
    /// The language server's edits: an editor applies them without touching the other lines.
    package static func changedSpans(_ old: [UInt8], _ new: [UInt8]) -> [(old: Range<Int>, new: [UInt8])] {
        guard old != new else { return [] }
        var lineStarts = [0]
        for (i, byte) in old.enumerated() where byte == UInt8(ascii: "\n") { lineStarts.append(i + 1) }
        func offset(_ line: Int) -> Int { line < lineStarts.count ? min(lineStarts[line], old.count) : old.count }
        var spans: [(old: Range<Int>, new: [UInt8])] = []
        var run: (first: Int, removed: Int, added: [UInt8])?
        for op in script(old, new, context: 0) {
            if op.kind == .same {
                if let r = run { spans.append((offset(r.first)..<offset(r.first + r.removed), r.added)) }
                run = nil
                continue
            }
            var r = run ?? (op.oldLine, 0, [])
            if op.kind == .removed { r.removed += 1 } else { r.added += op.text }
            run = r
        }
        if let r = run { spans.append((offset(r.first)..<offset(r.first + r.removed), r.added)) }
        return spans
    }
}
