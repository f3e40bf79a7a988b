import ArgumentParser
import BikeCheckKit
import Foundation

extension CostReport.Grouping: ExpressibleByArgument {}
extension UsageReport.Period: ExpressibleByArgument {}

/// Loading and printing shared by the report commands: one exhaustive switch over the formats
/// every report prints.
enum ReportOutput {
    /// The garage with its activities' summaries (what status reads: the activity index when it is
    /// warm), or its errors printed (exit 1); unknown bikes are a usage error.
    static func load(_ global: GlobalOptions, bikes: [String]) throws -> LoadedGarage {
        let loaded = GarageLoader.load(at: try global.garageRoot(), options: .init(activities: .summaries, today: today()))
        if loaded.hasErrors {
            global.report(loaded.diagnostics, sources: loaded.sources)
            throw ExitCode(1)
        }
        let known = loaded.garage.bikes.map(\.bike.id.rawValue)
        for name in bikes where !known.contains(name) {
            let hint = likelyMeant(name, among: known).map { "; did you mean '\($0)'?" } ?? ""
            Terminal.standardError.write("error: no bike '\(name)'\(hint)\n  help: bikes: \(known.joined(separator: ", "))\n")
            throw ExitCode(2)
        }
        return loaded
    }

    static func write<Model: Encodable>(_ model: Model, table: ReportTable, as format: ReportFormat) throws {
        switch format {
        case .text: TableTextRenderer(width: terminalWidth()).render(table) { Terminal.standardOutput.write($0) }
        case .json: Terminal.standardOutput.write(json: try JSONOutput.encode(model))
        case .csv: TableCSVRenderer.render(table) { Terminal.standardOutput.write($0) }
        case .markdown: Terminal.standardOutput.write(TableMarkdownRenderer.render(table))
        }
    }

    /// The terminal's width when standard output is one (`COLUMNS` first, as shells set it).
    static func terminalWidth() -> Int? {
        guard Terminal.standardOutput.isTerminal else { return nil }
        if let c = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), c > 0 { return c }
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return nil
    }
}
