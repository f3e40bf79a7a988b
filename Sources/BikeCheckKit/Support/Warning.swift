import Diagnostics

/// A warning for the rider, made as a value where the problem is found: what happened, lines
/// that detail it, and what to do. The command line's one printer (`ErrorStyle`) writes it as
/// `warning: MESSAGE`, each detail indented below, then `  help: HELP`; a warning about a place
/// in a file starts with that place.
package struct Warning: Sendable, Equatable {
    package var message: String
    package var details: [String]
    package var help: String?
    package var location: SourceLocation?

    package init(_ message: String, details: [String] = [], help: String? = nil, at location: SourceLocation? = nil) {
        self.message = message
        self.details = details
        self.help = help
        self.location = location
    }
}
