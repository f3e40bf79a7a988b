import Diagnostics
import Foundation

/// Loads every `activities/YYYY-MM.json` file, checking names, order and duplicate ids.
public enum ActivityCacheLoader {
    public struct Result: Sendable {
        public var activities: [Activity]
        public var diagnostics: [Diagnostic]
        public var sources: [String: SourceText]
    }

    public static func load(root: String) -> Result {
        let directory = root + "/activities"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()

        // Files are independent: decode them on all cores, then merge in name order.
        let slots = UnsafeMutableBufferPointer<(activities: [Activity], diagnostics: [Diagnostic], bytes: [UInt8]?)?>.allocate(capacity: names.count)
        slots.initialize(repeating: nil)
        defer { slots.deinitialize(); slots.deallocate() }
        nonisolated(unsafe) let shared = slots
        DispatchQueue.concurrentPerform(iterations: names.count) { index in
            let relative = "activities/" + names[index]
            guard let bytes = readBytes(directory + "/" + names[index]) else {
                shared[index] = ([], [.error("unreadable-file", "cannot read the file", at: SourceLocation(file: relative))], nil)
                return
            }
            let decoded = ActivityCacheFormat.decode(bytes, path: relative)
            shared[index] = (decoded.activities, decoded.diagnostics, decoded.diagnostics.isEmpty ? nil : bytes)
        }

        var result = Result(activities: [], diagnostics: [], sources: [:])
        result.activities.reserveCapacity(slots.reduce(0) { $0 + ($1?.activities.count ?? 0) })
        var seen: [Int64: Int] = [:]  // activity id → the last file it was seen in
        seen.reserveCapacity(result.activities.capacity)
        for (index, name) in names.enumerated() {
            guard let slot = slots[index] else { continue }
            let relative = "activities/" + name
            result.diagnostics += slot.diagnostics
            if let bytes = slot.bytes { result.sources[relative] = SourceText(path: relative, bytes: bytes) }
            let month = String(name.dropLast(5))
            if !isMonthKey(month) {
                result.diagnostics.append(.error("cache-file-name", "'\(name)' is not named after a month",
                                                 at: SourceLocation(file: relative),
                                                 help: "cache files are named YYYY-MM.json; move or delete this one"))
                continue
            }
            var misplaced = 0
            var unsorted = false
            var duplicates: Set<Int> = []
            // By index rather than `for a in`: a copy of an Activity retains its seven strings.
            let activities = slot.activities
            for k in activities.indices {
                if !activities[k].starts(inMonth: month) { misplaced += 1 }
                if k > 0, !Activity.cacheOrder(activities[k - 1], activities[k]) { unsorted = true }
                if let other = seen.updateValue(index, forKey: activities[k].id) {
                    result.diagnostics.append(.error("cache-duplicate-activity", "activity \(activities[k].id) is cached twice (also in activities/\(names[other]))",
                                                     at: SourceLocation(file: relative),
                                                     help: "re-create the cache with 'bikecheck sync --full'"))
                    duplicates.insert(k)
                }
            }
            if duplicates.isEmpty {
                result.activities += activities
            } else {
                result.activities += activities.indices.lazy.filter { !duplicates.contains($0) }.map { activities[$0] }
            }
            if misplaced > 0 {
                result.diagnostics.append(.warning("cache-misplaced", "\(misplaced) activities in \(name) started in another month",
                                                   at: SourceLocation(file: relative),
                                                   help: "re-create the cache with 'bikecheck sync --full'"))
            }
            if unsorted {
                result.diagnostics.append(.warning("cache-unsorted", "\(name) is not sorted by start date and id",
                                                   at: SourceLocation(file: relative),
                                                   help: "re-create the cache with 'bikecheck sync --full'"))
            }
        }
        return result
    }

    static func isMonthKey(_ s: String) -> Bool {
        guard let day = Day(s + "-01") else { return false }
        return day.monthKey == s
    }
}
