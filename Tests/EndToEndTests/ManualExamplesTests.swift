import Foundation
import TestSupport
import Testing

/// The manual is the contract: every fenced block of README.md and docs/*.md that shows
/// `$ bikecheck …` runs as cram, trycmd and shelltest run a page. Each block gets a fresh copy of
/// example-garage; its `$ ` lines run in order in one shell (so `cd` and variables carry; `> `
/// lines continue a command; a comment after two spaces is left out), and each `bikecheck`
/// command's output, standard output and error together, must be the lines the page shows under
/// it. A line that is only `…` (or `...`) stands for any lines; trailing blanks are ignored.
/// `BIKECHECK_RECORD=1` writes what each command printed into the page instead (keeping its `…`
/// lines where it can), and fails every example it recorded, as the golden files do.
@Suite struct ManualExamplesTests {
    @Test(arguments: Manual.examples)
    func theExamplePrintsWhatThePageShows(_ example: ManualExample) throws {
        let outputs = try example.run()
        if isRecordingGoldenFiles {
            try Manual.record(example, outputs: outputs)
            Issue.record(
                "recorded \(example) (BIKECHECK_RECORD=1): review the diff (git diff README.md docs/), then run the tests again without it",
                sourceLocation: example.sourceLocation(example.commands[0]))
            return
        }
        for (command, output) in zip(example.commands, outputs) {
            guard let output, !command.matches(output.lines) else { continue }
            Issue.record(
                """
                \(example.page):\(command.line): `\(command.command)` printed other than the page shows (exit \(output.status)); \
                if the new output is right, re-record the pages with BIKECHECK_RECORD=1 and review the diff
                \(unifiedDiff(command.trimmedShown, command.recorded(output.lines), page: example.page, firstLine: command.firstShownLine + 1))
                """, sourceLocation: example.sourceLocation(command))
        }
    }

    /// A page whose fences went wrong (one left open, a `$ bikecheck` indented) would drop its
    /// examples from the test without a word: every `$ bikecheck` line of the pages must be a
    /// command the test runs.
    @Test func everyBikecheckLineOfTheManualIsAnExampleTheTestRuns() throws {
        var shown = 0
        for page in Manual.pages {
            let text = try String(contentsOf: repositoryRoot.appendingPathComponent(page), encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                .filter { $0.element.hasPrefix("$ bikecheck ") }.map { $0.offset + 1 }
            let run = Manual.examples.filter { $0.page == page }.flatMap(\.commands).filter(\.isBikecheck).map(\.line)
            #expect(run == lines, "\(page): lines \(lines) show `$ bikecheck`, the test runs \(run)")
            shown += lines.count
        }
        #expect(shown >= 10, "the manual shows \(shown) `$ bikecheck` examples")
        #expect(Manual.examples.contains { $0.page == "README.md" })
    }

    /// How a page is read: fences, `$ ` and `> ` lines, the page's comments, blocks that run
    /// nothing of bikecheck's.
    @Test func aPageIsReadAsCramReadsIt() {
        let page = """
            ```sh
            make something   # no `$ `: not an example
            ```
            ```
            $ git status
            ```
            ```
            $ sed -i 's/a/b/' f.yaml      # set-up
            $ bikecheck costs \\
            > --as-of 2026-11-15
            line 1
            > not a continuation once output began
            $ bikecheck validate

            ```
            ```
            $ bikecheck open fence
            """
        let examples = Manual.examples(in: "x.md", text: page)
        #expect(examples.count == 1)
        let commands = examples.first?.commands ?? []
        #expect(commands.map(\.line) == [8, 9, 13])
        #expect(commands.map(\.script) == ["sed -i 's/a/b/' f.yaml", "bikecheck costs \\\n--as-of 2026-11-15", "bikecheck validate"])
        #expect(commands.map(\.isBikecheck) == [false, true, true])
        #expect(commands.dropFirst().first?.shown == ["line 1", "> not a continuation once output began"])
        #expect(commands.last?.shown == [""])
        #expect(commands.last?.trimmedShown == [])
    }

    /// A shown `…` stands for any lines (none too); trailing blanks do not count; every other
    /// line must be as printed.
    @Test func anEllipsisStandsForAnyLinesAndEveryOtherLineMustBeAsPrinted() {
        let command = ManualCommand(line: 1, command: "bikecheck x", firstShownLine: 1, shown: ["a", "…", "c", "  ...", "e", "", ""])
        #expect(command.matches(["a", "c", "e"]))
        #expect(command.matches(["a", "b", "b", "c", "d", "e"]))
        #expect(!command.matches(["a", "c"]))
        #expect(!command.matches(["a", "c", "e", "f"]))
        #expect(!command.matches(["a", "C", "e"]))
        #expect(!command.matches(["x", "a", "c", "e"]))
        let empty = ManualCommand(line: 1, command: "bikecheck validate", firstShownLine: 1, shown: [""])
        #expect(empty.matches([]))
        #expect(!empty.matches(["1 error"]))
    }

    /// Recording writes the output and keeps a block's `…` where the output still has lines
    /// around it: each run of shown lines becomes the output's run of its length that agrees best.
    @Test func recordingKeepsTheEllipsesWhereTheOutputStillHasTheLinesAroundThem() {
        let shown = ["total 3", "a 1", "…", "UID:b", "b 1", "…", "last 1"]
        let command = ManualCommand(line: 1, command: "bikecheck x", firstShownLine: 1, shown: shown)
        let output = ["total 4", "a 2", "UID:a", "a 3", "UID:b", "b 2", "UID:c", "c 2", "last 2"]
        #expect(command.recorded(output) == ["total 4", "a 2", "…", "UID:b", "b 2", "…", "last 2"])
        #expect(command.recorded(["total 4"]) == ["total 4"], "too short for the shown runs: the whole output")
        let plain = ManualCommand(line: 1, command: "bikecheck x", firstShownLine: 1, shown: ["old"])
        #expect(plain.recorded(["new", "lines"]) == ["new", "lines"])
    }

    /// The quick start runs `bikecheck status` on the whole demo garage; the tour shows its
    /// tarmac section. The tour's lines must be that section, as they are printed.
    @Test func theQuickStartsStatusShowsTheToursTarmacAsPrinted() throws {
        let tour = try #require(
            Manual.examples.first { $0.page == "README.md" }?.commands.first { $0.command == "bikecheck status tarmac --as-of 2026-11-15" })
        let section = Array(tour.trimmedShown.drop { !$0.hasPrefix("tarmac ") })
        #expect(section.count > 1, "the tour shows tarmac's intervals")
        let garage = try TemporaryFolder(copying: true)
        let whole = try garage.run(["status", "--as-of", "2026-11-15"], environment: ["COLUMNS": "300"])
        #expect(whole.status == 0, "\(whole.stderr)")
        let printed = whole.stdout.split(separator: "\n", omittingEmptySubsequences: false).map { String($0).trimmingTrailingWhitespace() }
        let found = printed.indices.contains { start in Array(printed.dropFirst(start).prefix(section.count)) == section }
        #expect(found, "README.md:\(tour.line): the tour's tarmac section is not in the quick start's status:\n\(whole.stdout)")
    }
}

/// The pages of the manual and their examples.
enum Manual {
    /// README.md, then docs/*.md in name order.
    static let pages: [String] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("docs").path)) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }()

    static let examples: [ManualExample] = pages.flatMap { page in
        (try? String(contentsOf: repositoryRoot.appendingPathComponent(page), encoding: .utf8)).map { examples(in: page, text: $0) } ?? []
    }

    /// The fenced blocks of a page that have a `bikecheck` command, each in order.
    static func examples(in page: String, text: String) -> [ManualExample] {
        var found: [ManualExample] = []
        var block: [ManualCommand]? = nil
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") {
                if let done = block, done.contains(where: \.isBikecheck) {
                    found.append(ManualExample(page: page, ordinal: found.count, commands: done))
                }
                block = block == nil ? [] : nil
                continue
            }
            guard var commands = block else { continue }
            if line.hasPrefix("$ ") {
                commands.append(ManualCommand(line: index + 1, command: String(line.dropFirst(2)), firstShownLine: index + 1, shown: []))
            } else if line.hasPrefix("> "), let last = commands.last, last.shown.isEmpty {
                commands[commands.count - 1].command += "\n" + line.dropFirst(2)
                commands[commands.count - 1].firstShownLine = index + 1
            } else if !commands.isEmpty {
                commands[commands.count - 1].shown.append(String(line).trimmingTrailingWhitespace())
            }
            block = commands
        }
        return found
    }

    /// Pages are written one example at a time: the examples of a page run at once.
    static let pageLock = NSLock()

    /// Writes what `example`'s commands printed into its page, under their `$ ` lines.
    static func record(_ example: ManualExample, outputs: [ManualExample.Output?]) throws {
        pageLock.lock()
        defer { pageLock.unlock() }
        let file = repositoryRoot.appendingPathComponent(example.page)
        let text = try String(contentsOf: file, encoding: .utf8)
        // Another example of the page may have been recorded meanwhile: find this one again.
        guard let current = examples(in: example.page, text: text).first(where: { $0.ordinal == example.ordinal }) else {
            Issue.record("cannot find \(example) again in its page to record it")
            return
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (command, output) in zip(current.commands, outputs).reversed() {
            guard let output, command.isBikecheck else { continue }
            let trailing = command.shown.count - command.trimmedShown.count
            let new = (command.matches(output.lines) ? command.trimmedShown : command.recorded(output.lines)) + Array(command.shown.suffix(trailing))
            lines.replaceSubrange(command.firstShownLine..<(command.firstShownLine + command.shown.count), with: new)
        }
        let updated = lines.joined(separator: "\n")
        if updated != text { try Data(updated.utf8).write(to: file, options: .atomic) }
    }
}

/// One `$ ` line of an example (with its `> ` continuations) and the lines shown under it.
struct ManualCommand: Sendable {
    /// The line of the `$ `, from 1.
    var line: Int
    var command: String
    /// The index (from 0) of the first line shown under the command.
    var firstShownLine: Int
    /// The lines under it, up to the next `$ ` or the fence, trailing blanks cut from each.
    var shown: [String]

    var isBikecheck: Bool { command.hasPrefix("bikecheck ") }

    /// The command the shell runs: a comment after two spaces is the page's, not the shell's.
    var script: String {
        command.replacingOccurrences(of: #"\s{2,}#[^\n]*$"#, with: "", options: .regularExpression)
    }

    /// The shown lines without the blank lines at their end.
    var trimmedShown: [String] { Array(shown.reversed().drop { $0.trimmingCharacters(in: .whitespaces).isEmpty }.reversed()) }

    static func isEllipsis(_ line: String) -> Bool { ["…", "..."].contains(line.trimmingCharacters(in: .whitespaces)) }

    /// Whether `output` (its lines, trailing blanks cut) is what the page shows: each shown line
    /// as it is, an ellipsis line standing for anything (doc_examples.py's regular expression).
    func matches(_ output: [String]) -> Bool {
        let pattern = trimmedShown.map { Self.isEllipsis($0) ? ".*?" : NSRegularExpression.escapedPattern(for: $0 + "\n") }.joined()
        guard let regex = try? NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z", options: [.dotMatchesLineSeparators]) else { return false }
        let text = output.map { $0 + "\n" }.joined()
        return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// What recording writes under the command: the output, keeping the page's `…` lines where
    /// the output still has the shown lines around them (each run of shown lines is replaced by
    /// the run of output lines of its length that agrees with it best, in order); the whole
    /// output when it cannot.
    func recorded(_ output: [String]) -> [String] {
        let shown = trimmedShown
        guard shown.contains(where: Self.isEllipsis) else { return output }
        var runs: [(start: Int, count: Int)] = []
        var index = 0
        while index < shown.count {
            if Self.isEllipsis(shown[index]) {
                index += 1
                continue
            }
            let start = index
            while index < shown.count, !Self.isEllipsis(shown[index]) { index += 1 }
            runs.append((start, index - start))
        }
        func likeness(_ a: String, _ b: String) -> Int {
            if a == b { return 3 }
            return a.prefix { !$0.isNumber } == b.prefix { !$0.isNumber } ? 1 : 0
        }
        var result = shown
        var next = 0
        for (number, run) in runs.enumerated() {
            let left = runs.dropFirst(number + 1).reduce(0) { $0 + $1.count }
            let latest = output.count - left - run.count
            guard latest >= next else { return output }
            var candidates = Array(next...latest)
            if number == 0, run.start == 0 { candidates = [0] }
            if number == runs.count - 1, run.start + run.count == shown.count { candidates = [output.count - run.count] }
            guard let first = candidates.first, first >= next, first <= latest else { return output }
            let best =
                candidates.max { a, b in
                    let sa = (0..<run.count).reduce(0) { $0 + likeness(shown[run.start + $1], output[a + $1]) }
                    let sb = (0..<run.count).reduce(0) { $0 + likeness(shown[run.start + $1], output[b + $1]) }
                    return sa < sb || (sa == sb && a > b)
                } ?? first
            result.replaceSubrange(run.start..<(run.start + run.count), with: output[best..<(best + run.count)])
            next = best + run.count
        }
        return result
    }
}

/// A fenced block of the manual that runs `bikecheck`.
struct ManualExample: Sendable, CustomTestStringConvertible, CustomStringConvertible {
    var page: String
    /// Its place among the page's examples, from 0.
    var ordinal: Int
    var commands: [ManualCommand]

    var testDescription: String { "\(page):\(commands[0].line)" }
    var description: String { testDescription }

    func sourceLocation(_ command: ManualCommand) -> SourceLocation {
        SourceLocation(
            fileID: "bikecheck/" + page, filePath: repositoryRoot.appendingPathComponent(page).path, line: command.line, column: 1)
    }

    /// What a command printed (standard output and error together) and how it exited.
    struct Output: Sendable {
        var lines: [String]
        var status: Int32
    }

    /// Runs the block in one shell, in a fresh copy of example-garage, with the built bikecheck
    /// first on `PATH`, `HOME` in a temporary folder, 300 columns and no colour. Returns each
    /// `bikecheck` command's output (nil for the others).
    func run() throws -> [Output?] {
        let garage = try TemporaryFolder()
        try garage.copyExampleGarage()
        let home = try TemporaryFolder()
        let exit = "__EXIT_\(UUID().uuidString)_"
        let mark = "__END_\(UUID().uuidString)__"
        // One stream, as a terminal shows it; no BIKECHECK_ variable of the test's run leaks in.
        var script = "exec 2>&1\nfor v in $(compgen -e); do case $v in BIKECHECK_*) unset \"$v\";; esac; done\n"
        for command in commands { script += "\(command.script)\necho \"\(exit)$?\(mark)\"\n" }
        let bin = bikecheckBinary.deletingLastPathComponent().path
        let result = try runProcess(
            URL(fileURLWithPath: "/bin/bash"), ["-c", script], in: garage.url,
            environment: [
                "COLUMNS": "300", "NO_COLOR": "1", "HOME": home.path, "XDG_CONFIG_HOME": home.path + "/cfg",
                "PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
            ])
        let all = result.stdout.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        var outputs: [Output?] = []
        var rest = Substring(all)
        for command in commands {
            var printed = ""
            var status: Int32 = -1
            if let end = rest.range(of: mark + "\n") {
                let before = rest[..<end.lowerBound]
                if let code = before.range(of: exit, options: .backwards) {
                    status = Int32(before[code.upperBound...]) ?? -1
                    printed = String(before[..<code.lowerBound])
                } else {
                    printed = String(before)
                }
                rest = rest[end.upperBound...]
            } else {
                printed = String(rest)
                rest = ""
            }
            guard command.isBikecheck else {
                outputs.append(nil)
                continue
            }
            var text = printed
            while text.hasSuffix("\n") { text.removeLast() }
            let lines = text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0).trimmingTrailingWhitespace() }
            outputs.append(Output(lines: lines, status: status))
        }
        return outputs
    }
}

extension String {
    func trimmingTrailingWhitespace() -> String {
        String(unicodeScalars.reversed().drop { CharacterSet.whitespacesAndNewlines.contains($0) }.reversed().map(Character.init))
    }
}

/// A unified diff of the page's lines (`-`) and the output's (`+`), with two lines of context.
func unifiedDiff(_ page: [String], _ output: [String], page name: String, firstLine: Int) -> String {
    // Longest common subsequence, then the edit script.
    let n = page.count
    let m = output.count
    var table = Array(repeating: Array(repeating: 0, count: m + 1), count: n + 1)
    for i in stride(from: n - 1, through: 0, by: -1) {
        for j in stride(from: m - 1, through: 0, by: -1) {
            table[i][j] = page[i] == output[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
        }
    }
    var edits: [(Character, String)] = []
    var i = 0
    var j = 0
    while i < n || j < m {
        if i < n, j < m, page[i] == output[j] {
            edits.append((" ", page[i]))
            i += 1
            j += 1
        } else if i < n, j == m || table[i + 1][j] >= table[i][j + 1] {
            edits.append(("-", page[i]))
            i += 1
        } else {
            edits.append(("+", output[j]))
            j += 1
        }
    }
    let changed = edits.indices.filter { edits[$0].0 != " " }
    var lines = ["--- \(name):\(firstLine) (the page)", "+++ bikecheck's output"]
    var last = -1
    for index in edits.indices where changed.contains(where: { abs($0 - index) <= 2 }) {
        if last >= 0, index > last + 1 { lines.append("@@ …") }
        lines.append("\(edits[index].0)\(edits[index].1)")
        last = index
    }
    return lines.joined(separator: "\n")
}
