import ArgumentParser
import BikeCheckKit

enum StatusOrder: String, ExpressibleByArgument, CaseIterable {
    case bike, urgency

    // As `OutputFormat`'s (GlobalOptions.swift): no look-ups at run time.
    static var allValueStrings: [String] { allCases.map { $0.rawValue } }
    static var allValueDescriptions: [String: String] { [:] }
}

/// A window of days on the command line: `14d`, `2w`, `14 days`.
struct DayWindowArgument: ExpressibleByArgument {
    var days: Int
    init?(argument: String) {
        guard let days = DayWindow.parse(argument) else { return nil }
        self.days = days
    }
}

/// `status`'s choice of order and window, and the level `--check` fires at.
struct UrgencyOptions: ParsableArguments, CheckedOptions {
    @Option(
        help: ArgumentHelp(
            "bike: a table per bike, most urgent first (the default); urgency: one list across the garage, overdue first (by progress), then by forecast due day.",
            valueName: "order"))
    var by: StatusOrder = .bike

    @Option(
        help: ArgumentHelp(
            "Only what is overdue or forecast due within this window: days or weeks (14d, 2w, 14 days).", valueName: "window"))
    var within: DayWindowArgument?

    // `--check` alone, `--check LEVEL` and `--check=LEVEL` all arrive as `--check=LEVEL` (see
    // `rewritingCheckLevels`): a bare `--check` followed by a bike stays a check of overdue, and
    // the bike stays a bike. Declared with a value that may be left out, so --help shows that;
    // `.next`, because `.scanningForValue` drops the value of `--check=X` before another option.
    @Option(
        name: .customLong("check"), defaultAsFlag: CheckLevel.overdue.description, parsing: .next,
        help: ArgumentHelp(
            "Exit 1 when anything is overdue (for cron and CI); '--check LEVEL' or '--check=LEVEL' fires at another level: \(CheckLevel.accepted).",
            valueName: "level"))
    var check: String? = nil

    func checkUsage() throws(UsageError) {
        if let check, CheckLevel(check) == nil {
            throw UsageError("'\(check)' is not a level for --check", help: "write \(CheckLevel.accepted)")
        }
    }

    /// The report as asked for: cut to the window, and with the urgency order for JSON.
    func shaping(_ report: StatusReport) -> StatusReport {
        var out = within.map { report.keeping(within: $0.days) } ?? report
        if by == .urgency {
            out.urgency = out.byUrgency().map { IntervalReference(bike: $0.bike, part: $0.part, interval: $0.status.id, band: $0.status.band) }
        }
        return out
    }

    /// The level to check, if any: a bare `--check` means overdue.
    var level: CheckLevel? { check.flatMap(CheckLevel.init) }

    static let checkFlag = "--check"

    /// `--check overdue` → `--check=overdue`, when the word after `--check` reads as a level (a
    /// bike named like a level can follow `--`); a bare `--check` → `--check=overdue`.
    static func rewritingCheckLevels(_ arguments: [String]) -> [String] {
        var out: [String] = []
        var k = 0
        while k < arguments.count {
            let word = arguments[k]
            if word == "--" {
                out += arguments[k...]
                break
            }
            if word == checkFlag, k + 1 < arguments.count, looksLikeLevel(arguments[k + 1]) {
                out.append(checkFlag + "=" + arguments[k + 1])
                k += 1
            } else if word == checkFlag {
                out.append(checkFlag + "=" + CheckLevel.overdue.description)
            } else {
                out.append(word)
            }
            k += 1
        }
        return out
    }

    /// A level, or a word meant as one (`within:…`), so a typo gets the level's error message.
    static func looksLikeLevel(_ word: String) -> Bool {
        word == "overdue" || word == "due-soon" || word.hasPrefix("within:")
    }
}
