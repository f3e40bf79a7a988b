import ArgumentParser
import BikeCheckKit
import BikeCheckLSP
import Foundation

struct LSPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lsp",
        abstract: "Run the language server (LSP 3.17 over standard input and output) for an editor.",
        discussion: """
            Started by the editor, not by hand. It finds the garage from --garage or BIKECHECK_GARAGE when \
            given, else from the editor's workspace folder, else from the first file opened (the \
            nearest folder upward that holds garage.yaml), and \
            shows validate's diagnostics as you type (the open buffers over the files on disk), \
            completes template, interval, component and bike ids and the schemas' keys, goes to \
            definitions, outlines a file, shows an interval's status and a bike's or part's summary \
            on hover, and offers "log this service today" on an interval (done's own edit, for the \
            editor to apply; --as-of fixes today). Set-ups for Neovim, Helix, \
            Emacs and VS Code: docs/editor.md. Exit 0 after the editor's shutdown and exit, else 1.
            """
    )

    @OptionGroup var global: GlobalOptions

    /// The day hover computes as of and "log this service today" logs (for tests and demos).
    @OptionGroup var asOf: AsOfOptions

    func run() throws {
        // Only a garage named outright: the working directory an editor starts servers in says
        // less than the workspace folder it names at `initialize`.
        let named = global.garage != nil || !(ProcessInfo.processInfo.environment["BIKECHECK_GARAGE"] ?? "").isEmpty
        let garage = named ? try global.garageRoot() : nil
        // A client that closes the pipe must end the server with an error, not a signal.
        signal(SIGPIPE, SIG_IGN)
        let fixed = asOf.asOf
        let code = ServerLoop.run(LanguageServer(garage: garage, today: { fixed ?? today() })) { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        throw ExitCode(code)
    }
}
