import BikeCheckKit
import Foundation

/// Brings Strava's bikes and activities into the garage's cache.
///
/// The listing pages through `/athlete/activities` newest first with a time cursor
/// (`before=<oldest start seen + 1>`), not page numbers, so activities deleted on Strava between
/// two requests cannot shift others out of it. Each stretch is written to the cache and the
/// cursor saved before the listing goes on, so a sync stopped by a rate limit, a fault or Ctrl-C
/// loses nothing and the next run resumes. A full sync deletes a cached activity only when the
/// run listed its whole time span to the end, could read every item's id, and Strava answers 404
/// for it (for up to 20 of the candidates, spread over them), and only when the listing was not
/// empty and the deletions are few (`deletionLimit`) unless the rider allowed more
/// (`maxDelete`); anything else keeps the cache and the summary says why.
package final class StravaSync {
    package let garageRoot: String
    let client: StravaClient
    /// Bike file id by Strava gear id.
    let bikeFiles: [String: String]
    /// Progress lines (pages, activities, rate-limit budget).
    package var progress: (String) -> Void = { _ in }
    /// Warnings the rider must see whatever the output format (a discarded sync state).
    package var warn: (Warning) -> Void = { _ in }
    /// The most cached activities a full sync may delete (`--max-delete`); nil for
    /// `deletionLimit`. An empty listing deletes only with this set.
    package var maxDelete: Int?
    /// Whether a sync may learn what is cached from the activity index (off with `BIKECHECK_NO_CACHE`).
    package var usesActivityIndex = true
    /// The household rider whose login this sync uses: their own sync state
    /// (`.bikecheck/strava-sync.RIDER.json`); nil: the garage's one login.
    package var rider: String?
    /// Whether this sync is one athlete's among several (a household): where it starts, what a
    /// full sync may delete and which gear it looks up count only the cached activities of the
    /// athlete logged in, so one rider's sync never deletes another's rides. Off: every cached
    /// activity counts, as in a garage of one rider.
    package var scopedToAthlete = false
    /// Which rides imported from files a listed activity may replace as the same ride
    /// (`SameRide`): in a household, not another rider's (two riders of one outing).
    package var mayReplaceImported: (Activity) -> Bool = { _ in true }

    package static let perPage = 200
    /// How often fetched pages are written to disk during a long listing.
    package static let checkpointInterval: TimeInterval = 2
    /// A listing longer than this (a million activities) means something is wrong.
    package static let maxPages = 5000
    /// Incremental syncs re-list this much before the newest cached start, to catch late uploads and edits.
    package static let overlap: Int64 = 7 * 86400
    /// How many deletion candidates are confirmed with `GET /activities/{id}` (all when fewer).
    package static let deletionChecks = 20

    package init(garageRoot: String, client: StravaClient, bikeFiles: [String: String]) {
        self.garageRoot = garageRoot
        self.client = client
        self.bikeFiles = bikeFiles
    }

    /// One sync: the listing (resumed, full or incremental), the deletions a full listing
    /// justifies, and the names of retired bikes.
    package func run(full: Bool) throws -> SyncSummary {
        let lock = try SyncLock(garage: garageRoot)
        defer { withExtendedLifetime(lock) {} }
        // A full sync rewrites every month: it reads them all at once. Any other parses only the
        // months its listing touches, and knows the rest from the activity index.
        let cache = ActivityCacheStore(garageRoot: garageRoot, readsMonthsAsNeeded: !full && usesActivityIndex)
        try cache.checkFolder()
        cache.removeStaleTemporaries()
        var (state, stateWarning) = SyncState.load(garage: garageRoot, rider: rider, now: client.now())
        if let stateWarning { warn(stateWarning) }
        var summary = SyncSummary()

        let athlete = try client.athlete()
        let athleteID = athlete.id
        let owns: (Activity) -> Bool = scopedToAthlete ? { $0.athlete == athleteID } : { _ in true }
        var listing = Listing(plan: plan(full: full, state: state, cache: cache, owns: owns), athlete: scopedToAthlete ? athleteID : nil)
        summary.full = listing.plan.mode == .full
        if listing.plan.mode == .full { summary.resumedBefore = listing.plan.before }
        if full { cache.markAllDirty() }
        // What this run lists: every start before `spanEnd` (all when nil), once it reaches the end.
        let spanEnd = listing.plan.before

        try list(&listing, state: &state, cache: cache, summary: &summary)
        summary.skipped = listing.skippedIDs.count + listing.unidentified
        summary.skippedIDs = listing.skippedIDs.sorted()
        if listing.plan.mode == .full { deleteWhatStravaNoLongerHas(listing, spanEnd: spanEnd, cache: cache, owns: owns, summary: &summary) }
        summary.filesWritten += try cache.flush()
        summary.leftAlone = cache.leftAlone.sorted { $0.key < $1.key }.map { "activities/\($0.key).json (\($0.value))" }
        state.pending = nil
        try state.save(garage: garageRoot, rider: rider)

        // In a household, the gear of this athlete's rides this run listed (a full sync lists all).
        let rideGear = scopedToAthlete ? listing.gear : cache.gearIDs
        summary.unclaimedBikes = lookUpBikes(athlete: athlete, rideGear: rideGear, state: &state, summary: &summary)
        try state.save(garage: garageRoot, rider: rider)
        // What status measures staleness by; a sync that stopped early (it threw) is not noted.
        do {
            try LastSync.record(garage: garageRoot, at: client.now())
        } catch {
            warn(Warning("cannot note the sync in \(LastSync.displayPath): \(error)"))
        }
        return summary
    }

    /// What one run lists, and what it has seen so far.
    struct Listing {
        var plan: SyncState.Pending
        var seen = Set<Int64>()
        /// Unreadable activities without even an id: they might be any cached one.
        var unidentified = 0
        var skippedIDs = Set<Int64>()
        /// The athlete whose listing this is, stamped on activities listed without one (a household).
        var athlete: Int64?
        /// The gear ids of the activities listed.
        var gear = Set<String>()

        init(plan: SyncState.Pending, athlete: Int64? = nil) {
            self.plan = plan
            self.athlete = athlete
        }
    }

    /// Resumes a listing that did not finish, unless a full one is asked for over an incremental
    /// one; else a full listing (asked for, or an empty cache), else an incremental one.
    func plan(full: Bool, state: SyncState, cache: ActivityCacheStore, owns: (Activity) -> Bool = { _ in true }) -> SyncState.Pending {
        if let pending = state.pending, pending.mode == .full || !full {
            progress("resuming the \(pending.mode.rawValue) sync" + (pending.before.map { " before \(Timestamps.string(epoch: $0))" } ?? ""))
            return pending
        }
        if full || cache.count == 0 { return .init(mode: .full) }
        // One athlete's of a household: their newest cached ride; none yet is a first, full sync.
        let newestCached = scopedToAthlete ? cache.newestStart(where: owns) : cache.newestStart
        guard let newestCached else { return .init(mode: .full) }
        // Strava refuses an `after` in the future: a cached start ahead of the clock counts as now.
        let now = Int64(client.now().timeIntervalSince1970)
        let newest = min(now, Timestamps.epoch(newestCached) ?? 0)
        return .init(mode: .incremental, after: max(0, newest - Self.overlap))
    }

    /// Lists page after page into the cache until a short page. Pages are written in batches
    /// (every couple of seconds, at the end, and before any error propagates) and the saved
    /// cursor only ever points past pages already on disk, so even a killed process loses nothing
    /// but the unwritten pages, which the next run fetches again.
    func list(_ listing: inout Listing, state: inout SyncState, cache: ActivityCacheStore, summary: inout SyncSummary) throws {
        let now = Int64(client.now().timeIntervalSince1970)
        var lastFlush = Date()
        var flushedPlan = listing.plan
        // The listing is recorded as under way before any of it reaches the cache: a run killed
        // after writing newer activities must not let the next one start after them.
        state.pending = listing.plan
        try state.save(garage: garageRoot, rider: rider)
        func checkpoint() throws {
            summary.filesWritten += try cache.flush()
            state.pending = listing.plan
            try state.save(garage: garageRoot, rider: rider)
            flushedPlan = listing.plan
            lastFlush = Date()
        }
        do {
            while true {
                if summary.pages >= Self.maxPages {
                    throw ListingAnomaly("more than \(Self.maxPages) pages of activities")
                }
                // Strava lists newest first when given `before` (and `after` with it); an incremental
                // listing always sends both.
                let before = listing.plan.before ?? (listing.plan.mode == .incremental ? now + 366 * 86_400 : nil)
                let page = try client.activities(after: listing.plan.after, before: before, perPage: Self.perPage)
                summary.pages += 1
                try Self.check(page, after: listing.plan.after, before: before)
                record(page, into: &listing, cache: cache, summary: &summary)
                progress("page \(summary.pages): \(summary.listed) activities, \(summary.total.new) new; \(client.budget.summary)")
                // A page shorter than asked for is the last.
                if page.count < Self.perPage { break }
                // The next page: everything before the oldest start so far, and that second again
                // (activities sharing it are listed twice and counted once).
                guard let oldest = page.starts.compactMap({ $0 }).min() else {
                    throw ListingAnomaly("a full page of activities without one readable start date")
                }
                if let before, oldest + 1 >= before {
                    throw ListingAnomaly(
                        "more than \(Self.perPage) activities start at \(Timestamps.string(epoch: before - 1)); the listing cannot go past them")
                }
                listing.plan.before = oldest + 1
                if Date().timeIntervalSince(lastFlush) >= Self.checkpointInterval { try checkpoint() }
            }
        } catch let anomaly as ListingAnomaly {
            // Resuming at this cursor would meet the same answer: keep what was fetched, start over next time.
            state.pending = nil
            summary.filesWritten += try cache.flush()
            try state.save(garage: garageRoot, rider: rider)
            throw StravaError.badResponse("\(anomaly.reason); stopped, and deleted nothing")
        } catch {
            // Keep what was fetched; the next run resumes after it.
            if listing.plan.before != flushedPlan.before || cache.hasUnwrittenChanges { try? checkpoint() }
            throw error
        }
    }

    /// Puts a page's activities into the cache and counts what changed, per bike. A ride the
    /// cache has from a file too is kept once, as Strava's copy (`ActivityCacheStore.upsertListed`).
    func record(_ page: ActivityPage, into listing: inout Listing, cache: ActivityCacheStore, summary: inout SyncSummary) {
        for var a in page.activities where listing.seen.insert(a.id).inserted {
            summary.listed += 1
            let old = cache[a.id]
            // A listing that does not say whose activity it is keeps what the cache knew; in a
            // household it is the athlete's whose login listed it.
            if a.athlete == nil { a.athlete = old?.athlete ?? listing.athlete }
            if let gear = a.gearID { listing.gear.insert(gear) }
            let (change, replaced) = cache.upsertListed(a, mayReplace: mayReplaceImported)
            summary.replacedImports += replaced.count
            // What was stored: it may carry the bike a file gave the ride.
            a = cache[a.id] ?? a
            switch change {
            case .new:
                summary.total.new += 1
                summary.byBike[bikeKey(a.gearID), default: .init()].new += 1
            case .changed:
                summary.total.changed += 1
                summary.byBike[bikeKey(a.gearID), default: .init()].changed += 1
                if let old, old.gearID != a.gearID {
                    summary.byBike[bikeKey(old.gearID), default: .init()].changed += 1
                }
            case .held: summary.heldChanges += 1
            case .unchanged: break
            // The decoder holds activities to the same limits; counted as unreadable if one slips by.
            case .rejected: listing.skippedIDs.insert(a.id)
            }
        }
        // An activity that could not be read is still on Strava: its id counts as seen, so a
        // full sync does not delete its cached copy.
        for item in page.unreadable {
            guard let id = item.id else { listing.unidentified += 1; continue }
            if listing.seen.insert(id).inserted { listing.skippedIDs.insert(id) }
        }
    }

    /// After a full listing: deletes the cached activities it did not list, in the span it
    /// covered, once Strava confirms they are gone and they are few enough (`deletionLimit`);
    /// else keeps them all and says why.
    func deleteWhatStravaNoLongerHas(
        _ listing: Listing, spanEnd: Int64?, cache: ActivityCacheStore, owns: (Activity) -> Bool = { _ in true }, summary: inout SyncSummary
    ) {
        // What this listing could delete: its span, less the month files left alone, the rides
        // imported from files (not Strava's to delete) and, in a household, other athletes' rides.
        let covered = cache.activities.filter { a in
            guard a.source == nil, !Activity.importedIDs.contains(a.id), owns(a) else { return false }
            guard cache.leftAlone[a.monthKey] == nil else { return false }
            guard let spanEnd else { return true }
            return (Timestamps.epoch(a.startDate) ?? .max) < spanEnd
        }
        let candidates = covered.filter { !listing.seen.contains($0.id) }.sorted(by: Activity.cacheOrder)
        guard !candidates.isEmpty else { return }
        if let reason = listing.unidentified > 0 ? "an activity Strava listed could not be read, not even its id" : confirmDeleted(candidates) {
            summary.deletionsHeldBack = .init(count: candidates.count, reason: reason)
            return
        }
        // A 404 is weak evidence: a gateway, a maintenance page or a token without
        // `activity:read_all` answers it for activities that exist. Shrinking the cache a lot,
        // or to nothing, waits for the rider to say so.
        let limit = maxDelete ?? Self.deletionLimit(covering: covered.count)
        var reason: String?
        if listing.seen.isEmpty, maxDelete == nil || candidates.count > limit {
            reason = "Strava listed no activities at all"
        } else if candidates.count > limit {
            reason =
                maxDelete == nil
                ? "a full sync deletes at most \(limit) unasked (\(Self.deletionShare) % of the \(covered.count) cached, at least \(Self.deletionFloor))"
                : "--max-delete allows \(limit)"
        }
        if let reason {
            summary.deletionsHeldBack = .init(count: candidates.count, reason: reason, confirmWith: candidates.count)
            return
        }
        for a in candidates {
            guard let old = cache.remove(a.id) else { continue }
            summary.total.deleted += 1
            summary.byBike[bikeKey(old.gearID), default: .init()].deleted += 1
        }
    }

    /// How many of the `covered` cached activities a full sync deletes without `--max-delete`:
    /// `deletionShare` percent of them, and never fewer than `deletionFloor` (a rider with 30
    /// rides who deletes 5 duplicates is not asked).
    package static func deletionLimit(covering covered: Int) -> Int { max(deletionFloor, covered * deletionShare / 100) }
    package static let deletionShare = 10
    package static let deletionFloor = 20

    /// The Strava bikes no bike file claims: `/athlete` lists the active ones; retired bikes only
    /// show up as gear ids on rides, and are looked up once (remembered in the state).
    func lookUpBikes(athlete: StravaAthlete, rideGear: Set<String>, state: inout SyncState, summary: inout SyncSummary) -> [StravaGear] {
        var known: [String: StravaGear] = [:]
        for bike in athlete.bikes { known[bike.id] = bike }
        let rideGear = rideGear.filter(isStravaBikeGearID)
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
        return known.values.filter { bikeFiles[$0.id] == nil }.sorted { $0.id < $1.id }
    }

    /// The key a bike's counts go under in the summary: its file id, else its gear id.
    func bikeKey(_ gear: String?) -> String {
        guard let gear else { return "no gear" }
        // The gear a ride from a file gives a bike without a Strava gear id: `Bike.importedGearID`.
        if gear.hasPrefix("bike:") { return String(gear.dropFirst(5)) }
        return bikeFiles[gear] ?? gear
    }

    /// Something in the listing that a complete, newest-first answer cannot contain.
    struct ListingAnomaly: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// A page must be newest first and inside the filters it was asked for (either bound may be
    /// inclusive on Strava's side; activities at the bound itself are deduplicated by id).
    static func check(_ page: ActivityPage, after: Int64?, before: Int64?) throws {
        var previous: Int64?
        for (index, start) in page.starts.enumerated() {
            guard let start else { continue }
            let id = page.ids[index].map { "activity \($0)" } ?? "an activity"
            if let before, start > before {
                throw ListingAnomaly(
                    "Strava listed \(id) starting \(Timestamps.string(epoch: start)), after the 'before' \(Timestamps.string(epoch: before)) it was asked for")
            }
            if let after, start < after {
                throw ListingAnomaly(
                    "Strava listed \(id) starting \(Timestamps.string(epoch: start)), before the 'after' \(Timestamps.string(epoch: after)) it was asked for")
            }
            if let previous, start > previous {
                throw ListingAnomaly("the activities Strava listed are not newest first (\(id) at position \(index + 1))")
            }
            previous = start
        }
    }

    /// Asks Strava about the candidates (all of them when few, else `deletionChecks` spread evenly
    /// over them in cache order); nil when each answered 404, else why the deletions are held back.
    func confirmDeleted(_ candidates: [Activity]) -> String? {
        let n = candidates.count, k = Self.deletionChecks
        let sample = n <= k ? candidates : (0..<k).map { candidates[$0 * (n - 1) / (k - 1)] }
        for a in sample {
            do {
                if try client.activityExists(a.id) {
                    return "Strava still has activity \(a.id) (\(a.startDate)) though the listing left it out"
                }
            } catch {
                return "Strava could not confirm that activity \(a.id) is gone (\(error))"
            }
        }
        progress("Strava confirmed \(sample.count) of \(n) missing activities as deleted")
        return nil
    }

    /// Epoch seconds as the cache writes times (`YYYY-MM-DDTHH:MM:SSZ`).
    package static func utc(_ epoch: Int64) -> String { Timestamps.string(epoch: epoch) }
}
