import ArgumentParser
import BikeCheckKit
import Foundation
import RideFiles
import StravaKit

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import activities from elsewhere into the garage's cache.",
        subcommands: [StravaArchiveCommand.self, FilesImportCommand.self]
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
            // The original files say which device recorded a ride with no bike: bikes' `devices:`.
            let originals = a.rows.reduce(into: [Int64: String]()) { out, row in
                if row.activity.gearID == nil, let name = row.filename { out[row.activity.id] = name }
            }
            let linked = try FileImport.linkOriginals(archive: absolute, originals: originals, garageRoot: root, garage: loaded.garage)
            if linked.linked > 0 {
                Terminal.standardOutput.write(
                    "put \(linked.linked) ride\(linked.linked == 1 ? "" : "s") without gear on bikes by the device in their original file\n")
            }
            for f in linked.failed { Terminal.standardError.write("warning: \(f.file) in the archive: \(f.reason)\n") }
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

struct FilesImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "files",
        abstract: "Import rides from FIT, TCX and GPX files (each also .gz), and folders of them, offline.",
        discussion: """
            Each ride goes into the activity cache with an id made from its file's content, so \
            importing a file again adds nothing and keeps the ride's bike (only --bike moves it), \
            and 'sync --full' never deletes it. The ride's local day is the file's (FIT's local \
            time, a TCX or GPX time written with an offset), else this computer's time zone's. A ride goes on the \
            bike given with --bike, else on the bike whose 'devices:' lists the serial number of the \
            device that recorded it (FIT and TCX files say it), or the bike a part that lists it was \
            mounted on that day, else on no bike: the import names those files. A ride the cache already has, from Strava or another file (a start within two \
            minutes and a distance within 5 %), is not imported again; a Strava copy that names no \
            bike takes the file's. A later sync replaces an imported ride with Strava's copy of it, \
            keeping its bike while Strava names none. An indoor ride (FIT's indoor \
            cycling or virtual sub-sport, or a file without positions) is a trainer ride. Strava's bulk \
            export's activities/ folder can be given as it is. A file that cannot be read is named with \
            where in it (byte or line); the others are imported. Exit 0 when every file was read, 1 when \
            one could not be.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("Put every ride on this bike, whatever its device.", valueName: "BIKE"))
    var bike: String?

    @Argument(help: ArgumentHelp("Ride files and folders of them.", valueName: "PATH"))
    var paths: [String]

    func run() throws {
        let root = try global.garageRoot()
        let loaded = GarageLoader.load(at: root, options: .init(activities: .skip))
        if let bike, !loaded.garage.bikes.contains(where: { $0.bike.id.rawValue == bike }) { throw loaded.garage.noBike(bike) }
        let cwd = FileManager.default.currentDirectoryPath
        let absolute = paths.map { $0.hasPrefix("/") ? $0 : cwd + "/" + $0 }
        let s: FileImport.Summary
        do {
            s = try FileImport.run(paths: absolute, garageRoot: root, garage: loaded.garage, bike: bike.map(BikeID.init))
        } catch {
            throw StravaCommandSupport.fail(error)
        }
        func shown(_ path: String) -> String { path.hasPrefix(cwd + "/") ? String(path.dropFirst(cwd.count + 1)) : path }
        for failure in s.failed { Terminal.standardError.write(ErrorStyle.render(message: "\(shown(failure.file)): \(failure.reason)")) }
        var line =
            "imported \(s.files - s.failed.count) of \(s.files) ride file\(s.files == 1 ? "" : "s"): \(s.new) new, \(s.changed) changed, \(s.alreadyImported) already imported"
        if !s.duplicates.isEmpty { line += ", \(s.duplicates.count) already cached from Strava or another file" }
        Terminal.standardOutput.write("\(line)\n")
        for d in s.duplicates {
            let bike = d.gaveBike ? ", which now has this ride's bike" : ""
            Terminal.standardOutput.write("  \(shown(d.file)): the cache has it as activity \(d.cached)\(bike)\n")
        }
        if !s.withoutBike.isEmpty {
            Terminal.standardError.write(
                "warning: \(s.withoutBike.count) ride\(s.withoutBike.count == 1 ? " has" : "s have") no bike; import again with --bike BIKE, or list the device under 'devices:' in its bike or part file\n"
            )
            for r in s.withoutBike {
                Terminal.standardError.write("  \(shown(r.file))\(r.device.map { " (device \($0))" } ?? "")\n")
            }
        }
        if s.held > 0 {
            Terminal.standardError.write("warning: \(s.held) rides not written: their month file is left alone (see 'bikecheck validate')\n")
        }
        if !s.failed.isEmpty { throw ExitCode(1) }
    }
}
