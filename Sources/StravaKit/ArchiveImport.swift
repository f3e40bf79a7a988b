import BikeCheckKit
import Foundation

/// Brings a Strava bulk export into the garage's activity cache. Activities already cached
/// (from the API, which knows more: local times, time zones) are kept as they are.
public enum ArchiveImport {
    public struct Summary: Sendable {
        public var archive: StravaArchive
        public var new = 0
        public var alreadyCached = 0
        public var filesWritten = 0
        /// Bikes in bikes.csv that no bike file claims.
        public var unclaimedBikes: [StravaArchive.Bike] = []
    }

    /// `bikeFiles`: bike file id by Strava gear id; `bikeNames`: bike file id by the bike's name.
    public static func run(path: String, garageRoot: String, bikeFiles: [String: String], bikeNames: [String: String]) throws -> Summary {
        let lock = try SyncLock(garage: garageRoot)
        defer { withExtendedLifetime(lock) {} }
        // Gear names the rider already tied to ids: a bike file's name, or gear looked up by sync.
        var gearByName: [String: String] = [:]
        for (name, file) in bikeNames { if let id = bikeFiles.first(where: { $0.value == file })?.key { gearByName[name] = id } }
        for case let (id, gear?) in SyncState.load(garage: garageRoot).state.gear { gearByName[gear.name] = id; gearByName[gear.displayName] = id }
        let archive = try StravaArchive.read(path: path, gearByName: gearByName)
        let cache = ActivityCacheStore(garageRoot: garageRoot)
        if cache.errorCount > 0 { throw StravaError.cacheUnreadable(cache.errorCount) }
        var summary = Summary(archive: archive)
        for a in archive.activities {
            if cache[a.id] != nil { summary.alreadyCached += 1; continue }
            // A month file that is a symbolic link is left alone (see ActivityCacheStore).
            if cache.upsert(a) == .new { summary.new += 1 }
        }
        summary.filesWritten = try cache.flush()
        let claimedNames = Set(bikeNames.keys.map { $0.lowercased() })
        summary.unclaimedBikes = archive.bikes.filter { bike in
            if let id = bike.gearID, bikeFiles[id] != nil { return false }
            return !claimedNames.contains(bike.name.lowercased())
        }
        return summary
    }
}
