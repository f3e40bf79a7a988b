import ArgumentParser
import BikeCheckKit
import Foundation

struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a garage: garage.yaml, bikes/, templates/ with a starter library, .gitignore.",
        discussion: """
            Writes garage.yaml, an empty bikes/ folder, templates/ with common schedules (road, gravel, \
            suspension-fork, rear-shock, ebike-drive, tubeless), a .gitignore that keeps the Strava \
            cache (activities/), local state (.bikecheck/) and the temporary files of an interrupted write \
            out of git, the JSON Schemas editors \
            use for completion (.schemas/), and .gitattributes lines that route the garage's files to \
            bikecheck's merge driver; in a git work tree it also runs 'bikecheck git setup' (docs/git.md). Refuses to touch a folder that already has a garage.yaml.

            garage.yaml names the currency of costs written without one (currency:): --currency, \
            else the locale's (LC_ALL, LC_MONETARY or LANG, e.g. de_DE.UTF-8; else the system's), \
            with a comment saying how to change it. \
            Without either, the line is written commented out: costs without a currency are left \
            out of totals and exports until it is set.

            Example:
              bikecheck init my-garage && cd my-garage && git init && git add . && git commit -m "My garage"
              bikecheck init my-garage --currency GBP
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var write: WriteOptions

    @Argument(help: ArgumentHelp("The folder for the new garage (default: --garage, else the current folder).", valueName: "dir"))
    var directory: String?

    @Option(help: ArgumentHelp("The garage's name, written to garage.yaml.", valueName: "text"))
    var name: String?

    @Option(
        help: ArgumentHelp(
            "The currency of costs written without one, a code of three capital letters such as EUR, written to garage.yaml (default: the locale's).",
            valueName: "code"))
    var currency: String?

    func run() throws {
        let cwd = FileManager.default.currentDirectoryPath
        let target = directory ?? global.garage ?? "."
        let root = URL(fileURLWithPath: target.hasPrefix("/") ? target : cwd + "/" + target).standardizedFileURL.path
        let chosen: GarageInitializer.Currency = currency.map { .given($0) } ?? .locale(Self.localeCurrency(ProcessInfo.processInfo.environment))
        try write.perform(
            { () throws(WriteFailure) in try GarageInitializer.plan(at: root, name: name, currency: chosen) }, root: root, global: global)
        // In a git work tree, the rest of 'git setup' too: the driver's configuration and the hook.
        guard !write.dryRun, GitCommitter(root: root).repository() != nil else { return }
        do {
            let done = try GitSetup.run(root: root, executable: GitCommand.Setup.executable())
            let lines = (done.changes + done.advice).flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false) }
            // JSON on standard output is the write's result alone.
            let out: Terminal
            switch format {
            case .text: out = .standardOutput
            case .json: out = .standardError
            }
            for line in lines { out.write("\(line)\n") }
        } catch {
            Terminal.standardError.write(ErrorStyle.render(message: "the garage was created, but 'git setup' failed: \(error.description)"))
            throw ExitCode(1)
        }
    }

    /// The rider's currency by their locale: the first of LC_ALL, LC_MONETARY and LANG that
    /// names a country (`de_DE.UTF-8` → EUR), else Foundation's current locale (which on Linux
    /// does not follow those variables); nil when neither names one.
    static func localeCurrency(_ environment: [String: String]) -> String? {
        for key in ["LC_ALL", "LC_MONETARY", "LANG"] {
            guard let value = environment[key], !value.isEmpty else { continue }
            // `de_DE.UTF-8@euro` → `de_DE`.
            let name = value.prefix { $0 != "." && $0 != "@" }
            if let code = Locale(identifier: String(name)).currency?.identifier { return code }
        }
        return Locale.current.currency?.identifier
    }
}
