import ArgumentParser
import BikeCheckKit
import Diagnostics
import Foundation

/// Every format any command prints; each command serves some of them (see Formats.swift).
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, csv, markdown, html

    // The values, said directly (`allValueStrings`: the raw values; `allValueDescriptions`: none,
    // each value being its own description) as ArgumentParser's defaults for a `String` enum say
    // them through a key path and a generic `reduce`: each of those is a conformance look-up of
    // the Swift runtime through every loaded library (about 0.3 M instructions) whenever a
    // command with the option is parsed.
    static var allValueStrings: [String] { allCases.map { $0.rawValue } }
    static var allValueDescriptions: [String: String] { [:] }
}

enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, always, never

    // As `OutputFormat`'s: no look-ups at run time.
    static var allValueStrings: [String] { allCases.map { $0.rawValue } }
    static var allValueDescriptions: [String: String] { [:] }
}

extension Day: ExpressibleByArgument {
    /// What the files accept as a date (`Day.parse`); when it is not one, `explainingDates`
    /// says why.
    public init?(argument: String) {
        guard case .success(let day) = Day.parse(argument) else { return nil }
        self = day
    }

    /// ArgumentParser says only that a value is invalid for an option (`The value '2025-13-01'
    /// is invalid for '--as-of <date>'`); every date option is named `<date>`, so such a message
    /// becomes `Day.parse`'s reason and help, the same the files get.
    static func explainingDates(_ message: String) -> String {
        var lines = message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let first = lines.first, let match = first.firstMatch(of: #/^Error: The value '(.*)' is invalid for '(-[^ ']+) <date>'$/#),
            case .failure(let why) = Day.parse(String(match.1))
        else { return message }
        lines[0] = "Error: \(match.2) \(why.message(String(match.1)))"
        if lines.count > 1, lines[1].hasPrefix("Help:") { lines[1] = "Help: \(Day.help)" }
        return lines.joined(separator: "\n")
    }
}

/// Options every command shares.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long, help: ArgumentHelp("The garage folder (default: $BIKECHECK_GARAGE, else the nearest folder upward with garage.yaml).", valueName: "dir"),
        completion: .directory)
    var garage: String?

    @Option(
        name: .customLong("format"),
        help: ArgumentHelp(
            "Output format; each command says which it prints (a report: text, json, csv, markdown; 'report': html). Default: the first it prints, text but for 'report'.",
            valueName: "format"))
    var requestedFormat: OutputFormat?

    /// The `--format` given, else text.
    var format: OutputFormat { requestedFormat ?? .text }

    @Option(name: .long, help: "Colour: auto means only on a terminal, and never when NO_COLOR is set.")
    var color: ColorChoice = .auto

    /// The garage's folder, or a usage error (exit 2) that says how to point at one. Every run
    /// that finds its garage first clears what killed runs left there (`LocalState.clearLeftovers`).
    func garageRoot() throws -> String {
        let root: String
        do {
            root = try GarageLocator.locate(
                explicit: garage, environment: ProcessInfo.processInfo.environment,
                workingDirectory: FileManager.default.currentDirectoryPath)
        } catch {
            throw UsageError("\(error)")
        }
        LocalState.clearLeftovers(garage: root)
        return root
    }

    func colored(for handle: Terminal) -> Bool {
        switch color {
        case .always: return true
        case .never: return false
        case .auto:
            let env = ProcessInfo.processInfo.environment
            return handle.isTerminal && env["NO_COLOR"].map(\.isEmpty) ?? true && env["TERM"] != "dumb"
        }
    }

    /// Prints diagnostics to standard error, with excerpts, and a one-line count.
    func report(_ diagnostics: [Diagnostic], sources: [String: SourceText]) {
        guard !diagnostics.isEmpty else { return }
        Terminal.standardError.write(Self.rendered(diagnostics, sources: sources, colored: colored(for: .standardError)))
    }

    /// Diagnostics as `validate` prints them, with excerpts, and a one-line count (none: empty).
    static func rendered(_ diagnostics: [Diagnostic], sources: [String: SourceText], colored: Bool) -> TerminalText {
        guard !diagnostics.isEmpty else { return "" }
        let diagnostics = Diagnostic.limitedPerFile(diagnostics)
        let renderer = DiagnosticRenderer(sources: sources, colored: colored)
        let errors = diagnostics.filter { $0.severity == .error }.count
        let warnings = diagnostics.filter { $0.severity == .warning }.count
        var summary: [String] = []
        if errors > 0 { summary.append("\(errors) error\(errors == 1 ? "" : "s")") }
        if warnings > 0 { summary.append("\(warnings) warning\(warnings == 1 ? "" : "s")") }
        return renderer.render(diagnostics) + "\(summary.joined(separator: ", "))\n"
    }
}

/// An output stream and whether it is a terminal: the one way bikecheck prints.
///
/// Text goes out as `TerminalText`, whose interpolated values are escaped, so nothing from a file
/// or from Strava reaches the terminal as control characters; JSON goes out through `write(json:)`.
/// A failed write never crashes: a reader that went away (EPIPE, with SIGPIPE ignored) ends the
/// program quietly with status 141, as the shell reports for tools stopped by SIGPIPE; any other
/// failure (a full disk, /dev/full) is reported on standard error and ends it with status 1.
struct Terminal {
    let descriptor: Int32
    let name: String

    static let standardOutput = Terminal(descriptor: 1, name: "standard output")
    static let standardError = Terminal(descriptor: 2, name: "standard error")

    /// The exit status after a broken pipe: 128 + SIGPIPE.
    static let brokenPipeStatus: Int32 = 141

    var isTerminal: Bool { isatty(descriptor) == 1 }

    /// The columns to fit text to when this is a terminal: `COLUMNS` when set, else the
    /// terminal's width; nil for pipes and files (whole lines), or when neither is known.
    var columns: Int? {
        guard isTerminal else { return nil }
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let n = Int(text), n > 0 { return n }
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    func write(_ text: TerminalText) { write(bytes: Array(text.string.utf8)) }

    /// An HTML page's bytes as `HTMLReportRenderer` wrote them: every value in it was escaped as
    /// it went in (`HTML`), controls included.
    func write(page bytes: [UInt8]) { write(bytes: bytes) }

    /// JSON text, with the scalars JSON leaves raw but terminals act on written as `\u` escapes.
    func write(json: String) { write(bytes: Array(TerminalEscaping.escapeJSON(json).utf8)) }

    private func write(bytes: [UInt8]) {
        if let error = Self.writeAll(bytes, to: descriptor) {
            if error == EPIPE { exit(Self.brokenPipeStatus) }
            let reason = String(cString: strerror(error))
            if descriptor != 2 {
                _ = Self.writeAll(Array("error: cannot write to \(name): \(reason)\n".utf8), to: 2)
            }
            exit(1)
        }
    }

    /// Ends a read command that has written all its output, with status 0, without taking apart
    /// what it loaded: at 500 bikes the garage's values, released one by one as the command
    /// returned, cost 86 M instructions that the process's end does at once. Only after the last
    /// write: every write above goes out unbuffered, and a read command holds no lock and leaves
    /// no file half-written (its caches are written, atomically, while it loads).
    static func endAfterOutput() -> Never { exit(0) }

    /// Writes every byte, retrying after signals and short writes; the errno of a failure.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
        bytes.withUnsafeBytes { buffer -> Int32? in
            var done = 0
            while done < buffer.count {
                let n = Foundation.write(descriptor, buffer.baseAddress! + done, buffer.count - done)
                if n > 0 {
                    done += n
                } else if n < 0, errno == EINTR || errno == EAGAIN {
                    if errno == EAGAIN { usleep(1000) }  // a non-blocking descriptor that is full: wait for room
                    continue
                } else {
                    return n < 0 ? errno : EIO
                }
            }
            return nil
        }
    }
}

/// Today on the rider's calendar.
func today() -> Day {
    Staleness.localDay(Date()) ?? Day(ordinal: 0)
}
