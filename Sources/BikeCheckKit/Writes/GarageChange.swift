import Diagnostics

/// One file a write command wants to create or change.
package struct FileChange: Sendable {
    /// Relative to the garage, with `/`.
    package var path: String
    /// The bytes read before planning; nil for a new file.
    package var before: [UInt8]?
    package var after: [UInt8]

    package init(path: String, before: [UInt8]?, after: [UInt8]) {
        self.path = path
        self.before = before
        self.after = after
    }

    package var isChange: Bool { before != after }

    /// Its unified diff; empty when it does not change.
    package var diff: String { UnifiedDiff.diff(path: path, old: before, new: after) }
}

/// What a write command plans to do: the files, a commit message, and lines to tell the rider.
package struct GarageChange: Sendable {
    package var files: [FileChange]
    /// A descriptive commit message, e.g. `grail: chain-lube done 2025-11-16`.
    package var message: String
    /// What happened, one line each, for the terminal.
    package var summary: [String]
    /// What the rider should know of the files as they now are (a warning `validate` would give
    /// the new entry), said at once.
    package var warnings: [Warning]
    /// The garage's files as parsed when the change was planned (`WriteContext.change`): the
    /// re-check after writing parses again only those whose bytes changed.
    package var parsedFiles: ParsedFiles?

    package init(files: [FileChange], message: String, summary: [String] = [], warnings: [Warning] = [], parsedFiles: ParsedFiles? = nil) {
        self.files = files
        self.message = message
        self.summary = summary
        self.warnings = warnings
        self.parsedFiles = parsedFiles
    }

    /// The unified diff of every file that changes.
    package var diff: String {
        files.map(\.diff).joined()
    }
}

/// Why a write did not happen. Nothing was written (or everything was put back), unless the
/// message names a file that could not be put back.
package struct WriteFailure: Error, Sendable {
    package enum Kind: Sendable {
        /// The command line asked for something that does not exist or makes no sense (exit 2).
        case usage
        /// The garage or the change is not safe to write (exit 1).
        case refused
    }

    package var kind: Kind
    package var message: String
    package var help: String?
    package var diagnostics: [Diagnostic]
    package var sources: [String: SourceText]

    package init(_ kind: Kind, _ message: String, help: String? = nil, diagnostics: [Diagnostic] = [], sources: [String: SourceText] = [:]) {
        self.kind = kind
        self.message = message
        self.help = help
        self.diagnostics = diagnostics
        self.sources = sources
    }

    static func usage(_ message: String, help: String? = nil) -> WriteFailure { WriteFailure(.usage, message, help: help) }
    static func refused(_ message: String, help: String? = nil) -> WriteFailure { WriteFailure(.refused, message, help: help) }
}
