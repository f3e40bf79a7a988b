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
            else by gear a sync looked up; unmatched bikes get a 'bike add' command, and rides without gear are \
            summed up by the device in their original files, with the 'devices:' line to add. Activities a sync \
            wrote are left as they are; those an import wrote are read again, so a re-import after \
            fixing a bike file's name: or strava: corrects their gear (and manual:, written false: the export \
            does not say). A row outside the cache's limits is skipped with a warning naming its line. Exit 0 when imported, 1 when the \
            archive cannot be read.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var progressOptions: ProgressOptions

    @Argument(help: ArgumentHelp("The export zip, or its unpacked folder.", valueName: "FILE.zip|DIR"))
    var path: String

    func run() throws {
        let root = try global.garageRoot()
        let progress = ProgressLine("import", quiet: progressOptions.quiet)
        defer { progress.clear() }
        progress.update("reading the garage…", now: true)
        let loaded = GarageLoader.load(at: root, options: .init(activities: .skip))
        var bikes = loaded.garage.bikes.map { ArchiveImport.GarageBike(id: $0.bike.id.rawValue, name: $0.bike.name, strava: $0.bike.strava?.value) }
        // A bike file that did not load is still that bike's file: never proposed again.
        let files = (try? FileManager.default.contentsOfDirectory(atPath: root + "/bikes")) ?? []
        for file in files.sorted() where file.hasSuffix(".yaml") && !bikes.contains(where: { $0.id + ".yaml" == file }) {
            bikes.append(ArchiveImport.GarageBike(id: String(file.dropLast(5)), name: "", strava: nil, readable: false))
        }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        do {
            let s = try ArchiveImport.run(path: absolute, garageRoot: root, bikes: bikes) { progress.update($0, now: $0.hasPrefix("reading")) }
            let a = s.archive
            Terminal.standardOutput.write(
                "imported \(a.activities.count) activit\(a.activities.count == 1 ? "y" : "ies") from the Strava archive (\(a.layout) layout): \(s.new) new, \(s.alreadyCached) already cached, \(s.corrected) corrected\n"
            )
            // The original files say which device recorded a ride with no bike: bikes' `devices:`.
            let originals = a.rows.reduce(into: [Int64: String]()) { out, row in
                if row.activity.gearID == nil, let name = row.filename { out[row.activity.id] = name }
            }
            let linked = try FileImport.linkOriginals(archive: absolute, originals: originals, garageRoot: root, garage: loaded.garage) {
                progress.update("reading original file \($0 + 1) of \($1)")
            }
            progress.clear()
            if linked.linked > 0 {
                Terminal.standardOutput.write(
                    "put \(linked.linked) ride\(linked.linked == 1 ? "" : "s") without gear on bikes by the device in their original file\n")
            }
            for f in linked.failed { Terminal.standardError.write("warning: \(f.file) in the archive: \(f.reason)\n") }
            let unowned = linked.unowned.map { (device: $0.key, rides: $0.value, example: String?.none) }
            for line in DeviceAdvice.lines(
                unowned, garage: loaded.garage, again: "import the archive again",
                noDevice: "give them their bike on Strava, then run 'bikecheck sync --full'")
            {
                Terminal.standardError.write("\(line)\n")
            }
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
            mounted on that day, else on no bike: the import sums those up by device, with the \
            'devices:' line to add. On a terminal one progress line shows on stderr (none with --quiet). A ride the cache already has, from Strava or another file (a start within two \
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

    @OptionGroup var progressOptions: ProgressOptions

    @Option(help: ArgumentHelp("Put every ride on this bike, whatever its device.", valueName: "BIKE"))
    var bike: String?

    @Argument(help: ArgumentHelp("Ride files and folders of them.", valueName: "PATH"))
    var paths: [String]

    func run() throws {
        let root = try global.garageRoot()
        let progress = ProgressLine("import", quiet: progressOptions.quiet)
        defer { progress.clear() }
        progress.update("reading the garage…", now: true)
        let loaded = GarageLoader.load(at: root, options: .init(activities: .skip))
        if let bike, !loaded.garage.bikes.contains(where: { $0.bike.id.rawValue == bike }) { throw loaded.garage.noBike(bike) }
        let cwd = FileManager.default.currentDirectoryPath
        let absolute = paths.map { $0.hasPrefix("/") ? $0 : cwd + "/" + $0 }
        let s: FileImport.Summary
        progress.update("looking for ride files…", now: true)
        do {
            s = try FileImport.run(paths: absolute, garageRoot: root, garage: loaded.garage, bike: bike.map(BikeID.init)) {
                progress.update("\($0) of \($1) files", now: $0 == 0)
            }
            progress.clear()
        } catch {
            progress.clear()
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
        var groups: [UInt32?: (rides: Int, example: String)] = [:]
        for r in s.withoutBike { groups[r.device, default: (0, shown(r.file))].rides += 1 }
        let unowned = groups.map { (device: $0.key, rides: $0.value.rides, example: Optional($0.value.example)) }
        for line in DeviceAdvice.lines(
            unowned, garage: loaded.garage, again: "import the files again",
            noDevice: "import them again with --bike BIKE")
        {
            Terminal.standardError.write("\(line)\n")
        }
        if s.held > 0 {
            Terminal.standardError.write("warning: \(s.held) rides not written: their month file is left alone (see 'bikecheck validate')\n")
        }
        if !s.failed.isEmpty { throw ExitCode(1) }
    }
}

/// What to do about rides imported without a bike, one line per device rather than per ride:
/// the `devices:` line that puts a device's rides on a bike, and `--bike` for rides that name
/// no device.
enum DeviceAdvice {
    /// `again` is how to import once the device is listed; `noDevice` what to do about rides
    /// whose files name no device.
    static func lines(_ groups: [(device: UInt32?, rides: Int, example: String?)], garage: Garage, again: String, noDevice: String) -> [String] {
        let total = groups.reduce(0) { $0 + $1.rides }
        guard total > 0 else { return [] }
        let bikes = garage.bikes.map(\.bike.id.rawValue)
        let file = bikes.count == 1 ? "bikes/\(bikes[0]).yaml" : "the file of the bike that carries it (bikes/BIKE.yaml)"
        func rides(_ n: Int) -> String { "\(n) ride\(n == 1 ? "" : "s")" }
        var out = ["warning: \(rides(total)) \(total == 1 ? "has" : "have") no bike:"]
        let sorted = groups.sorted { a, b in
            a.rides != b.rides ? a.rides > b.rides : (a.device.map(Int64.init) ?? Int64.max) < (b.device.map(Int64.init) ?? Int64.max)
        }
        var listedBy: [Int64: String] = [:]
        for p in garage.parts { for d in p.part.devices where listedBy[d.value] == nil { listedBy[d.value] = "part '\(p.part.id.rawValue)'" } }
        for b in garage.bikes { for d in b.bike.devices { listedBy[d.value] = "bike '\(b.bike.id.rawValue)'" } }
        for g in sorted {
            let example = g.example.map { g.rides == 1 ? " (\($0))" : " (such as \($0))" } ?? ""
            if let device = g.device, let owner = listedBy[Int64(device)] {
                out.append("  \(rides(g.rides)) recorded by device \(device)\(example), which \(owner) lists, on days it was on no bike: \(noDevice)")
            } else if let device = g.device {
                out.append("  \(rides(g.rides)) recorded by device \(device)\(example): add 'devices: [\(device)]' to \(file), then \(again)")
            } else {
                out.append("  \(rides(g.rides)) that name\(g.rides == 1 ? "s" : "") no device\(example): \(noDevice)")
            }
        }
        return out
    }
}
