import Diagnostics
import Foundation

/// The activity cache as a mutable set of activities by month, written back one month file at a
/// time, atomically and only when the bytes change.
///
/// It changes only the month files it read whole. A month file with read errors, or one that is a
/// symbolic link or not a regular file, is left alone: its activities are kept as read, and any
/// change that would rewrite or remove it is held back (`held`), so a file bikecheck did not write
/// (or cannot read) is never lost. Files not named `YYYY-MM.json` are the rider's and never touched
/// (`ActivityCacheFormat.month(ofFileNamed:)`, the reader's rule too).
/// An `activities/` folder that is a symbolic link is refused (`checkFolder`): the cache is
/// written only into a real folder inside the garage.
package final class ActivityCacheStore {
    package let root: String
    /// The activities of the month files read so far (all of them unless `readsMonthsAsNeeded`).
    private(set) var byID: [Int64: Activity] = [:]
    /// The starts of the rides imported from files among `byID`, for `upsertListed`.
    private var importedStarts = SameRide.Starts([])
    private var dirtyMonths: Set<String> = []
    /// Month files known from the index and not parsed yet, by month; and their activities.
    private var unread: [String: UnreadMonth] = [:]
    private var unreadCount = 0
    private var located: Located?
    /// Errors found when reading the existing cache.
    package let errorCount: Int
    /// Month files left alone, by month (`YYYY-MM`): why each is.
    package private(set) var leftAlone: [String: String]
    /// Months with a change held back because their file is left alone.
    package private(set) var held: Set<String> = []

    package var hasUnwrittenChanges: Bool { !dirtyMonths.isEmpty }

    /// `readsMonthsAsNeeded`: learn what is cached from the activity index (`ActivityIndex`,
    /// with its own checks) and parse a month file only when a change, a lookup or a deletion
    /// needs its activities, so a sync with nothing new parses the month or two it lists, not
    /// the whole cache. Only a cache that reads without any diagnostic is read this way (each
    /// month file then holds exactly that month's activities); any other is read whole, as
    /// without the flag, so what is left alone and why is the same either way.
    package init(garageRoot: String, readsMonthsAsNeeded: Bool = false) {
        root = garageRoot
        let examined = Self.examineMonthFiles(garageRoot + "/activities")
        if readsMonthsAsNeeded, examined.isEmpty, let catalogue = Self.catalogue(garageRoot) {
            errorCount = 0
            leftAlone = [:]
            unread = catalogue.months
            located = catalogue.located
            unreadCount = catalogue.months.values.reduce(0) { $0 + $1.count }
            return
        }
        let loaded = ActivityCacheLoader.load(root: garageRoot)
        let errors = loaded.diagnostics.filter { $0.severity == .error }
        errorCount = errors.count
        for a in loaded.activities { byID[a.id] = a }
        importedStarts = SameRide.Starts(byID.values.filter { $0.source != nil })
        var leftAlone: [String: String] = [:]
        for d in errors {
            let name = (d.location.file as NSString).lastPathComponent
            if let month = ActivityCacheFormat.month(ofFileNamed: name) { leftAlone[month] = "it could not be read whole" }
        }
        leftAlone.merge(examined) { _, examined in examined }
        self.leftAlone = leftAlone
    }

    /// Month files that are links or not regular files, by month: why each is left alone.
    private static func examineMonthFiles(_ directory: String) -> [String: String] {
        var found: [String: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            guard let month = ActivityCacheFormat.month(ofFileNamed: name) else { continue }
            var info = stat()
            if lstat(directory + "/" + name, &info) != 0 {
                found[month] = "it could not be examined"
            } else if info.st_mode & S_IFMT == S_IFLNK {
                found[month] = "it is a symbolic link"
            } else if info.st_mode & S_IFMT != S_IFREG {
                found[month] = "it is not a regular file"
            }
        }
        return found
    }

    /// A month file not parsed yet: how many activities it holds and their gear, from the index.
    struct UnreadMonth {
        var file: String
        var count: Int
        var gear: Set<String>
    }

    /// What the cache holds, month by month, from the activity index (or the summary reading
    /// the index stands in for); nil when any file has a diagnostic.
    private static func catalogue(_ root: String) -> (months: [String: UnreadMonth], located: Located)? {
        let files = ActivityCacheLoader.readSummaries(root: root, index: ActivityIndex(root: root))
        var diagnostics: [Diagnostic] = []
        var sources: [String: SourceText] = [:]
        var months: [String: UnreadMonth] = [:]
        var monthOfFile: [String] = []
        let table = ActivityCacheLoader.check(files, &diagnostics, &sources) { file, records in
            var used = [Bool](repeating: false, count: file.strings.count)
            for r in records where r.gear >= 0 { used[Int(r.gear)] = true }
            let gear = Set(file.strings.indices.filter { used[$0] }.map { file.strings[$0] })
            let month = ActivityCacheFormat.month(ofFileNamed: file.name) ?? ""
            months[month] = UnreadMonth(file: file.name, count: records.count, gear: gear)
        }
        guard diagnostics.isEmpty else { return nil }
        for file in files { monthOfFile.append(ActivityCacheFormat.month(ofFileNamed: file.name) ?? "") }
        return (months, Located(table: table, months: monthOfFile))
    }

    /// Which month each cached activity is in, as the catalogue found them.
    struct Located {
        var table: ActivityIDTable
        var months: [String]
        func month(of id: Int64) -> String? { table.value(forKey: id).map { months[Int($0)] } }
    }

    /// Parses the month files of `months` not parsed yet and adds their activities. A file that
    /// no longer reads cleanly (changed since the catalogue) is left alone, its activities kept as read.
    private func read(_ months: [String]) {
        let files = months.compactMap { unread.removeValue(forKey: $0) }
        guard !files.isEmpty else { return }
        unreadCount -= files.reduce(0) { $0 + $1.count }
        let loaded = ActivityCacheLoader.load(root: root, only: Set(files.map(\.file)))
        for a in loaded.activities where byID[a.id] == nil {
            byID[a.id] = a
            if a.source != nil { importedStarts.add(a) }
        }
        for d in loaded.diagnostics where d.severity == .error {
            if let month = ActivityCacheFormat.month(ofFileNamed: (d.location.file as NSString).lastPathComponent) {
                leftAlone[month] = "it could not be read whole"
                dirtyMonths.remove(month)
            }
        }
    }

    /// Parses every month file not parsed yet.
    private func readAll() { read(Array(unread.keys)) }

    /// Throws unless `activities/` is a real folder (or absent): never write or delete through a link.
    package func checkFolder() throws {
        let directory = root + "/activities"
        var info = stat()
        guard lstat(directory, &info) == 0 else { return }
        if info.st_mode & S_IFMT == S_IFLNK {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: directory)) ?? "?"
            throw AtomicFile.Failure(
                path: "activities",
                reason:
                    "it is a symbolic link (to '\(target)'); bikecheck writes the activity cache only into a real folder inside the garage: replace the link with a folder"
            )
        }
        if info.st_mode & S_IFMT != S_IFDIR {
            throw AtomicFile.Failure(path: "activities", reason: "it is not a folder")
        }
    }

    /// Removes the temporary month files (`.YYYY-MM.json.bikecheck-XXXXXX`, `AtomicFile`'s) that a
    /// sync or import killed before its rename left in `activities/`; returns how many. Only with
    /// the sync lock held: every writer of the cache holds it, so none of these is being written.
    /// Anything else in the folder (the rider's own files, links, folders) is never touched, nor
    /// anything through an `activities/` that is not a real folder.
    @discardableResult
    package func removeStaleTemporaries() -> Int {
        let directory = root + "/activities"
        var folder = stat()
        guard lstat(directory, &folder) == 0, folder.st_mode & S_IFMT == S_IFDIR else { return 0 }
        var removed = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where Self.isTemporaryMonthFile(name) {
            var info = stat()
            guard lstat(directory + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            if unlink(directory + "/" + name) == 0 { removed += 1 }
        }
        return removed
    }

    /// Whether `name` is the temporary file `AtomicFile.write` makes for a month file.
    static func isTemporaryMonthFile(_ name: String) -> Bool {
        guard AtomicFile.isTemporaryName(name), let marker = name.range(of: ".bikecheck-", options: .backwards) else { return false }
        return ActivityCacheFormat.month(ofFileNamed: String(name[name.index(after: name.startIndex)..<marker.lowerBound])) != nil
    }

    package var count: Int { byID.count + unreadCount }
    /// Every cached id (parses what is not parsed yet).
    package var ids: Set<Int64> {
        readAll()
        return Set(byID.keys)
    }
    /// Every cached activity (parses what is not parsed yet).
    package var activities: Dictionary<Int64, Activity>.Values {
        readAll()
        return byID.values
    }
    package subscript(id: Int64) -> Activity? {
        if let a = byID[id] { return a }
        guard let month = located?.month(of: id), unread[month] != nil else { return nil }
        read([month])
        return byID[id]
    }

    /// The gear ids of the cached activities.
    package var gearIDs: Set<String> {
        var gear = Set(byID.values.compactMap(\.gearID))
        for month in unread.values { gear.formUnion(month.gear) }
        return gear
    }

    /// The latest start date in the cache. Each month file of a store that reads months as
    /// needed holds only its month, so the newest one with an activity holds it.
    package var newestStart: String? {
        for month in unread.keys.sorted(by: >) {
            if let newest = byID.values.map(\.startDate).max(), String(newest.prefix(7)) > month { break }
            read([month])
            if byID.values.contains(where: { $0.starts(inMonth: month) }) { break }
        }
        return byID.values.map(\.startDate).max()
    }

    /// The latest start date of the cached activities `include` keeps (one athlete's, in a
    /// household): months are read newest first until one older than the newest found.
    package func newestStart(where include: (Activity) -> Bool) -> String? {
        var newest = byID.values.filter(include).map(\.startDate).max()
        for month in unread.keys.sorted(by: >) {
            if let newest, String(newest.prefix(7)) > month { break }
            read([month])
            let found = byID.values.filter { $0.starts(inMonth: month) && include($0) }.map(\.startDate).max()
            if let found, newest.map({ found > $0 }) ?? true { newest = found }
        }
        return newest
    }

    package enum Change: Equatable {
        case new, changed, unchanged, held
        case rejected(ActivityLimits.Violation)
    }

    /// Adds or replaces an activity; says what that was. A change that would rewrite a month file
    /// left alone is not made (`.held`); an activity outside `ActivityLimits` is not stored at all
    /// (`.rejected`), so the cache never holds what its reader would refuse.
    @discardableResult
    package func upsert(_ a: Activity) -> Change {
        if let violation = ActivityLimits.check(a) { return .rejected(violation) }
        let old = self[a.id]
        // The month is written whole: its other activities first.
        read([a.monthKey])
        if let old, old == a { return .unchanged }
        for month in [a.monthKey, old?.monthKey].compactMap({ $0 }) where leftAlone[month] != nil {
            held.insert(month)
            return .held
        }
        byID[a.id] = a
        if let old, old.source != nil { importedStarts.remove(old) }
        if a.source != nil { importedStarts.add(a) }
        if let old { dirtyMonths.insert(old.monthKey) }
        dirtyMonths.insert(a.monthKey)
        return old == nil ? .new : .changed
    }

    /// Removes an activity and returns it; nil when it is not cached or its month file is left alone.
    package func remove(_ id: Int64) -> Activity? {
        guard let old = self[id] else { return nil }
        if leftAlone[old.monthKey] != nil {
            held.insert(old.monthKey)
            return nil
        }
        byID[id] = nil
        if old.source != nil { importedStarts.remove(old) }
        dirtyMonths.insert(old.monthKey)
        return old
    }

    /// Adds or replaces an activity Strava listed, as `upsert` does, so that a ride the cache also
    /// has from a file counts once whichever arrived first (`SameRide`): a ride imported from a
    /// file that is the same ride is removed and Strava's copy kept, carrying the file's bike
    /// while Strava names none; a cached Strava copy that carries one keeps it on a later listing
    /// without gear. Returns what changed and the imported rides removed; if either's month file
    /// is left alone nothing changes (`.held`). `mayReplace` keeps some rides from files out of
    /// it (in a household: another rider's ride of the same outing).
    package func upsertListed(_ listed: Activity, mayReplace: (Activity) -> Bool = { _ in true }) -> (change: Change, replaced: [Activity]) {
        if let old = self[listed.id] { return (upsert(SameRide.kept(strava: listed, file: old)), []) }
        guard let start = Timestamps.epoch(listed.startDate) else { return (upsert(listed), []) }
        // A match may start in the month before or after, within two minutes of the boundary.
        read(Set([start - SameRide.startWithin, start + SameRide.startWithin].map { String(Timestamps.string(epoch: $0).prefix(7)) }).sorted())
        var files: [Activity] = [], others: [Activity] = []
        while let id = importedStarts.match(start, distance: listed.distance, except: listed.id), let file = byID[id] {
            if mayReplace(file) { files.append(file) } else { others.append(file) }
            importedStarts.remove(file)
        }
        for file in files + others { importedStarts.add(file) }
        guard !files.isEmpty else { return (upsert(listed), []) }
        let kept = files.reduce(listed) { SameRide.kept(strava: $0, file: $1) }
        if ActivityLimits.check(kept) != nil { return (upsert(kept), []) }
        let months = Set(files.map(\.monthKey) + [kept.monthKey])
        if let month = months.first(where: { leftAlone[$0] != nil }) {
            held.insert(month)
            return (.held, [])
        }
        for file in files { _ = remove(file.id) }
        return (upsert(kept), files)
    }

    /// Marks every month dirty, so the next flush rewrites files that drifted from the canonical
    /// form and removes month files left with no activities; files left alone stay as they are.
    package func markAllDirty() {
        readAll()
        dirtyMonths.formUnion(byID.values.map(\.monthKey))
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root + "/activities")) ?? [] {
            if let month = ActivityCacheFormat.month(ofFileNamed: name) { dirtyMonths.insert(month) }
        }
        dirtyMonths.subtract(leftAlone.keys)
    }

    /// Writes the months that changed; returns how many files were written or removed.
    @discardableResult
    package func flush() throws -> Int {
        dirtyMonths.subtract(leftAlone.keys)
        guard !dirtyMonths.isEmpty else { return 0 }
        try checkFolder()
        let directory = root + "/activities"
        try AtomicFile.makeDirectory(directory)
        var grouped: [String: [Activity]] = [:]
        for a in byID.values where dirtyMonths.contains(a.monthKey) { grouped[a.monthKey, default: []].append(a) }
        var written = 0
        for month in dirtyMonths.sorted() {
            let path = directory + "/" + ActivityCacheFormat.fileName(month: month)
            if let list = grouped[month], !list.isEmpty {
                if try AtomicFile.write(ActivityCacheFormat.encode(list), to: path, syncDirectory: false) { written += 1 }
            } else if FileManager.default.fileExists(atPath: path) {
                try FileManager.default.removeItem(atPath: path)
                written += 1
            }
        }
        dirtyMonths.removeAll()
        if written > 0 { AtomicFile.syncDirectory(directory) }
        return written
    }
}
