/// The command line asked for something that does not exist or makes no sense: one sentence and
/// a help line, which the command line prints as `error: …` and `  help: …` and exits 2.
package struct UsageError: Error, Sendable, Equatable {
    package var message: String
    package var help: String?

    package init(_ message: String, help: String? = nil) {
        self.message = message
        self.help = help
    }
}

extension WriteFailure {
    /// A usage error met while planning a write (exit 2).
    package init(_ usage: UsageError) { self.init(.usage, usage.message, help: usage.help) }
}
