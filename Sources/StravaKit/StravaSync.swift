import BikeCheckKit
import Foundation

/// What a sync did, per bike and in total.
public struct SyncSummary: Sendable, Equatable {
    public struct Counts: Sendable, Equatable {
        public var new = 0, changed = 0, deleted = 0
        public var isEmpty: Bool { new == 0 && changed == 0 && deleted == 0 }
    }
    /// Keyed by bike file id, else by Strava gear id, else "no gear".
    public var byBike: [String: Counts] = [:]
    public var total = Counts()
    public var listed = 0
    public var pages = 0
    public var filesWritten = 0
    public var full = false
    /// Strava bikes no bike file claims: (gear, suggested id).
    public var unclaimedBikes: [StravaGear] = []
    /// Why retired bikes could not all be looked up (the sync itself succeeded).
    public var gearLookupProblem: String?
    /// Activities Strava listed that could not be read (missing fields, numbers out of range);
    /// they were left as they were in the cache.
    public var skipped = 0
    /// Set when a full sync deleted nothing because an unreadable activity had no readable id.
    public var deletionsHeldBack = false

    /// "3 new, 1 changed, 0 deleted (grail: 2 new, 1 changed; stumpy: 1 new)".
    public var line: String {
        func text(_ c: Counts) -> String {
            var parts: [String] = []
            if c.new > 0 { parts.append("\(c.new) new") }
            if c.changed > 0 { parts.append("\(c.changed) changed") }
            if c.deleted > 0 { parts.append("\(c.deleted) deleted") }
            return parts.joined(separator: ", ")
        }
        var s = "synced \(listed) activit\(listed == 1 ? "y" : "ies") from Strava: \(total.new) new, \(total.changed) changed, \(total.deleted) deleted"
        let bikes = byBike.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }
        if !bikes.isEmpty { s += " (" + bikes.map { "\($0.key): \(text($0.value))" }.joined(separator: "; ") + ")" }
        if skipped > 0 {
            s += "; skipped \(skipped) activit\(skipped == 1 ? "y" : "ies") that could not be read (left as cached)"
        }
        if deletionsHeldBack { s += "; deleted nothing, as an unreadable activity had no id" }
        return s
    }
}

/// Brings Strava's bikes and activities into the garage's cache. Each page is written to the
/// cache and the position saved before the next request, so a sync stopped by a rate limit, a
/// fault or Ctrl-C loses nothing and the next run resumes.
public final class StravaSync {
    public let garageRoot: String
    let client: StravaClient
    /// Bike file id by Strava gear id.
    let bikeFiles: [String: String]
    /// Progress lines (pages, activities, rate-limit budget).
    public var progress: (String) -> Void = { _ in }

    public static let perPage = 200
    /// How often fetched pages are written to disk during a long listing.
    public static let checkpointInterval: TimeInterval = 2
    /// A listing longer than this (a million activities) means something is wrong.
    public static let maxPages = 5000
    /// Incremental syncs re-list this much before the newest cached start, to catch late uploads and edits.
    public static let overlap: Int64 = 7 * 86400

    public init(garageRoot: String, client: StravaClient, bikeFiles: [String: String]) {
        self.garageRoot = garageRoot
        self.client = client
        self.bikeFiles = bikeFiles
    }

    public func run(full: Bool) throws -> SyncSummary {
        let lock = try SyncLock(garage: garageRoot)
        defer { withExtendedLifetime(lock) {} }
        let cache = ActivityCacheStore(garageRoot: garageRoot)
        if cache.errorCount > 0 && !full { throw StravaError.cacheUnreadable(cache.errorCount) }
        var state = SyncState.load(garage: garageRoot)
        var summary = SyncSummary()

        let athlete = try client.athlete()

        // Resume a listing that did not finish, unless a full one is asked for over an incremental one.
        var plan: SyncState.Pending
        if let pending = state.pending, pending.mode == "full" || !full {
            plan = pending
            // Re-read the page before the one that failed: a deletion meanwhile shifts items back a page.
            plan.nextPage = max(1, pending.nextPage - 1)
            progress("resuming the \(pending.mode) sync at page \(plan.nextPage)")
        } else if full || cache.count == 0 {
            plan = .init(mode: "full", after: nil, nextPage: 1, seen: [])
        } else {
            let newest = cache.newestStart.flatMap(Timestamps.epoch) ?? 0
            plan = .init(mode: "incremental", after: max(0, newest - Self.overlap), nextPage: 1, seen: [])
        }
        summary.full = plan.mode == "full"
        if full { cache.markAllDirty() }
        var seen = Set(plan.seen)
        // An unreadable activity without even an id might be any cached one.
        var unidentified = false

        func bikeKey(_ gear: String?) -> String {
            guard let gear else { return "no gear" }
            return bikeFiles[gear] ?? gear
        }

        // Pages are written in batches (every couple of seconds, at the end, and before any error
        // propagates); the saved position only ever points past pages already on disk, so even a
        // killed process loses nothing but the unwritten pages, which the next run fetches again.
        var lastFlush = Date()
        var flushedPlan = plan
        // The listing is recorded as under way before any of it reaches the cache: a run killed
        // after writing newer activities must not let the next one start after them.
        state.pending = plan
        try state.save(garage: garageRoot)
        func checkpoint() throws {
            if plan.mode == "full" { plan.seen = seen.sorted() }
            summary.filesWritten += try cache.flush()
            state.pending = plan
            try state.save(garage: garageRoot)
            flushedPlan = plan
            lastFlush = Date()
        }
        do {
            while true {
                if plan.nextPage > Self.maxPages {
                    throw StravaError.badResponse("more than \(Self.maxPages) pages of activities; stopping")
                }
                let page = try client.activities(after: plan.after, page: plan.nextPage, perPage: Self.perPage)
                summary.pages += 1
                if page.count == 0 { break }
                for a in page.activities {
                    seen.insert(a.id)
                    let old = cache[a.id]
                    switch cache.upsert(a) {
                    case .new:
                        summary.total.new += 1
                        summary.byBike[bikeKey(a.gearID), default: .init()].new += 1
                    case .changed:
                        summary.total.changed += 1
                        summary.byBike[bikeKey(a.gearID), default: .init()].changed += 1
                        if let old, old.gearID != a.gearID {
                            summary.byBike[bikeKey(old.gearID), default: .init()].changed += 1
                        }
                    case .unchanged: break
                    }
                }
                // An activity that could not be read is still on Strava: keep its id in the seen
                // set so a full sync does not delete its cached copy.
                for id in page.unreadable {
                    summary.skipped += 1
                    if let id { seen.insert(id) } else { unidentified = true }
                }
                summary.listed += page.activities.count
                plan.nextPage += 1
                if Date().timeIntervalSince(lastFlush) >= Self.checkpointInterval { try checkpoint() }
                progress("page \(plan.nextPage - 1): \(summary.listed) activities, \(summary.total.new) new; \(client.budget.summary)")
            }
        } catch {
            // Keep what was fetched; the next run resumes after it.
            if plan.nextPage != flushedPlan.nextPage || cache.hasUnwrittenChanges { try? checkpoint() }
            throw error
        }

        summary.deletionsHeldBack = plan.mode == "full" && unidentified
        if plan.mode == "full" && !unidentified {
            for id in cache.ids.subtracting(seen) {
                guard let old = cache.remove(id) else { continue }
                summary.total.deleted += 1
                summary.byBike[bikeKey(old.gearID), default: .init()].deleted += 1
            }
        }
        summary.filesWritten += try cache.flush()
        state.pending = nil
        try state.save(garage: garageRoot)

        // Bikes: /athlete lists the active ones; retired bikes only show up as gear ids on rides.
        var known: [String: StravaGear] = [:]
        for bike in athlete.bikes { known[bike.id] = bike }
        let rideGear = Set(cache.activities.compactMap(\.gearID).filter(isStravaBikeGearID))
        for id in rideGear.sorted() where known[id] == nil && bikeFiles[id] == nil {
            if let cached = state.gear[id] {
                if let g = cached { known[id] = g }
                continue
            }
            // The activities are safe by now; a failing gear lookup only leaves a bike unnamed until next time.
            let g: StravaGear?
            do { g = try client.gear(id) } catch {
                summary.gearLookupProblem = "could not look up Strava gear \(id): \(error)"
                break
            }
            state.gear[id] = .some(g)
            if let g { known[id] = g }
        }
        try state.save(garage: garageRoot)
        summary.unclaimedBikes = known.values.filter { bikeFiles[$0.id] == nil }.sorted { $0.id < $1.id }
        return summary
    }

    /// A bike file id from a name: lower case letters, digits and dashes.
    public static func suggestedID(for name: String) -> String {
        var out = ""
        for ch in name.lowercased() {
            if ch.isASCII && (ch.isLetter || ch.isNumber) { out.append(ch) } else if !out.isEmpty && out.last != "-" { out.append("-") }
        }
        while out.hasSuffix("-") { out.removeLast() }
        return out.isEmpty ? "bike" : out
    }

    /// The command that creates a bike file for a Strava bike.
    public static func addCommand(for gear: StravaGear, taken: Set<String>) -> String {
        addCommand(name: gear.displayName, gearID: gear.id, taken: taken)
    }

    /// The command that creates a bike file named `name` (with `--strava gearID` when known),
    /// under an id not in `taken`, quoted so it can be pasted into a POSIX shell.
    public static func addCommand(name: String, gearID: String?, taken: Set<String>) -> String {
        let base = suggestedID(for: name)
        var id = base
        if taken.contains(id) {
            if let gearID, !taken.contains(base + "-" + gearID) {
                id = base + "-" + gearID
            } else {
                var n = 2
                while taken.contains("\(base)-\(n)") { n += 1 }
                id = "\(base)-\(n)"
            }
        }
        var command = "bikecheck bike add \(id) --name \(shellQuoted(name))"
        if let gearID { command += " --strava \(shellQuoted(gearID))" }
        return command
    }

    /// `text` as one POSIX shell word: bare when it is only safe characters, else in single
    /// quotes, with each `'` written `'\''`.
    public static func shellQuoted(_ text: String) -> String {
        let safe = !text.isEmpty && text.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_./:@%+=,".unicodeScalars.contains($0))
        }
        if safe { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
