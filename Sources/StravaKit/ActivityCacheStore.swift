import BikeCheckKit
import Foundation

/// The activity cache as a mutable set of activities by month, written back one month file at a
/// time, atomically and only when the bytes change.
public final class ActivityCacheStore {
    public let root: String
    private(set) var byID: [Int64: Activity] = [:]
    private var dirtyMonths: Set<String> = []
    /// Errors found when reading the existing cache.
    public let errorCount: Int

    public var hasUnwrittenChanges: Bool { !dirtyMonths.isEmpty }

    public init(garageRoot: String) {
        root = garageRoot
        let loaded = ActivityCacheLoader.load(root: garageRoot)
        errorCount = loaded.diagnostics.filter { $0.severity == .error }.count
        for a in loaded.activities { byID[a.id] = a }
    }

    public var count: Int { byID.count }
    public var ids: Set<Int64> { Set(byID.keys) }
    public var activities: Dictionary<Int64, Activity>.Values { byID.values }
    public subscript(id: Int64) -> Activity? { byID[id] }

    /// The latest start date in the cache.
    public var newestStart: String? { byID.values.map(\.startDate).max() }

    public enum Change { case new, changed, unchanged }

    /// Adds or replaces an activity; says what that was.
    @discardableResult
    public func upsert(_ a: Activity) -> Change {
        // The one way into the cache: a number that is not finite would make the month file
        // unreadable JSON ("nan"), so it is stored as missing (0) whatever the source did.
        var a = a
        if !a.distance.isFinite { a.distance = 0 }
        if !a.totalElevationGain.isFinite { a.totalElevationGain = 0 }
        let old = byID.updateValue(a, forKey: a.id)
        if let old, old == a { return .unchanged }
        if let old { dirtyMonths.insert(old.monthKey) }
        dirtyMonths.insert(a.monthKey)
        return old == nil ? .new : .changed
    }

    public func remove(_ id: Int64) -> Activity? {
        guard let old = byID.removeValue(forKey: id) else { return nil }
        dirtyMonths.insert(old.monthKey)
        return old
    }

    /// Marks every month dirty, so the next flush rewrites files that drifted from the canonical form.
    public func markAllDirty() {
        dirtyMonths.formUnion(byID.values.map(\.monthKey))
        // Month files left with no activities are removed; files not named after a month are the rider's.
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root + "/activities")) ?? []
        for name in names where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let month = String(name.dropLast(5))
            if month.utf8.count == 7, Day(month + "-01")?.monthKey == month { dirtyMonths.insert(month) }
        }
    }

    /// Writes the months that changed; returns how many files were written or removed.
    @discardableResult
    public func flush() throws -> Int {
        guard !dirtyMonths.isEmpty else { return 0 }
        let directory = root + "/activities"
        try AtomicFile.makeDirectory(directory)
        var grouped: [String: [Activity]] = [:]
        for a in byID.values where dirtyMonths.contains(a.monthKey) { grouped[a.monthKey, default: []].append(a) }
        var written = 0
        for month in dirtyMonths.sorted() {
            let path = directory + "/" + month + ".json"
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
