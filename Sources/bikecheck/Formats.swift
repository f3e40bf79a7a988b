import ArgumentParser
import BikeCheckKit

/// The formats one command serves: an enum whose cases are named as `OutputFormat`'s, so the
/// command renders with an exhaustive `switch` over exactly those, and a format added later
/// cannot fall through to text.
protocol ServedFormats: RawRepresentable, CaseIterable, Sendable where RawValue == String {}

enum TextOnly: String, ServedFormats { case text }
enum TextOrJSON: String, ServedFormats { case text, json }
/// What every tabular report serves.
enum ReportFormat: String, ServedFormats { case text, json, csv, markdown }
/// A page to open in a browser.
enum HTMLOnly: String, ServedFormats { case html }

/// A command that prints declares the formats it serves; `BikeCheck.main` refuses any other
/// with a usage error (exit 2) before the command runs, so `run()` only ever sees one of them.
protocol FormattedCommand: ParsableCommand {
    associatedtype Format: ServedFormats
    var global: GlobalOptions { get }
    /// The option groups whose values are checked together (`CheckedOptions`), in the order
    /// they are declared; none unless the command says so.
    var checkedOptions: [any CheckedOptions] { get }
}

extension FormattedCommand {
    var checkedOptions: [any CheckedOptions] { [] }

    /// Runs the checks of the command's option groups, in the order they are declared, before
    /// the command does anything. The groups are named by the command, not found by reflecting
    /// over its properties: each `as? any CheckedOptions` on a property's type is a conformance
    /// look-up of the Swift runtime through every loaded library (about 3 M instructions for
    /// `status`, at every start).
    func checkOptionGroups() throws(UsageError) {
        for options in checkedOptions { try options.checkUsage() }
    }

    /// The `--format` asked for, as one this command serves.
    var format: Format { global.served(Format.self)! }

    /// A usage error unless this command serves the `--format` asked for.
    func checkFormat() throws(UsageError) {
        guard global.served(Format.self) == nil else { return }
        let served = Format.allCases.map(\.rawValue).joined(separator: ", ")
        throw UsageError("'\(Self._commandName)' does not print format '\(global.format.rawValue)'", help: "it prints: \(served)")
    }
}

/// Options whose values are checked together once parsed (a `--since` after the `--as-of`, a
/// `--check` level that is none): the check throws a usage error as a value, which
/// `ErrorStyle` prints, rather than text with a help line for the printer to split apart.
protocol CheckedOptions {
    func checkUsage() throws(UsageError)
}

extension GlobalOptions {
    /// The `--format` asked for as one of `F`'s, or nil when `F` does not have it; without
    /// `--format`, the first of `F`'s (text, but html for `report`).
    func served<F: ServedFormats>(_: F.Type) -> F? {
        guard let requestedFormat else { return F.allCases.first }
        return F(rawValue: requestedFormat.rawValue)
    }
}

// The commands whose option groups are checked together (the end-to-end tests give each a
// `--since` after its `--as-of`, or a `--check` level that is none).
extension StatusCommand { var checkedOptions: [any CheckedOptions] { [urgency] } }
extension CostsCommand { var checkedOptions: [any CheckedOptions] { [query] } }
extension UsageCommand { var checkedOptions: [any CheckedOptions] { [query] } }
extension HistoryCommand { var checkedOptions: [any CheckedOptions] { [query] } }
extension RidesCommand { var checkedOptions: [any CheckedOptions] { [query] } }
extension ExportCommand { var checkedOptions: [any CheckedOptions] { [query] } }

// Each command's formats, in one place. The end-to-end tests walk the whole command tree and run
// every command with a format it does not print, so a command left out of this list fails them.
extension StatusCommand: FormattedCommand { typealias Format = TextOrJSON }
extension ValidateCommand: FormattedCommand { typealias Format = TextOrJSON }
extension InitCommand: FormattedCommand { typealias Format = TextOrJSON }
extension DoneCommand: FormattedCommand { typealias Format = TextOrJSON }
extension SnoozeCommand: FormattedCommand { typealias Format = TextOrJSON }
extension TodoCommand.Add: FormattedCommand { typealias Format = TextOrJSON }
extension TodoCommand.List: FormattedCommand { typealias Format = TextOnly }
extension BikeCommand.Add: FormattedCommand { typealias Format = TextOrJSON }
extension BikeCommand.List: FormattedCommand { typealias Format = TextOrJSON }
extension BikeCommand.Retire: FormattedCommand { typealias Format = TextOrJSON }
extension TemplateCommand.List: FormattedCommand { typealias Format = TextOrJSON }
extension TemplateCommand.Show: FormattedCommand { typealias Format = TextOnly }
extension TemplateCommand.Apply: FormattedCommand { typealias Format = TextOrJSON }
extension TemplateCommand.Import: FormattedCommand { typealias Format = TextOrJSON }
extension TemplateCommand.Outdated: FormattedCommand { typealias Format = TextOrJSON }
extension TemplateCommand.Update: FormattedCommand { typealias Format = TextOrJSON }
extension TemplateCommand.Export: FormattedCommand { typealias Format = TextOrJSON }
extension PartCommand.Add: FormattedCommand { typealias Format = TextOrJSON }
extension PartCommand.Mount: FormattedCommand { typealias Format = TextOrJSON }
extension PartCommand.Unmount: FormattedCommand { typealias Format = TextOrJSON }
extension PartCommand.Retire: FormattedCommand { typealias Format = TextOrJSON }
extension PartCommand.List: FormattedCommand { typealias Format = TextOrJSON }
extension PartCommand.Show: FormattedCommand { typealias Format = TextOrJSON }
extension RideCommand.Add: FormattedCommand { typealias Format = TextOrJSON }
extension SyncCommand: FormattedCommand { typealias Format = TextOrJSON }
extension StravaArchiveCommand: FormattedCommand { typealias Format = TextOnly }
extension FilesImportCommand: FormattedCommand { typealias Format = TextOnly }
extension TrackerImportCommand: FormattedCommand { typealias Format = TextOrJSON }
extension LoginCommand: FormattedCommand { typealias Format = TextOnly }
extension LogoutCommand: FormattedCommand { typealias Format = TextOnly }
extension WhoamiCommand: FormattedCommand { typealias Format = TextOnly }
/// The protocol on standard output is no format of the command line's.
extension LSPCommand: FormattedCommand { typealias Format = TextOnly }
extension MCPCommand: FormattedCommand { typealias Format = TextOnly }
extension CostsCommand: FormattedCommand { typealias Format = ReportFormat }
extension UsageCommand: FormattedCommand { typealias Format = ReportFormat }
extension HistoryCommand: FormattedCommand { typealias Format = ReportFormat }
extension DiffCommand: FormattedCommand { typealias Format = ReportFormat }
extension RidesCommand: FormattedCommand { typealias Format = ReportFormat }
extension ExportCommand: FormattedCommand { typealias Format = TextOnly }
extension CalendarCommand: FormattedCommand { typealias Format = TextOnly }
extension ReportCommand: FormattedCommand { typealias Format = HTMLOnly }
extension NotifyCommand: FormattedCommand { typealias Format = TextOnly }
extension GitCommand.Setup: FormattedCommand { typealias Format = TextOnly }
extension GitCommand.MergeDriver: FormattedCommand { typealias Format = TextOnly }
extension GitCommand.CheckStaged: FormattedCommand { typealias Format = TextOnly }
