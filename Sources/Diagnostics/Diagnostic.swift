/// A position in a source file: a UTF-8 byte offset plus the 1-based line and column a person sees.
/// Columns count Unicode scalars, as libyaml's marks and most terminals do.
public struct SourcePosition: Sendable, Hashable, Comparable {
    public var offset: Int
    public var line: Int
    public var column: Int

    public init(offset: Int, line: Int, column: Int) {
        self.offset = offset
        self.line = line
        self.column = column
    }

    public static func < (a: SourcePosition, b: SourcePosition) -> Bool { a.offset < b.offset }
}

/// A half-open span of a source file, `start..<end` in bytes.
public struct SourceRange: Sendable, Hashable {
    public var start: SourcePosition
    public var end: SourcePosition

    public init(start: SourcePosition, end: SourcePosition) {
        self.start = start
        self.end = end
    }

    /// An empty range at one position.
    public init(at position: SourcePosition) {
        self.init(start: position, end: position)
    }
}

/// Where something is: a file (relative to the garage) and, when known, a span of it.
public struct SourceLocation: Sendable, Hashable {
    public var file: String
    public var range: SourceRange?

    public init(file: String, range: SourceRange? = nil) {
        self.file = file
        self.range = range
    }
}

/// One problem found in user data: a value, never an exception.
public struct Diagnostic: Sendable, Hashable {
    public enum Severity: String, Sendable, Codable, Comparable {
        case error, warning, note

        private var rank: Int { self == .error ? 0 : self == .warning ? 1 : 2 }
        public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
    }

    /// A secondary location that explains the main one ("first defined here").
    public struct Note: Sendable, Hashable {
        public var message: String
        public var location: SourceLocation

        public init(_ message: String, at location: SourceLocation) {
            self.message = message
            self.location = location
        }
    }

    /// Stable kebab-case identifier, e.g. `bad-quantity`; documented in the README.
    public var id: String
    public var severity: Severity
    /// One sentence, lower case, quoting the offending value.
    public var message: String
    public var location: SourceLocation
    public var notes: [Note]
    /// What to write instead.
    public var help: String?

    public init(
        _ severity: Severity, _ id: String, _ message: String, at location: SourceLocation,
        notes: [Note] = [], help: String? = nil
    ) {
        self.id = id
        self.severity = severity
        self.message = message
        self.location = location
        self.notes = notes
        self.help = help
    }

    public static func error(
        _ id: String, _ message: String, at location: SourceLocation, notes: [Note] = [], help: String? = nil
    ) -> Diagnostic {
        Diagnostic(.error, id, message, at: location, notes: notes, help: help)
    }

    public static func warning(
        _ id: String, _ message: String, at location: SourceLocation, notes: [Note] = [], help: String? = nil
    ) -> Diagnostic {
        Diagnostic(.warning, id, message, at: location, notes: notes, help: help)
    }
}

extension Diagnostic {
    /// Sorts by file, then position, so output is stable whatever order checks ran in.
    public static func sortedForDisplay(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        diagnostics.enumerated().sorted { a, b in
            let l = a.element.location, r = b.element.location
            if l.file != r.file { return l.file < r.file }
            let lo = l.range?.start.offset ?? -1, ro = r.range?.start.offset ?? -1
            if lo != ro { return lo < ro }
            return a.offset < b.offset
        }.map(\.element)
    }
}
