import BikeCheckKit
import Diagnostics
import Foundation

/// The one place errors and warnings with a help line are written: bikecheck's usage errors,
/// refused writes, failures, stale-data warnings, and ArgumentParser's usage errors restyled.
enum ErrorStyle {
    /// `error: MESSAGE`, then `  help: HELP` when there is one.
    static func render(_ error: UsageError) -> TerminalText { render(message: error.message, help: error.help) }

    static func render(message: String, help: String? = nil) -> TerminalText {
        var text: TerminalText = "error: \(message)\n"
        if let help { text += "  help: \(help)\n" }
        return text
    }

    /// `[FILE:LINE:COLUMN: ]warning: MESSAGE`, its details indented, then `  help: HELP`.
    static func render(_ warning: Warning) -> TerminalText {
        var text: TerminalText = warning.location.map { DiagnosticRenderer.header(of: $0) + " " } ?? ""
        text += "warning: \(warning.message)\n"
        for detail in warning.details { text += "  \(detail)\n" }
        if let help = warning.help { text += "  help: \(help)\n" }
        return text
    }

    /// `note: MESSAGE`: what the rider should know that is neither wrong nor a risk.
    static func render(note: String) -> TerminalText { "note: \(note)\n" }

    /// Each of `notes`, in order, on standard error.
    static func write(notes: [String]) {
        for note in notes { Terminal.standardError.write(render(note: note)) }
    }

    /// Any error as the rider reads it: a usage error with its help, else its description.
    static func render(anyError error: any Error) -> TerminalText {
        (error as? UsageError).map { render($0) } ?? render(message: "\(error)")
    }

    /// Each of `warnings`, in order, on standard error.
    static func write(_ warnings: [Warning]) {
        for warning in warnings { Terminal.standardError.write(render(warning)) }
    }

    /// `warning: MESSAGE [KIND]`, then `  help: HELP`.
    static func render(_ warning: StaleWarning) -> TerminalText { "warning: \(warning.message) [\(warning.kind.rawValue)]\n  help: \(warning.help)\n" }

    /// `Error: Missing …` / `Help: …` / `Usage: …` / `See '…' for more information.` become
    /// `error: missing …`, `  help: …`, `  usage: …`, `  help: see '…'`.
    static func render(_ message: String) -> TerminalText {
        var out: TerminalText = ""
        for raw in message.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if let text = line.dropping(prefix: "Error:") {
                out += "error: \(lowercasingFirst(text))\n"
            } else if let text = line.dropping(prefix: "Help:") {
                out += "  help: \(text)\n"
            } else if let text = line.dropping(prefix: "Usage:") {
                out += "  usage: \(text)\n"
            } else if let text = line.dropping(prefix: "See ") {
                out += "  help: see \(text.hasSuffix(".") ? String(text.dropLast()) : text)\n"
            } else {
                out += out.isEmpty ? "error: \(lowercasingFirst(line))\n" : "  \(line)\n"
            }
        }
        return out
    }

    /// "Missing expected argument" → "missing expected argument"; "URL …" stays.
    static func lowercasingFirst(_ text: String) -> String {
        guard let first = text.first, first.isUppercase, text.dropFirst().first?.isUppercase != true else { return text }
        return first.lowercased() + text.dropFirst()
    }
}

extension String {
    /// The rest after `prefix`, trimmed; nil when the text does not start with it.
    func dropping(prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces) : nil
    }
}
