import Diagnostics
import Foundation

/// Stable JSON for machines: sorted keys, two-space indentation, a trailing newline.
package enum JSONOutput {
    /// Fails (rather than printing something that looks like an answer) when a value cannot be
    /// written as JSON, e.g. a number that is not finite.
    package static func encode<T: Encodable>(_ value: T) throws(Failure) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
        } catch {
            throw Failure(description: "cannot write the report as JSON: \(error)")
        }
    }

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// What `validate --format json` prints.
    package struct ValidationResult: Encodable {
        package var errors: Int
        package var warnings: Int
        package var diagnostics: [DiagnosticRecord]

        package init(_ diagnostics: [Diagnostic]) {
            self.diagnostics = diagnostics.map(DiagnosticRecord.init)
            errors = diagnostics.filter { $0.severity == .error }.count
            warnings = diagnostics.filter { $0.severity == .warning }.count
        }
    }
}
