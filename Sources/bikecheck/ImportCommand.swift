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
            headers by column position) and bikes.csv. A bike is matched to its bike file by the \
            archive's bike id, else by name (the file's name:, its id, or bikes.csv's brand and model), \
            else by gear a sync looked up; unmatched bikes get a 'bike add' command. Activities a sync \
            wrote are left as they are; those an import wrote are read again, so a re-import after \
            fixing a bike file's name: or strava: corrects their gear (and manual:, written false: the export \
            does not say). A row outside the cache's limits is skipped with a warning naming its line. Exit 0 when imported, 1 when the \
            archive cannot be read.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The export zip, or its unpacked folder.", valueName: "FILE.zip|DIR"))
    var path: String

    func run() throws {
        let root = try global.garageRoot()
        let loaded = GarageLoader.load(at: root, options: .init(activities: .skip))
        var bikes = loaded.garage.bikes.map { ArchiveImport.GarageBike(id: $0.bike.id.rawValue, name: $0.bike.name, strava: $0.bike.strava?.value) }
        // A bike file that did not load is still that bike's file: never proposed again.
        let files = (try? FileManager.default.contentsOfDirectory(atPath: root + "/bikes")) ?? []
        for file in files.sorted() where file.hasSuffix(".yaml") && !bikes.contains(where: { $0.id + ".yaml" == file }) {
            bikes.append(ArchiveImport.GarageBike(id: String(file.dropLast(5)), name: "", strava: nil, readable: false))
        }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        do {
            let s = try ArchiveImport.run(path: absolute, garageRoot: root, bikes: bikes)
            let a = s.archive
            Terminal.standardOutput.write(
                "imported \(a.activities.count) activit\(a.activities.count == 1 ? "y" : "ies") from the Strava archive (\(a.layout) layout): \(s.new) new, \(s.alreadyCached) already cached, \(s.corrected) corrected\n"
            )
            for skip in a.skipped { Terminal.standardError.write("warning: activities.csv:\(skip.line): skipped: \(skip.reason)\n") }
            if s.held > 0 {
                Terminal.standardError.write("warning: \(s.held) activities not written: their month file is left alone (see 'bikecheck validate')\n")
            }
            for bike in s.bikes {
                let rides = "its rides (\(bike.rides) in the archive)"
                let source = bike.listed ? "bikes.csv" : "activities.csv"
                switch bike.outcome {
                case .matched: break
                case .needsStrava(let file):
                    Terminal.standardError.write(
                        "warning: bikes/\(file).yaml is '\(bike.name)' of the archive, Strava gear \(bike.gearID ?? "?"), but has no 'strava:'; add 'strava: \(bike.gearID ?? "?")' to it so \(rides) count\n"
                    )
                case .needsStravaID(let file):
                    Terminal.standardError.write(
                        "warning: bikes/\(file).yaml is '\(bike.name)' of the archive, but neither knows its Strava gear id, so \(rides) have no gear; add 'strava: b…' to it (the number in the bike's address on strava.com, or run 'bikecheck sync'), then import again\n"
                    )
                case .conflict(let file, let fileGear):
                    Terminal.standardError.write(
                        "warning: '\(bike.name)' of the archive is Strava gear \(bike.gearID ?? "?"), but bikes/\(file).yaml, which has its name, says 'strava: \(fileGear)'; \(rides) keep \(bike.gearID ?? "?"): if they are one bike, correct the file's 'strava:'\n"
                    )
                case .unreadable(let file):
                    Terminal.standardError.write(
                        "warning: bikes/\(file).yaml may be '\(bike.name)' of the archive, but it could not be read; fix it (see 'bikecheck validate'), then import again\n"
                    )
                case .unclaimed(let command):
                    if bike.gearID == nil, bike.rides > 0 {
                        Terminal.standardError.write(
                            "warning: \(bike.rides) activit\(bike.rides == 1 ? "y names" : "ies name") gear '\(bike.name)' with no Strava id; give its bike file the name '\(bike.name)' and 'strava: b…', or run 'bikecheck sync', then import again\n"
                        )
                    }
                    Terminal.standardOutput.write("bike '\(bike.name)' from \(source) has no bike file; add one with:\n  \(command)\n")
                }
            }
        } catch {
            throw StravaCommandSupport.fail(error)
        }
    }
}
