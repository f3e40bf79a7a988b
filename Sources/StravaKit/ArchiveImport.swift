import BikeCheckKit
import Foundation

/// Brings a Strava bulk export into the garage's activity cache.
///
/// Which cached activities an import may change: an activity an import wrote has none of
/// `start_date_local`, `timezone` and `type`, which the export does not have and Strava's API
/// always sends (see `cameFromArchive`). Those are read again on every import, so a re-import
/// after fixing a bike file's `name:` or `strava:` gives their rides the gear the archive now
/// maps to (a gear the archive no longer names is kept, not cleared). Activities from the API
/// know more (local times, time zones, Strava's own gear) and are left as they are.
package enum ArchiveImport {
    package struct Summary: Sendable {
        package var archive: StravaArchive
        package var new = 0
        /// Cached already and left as they were (from the API, or the same as the archive says).
        package var alreadyCached = 0
        /// Imported before and changed now (gear, fields an earlier import wrote differently).
        package var corrected = 0
        /// Not written because their month file is left alone (see ActivityCacheStore).
        package var held = 0
        package var filesWritten = 0
        /// Each bike the archive names, and what it is in the garage.
        package var bikes: [BikeMatch] = []
        /// Bikes in the archive that no bike file is (each with the command that adds one).
        package var unclaimedBikes: [BikeMatch] { bikes.filter { if case .unclaimed = $0.outcome { true } else { false } } }

        /// What the rider should know of: rows of `activities.csv` skipped, activities held back,
        /// and each bike that does not count its rides yet, with what to do.
        package var warnings: [Warning] {
            var out = archive.skipped.map { Warning("activities.csv:\($0.line): skipped: \($0.reason)") }
            if held > 0 {
                out.append(Warning("\(held) activities not written: their month file is left alone", help: "see 'bikecheck validate'"))
            }
            return out + bikes.compactMap(\.warning)
        }
    }

    /// A bike file, as the import matches archive bikes to it.
    package struct GarageBike: Sendable, Equatable {
        /// The file's id (`bikes/ID.yaml`).
        package var id: String
        package var name: String
        /// Its Strava gear id, `strava:`.
        package var strava: String?
        /// False for a file that could not be loaded: known by its id alone, never proposed again.
        package var readable: Bool
        package init(id: String, name: String, strava: String?, readable: Bool = true) {
            self.id = id
            self.name = name
            self.strava = strava
            self.readable = readable
        }
    }

    /// One bike of the archive (from `bikes.csv` or a gear name on its activities), and the bike
    /// file it is.
    package struct BikeMatch: Sendable, Equatable {
        package var name: String
        package var brand: String?
        package var model: String?
        /// Whether `bikes.csv` lists it (else only activities name it).
        package var listed: Bool
        /// The Strava gear id its activities get, when anything tells it.
        package var gearID: String?
        /// Activities that name it.
        package var rides = 0
        package var outcome: Outcome

        /// What to do so that its rides count, unless they do.
        package var warning: Warning? {
            let rides = "its rides (\(self.rides) in the archive)"
            let gear = gearID ?? "?"
            switch outcome {
            case .matched: return nil
            case .needsStrava(let file):
                return Warning(
                    "bikes/\(file).yaml is '\(name)' of the archive, Strava gear \(gear), but has no 'strava:'",
                    help: "add 'strava: \(gear)' to it so \(rides) count")
            case .needsStravaID(let file):
                return Warning(
                    "bikes/\(file).yaml is '\(name)' of the archive, but neither knows its Strava gear id, so \(rides) have no gear",
                    help: "add 'strava: b…' to it (the number in the bike's address on strava.com, or run 'bikecheck sync'), then import again")
            case .conflict(let file, let fileGear):
                return Warning(
                    "'\(name)' of the archive is Strava gear \(gear), but bikes/\(file).yaml, which has its name, says 'strava: \(fileGear)'; \(rides) keep \(gear)",
                    help: "if they are one bike, correct the file's 'strava:'")
            case .unreadable(let file):
                return Warning(
                    "bikes/\(file).yaml may be '\(name)' of the archive, but it could not be read",
                    help: "fix it (see 'bikecheck validate'), then import again")
            case .unclaimed:
                guard gearID == nil, self.rides > 0 else { return nil }
                return Warning(
                    "\(self.rides) activit\(self.rides == 1 ? "y names" : "ies name") gear '\(name)' with no Strava id",
                    help: "give its bike file the name '\(name)' and 'strava: b…', or run 'bikecheck sync', then import again")
            }
        }

        package enum Outcome: Sendable, Equatable {
            /// The bike file with its Strava id: its rides count for it.
            case matched(file: String)
            /// A bike file is this bike (by name or id) but has no `strava:`; the archive knows the id.
            case needsStrava(file: String)
            /// A bike file is this bike but neither it nor the archive knows the Strava id.
            case needsStravaID(file: String)
            /// A bike file is this bike by name or id, but its `strava:` names other gear.
            case conflict(file: String, fileGear: String)
            /// A bike file that could not be read has this bike's id: fix it, then import again.
            case unreadable(file: String)
            /// No bike file is this bike: the command that adds one.
            case unclaimed(command: String)
        }
    }

    /// Whether a cached activity was written by an archive import, not by a sync: it has none of
    /// the fields the export lacks and Strava's API always sends.
    package static func cameFromArchive(_ a: Activity) -> Bool {
        a.startDateLocal == nil && a.timezone == nil && a.type == nil
    }

    /// `progress` is told what is being done (reading the archive, the activities so far).
    package static func run(path: String, garageRoot: String, bikes: [GarageBike], progress: (String) -> Void = { _ in }) throws -> Summary {
        let lock = try SyncLock(garage: garageRoot)
        defer { withExtendedLifetime(lock) {} }
        progress("reading the archive…")
        var archive = try StravaArchive.read(path: path)
        let knownGear = SyncState.knownGear(garage: garageRoot)
        let matches = match(archive, bikes: bikes, knownGear: knownGear)
        archive.link(gearByName: matches.reduce(into: [:]) { ids, m in if let id = m.gearID { ids[m.name] = id } })

        let cache = ActivityCacheStore(garageRoot: garageRoot)
        cache.removeStaleTemporaries()
        if cache.errorCount > 0 { throw ActivityStoreError.unreadable(cache.errorCount) }
        var summary = Summary(archive: archive)
        for (n, row) in archive.rows.enumerated() {
            progress("\(n) of \(archive.rows.count) activities")
            var a = row.activity
            if let cached = cache[a.id] {
                guard cameFromArchive(cached) else { summary.alreadyCached += 1; continue }
                if a.gearID == nil { a.gearID = cached.gearID }
            }
            // Strava's copy, as a sync writes it: a ride imported from a file counts once (`SameRide`).
            switch cache.upsertListed(a).change {
            case .new: summary.new += 1
            case .changed: summary.corrected += 1
            case .unchanged: summary.alreadyCached += 1
            case .held: summary.held += 1
            // The reader holds rows to the same limits; a row that slips by is still never written.
            case .rejected(let violation):
                summary.archive.skipped.append(.init(line: row.line, reason: "activity \(a.id): \(violation)"))
            }
        }
        summary.filesWritten = try cache.flush()
        let rides = archive.rows.reduce(into: [String: Int]()) { counts, row in
            if let name = row.gearName { counts[StravaArchive.key(name), default: 0] += 1 }
        }
        summary.bikes = matches.map { m in
            var m = m
            m.rides = rides[StravaArchive.key(m.name)] ?? 0
            return m
        }
        return summary
    }

    /// Matches the archive's bikes to bike files on everything the archive has: the `Bike` ids of
    /// its rows, its gear names, `bikes.csv`'s brand and model, and what the garage knows (each
    /// file's `strava:`, `name:` and id, gear a sync looked up). Never proposes a new bike file for
    /// a bike that one already is.
    static func match(_ archive: StravaArchive, bikes files: [GarageBike], knownGear: [StravaGear]) -> [BikeMatch] {
        typealias Key = String
        let key = StravaArchive.key
        // The archive's bikes: bikes.csv, then gear names only activities give (not when bikes.csv
        // lists the bikes and the row gives no bike id: those are shoes or other gear).
        var found: [BikeMatch] = []
        var index: [Key: Int] = [:]
        for b in archive.bikes where index[key(b.name)] == nil {
            index[key(b.name)] = found.count
            found.append(BikeMatch(name: b.name, brand: b.brand, model: b.model, listed: true, outcome: .unclaimed(command: "")))
        }
        for row in archive.rows {
            guard let name = row.gearName, !key(name).isEmpty, index[key(name)] == nil else { continue }
            guard !archive.hasBikesFile || row.hasBikeID else { continue }
            index[key(name)] = found.count
            found.append(BikeMatch(name: name, listed: false, outcome: .unclaimed(command: "")))
        }

        func unique<T>(_ items: [T]) -> T? { items.count == 1 ? items[0] : nil }
        let taken = Set(files.map(\.id))
        var claimed: Set<String> = []
        for k in found.indices {
            let name = key(found[k].name)
            let brandModel = [found[k].brand, found[k].model].compactMap { $0 }.joined(separator: " ")
            let hasBrandAndModel = found[k].brand != nil && found[k].model != nil
            // The file that is this bike by what the rider wrote: its name, its id, or brand and model.
            let byName =
                unique(files.filter { $0.readable && key($0.name) == name })
                ?? unique(files.filter { $0.id == StravaSync.suggestedID(for: found[k].name) || key($0.id) == name })
                ?? (hasBrandAndModel ? unique(files.filter { $0.readable && key($0.name) == key(brandModel) }) : nil)
            // Its Strava id: the archive's own rows, else the file it is, else gear a sync looked up
            // (by name, else by brand and model).
            let gearID =
                archive.gearIDsByName[name]
                ?? byName?.strava
                ?? unique(knownGear.filter { key($0.name) == name || $0.nickname.map(key) == name }.map(\.id))
                ?? (hasBrandAndModel
                    ? unique(knownGear.filter { $0.brandName.map(key) == key(found[k].brand!) && $0.modelName.map(key) == key(found[k].model!) }.map(\.id))
                    : nil)
            found[k].gearID = gearID
            if let gearID, let file = files.first(where: { $0.strava == gearID }) {
                found[k].outcome = .matched(file: file.id)
            } else if let file = byName {
                if !file.readable {
                    found[k].outcome = .unreadable(file: file.id)
                } else if let fileGear = file.strava {
                    found[k].outcome = .conflict(file: file.id, fileGear: fileGear)
                } else {
                    found[k].outcome = gearID == nil ? .needsStravaID(file: file.id) : .needsStrava(file: file.id)
                }
            } else {
                found[k].outcome = .unclaimed(command: StravaSync.addCommand(name: found[k].name, gearID: gearID, taken: taken.union(claimed)))
            }
            if case .unclaimed(let command) = found[k].outcome, let id = command.split(separator: " ").dropFirst(3).first {
                claimed.insert(String(id))
            }
        }
        return found
    }
}
