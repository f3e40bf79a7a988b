import ArgumentParser
import BikeCheckKit

enum StatusOrder: String, ExpressibleByArgument, CaseIterable {
    case bike, urgency
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
struct UrgencyOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "bike: a table per bike, most urgent first (the default); urgency: one list across the garage, overdue first (by progress), then by forecast due day.",
            valueName: "order"))
    var by: StatusOrder = .bike

    @Option(
        help: ArgumentHelp(
            "Only what is overdue or forecast due within this window: days or weeks (14d, 2w, 14 days).", valueName: "window"))
    var within: DayWindowArgument?

    @Flag(
        help: ArgumentHelp(
            "Exit 1 when anything is overdue (for cron and CI). '--check LEVEL' fires at another level: \(CheckLevel.accepted)."))
    var check = false

    // `--check LEVEL` and `--check=LEVEL` arrive here (see `rewritingCheckLevels`); a bare
    // `--check` stays the flag it always was, so `status --check grail` keeps its meaning.
    @Option(name: .customLong("check-level"), help: .hidden)
    var checkLevel: String?

    func validate() throws {
        if let checkLevel, CheckLevel(checkLevel) == nil {
            throw ValidationError("'\(checkLevel)' is not a level for --check\nHelp: write \(CheckLevel.accepted)")
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
    var level: CheckLevel? { checkLevel.flatMap(CheckLevel.init) ?? (check ? .overdue : nil) }

    static let checkFlag = "--check"
    static let checkLevelOption = "--check-level"

    /// `--check overdue` → `--check-level overdue`, when the word after `--check` reads as a
    /// level (a bike named like a level can follow `--`); `--check=X` → `--check-level X`.
    static func rewritingCheckLevels(_ arguments: [String]) -> [String] {
        var out: [String] = []
        var k = 0
        while k < arguments.count {
            let word = arguments[k]
            if word == "--" {
                out += arguments[k...]
                break
            }
            if word.hasPrefix(checkFlag + "=") {
                out += [checkLevelOption, String(word.dropFirst(checkFlag.count + 1))]
            } else if word == checkFlag, k + 1 < arguments.count, looksLikeLevel(arguments[k + 1]) {
                out += [checkLevelOption, arguments[k + 1]]
                k += 1
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
