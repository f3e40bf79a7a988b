import BikeCheckKit
import Foundation
import ZIPFoundation

/// `bikecheck import files`: rides from FIT, TCX and GPX files into the activity cache, in its
/// format, each with an id derived from its file's content (importing a file again adds
/// nothing) and `source` saying its format (`sync` never deletes it). A ride goes on the bike
/// named with `--bike`, else on the bike that lists its device's serial number under
/// `devices:`, or on the bike a part that lists it was mounted on that day, else on none (the
/// summary says which). A ride the cache already has from Strava or from another file
/// (`SameRide`) counts once: it is not imported again, and a Strava copy that names no bike
/// takes this ride's.
package enum FileImport {
    package struct Summary: Sendable {
        package var files = 0
        package var new = 0
        package var changed = 0
        package var alreadyImported = 0
        /// Rides the cache already had from Strava or another file: the file, the cached id, and
        /// whether the cached Strava copy took this ride's bike (it named none).
        package var duplicates: [(file: String, cached: Int64, gaveBike: Bool)] = []
        /// Rides imported without a bike: the file, and its device's serial number if it gave one.
        package var withoutBike: [(file: String, device: UInt32?)] = []
        package var failed: [(file: String, reason: String)] = []
        package var held = 0
        package var filesWritten = 0
    }

    /// `progress` is told the files read so far and their number, after each file.
    package static func run(
        paths: [String], garageRoot: String, garage: Garage, bike: BikeID?, progress: (Int, Int) -> Void = { _, _ in }
    ) throws -> Summary {
        var summary = Summary()
        let found = RideFileReader.files(in: paths)
        summary.failed = found.unreadable.map { ($0.path, $0.reason) }
        summary.files = found.unreadable.count
        let lock = try SyncLock(garage: garageRoot)
        defer { withExtendedLifetime(lock) {} }
        let cache = ActivityCacheStore(garageRoot: garageRoot)
        cache.removeStaleTemporaries()
        if cache.errorCount > 0 { throw ActivityStoreError.unreadable(cache.errorCount) }

        let owners = DeviceOwners(garage)
        let chosen = bike.flatMap { id in garage.bikes.first { $0.bike.id == id }?.bike }
        var starts = SameRide.Starts(cache.activities)
        var withoutBike: Set<Int64> = []
        let riderOfGear = garage.riderByGearID

        for file in found.files {
            progress(summary.files, found.unreadable.count + found.files.count)
            summary.files += 1
            let read: (ride: RecordedRide, bytes: [UInt8])
            do { read = try RideFileReader.read(file) } catch {
                summary.failed.append((file, error.description))
                continue
            }
            let ride = read.ride
            let id = importedID(read.bytes)
            var activity: Activity
            do { activity = try Self.activity(ride, id: id, file: file) } catch {
                summary.failed.append((file, error.description))
                continue
            }
            let owner = chosen ?? activity.localDay.flatMap { owners.bike(recording: ride.devices, on: $0) }
            activity.gearID = owner?.importedGearID
            // Imported before (cron runs the same folder again): without `--bike` it keeps the
            // bike it has, so a run without `--bike` never undoes an earlier `--bike`.
            if chosen == nil, let known = cache[id]?.gearID { activity.gearID = known }
            // In a household, a cached ride on another rider's bike is theirs (two riders of one outing).
            func sameRider(_ cached: Activity) -> Bool {
                guard let mine = owner?.rider?.value, let theirs = cached.gearID.flatMap({ riderOfGear[$0] }) else { return true }
                return mine == theirs
            }
            var match: Int64?
            var others: [Activity] = []
            while cache[id] == nil, let candidate = starts.match(ride.start, distance: ride.distance, except: id), let cached = cache[candidate] {
                if sameRider(cached) {
                    match = candidate
                    break
                }
                others.append(cached)
                starts.remove(cached)
            }
            for other in others { starts.add(other) }
            if let cached = match {
                // Strava's copy stays (`SameRide`); it takes this ride's bike if it names none.
                var gaveBike = false
                if let other = cache[cached], other.source == nil {
                    let kept = SameRide.kept(strava: other, file: activity)
                    if kept != other, case .changed = cache.upsert(kept) { gaveBike = true }
                }
                summary.duplicates.append((file, cached, gaveBike))
                continue
            }
            // Named once, though two files (a.fit and a.fit.gz) may hold it.
            if activity.gearID == nil, withoutBike.insert(id).inserted { summary.withoutBike.append((file, ride.devices.first)) }
            switch cache.upsert(activity) {
            case .new:
                summary.new += 1
                starts.add(activity)
            case .changed: summary.changed += 1
            case .unchanged: summary.alreadyImported += 1
            case .held: summary.held += 1
            case .rejected(let violation): summary.failed.append((file, "\(violation)"))
            }
        }
        summary.filesWritten = try cache.flush()
        return summary
    }

    /// The cache's activity for a ride read from `file`. `RideFileReader` checked every number
    /// (`RecordedRide.checked`), so no conversion here can trap; a ride that did not pass that
    /// check is refused here too, never converted.
    package static func activity(_ ride: RecordedRide, id: Int64, file: String) throws(RideFileError) -> Activity {
        let ride = try ride.checked()
        guard let moving = ActivityLimits.wholeSeconds(ride.movingTime), let elapsed = ActivityLimits.wholeSeconds(ride.elapsedTime) else {
            throw RideFileError(FileNumber.outOfRange("the moving time", ride.movingTime, .movingTime))
        }
        return Activity(
            id: id, name: name(of: file), sportType: ride.sport, startDate: Timestamps.format(Date(timeIntervalSince1970: TimeInterval(ride.start))),
            startDateLocal: Timestamps.format(Date(timeIntervalSince1970: TimeInterval(ride.start + localOffset(ride)))),
            movingTime: moving, elapsedTime: elapsed, distance: (ride.distance * 10).rounded() / 10,
            totalElevationGain: ride.ascent.rounded(), trainer: ride.indoor, source: ride.format.rawValue,
            device: ride.devices.first.map(Int64.init))
    }

    /// Whose rides each device serial number records: a bike's, or a part's (which go on the bike
    /// the part was mounted on that day). A serial listed twice (`validate` reports it:
    /// `duplicate-device`) goes to the first bike, else the first part.
    struct DeviceOwners {
        var bikes: [Int64: Bike] = [:]
        var parts: [Int64: Part] = [:]
        var bikesByID: [BikeID: Bike] = [:]

        init(_ garage: Garage) {
            for resolved in garage.bikes {
                bikesByID[resolved.bike.id] = bikesByID[resolved.bike.id] ?? resolved.bike
                for device in resolved.bike.devices where bikes[device.value] == nil { bikes[device.value] = resolved.bike }
            }
            for resolved in garage.parts {
                for device in resolved.part.devices where bikes[device.value] == nil && parts[device.value] == nil {
                    parts[device.value] = resolved.part
                }
            }
        }

        var isEmpty: Bool { bikes.isEmpty && parts.isEmpty }

        /// The bike of the first of `devices` that has an owner, on `day` (the rider's day): a
        /// part's device names the bike the part was mounted on then, or none when it was on
        /// no bike.
        func bike(recording devices: [UInt32], on day: Day) -> Bike? {
            for device in devices.map(Int64.init) {
                if let bike = bikes[device] { return bike }
                if let part = parts[device] { return part.mount(on: day).flatMap { bikesByID[$0.bike.value] } }
            }
            return nil
        }
    }

    /// An id from the file's content (FNV-1a, 62 bits, at 2^62 and above: `Activity.importedIDs`),
    /// so that the same file, gzipped or not, is the same ride.
    static func importedID(_ bytes: [UInt8]) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            hash ^= UInt64(b)
            hash &*= 0x100_0000_01b3
        }
        return Activity.importedIDs.lowerBound | Int64(hash & ((1 << 62) - 1))
    }

    /// The ride's name: its file's, without the extensions.
    static func name(of path: String) -> String {
        var name = String(RideFileReader.lastComponent(path))
        if name.lowercased().hasSuffix(".gz") { name.removeLast(3) }
        return (name as NSString).deletingPathExtension
    }

    /// The rider's offset from UTC at the ride's start: the file's, else this machine's time zone's.
    static func localOffset(_ ride: RecordedRide) -> Int64 {
        ride.utcOffset ?? Int64(TimeZone.current.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(ride.start))))
    }

    /// After `import strava-archive`: reads the export's original files of the activities that
    /// have no bike, and puts each on the bike whose `devices:` lists its device, or the bike a
    /// part that lists it was mounted on that day (gear: the bike's
    /// Strava gear id, else `Bike.importedGearID`). Returns how many moved and the originals that
    /// could not be read. `archive` is the zip or its folder; `originals` maps activity id to its
    /// `Filename` in the export. `unowned` counts the rides left without a bike by the device
    /// their original names (nil: it names none); `progress` is told the originals read so far.
    package static func linkOriginals(
        archive: String, originals: [Int64: String], garageRoot: String, garage: Garage,
        progress: (Int, Int) -> Void = { _, _ in }
    ) throws -> (linked: Int, failed: [(file: String, reason: String)], unowned: [UInt32?: Int]) {
        let owners = DeviceOwners(garage)
        guard !originals.isEmpty else { return (0, [], [:]) }
        let lock = try SyncLock(garage: garageRoot)
        defer { withExtendedLifetime(lock) {} }
        let cache = ActivityCacheStore(garageRoot: garageRoot)
        if cache.errorCount > 0 { throw ActivityStoreError.unreadable(cache.errorCount) }
        let source = try ArchiveFiles(path: archive)
        var linked = 0
        var failed: [(String, String)] = []
        var unowned: [UInt32?: Int] = [:]
        for (n, (id, name)) in originals.sorted(by: { $0.key < $1.key }).enumerated() {
            progress(n, originals.count)
            guard var a = cache[id], a.gearID == nil, RideFileReader.kind(of: name) != nil else { continue }
            let ride: RecordedRide
            do { ride = try source.ride(name) } catch {
                failed.append((name, error.description))
                continue
            }
            guard let day = a.localDay, let bike = owners.bike(recording: ride.devices, on: day) else {
                unowned[ride.devices.first, default: 0] += 1
                continue
            }
            a.gearID = bike.strava?.value ?? bike.importedGearID
            a.device = ride.devices.first.map(Int64.init)
            if case .changed = cache.upsert(a) { linked += 1 }
        }
        try cache.flush()
        return (linked, failed, unowned)
    }

    /// The original files of a Strava export, in its folder or its zip.
    struct ArchiveFiles {
        let folder: String?
        let zip: Archive?
        /// The zip's files by path, and by every tail of it after a `/` (a name in
        /// activities.csv may lack a folder the zip puts around the export): the first in the
        /// zip's order for each. Read once: walking the zip for each ride made thousands of
        /// originals take minutes.
        let entries: [String: Entry]

        init(path: String) throws(RideFileError) {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { throw RideFileError("no such file or folder") }
            if isFolder.boolValue {
                (folder, zip, entries) = (path, nil, [:])
            } else {
                let archive: Archive
                do { archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read) } catch { throw RideFileError("not a zip file") }
                (folder, zip, entries) = (nil, archive, Self.index(archive))
            }
        }

        static func index(_ zip: Archive) -> [String: Entry] {
            var entries: [String: Entry] = [:]
            for entry in zip where entry.type == .file {
                let path = entry.path
                if entries[path] == nil { entries[path] = entry }
                var rest = Substring(path)
                while let slash = rest.firstIndex(of: "/") {
                    rest = rest[rest.index(after: slash)...]
                    if entries[String(rest)] == nil { entries[String(rest)] = entry }
                }
            }
            return entries
        }

        func ride(_ name: String) throws(RideFileError) -> RecordedRide {
            guard !name.hasPrefix("/"), !name.split(separator: "/").contains("..") else { throw RideFileError("a file name outside the export") }
            if let folder { return try RideFileReader.read(folder + "/" + name).ride }
            guard let zip, let entry = entries[name] else {
                throw RideFileError("not in the export")
            }
            let limit = min(RideFileReader.maximumFileSize, FileSizeLimit.unpacked)
            guard entry.uncompressedSize <= UInt64(limit) else { throw RideFileError("larger than a ride file may be") }
            switch Unzip.extract(entry, of: zip, limit: limit) {
            case .success(let bytes): return try RideFileReader.decode(bytes, name: name)
            case .failure(.tooLarge): throw RideFileError("inflates to more than \(FileSizeLimit.describe(limit)), more than a ride file may be: not read")
            case .failure(.unreadable): throw RideFileError("cannot be unpacked from the zip")
            }
        }
    }
}
