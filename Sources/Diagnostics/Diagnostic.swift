/// A position in a source file: a UTF-8 byte offset plus the 1-based line and column a person sees.
/// Columns count Unicode scalars, as libyaml's marks and most terminals do.
///
/// Stored in 32 bits each: every node of a parsed file holds two, so a large file's tree is a
/// third smaller, and no file bikecheck reads may be near 2 GiB (see `FileSizeLimit`).
///
/// A position, a range and a location are `public`, not `package`: swiftc 6.3 does not inline a
/// `package` initialiser into another module of the package, `@inlinable @inline(__always)` or
/// not, and the garage cache paid four calls a location (a million locations at 500 bikes).
public struct SourcePosition: Sendable, Hashable, Comparable {
    // Inlinable, as the initialiser and accessors are: the garage cache makes a million
    // positions at 500 bikes, and a call into this module for each part cost a tenth of that.
    @usableFromInline var storedOffset: Int32
    @usableFromInline var storedLine: Int32
    @usableFromInline var storedColumn: Int32

    @inlinable public var offset: Int {
        get { Int(storedOffset) }
        set { storedOffset = Int32(clamping: newValue) }
    }
    @inlinable public var line: Int {
        get { Int(storedLine) }
        set { storedLine = Int32(clamping: newValue) }
    }
    @inlinable public var column: Int {
        get { Int(storedColumn) }
        set { storedColumn = Int32(clamping: newValue) }
    }

    @inlinable @inline(__always) public init(offset: Int, line: Int, column: Int) {
        storedOffset = Int32(clamping: offset)
        storedLine = Int32(clamping: line)
        storedColumn = Int32(clamping: column)
    }

    public static func < (a: SourcePosition, b: SourcePosition) -> Bool { a.offset < b.offset }
}

/// A half-open span of a source file, `start..<end` in bytes.
public struct SourceRange: Sendable, Hashable {
    public var start: SourcePosition
    public var end: SourcePosition

    @inlinable @inline(__always) public init(start: SourcePosition, end: SourcePosition) {
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

    @inlinable @inline(__always) public init(file: String, range: SourceRange? = nil) {
        self.file = file
        self.range = range
    }
}

/// One problem found in user data: a value, never an exception.
package struct Diagnostic: Sendable, Hashable {
    package enum Severity: String, Sendable, Codable, Comparable {
        case error, warning, note

        private var rank: Int { self == .error ? 0 : self == .warning ? 1 : 2 }
        package static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
    }

    /// A secondary location that explains the main one ("first defined here").
    package struct Note: Sendable, Hashable {
        package var message: String
        package var location: SourceLocation

        package init(_ message: String, at location: SourceLocation) {
            self.message = message
            self.location = location
        }
    }

    /// Stable kebab-case identifier, e.g. `bad-quantity`; documented in the README.
    package var id: String
    package var severity: Severity
    /// One sentence, lower case, quoting the offending value.
    package var message: String
    package var location: SourceLocation
    package var notes: [Note]
    /// What to write instead.
    package var help: String?
    /// The text that replaces the location's range to fix it: the name a "did you mean 'x'?"
    /// suggests, set where the suggestion is made (an editor's quick fix reads it, never the
    /// message).
    package var fix: String?
    /// For `too-many-problems`: how many diagnostics of the file it stands for.
    package var omittedCount: Int?
    /// Byte ranges of the location's file that no excerpt may show (a secret written in the file):
    /// each run of them is shown as `****`.
    package var redactions: [Range<Int>] = []

    package init(
        _ severity: Severity, _ id: DiagnosticID, _ message: String, at location: SourceLocation,
        notes: [Note] = [], help: String? = nil
    ) {
        self.id = id.rawValue
        self.severity = severity
        self.message = message
        self.location = location
        self.notes = notes
        self.help = help
    }

    package static func error(
        _ id: DiagnosticID, _ message: String, at location: SourceLocation, notes: [Note] = [], help: String? = nil
    ) -> Diagnostic {
        Diagnostic(.error, id, message, at: location, notes: notes, help: help)
    }

    package static func warning(
        _ id: DiagnosticID, _ message: String, at location: SourceLocation, notes: [Note] = [], help: String? = nil
    ) -> Diagnostic {
        Diagnostic(.warning, id, message, at: location, notes: notes, help: help)
    }

    /// The same diagnostic with `fix` set (nil: none).
    package func fixed(by fix: String?) -> Diagnostic {
        var d = self
        d.fix = fix
        return d
    }
}

extension Diagnostic {
    /// Sorts by file, then position, so output is stable whatever order checks ran in.
    package static func sortedForDisplay(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        diagnostics.enumerated().sorted { a, b in
            let l = a.element.location, r = b.element.location
            if l.file != r.file { return l.file < r.file }
            let lo = l.range?.start.offset ?? -1, ro = r.range?.start.offset ?? -1
            if lo != ro { return lo < ro }
            return a.offset < b.offset
        }.map(\.element)
    }
}

extension Diagnostic {
    /// The most diagnostics shown for one file; the rest are counted in one `too-many-problems`.
    package static let perFileLimit = 50

    /// The one diagnostic that stands for `count` others of a file, located at the first of them.
    package static func tooManyProblems(_ count: Int, at location: SourceLocation, severity: Severity) -> Diagnostic {
        var d = Diagnostic(
            severity, .tooManyProblems, "and \(count) more problem\(count == 1 ? "" : "s") in this file", at: location,
            help: "fix the ones shown and check again; at most \(perFileLimit) are shown for each file")
        d.omittedCount = count
        return d
    }

    /// This diagnostic with a span of its file that excerpts must never show.
    package func redacting(_ range: SourceRange) -> Diagnostic {
        var d = self
        d.redactions.append(range.start.offset..<max(range.start.offset, range.end.offset))
        return d
    }

    /// At most `limit` diagnostics for each run of one file (sort first to group them), the rest
    /// counted in one located `too-many-problems` of their worst severity. Existing
    /// `too-many-problems` diagnostics are merged into it, so limiting twice changes nothing.
    package static func limitedPerFile(_ diagnostics: [Diagnostic], limit: Int = perFileLimit) -> [Diagnostic] {
        var out: [Diagnostic] = []
        var i = diagnostics.startIndex
        while i < diagnostics.endIndex {
            let file = diagnostics[i].location.file
            var kept = 0, omitted = 0
            var first: Diagnostic?
            var worst = Severity.note
            var redactions: [Range<Int>] = []
            while i < diagnostics.endIndex, diagnostics[i].location.file == file {
                let d = diagnostics[i]
                i += 1
                if d.omittedCount == nil, kept < limit {
                    out.append(d)
                    kept += 1
                    continue
                }
                omitted += d.omittedCount ?? 1
                redactions += d.redactions
                if first == nil || (d.omittedCount == nil && first?.omittedCount != nil) { first = d }
                worst = min(worst, d.severity)
            }
            if let first, omitted > 0 {
                // The excerpt under it shows a line an omitted diagnostic may have masked.
                var summary = Diagnostic.tooManyProblems(omitted, at: first.location, severity: worst)
                summary.redactions = redactions
                out.append(summary)
            }
        }
        return out
    }
}

/// User text as quoted in a message: cut to a readable length (the excerpt shows the rest), so a
/// 50 MB value is never echoed whole.
package func shown(_ text: String) -> String {
    // Counts no further into a huge value than it shows.
    var end = text.startIndex
    var count = 0
    while end < text.endIndex, count <= 60 {
        text.formIndex(after: &end)
        count += 1
    }
    return count > 60 ? String(text.prefix(57)) + "…" : text
}

/// Any value as quoted in a message (an id, a key), cut the same way.
package func shown(_ value: some CustomStringConvertible) -> String { shown(value.description) }

extension Diagnostic {
    /// The same diagnostic with its files named from a folder above the garage (`prefix` ends
    /// with `/`, or is empty): a check of several garages names each file from the top.
    package func moved(under prefix: String) -> Diagnostic {
        guard !prefix.isEmpty else { return self }
        var moved = self
        moved.location.file = prefix + location.file
        moved.notes = notes.map { Note($0.message, at: SourceLocation(file: prefix + $0.location.file, range: $0.location.range)) }
        return moved
    }
}
