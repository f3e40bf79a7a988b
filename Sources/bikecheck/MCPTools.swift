import ArgumentParser
import BikeCheckKit
import BikeCheckMCP
import Diagnostics
import Foundation

/// A command whose answer `bikecheck mcp` returns as a tool's result: what it prints with
/// `--format json` (calendar: its iCalendar text), from the same function the command prints.
protocol AnswersForMCP: FormattedCommand {
    /// A garage with errors is thrown as `GarageHasErrors`.
    func answer() throws -> String
}

extension StatusCommand: AnswersForMCP {}
extension ValidateCommand: AnswersForMCP {}
extension HistoryCommand: AnswersForMCP {}
extension CostsCommand: AnswersForMCP {}
extension UsageCommand: AnswersForMCP {}
extension RidesCommand: AnswersForMCP {}
extension PartCommand.List: AnswersForMCP {}
extension PartCommand.Show: AnswersForMCP {}
extension CalendarCommand: AnswersForMCP {}

/// `bikecheck mcp`'s tools: each a command, run in this process on the arguments given as its
/// command line (`--garage` and the server's defaults first), so a tool takes what the command
/// takes and answers as it answers.
struct MCPTools {
    var root: String
    /// `bikecheck mcp --rider`: the rider of a tool that takes one, unless the call names one.
    var rider: String?
    /// `bikecheck mcp --as-of`: the day of every tool, and done's default date.
    var asOf: Day?

    static let instructions = """
        bikecheck tracks bike maintenance from a garage of YAML files. 'status' says what is overdue, \
        due soon and fine; the reports ('history', 'costs', 'usage', 'rides', 'part_list', 'part_show', \
        'calendar') and 'validate' answer with the JSON of the command of the same name. 'done' logs a \
        service in two steps: call it without 'confirm' to see the diff and get a token, show the diff \
        to the rider, then call it again with 'confirm' set to that token to write.
        """

    /// Where a tool's argument goes on the command's line.
    enum Placement {
        /// `--NAME=VALUE` (or `--NAME` for a flag).
        case option(String)
        /// After `--`, in the order declared.
        case positional
    }

    typealias Declared = (argument: MCPTool.Argument, placement: Placement)

    static let bikes: Declared = (.init("bikes", .strings, "Bikes, gear and parts to show, by id (file name without .yaml); default: all."), .positional)
    static let bike: Declared = (.init("bike", .string, "One bike, gear or part, by id (as bikes, for one)."), .positional)
    static let asOfArgument: Declared = (
        .init("as_of", .date, "Compute as of this date, YYYY-MM-DD (default: the server's --as-of, else today)."), .option("as-of")
    )
    static let riderArgument: Declared = (.init("rider", .string, "Only this rider's bikes and parts (default: the server's --rider)."), .option("rider"))
    static let since: Declared = (.init("since", .date, "From this date, YYYY-MM-DD."), .option("since"))
    static let until: Declared = (.init("until", .date, "Up to this date, YYYY-MM-DD."), .option("until"))
    static let interval: Declared = (.init("interval", .string, "Only this interval id (e.g. chain-lube)."), .option("interval"))

    var all: [MCPTool] {
        let report = [Self.bike, Self.bikes, Self.since, Self.asOfArgument, Self.riderArgument]
        return [
            read(
                StatusCommand.self, "status", "Status",
                [
                    Self.bike, Self.bikes, Self.riderArgument, Self.asOfArgument,
                    (.init("by", .choice(["bike", "urgency"]), "Group per bike (default), or one list by urgency."), .option("by")),
                    (.init("within", .string, "Only what is overdue or forecast due within this many days, e.g. 14d."), .option("within")),
                ]),
            read(ValidateCommand.self, "validate", "Validate", []),
            read(HistoryCommand.self, "history", "Service history", report + [Self.until, Self.interval]),
            read(
                CostsCommand.self, "costs", "Costs",
                report + [
                    (
                        .init("by", .choice(CostReport.Grouping.allCases.map(\.rawValue)), "Group by bike (default), rider, year, month or category."),
                        .option("by")
                    )
                ]),
            read(
                UsageCommand.self, "usage", "Usage",
                report + [(.init("per", .choice(UsageReport.Period.allCases.map(\.rawValue)), "One line per month (default) or per year."), .option("per"))]),
            read(RidesCommand.self, "rides", "Rides", report + [Self.until, Self.interval]),
            read(PartCommand.List.self, "part_list", "Parts", [Self.asOfArgument]),
            read(
                PartCommand.Show.self, "part_show", "Part",
                [(.init("part", .string, "The part's id (its file name in parts/ without .yaml).", required: true), .positional), Self.asOfArgument]),
            read(CalendarCommand.self, "calendar", "Calendar", [Self.bike, Self.bikes, Self.asOfArgument, Self.riderArgument]),
            MCPDone(root: root, asOf: asOf).tool,
        ]
    }

    /// A read-only tool for `command`, described by its abstract.
    private func read<C: AnswersForMCP>(_ command: C.Type, _ name: String, _ title: String, _ declared: [Declared]) -> MCPTool {
        let context = self
        return MCPTool(
            name: name, title: title, description: command.configuration.abstract, arguments: declared.map(\.argument), annotations: .readOnly
        ) { arguments in
            context.answer(command, declared, arguments)
        }
    }

    /// The command line of a call: `--garage`, the server's defaults for what the call leaves
    /// out, the options as `--NAME=VALUE` (a value is never read as an option), then `--` and the
    /// positionals.
    func commandLine(_ declared: [Declared], _ arguments: MCPTool.Arguments) -> [String] {
        var options = ["--garage=\(root)"]
        var positionals: [String] = []
        for (argument, placement) in declared {
            var value = arguments.values[argument.name]
            if value == nil, argument.name == "as_of", let asOf { value = .text(asOf.description) }
            if value == nil, argument.name == "rider", let rider { value = .text(rider) }
            guard let value else { continue }
            switch (placement, value) {
            case (.option(let flag), .text(let text)): options.append("--\(flag)=\(text)")
            case (.option(let flag), .flag(true)): options.append("--\(flag)")
            case (.option, .flag(false)): break
            case (.option(let flag), .texts(let texts)): options += texts.map { "--\(flag)=\($0)" }
            case (.positional, .text(let text)): positionals.append(text)
            case (.positional, .texts(let texts)): positionals += texts
            case (.positional, .flag): break
            }
        }
        return options + ["--"] + positionals
    }

    /// Runs `command` on the call's arguments. What goes wrong is the tool's result, with
    /// `isError`, in the words the command line uses (a garage with errors: validate's JSON).
    func answer<C: AnswersForMCP>(_ command: C.Type, _ declared: [Declared], _ arguments: MCPTool.Arguments) -> MCPTool.Result {
        do {
            let parsed: C
            do {
                parsed = try C.parse(commandLine(declared, arguments))
            } catch {
                return .init(text: Self.named(Day.explainingDates("Error: " + C.message(for: error)), declared), isError: true)
            }
            try parsed.checkOptionGroups()
            let text = try parsed.answer()
            return C.self == CalendarCommand.self ? .init(text: text) : .json(text)
        } catch {
            return Self.failure(error, declared)
        }
    }

    /// A failure as a tool's result.
    static func failure(_ error: Error, _ declared: [Declared]) -> MCPTool.Result {
        switch error {
        case let errors as GarageHasErrors:
            return .json((try? errors.json()) ?? "", isError: true)
        case let usage as UsageError:
            return .init(text: named(ErrorStyle.render(usage).string, declared), isError: true)
        default:
            return .init(text: ErrorStyle.render(anyError: error).string, isError: true)
        }
    }

    /// `--as-of` in a message is the tool's `as_of`, and ArgumentParser's `Error:` is bikecheck's `error:`.
    static func named(_ message: String, _ declared: [Declared]) -> String {
        var text = message.hasPrefix("Error: ") ? ErrorStyle.render(message).string : message
        for case (let argument, .option(let flag)) in declared {
            text = text.replacingOccurrences(of: "'--\(flag) <", with: "'\(argument.name) <").replacingOccurrences(of: "--\(flag) ", with: "\(argument.name) ")
        }
        return text
    }
}
