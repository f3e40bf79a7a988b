/// A diagnostic's stable, kebab-case id (`unknown-key`), what editors, CI and the README's table
/// know it by. Every id is a constant declared beside the code that reports it, listed in its
/// module's catalogue (`DiagnosticID.yaml`, `DiagnosticID.garage`), so no id is an ad-hoc string
/// and a test can hold each to its README line and its golden catalogue case.
package struct DiagnosticID: Hashable, Sendable, CustomStringConvertible {
    package let rawValue: String
    package init(_ rawValue: StaticString) { self.rawValue = "\(rawValue)" }
    package var description: String { rawValue }

    /// The problems of a file past the first ones shown, counted.
    package static let tooManyProblems = DiagnosticID("too-many-problems")
}
