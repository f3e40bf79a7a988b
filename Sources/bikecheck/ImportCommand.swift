import ArgumentParser
import BikeCheckKit
import Foundation
import StravaKit

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import activities from elsewhere into the garage's cache.",
        subcommands: [StravaArchiveCommand.self]
    )
}

struct StravaArchiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strava-archive",
        abstract: "Import activities from Strava's bulk export (a zip, or the folder it unpacks to), offline.",
        discussion: """
            Request the export on strava.com: Settings → My Account → Download or Delete Your Account → \
            Request Your Archive. Reads activities.csv (current and pre-2019 layouts; non-English \
            headers by column position) and bikes.csv. Activities already in the cache are left as \
            they are. Exit 0 when imported, 1 when the archive cannot be read.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The export zip, or its unpacked folder.", valueName: "FILE.zip|DIR"))
    var path: String

    func run() throws {
        let root = try global.garageRoot()
        let loaded = GarageLoader.load(at: root, options: .init(activities: .skip))
        let bikeFiles = loaded.garage.bikeIDsByGearID
        var bikeNames: [String: String] = [:]
        for resolved in loaded.garage.bikes { bikeNames[resolved.bike.name] = resolved.bike.id.rawValue }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        do {
            let s = try ArchiveImport.run(path: absolute, garageRoot: root, bikeFiles: bikeFiles, bikeNames: bikeNames)
            let a = s.archive
            Terminal.standardOutput.write("imported \(a.activities.count) activit\(a.activities.count == 1 ? "y" : "ies") from the Strava archive (\(a.layout) layout): \(s.new) new, \(s.alreadyCached) already cached\n")
            for skip in a.skipped { Terminal.standardError.write("warning: activities.csv:\(skip.line): skipped: \(skip.reason)\n") }
            for (name, n) in a.unlinkedGear.sorted(by: { $0.key < $1.key }) {
                Terminal.standardError.write("warning: \(n) activit\(n == 1 ? "y names" : "ies name") gear '\(name)' with no Strava id; give its bike file the name '\(name)' and 'strava: b…', or run 'bikecheck sync'\n")
            }
            let taken = Set(loaded.garage.bikes.map(\.bike.id.rawValue))
            for bike in s.unclaimedBikes {
                let command = StravaSync.addCommand(name: bike.name, gearID: bike.gearID, taken: taken)
                Terminal.standardOutput.write("bike '\(bike.name)' from bikes.csv has no bike file; add one with:\n  \(command)\n")
            }
        } catch {
            throw StravaCommandSupport.fail(error)
        }
    }
}
