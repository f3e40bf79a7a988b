import ArgumentParser
import BikeCheckKit
import Diagnostics
import Foundation

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, always, never
}

extension Day: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}

/// Options every command shares.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The garage folder (default: $BIKECHECK_GARAGE, else the nearest folder upward with garage.yaml).", valueName: "dir"))
    var garage: String?

    @Option(name: .long, help: "Output format.")
    var format: OutputFormat = .text

    @Option(name: .long, help: "Colour: auto means only on a terminal, and never when NO_COLOR is set.")
    var color: ColorChoice = .auto

    /// The garage's folder, or a usage error (exit 2) that says how to point at one.
    func garageRoot() throws -> String {
        do {
            return try GarageLocator.locate(explicit: garage, environment: ProcessInfo.processInfo.environment,
                                            workingDirectory: FileManager.default.currentDirectoryPath)
        } catch {
            Terminal.standardError.write("error: \(error)\n")
            throw ExitCode(2)
        }
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
        let renderer = DiagnosticRenderer(sources: sources, colored: colored(for: .standardError))
        let errors = diagnostics.filter { $0.severity == .error }.count
        let warnings = diagnostics.filter { $0.severity == .warning }.count
        var summary: [String] = []
        if errors > 0 { summary.append("\(errors) error\(errors == 1 ? "" : "s")") }
        if warnings > 0 { summary.append("\(warnings) warning\(warnings == 1 ? "" : "s")") }
        Terminal.standardError.write(renderer.render(diagnostics) + summary.joined(separator: ", ") + "\n")
    }
}

/// An output stream and whether it is a terminal.
struct Terminal {
    let handle: FileHandle
    let descriptor: Int32

    static let standardOutput = Terminal(handle: .standardOutput, descriptor: 1)
    static let standardError = Terminal(handle: .standardError, descriptor: 2)

    var isTerminal: Bool { isatty(descriptor) == 1 }

    func write(_ text: String) { handle.write(Data(text.utf8)) }
}

/// Today on the rider's calendar.
func today() -> Day {
    let c = Calendar.current.dateComponents([.year, .month, .day], from: Date())
    return Day(year: c.year ?? 1970, month: c.month ?? 1, day: c.day ?? 1) ?? Day(ordinal: 0)
}
