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
    /// `rider` (`--rider NAME`): of those, the rider's own (`Garage.selection(of:)`, the one
    /// answer status uses too, `allTime` for the reports over a span); a rider with nothing to
    /// show gets an empty report, never everyone's, as of `asOf` (`--as-of`; without it the
    /// `--rev` commit's day, else today).
    static func load(
        _ global: GlobalOptions, names: [String], revision: RevisionOption, rider: String? = nil, asOf: Day? = nil, allTime: Bool = false,
        checkNamed: (ReportSelection) throws -> Void = { _ in }
    ) throws -> (LoadedGarage, ReportSelection) {
        try global.reportingGarageErrors {
            try select(global, names: names, revision: revision, rider: rider, asOf: asOf, allTime: allTime, checkNamed: checkNamed)
        }
    }

    /// `load`, with a garage that has errors thrown as `GarageHasErrors` rather than printed:
    /// what `bikecheck mcp` calls, and `load` over it.
    static func select(
        _ global: GlobalOptions, names: [String], revision: RevisionOption, rider: String? = nil, asOf: Day? = nil, allTime: Bool = false,
        checkNamed: (ReportSelection) throws -> Void = { _ in }
    ) throws -> (LoadedGarage, ReportSelection) {
        let loaded = try revision.load(try global.garageRoot(), .init(activities: .summaries, today: today()))
        if loaded.hasErrors { throw GarageHasErrors(loaded: loaded) }
        let (chosen, selection, notes) = try select(loaded, names: names, rider: rider, asOf: asOf, allTime: allTime, checkNamed: checkNamed)
        ErrorStyle.write(notes: notes)
        return (chosen, selection)
    }

    /// The choice in a garage loaded without errors (`report --serve` makes it on every
    /// request): the bikes and parts `names` name (a name that is neither is a usage error), of
    /// those `rider`'s (the garage emptied when the rider has none), and the notes to print
    /// about the names.
    static func select(
        _ loaded: LoadedGarage, names: [String], rider: String?, asOf: Day?, allTime: Bool = false,
        checkNamed: (ReportSelection) throws -> Void = { _ in }
    ) throws -> (LoadedGarage, ReportSelection, notes: [String]) {
        var loaded = loaded
        var (selection, notes) = try loaded.garage.subjects(named: names)
        try checkNamed(selection)
        if let rider {
            try loaded.garage.checkRider(rider)
            // The day the rider's bikes are chosen on: `--as-of`, else the `--rev` commit's, else today.
            selection = loaded.garage.selection(of: rider, from: selection, asOf: asOf ?? loaded.commit?.day ?? today(), allTime: allTime)
            if selection.isEverything { (loaded.garage.bikes, loaded.garage.parts) = ([], []) }
        }
        return (loaded, selection, notes)
    }

    /// The same for a command that takes bikes only: a part named is a usage error that says why.
    /// Returns the bikes to show (none: every bike); a rider's parts show under their bikes.
    static func loadBikes(
        _ global: GlobalOptions, names: [String], revision: RevisionOption, rider: String? = nil, asOf: Day? = nil, command: String, help: String
    ) throws -> (LoadedGarage, [BikeID]) {
        try global.reportingGarageErrors {
            try selectBikes(global, names: names, revision: revision, rider: rider, asOf: asOf, command: command, help: help)
        }
    }

    /// `loadBikes`, with a garage that has errors thrown as `GarageHasErrors`.
    static func selectBikes(
        _ global: GlobalOptions, names: [String], revision: RevisionOption, rider: String? = nil, asOf: Day? = nil, command: String, help: String
    ) throws -> (LoadedGarage, [BikeID]) {
        let (loaded, selection) = try select(global, names: names, revision: revision, rider: rider, asOf: asOf, checkNamed: bikesOnly(command, help: help))
        return (loaded, selection.bikes)
    }

    /// The check of a command that takes bikes only: a part named is a usage error that says why.
    static func bikesOnly(_ command: String, help: String) -> (ReportSelection) throws -> Void {
        { named in
            if let part = named.parts.first { throw UsageError("'\(part.rawValue)' is a part; \(command) takes bikes", help: help) }
        }
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
        case .json: Terminal.standardOutput.write(json: try json(model, git: try git()))
        case .csv: TableCSVRenderer.render(table) { Terminal.standardOutput.write($0) }
        case .markdown: Terminal.standardOutput.write(TableMarkdownRenderer.render(table))
        }
    }

    /// What `--format json` prints of a report: the model stamped with the commit it describes.
    static func json<Model: Encodable>(_ model: Model, git: GarageCommit?) throws -> String {
        try JSONOutput.encode(CommitStamped(model, git: git))
    }
}

/// A garage with errors, where a command needs one without: the command line prints the
/// diagnostics (`GlobalOptions.reportingGarageErrors`), `bikecheck mcp` answers with them.
struct GarageHasErrors: Error {
    var loaded: LoadedGarage

    /// validate's JSON of the diagnostics.
    func json() throws -> String { try JSONOutput.encode(JSONOutput.ValidationResult(loaded.diagnostics)) }
}

extension GlobalOptions {
    /// Runs `body`; a garage with errors is reported, on standard error as validate shows it
    /// (or, `asJSON`, as validate's JSON on standard output), and the command exits 1.
    func reportingGarageErrors<T>(asJSON: Bool = false, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let errors as GarageHasErrors {
            if asJSON {
                Terminal.standardOutput.write(json: try errors.json())
            } else {
                report(errors.loaded.diagnostics, sources: errors.loaded.sources)
            }
            throw ExitCode(1)
        }
    }
}
