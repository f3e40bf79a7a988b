import ArgumentParser
import BikeCheckKit
import Diagnostics

struct CalendarCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        abstract: "Forecast due dates as an iCalendar file, for a calendar app to subscribe to.",
        discussion: """
            One all-day event per interval with a forecast (the day status forecasts at the recent \
            pace; an overdue interval on the as-of day, marked overdue) and per to-do with a due \
            day. Each event's UID names its item, the same from run to run and day to day \
            (bike/BIKE/INTERVAL@bikecheck, part/PART/INTERVAL@bikecheck for a part's wherever it \
            is mounted, OWNER/todo/ID-OR-TEXT@bikecheck for a to-do), so calendar apps update \
            events rather than duplicate them. Nothing depends on the clock: the same garage and --as-of give \
            the same bytes. Refresh the file from cron and subscribe to it.

            Example:
              bikecheck calendar > ~/Calendars/bikes.ics
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Bikes to include (default: every bike not retired).", completion: Completions.bikes)
    var bikes: [String] = []

    @OptionGroup var asOf: AsOfOptions

    @OptionGroup var revision: RevisionOption

    @OptionGroup var riderOption: RiderOption

    func run() throws {
        let ics = try global.reportingGarageErrors { try build() }
        switch format {
        case .text:
            // RFC 5545 ends lines with CRLF; what comes from files is escaped line by line.
            var out: TerminalText = ""
            for line in ics.split(separator: "\r\n", omittingEmptySubsequences: true) { out += "\(line)" + "\r\n" }
            Terminal.standardOutput.write(out)
        }
    }

    /// The iCalendar text (the calendar has no JSON: its one format is the file apps read).
    func answer() throws -> String { try build() }

    private func build() throws -> String {
        // A part's intervals are forecast under the bike it is on.
        let (loaded, chosen) = try ReportOutput.selectBikes(
            global, names: bikes, revision: revision, rider: riderOption.rider, asOf: asOf.asOf, command: "calendar",
            help: "a part's intervals show under the bike it is mounted on")
        let day = revision.day(asOf, loaded)
        let status = StatusPlanner(asOf: day).plan(loaded.garage, summaries: loaded.activitySummaries, only: chosen)
        return CalendarExport.build(status, garageName: loaded.garage.settings.name)
    }
}
