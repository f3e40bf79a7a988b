import BikeCheckKit
import Foundation

/// What a sync did, per bike and in total.
package struct SyncSummary: Sendable, Equatable {
    package struct Counts: Sendable, Equatable {
        package var new = 0, changed = 0, deleted = 0
        package var isEmpty: Bool { new == 0 && changed == 0 && deleted == 0 }
    }
    /// Keyed by bike file id, else by Strava gear id, else "no gear".
    package var byBike: [String: Counts] = [:]
    package var total = Counts()
    /// Distinct activities listed (readable ones).
    package var listed = 0
    package var pages = 0
    package var filesWritten = 0
    package var full = false
    /// Strava bikes no bike file claims: (gear, suggested id).
    package var unclaimedBikes: [StravaGear] = []
    /// Why retired bikes could not all be looked up (the sync itself succeeded).
    package var gearLookupProblem: String?
    /// Activities Strava listed that could not be read (a field missing, of the wrong type or
    /// out of range); they were left as they were in the cache.
    package var skipped = 0
    /// The ids of the skipped activities that had a readable id, sorted.
    package var skippedIDs: [Int64] = []
    /// Set when a full sync deleted nothing though cached activities were missing from the
    /// listing: how many, why they were kept, and whether the rider can confirm them.
    package var deletionsHeldBack: HeldDeletions?
    /// Month files left alone (`activities/YYYY-MM.json`: why), sorted.
    package var leftAlone: [String] = []
    /// Changes not made because their month file is left alone.
    package var heldChanges = 0
    /// Rides imported from files that Strava listed too: Strava's copy replaced each (`SameRide`).
    package var replacedImports = 0
    /// Set when a full sync resumed a listing an earlier run stopped: its cursor. Deletions were
    /// considered only for activities that start before it.
    package var resumedBefore: Int64?

    /// Cached activities a full sync kept though the listing left them out.
    package struct HeldDeletions: Sendable, Equatable {
        package var count: Int
        package var reason: String
        /// Set when Strava confirmed them gone but they were too many to delete unasked (see
        /// `StravaSync.deletionLimit`): the rider confirms with `--max-delete` this number.
        package var confirmWith: Int?
    }

    package static func == (a: SyncSummary, b: SyncSummary) -> Bool {
        a.byBike == b.byBike && a.total == b.total && a.listed == b.listed && a.pages == b.pages
            && a.filesWritten == b.filesWritten && a.full == b.full && a.unclaimedBikes == b.unclaimedBikes
            && a.gearLookupProblem == b.gearLookupProblem && a.skipped == b.skipped && a.skippedIDs == b.skippedIDs
            && a.deletionsHeldBack == b.deletionsHeldBack
            && a.leftAlone == b.leftAlone && a.heldChanges == b.heldChanges && a.resumedBefore == b.resumedBefore
            && a.replacedImports == b.replacedImports
    }

    /// "3 new, 1 changed, 0 deleted (grail: 2 new, 1 changed; stumpy: 1 new)".
    package var line: String {
        func text(_ c: Counts) -> String {
            var parts: [String] = []
            if c.new > 0 { parts.append("\(c.new) new") }
            if c.changed > 0 { parts.append("\(c.changed) changed") }
            if c.deleted > 0 { parts.append("\(c.deleted) deleted") }
            return parts.joined(separator: ", ")
        }
        func plural(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
        var s = "synced \(plural(listed, "activity", "activities")) from Strava: \(total.new) new, \(total.changed) changed, \(total.deleted) deleted"
        let bikes = byBike.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }
        if !bikes.isEmpty { s += " (" + bikes.map { "\($0.key): \(text($0.value))" }.joined(separator: "; ") + ")" }
        if replacedImports > 0 {
            s +=
                "; \(plural(replacedImports, "ride", "rides")) imported from files also came from Strava: Strava's copy replaced \(replacedImports == 1 ? "it" : "them")"
        }
        if skipped > 0 {
            s += "; skipped \(plural(skipped, "activity", "activities")) that could not be read (left as cached)"
            if !skippedIDs.isEmpty {
                s += ": " + skippedIDs.prefix(5).map(String.init).joined(separator: ", ") + (skippedIDs.count > 5 ? ", …" : "")
            }
        }
        if let cursor = resumedBefore {
            s +=
                "; resumed a full listing that had stopped, so deletions were checked only for activities before \(Timestamps.string(epoch: cursor)) (run 'bikecheck sync --full' again for the rest)"
        }
        if let held = deletionsHeldBack {
            s += "; deleted nothing: kept \(plural(held.count, "cached activity", "cached activities")) missing from the listing, as \(held.reason)"
        }
        if !leftAlone.isEmpty {
            s += "; left alone \(leftAlone.prefix(3).joined(separator: ", "))\(leftAlone.count > 3 ? ", …" : "")"
            if heldChanges > 0 { s += ", holding back \(plural(heldChanges, "change", "changes")) there" }
            s += " (fix or move such a file away, then run 'bikecheck sync --full')"
        }
        return s
    }
}
