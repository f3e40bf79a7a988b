import ArgumentParser
import Diagnostics
import Foundation

/// `--quiet`, for the commands that do long work (sync, the imports).
struct ProgressOptions: ParsableArguments {
    @Flag(name: .long, help: "Show no progress line on standard error (it shows only on a terminal anyway).")
    var quiet = false
}

/// Long work's progress as one updating line on standard error, as `git clone` shows it: only
/// when standard error is a terminal and `--quiet` is not given; shown at the start, rewritten at
/// most ten times a second, cut to the terminal's width, and cleared before any other line is
/// written and at the end, so what stays on the screen is the summary alone.
final class ProgressLine {
    let enabled: Bool
    private let label: String
    private var lastWrite = Date.distantPast
    private var latest: String?
    private var shown = false

    init(_ label: String, quiet: Bool) {
        self.label = label
        enabled = !quiet && Terminal.standardError.isTerminal
    }

    /// Shows `text` now when the last update is a tenth of a second old (or `now` is set), else
    /// keeps it for the next update.
    func update(_ text: String, now: Bool = false) {
        guard enabled else { return }
        latest = text
        let time = Date()
        guard now || time.timeIntervalSince(lastWrite) >= 0.1 else { return }
        lastWrite = time
        draw(text)
    }

    /// Clears the line (before another line is written, and at the end).
    func clear() {
        guard shown else { return }
        Terminal.standardError.write("\r\u{1B}[K")
        shown = false
    }

    /// Writes a line of its own to standard error, the progress line redrawn under it.
    func note(_ line: String) { note(text: "\(line)\n") }

    /// Writes text of its own (whole lines) to standard error, the progress line redrawn under it.
    func note(text: TerminalText) {
        let wasShown = shown
        clear()
        Terminal.standardError.write(text)
        if wasShown, let latest { draw(latest) }
    }

    private func draw(_ text: String) {
        var line = "\(label): \(text)"
        let width = (Terminal.standardError.columns ?? 80) - 1
        if line.count > width, width > 1 { line = String(line.prefix(width - 1)) + "…" }
        Terminal.standardError.write("\r\u{1B}[K\(line)")
        shown = true
    }
}
