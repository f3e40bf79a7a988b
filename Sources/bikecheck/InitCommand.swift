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
            out of git, and the JSON Schemas editors \
            use for completion (.schemas/). Refuses to touch a folder that already has a garage.yaml.

            Example:
              bikecheck init my-garage && cd my-garage && git init && git add . && git commit -m "My garage"
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var write: WriteOptions

    @Argument(help: ArgumentHelp("The folder for the new garage (default: --garage, else the current folder).", valueName: "dir"))
    var directory: String?

    @Option(help: ArgumentHelp("The garage's name, written to garage.yaml.", valueName: "text"))
    var name: String?

    func run() throws {
        let cwd = FileManager.default.currentDirectoryPath
        let target = directory ?? global.garage ?? "."
        let root = URL(fileURLWithPath: target.hasPrefix("/") ? target : cwd + "/" + target).standardizedFileURL.path
        try write.perform({ () throws(WriteFailure) in try GarageInitializer.plan(at: root, name: name) }, root: root, global: global)
    }
}
