import ArgumentParser
import BikeCheckKit
import Diagnostics
import Foundation

extension CostReport.Grouping: ExpressibleByArgument {}
extension UsageReport.Period: ExpressibleByArgument {}

/// Loading and printing shared by the report commands: one exhaustive switch over the formats
/// every report prints.
enum ReportOutput {
    /// The garage with its activities' summaries (what status reads: the activity index when it is
    /// warm), or its errors printed (exit 1), and the bikes and parts named (see
    /// `Garage.subjects(named:)`); a name that is neither is a usage error.
    static func load(_ global: GlobalOptions, names: [String], revision: RevisionOption) throws -> (LoadedGarage, ReportSelection) {
        let loaded = try revision.load(try global.garageRoot(), .init(activities: .summaries, today: today()))
        if loaded.hasErrors {
            global.report(loaded.diagnostics, sources: loaded.sources)
            throw ExitCode(1)
        }
        let (selection, notes) = try loaded.garage.subjects(named: names)
        for note in notes { Terminal.standardError.write("note: \(note)\n") }
        return (loaded, selection)
    }

    /// The same for a command that takes bikes only: a part named is a usage error that says why.
    static func loadBikes(_ global: GlobalOptions, names: [String], revision: RevisionOption, command: String, help: String) throws -> LoadedGarage {
        let (loaded, selection) = try load(global, names: names, revision: revision)
        if let part = selection.parts.first { throw UsageError("'\(part.rawValue)' is a part; \(command) takes bikes", help: help) }
        return loaded
    }

    /// `--interval ID` that none of the subjects has: what it is not on and, when parts not named
    /// have it, which (`bikecheck COMMAND PART --interval ID`), else the likely one and the ones
    /// there are.
    static func noInterval(
        _ id: String, command: String, names: [String], everything: String, known: [String], garage: Garage, selection: ReportSelection
    ) -> UsageError {
        let owners = garage.parts.map(\.part.id.rawValue).filter {
            !selection.parts.contains(PartID($0)) && ReportSelection(parts: [PartID($0)]).intervalIDs(in: garage).contains(id)
        }
        let help = owners.first.map { "'\(id)' is an interval of part \(owners.joined(separator: ", ")): bikecheck \(command) \($0) --interval \(id)" }
        let hint = help == nil ? didYouMean(id, among: known) : ""
        let subjects = names.isEmpty ? everything : names.joined(separator: ", ")
        return UsageError("no interval '\(id)' on \(subjects)\(hint)", help: help ?? "intervals: \(known.joined(separator: ", "))")
    }

    /// `git`: the commit the report describes, in its JSON (see `RevisionOption.commit`).
    static func write<Model: Encodable>(_ model: Model, table: ReportTable, as format: ReportFormat, git: @autoclosure () throws -> GarageCommit?) throws {
        switch format {
        case .text: TableTextRenderer(width: Terminal.standardOutput.columns).render(table) { Terminal.standardOutput.write($0) }
        case .json: Terminal.standardOutput.write(json: try JSONOutput.encode(CommitStamped(model, git: try git())))
        case .csv: TableCSVRenderer.render(table) { Terminal.standardOutput.write($0) }
        case .markdown: Terminal.standardOutput.write(TableMarkdownRenderer.render(table))
        }
    }
}
