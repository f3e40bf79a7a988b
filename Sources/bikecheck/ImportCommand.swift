import ArgumentParser
import BikeCheckKit
import Foundation
import RideFiles
import StravaKit

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import activities from elsewhere into the garage's cache, or a rider's gear history from another tracker.",
        subcommands: [StravaArchiveCommand.self, FilesImportCommand.self, TrackerImportCommand.self]
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
            ErrorStyle.write(linked.failed.map { Warning("\($0.file) in the archive: \($0.reason)") })
            let unowned = linked.unowned.map { (device: $0.key, rides: $0.value, example: String?.none) }
            ErrorStyle.write(
                DeviceAdvice.warnings(
                    unowned, garage: loaded.garage, again: "import the archive again",
                    noDevice: "give them their bike on Strava, then run 'bikecheck sync --full'"))
            ErrorStyle.write(s.warnings)
            for bike in s.bikes {
                guard case .unclaimed(let command) = bike.outcome else { continue }
                let source = bike.listed ? "bikes.csv" : "activities.csv"
                Terminal.standardOutput.write("bike '\(bike.name)' from \(source) has no bike file; add one with:\n  \(command)\n")
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
        ErrorStyle.write(
            DeviceAdvice.warnings(unowned, garage: loaded.garage, again: "import the files again", noDevice: "import them again with --bike BIKE"))
        if s.held > 0 { ErrorStyle.write([Warning("\(s.held) rides not written: their month file is left alone", help: "see 'bikecheck validate'")]) }
        if !s.failed.isEmpty { throw ExitCode(1) }
    }
}

/// The trackers `import tracker` reads, by the names the command line gives them.
enum TrackerFormat: String, CaseIterable, ExpressibleByArgument {
    case stravaGear = "strava-gear"
    case lubelogger
    case quiver
    case probikegarage
    case intervalsICU = "intervals-icu"
    case dreeve
}

struct TrackerImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tracker",
        abstract: "Import bikes, parts and their mounts from another tracker's files into the garage.",
        discussion: """
            FORMAT is one of: \(TrackerFormat.allCases.map(\.rawValue).joined(separator: ", ")); strava-gear \
            (liskin/strava-gear's rules.yaml), lubelogger (LubeLogger's CSV exports of service, repair and \
            upgrade records, one vehicle's: name its bike with --bike), probikegarage (ProBikeGarage's JSON), \
            quiver, dreeve and intervals-icu (the gear list of Intervals.icu's API, GET /api/v1/athlete/ID/gear) \
            are read. An Intervals.icu bike, shoes or \
            trainer becomes a bike or gear of that kind, a component a part mounted on its gear from its purchase, \
            a reminder an interval (every: its km, h, days, rides) with its last reset as a log entry that did it. \
            With --api (and no FILE) the gear list comes from Intervals.icu's API, with the key in \
            INTERVALS_ICU_API_KEY (the athlete --athlete ID, else 0: the key's own). A LubeLogger row becomes \
            a log entry with its cost (in the garage's currency), a category (its Type, else the kind of records \
            the file's name says) and a note, naming no interval; it is the same record again when the bike's \
            log has an entry of its day and cost whose note starts with its description. A Quiver garage export \
            (quiver, quiver-garage version 4) gives its bikes by name, each component a part BIKE-NAME with \
            a mount per assignment, each reminder an interval and each service log entry a log entry with \
            done:, cost and note. A statistics-for-strava gear-maintenance.yaml (dreeve) gives each component \
            a part of its tag on the Strava gear it is attached to, with its price, and each maintenance task \
            an interval of it. A strava-gear component becomes a part of its id \
            (parts/ID.yaml) with its usage before tracking (kms, hours) and a mount per stretch on a bike, or a \
            component of the one bike and role it never leaves; a \
            #hashtag rule a mount with tag: on each bike with Strava gear, and the bike's own component in that \
            role one with unless_tag: for those days. A ProBikeGarage component becomes a part with a mount per \
            installation (on a bike, or on a part: tyres on a wheelset), its ride tags as tag:/unless_tag:, its \
            reminders intervals and its services log entries (done: the reminder's interval). Bikes are matched by Strava gear id (an alias gives the \
            name), else by id or name; a gear id no bike has becomes a new bike. The garage's files are changed \
            only where they lack something: importing the same file again changes nothing, and hand edits \
            survive. Every record that has no place in the garage is listed, with where it is and why. Exit 0 \
            when every record was placed, 1 when one was not (the rest is still written), 2 for a usage error. \
            See docs/imports.md.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var write: WriteOptions

    @Argument(help: ArgumentHelp("The tracker the files come from.", valueName: "FORMAT"))
    var format: TrackerFormat

    @Argument(help: ArgumentHelp("The tracker's files (none with --api).", valueName: "FILE"))
    var files: [String] = []

    @Flag(
        help: ArgumentHelp(
            "Read the gear list from Intervals.icu's API instead of a file (intervals-icu), with the API key in INTERVALS_ICU_API_KEY."))
    var api = false

    @Option(help: ArgumentHelp("With --api: the athlete whose gear to read (default 0: the key's own).", valueName: "ID"))
    var athlete: String?

    @Option(help: ArgumentHelp("The bike a file of one vehicle's records belongs to (LubeLogger).", valueName: "BIKE"))
    var bike: String?

    func run() throws {
        let root = try global.garageRoot()
        if api || athlete != nil {
            guard format == .intervalsICU else { throw UsageError("--api reads Intervals.icu's gear list only", help: "give the tracker's files") }
            guard api else { throw UsageError("--athlete goes with --api") }
            guard files.isEmpty else { throw UsageError("give the gear list's file or --api, not both") }
        } else if files.isEmpty {
            throw UsageError("give the tracker's files", help: format == .intervalsICU ? "or read the gear list from Intervals.icu with --api" : nil)
        }
        var sources: [ImportPlan.Source] = []
        if api { sources.append(try Self.intervalsICUGear(athlete: athlete ?? "0")) }
        for file in files {
            guard let bytes = FileManager.default.contents(atPath: file) else {
                throw UsageError("cannot read '\(file)'", help: "give the path of the tracker's file")
            }
            sources.append(ImportPlan.Source(path: file, bytes: Array(bytes)))
        }
        var unplaced: [ImportPlan.Unplaced] = []
        var notes: [ImportPlan.Unplaced] = []
        try write.perform(
            { () throws(WriteFailure) in
                let context = WriteContext(root: root, today: today())
                let garage = context.loaded.garage
                let plan: ImportPlan
                switch format {
                case .lubelogger: plan = try LubeLoggerCSV.plan(sources, bike: bike, garage: garage)
                case .probikegarage: plan = try ProBikeGarageExport.plan(sources, bike: bike, garage: garage)
                case .quiver: plan = try QuiverExport.plan(sources, bike: bike, garage: garage)
                case .dreeve: plan = try DreeveGearMaintenance.plan(sources, bike: bike, garage: garage)
                case .intervalsICU: plan = try IntervalsICUGear.plan(sources, bike: bike, garage: garage)
                case .stravaGear: plan = try StravaGearRules.plan(sources, garage: garage)
                }
                unplaced = plan.unplaced
                notes = plan.notes
                return try ImportPlanWriter.change(plan, in: context)
            }, root: root, global: global)
        // In the files' order: placed only roughly, or not at all.
        let listed =
            (notes.map { (Warning("\($0.record): \($0.reason)", at: $0.location), $0.location) }
            + unplaced.map { (Warning("not imported: \($0.record): \($0.reason)", at: $0.location), $0.location) })
            .sorted {
                (files.firstIndex(of: $0.1.file) ?? 0, $0.1.range?.start.offset ?? 0) < (files.firstIndex(of: $1.1.file) ?? 0, $1.1.range?.start.offset ?? 0)
            }
        ErrorStyle.write(listed.map(\.0))
        if !unplaced.isEmpty { throw ExitCode(1) }
    }

    /// Intervals.icu's gear list for `athlete`, fetched with the key from the environment, as a
    /// file of it would be read; the key is never printed.
    static func intervalsICUGear(athlete: String) throws -> ImportPlan.Source {
        guard IntervalsICUClient.isAthleteID(athlete) else {
            throw UsageError(
                "'\(athlete)' is not an Intervals.icu athlete id", help: "give i123456 (the i… of your athlete page's address), or 0 for the key's own")
        }
        let settings = IntervalsICUClient.Settings.from(environment: ProcessInfo.processInfo.environment)
        guard settings.apiKey != nil else {
            throw UsageError(
                "\(IntervalsICUClient.Settings.keyVariable) is not set: --api needs your Intervals.icu API key",
                help: "set it to the key of Intervals.icu's Settings → Developer Settings")
        }
        let client = IntervalsICUClient(settings: settings)
        do {
            let bytes = try client.gear(athlete: athlete)
            return ImportPlan.Source(path: "intervals.icu/api/v1/athlete/\(athlete)/gear", bytes: bytes)
        } catch {
            Terminal.standardError.write(ErrorStyle.render(message: error.message, help: error.help))
            throw ExitCode(1)
        }
    }
}
