import Diagnostics
import Foundation

/// Stable JSON for machines: sorted keys, two-space indentation, a trailing newline.
public enum JSONOutput {
    public static func encode<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// What `validate --format json` prints.
    public struct ValidationResult: Encodable {
        public var errors: Int
        public var warnings: Int
        public var diagnostics: [DiagnosticRecord]

        public init(_ diagnostics: [Diagnostic]) {
            self.diagnostics = diagnostics.map(DiagnosticRecord.init)
            errors = diagnostics.filter { $0.severity == .error }.count
            warnings = diagnostics.filter { $0.severity == .warning }.count
        }
    }
}
