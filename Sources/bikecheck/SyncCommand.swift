import ArgumentParser
import BikeCheckKit
import Foundation
import StravaKit

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Bring bikes and activities from Strava into the garage's activity cache.",
        discussion: """
            Lists activities changed since the newest cached one (less a week, for late uploads and \
            edits), 200 a page, newest first by start time, and writes activities/YYYY-MM.json only \
            where bytes change. --full re-lists everything and also applies gear changes and \
            deletions: an activity is deleted only when the whole listing was read and Strava \
            confirms it gone (404), and only when the listing was not empty and the deletions are \
            few (at most 10 % of the cached activities, or 20 when that is more) unless \
            --max-delete allows more; otherwise the summary says why nothing was deleted, and \
            deletions held back for being too many are named on stderr with the command that \
            confirms them (exit 1). Month files \
            that cannot be read whole, or are symbolic links, are left alone. A sync stopped by a \
            rate limit or a fault keeps what it fetched and resumes on the next run. Strava bikes with no \
            bike file are listed with the command that adds one; bike files are never rewritten. \
            Redirects are never followed; each answer is bounded (16 MiB, 60 s, 15 s stalled: \
            BIKECHECK_HTTP_TIMEOUT_MS). A login about to expire is renewed once, by one process at a \
            time; if that fails while the access token still works, a note says so and the sync goes on. \
            A completed sync is noted in .bikecheck/last-sync.json, which status warns by when it grows \
            old. Exit 0 when done, 1 when stopped (rate limit, login needed, Strava failing) or \
            when deletions wait for --max-delete.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var progressOptions: ProgressOptions

    @Flag(help: "Re-list every activity: pick up gear changes and deletions, rewrite the cache in canonical form.")
    var full = false

    @Option(
        name: .customLong("max-delete"),
        help: ArgumentHelp(
            "Let a full sync delete up to this many cached activities Strava no longer lists (default: 10 % of them, at least 20; an empty listing deletes none).",
            valueName: "n"))
    var maxDelete: Int?

    func validate() throws {
        if let maxDelete, maxDelete < 0 { throw ValidationError("--max-delete must be 0 or more, not \(maxDelete)") }
    }

    func run() throws {
        let root = try global.garageRoot()
        let line = ProgressLine("sync", quiet: progressOptions.quiet)
        line.update("reading the garage…", now: true)
        defer { line.clear() }
        let options = GarageLoader.Options(activities: .skip)
        let loaded = GarageLoader.load(at: root, options: options)
        let settings = try StravaCommandSupport.settings(garage: root, loaded: loaded)
        let client = StravaCommandSupport.client(settings)
        let sync = StravaSync(garageRoot: root, client: client, bikeFiles: loaded.garage.bikeIDsByGearID)
        line.update("asking Strava for activities…", now: true)
        // A page is a request: few enough to show each.
        sync.progress = { line.update($0, now: true) }
        sync.warn = { line.note("warning: \($0)") }
        client.log = { line.note("note: \($0)") }
        sync.maxDelete = maxDelete
        sync.usesActivityIndex = !options.bypassesDerivedCaches
        do {
            let summary: SyncSummary
            do { summary = try sync.run(full: full) } catch {
                line.clear()
                throw error
            }
            line.clear()
            let taken = Set(loaded.garage.bikes.map(\.bike.id.rawValue))
            if let problem = summary.gearLookupProblem { Terminal.standardError.write("warning: \(problem)\n") }
            if format == .json {
                Terminal.standardOutput.write(json: try Self.json(summary, requests: client.requestCount, taken: taken))
            } else {
                Terminal.standardOutput.write("\(summary.line) in \(client.requestCount) request\(client.requestCount == 1 ? "" : "s")\n")
                for gear in summary.unclaimedBikes {
                    Terminal.standardOutput.write(
                        "Strava bike \(gear.id) '\(gear.displayName)'\(gear.retired ? " (retired)" : "") has no bike file; add one with:\n  \(StravaSync.addCommand(for: gear, taken: taken))\n"
                    )
                }
            }
            // Everything else is written; the cache still holds what may be gone, until the rider says.
            if let held = summary.deletionsHeldBack, let count = held.confirmWith {
                let (one, reason) = (count == 1, held.reason)
                let activities = one ? "activity" : "activities", they = one ? "it is" : "they are", them = one ? "it" : "them"
                Terminal.standardError.write(
                    "warning: held back the deletion of \(count) cached \(activities) Strava no longer lists (\(reason)); if \(they) really gone from Strava, delete \(them) with: bikecheck sync --full --max-delete \(count)\n"
                )
                throw ExitCode(1)
            }
        } catch {
            throw StravaCommandSupport.fail(error)
        }
    }

    /// The summary for machines: totals, per bike, requests, and bikes that need a file.
    struct Report: Encodable {
        struct Counts: Encodable {
            var new, changed, deleted: Int
            init(_ c: SyncSummary.Counts) { (new, changed, deleted) = (c.new, c.changed, c.deleted) }
        }
        struct HeldBack: Encodable {
            var count: Int
            var reason: String
            /// The `--max-delete` that confirms them, when Strava confirmed them gone; absent otherwise.
            var confirmMaxDelete: Int?

            enum CodingKeys: String, CodingKey {
                case count, reason
                case confirmMaxDelete = "confirm_max_delete"
            }
        }
        struct UnclaimedBike: Encodable {
            var id, name: String
            var retired: Bool
            var command: String
        }
        var full: Bool
        var listed, pages, requests: Int
        var filesWritten: Int
        /// Activities Strava listed that could not be read, left as cached.
        var skipped: Int
        var skippedIDs: [Int64]
        /// Cached activities missing from a full listing that were kept, and why; absent when none were.
        var deletionsHeldBack: HeldBack?
        /// Month files a sync does not change, each with why.
        var leftAlone: [String]
        var heldChanges: Int
        /// Rides imported from files that Strava listed too, replaced by Strava's copy.
        var replacedImports: Int
        /// A resumed full listing's cursor (UTC): deletions were considered only before it; absent otherwise.
        var resumedBefore: String?
        var total: Counts
        var bikes: [String: Counts]
        var unclaimedBikes: [UnclaimedBike]

        enum CodingKeys: String, CodingKey {
            case full, listed, pages, requests, skipped, total, bikes
            case filesWritten = "files_written"
            case unclaimedBikes = "unclaimed_bikes"
            case skippedIDs = "skipped_ids"
            case deletionsHeldBack = "deletions_held_back"
            case leftAlone = "left_alone"
            case heldChanges = "held_changes"
            case replacedImports = "replaced_imports"
            case resumedBefore = "resumed_before"
        }
    }

    static func json(_ s: SyncSummary, requests: Int, taken: Set<String>) throws -> String {
        try JSONOutput.encode(
            Report(
                full: s.full, listed: s.listed, pages: s.pages, requests: requests, filesWritten: s.filesWritten, skipped: s.skipped,
                skippedIDs: s.skippedIDs,
                deletionsHeldBack: s.deletionsHeldBack.map { .init(count: $0.count, reason: $0.reason, confirmMaxDelete: $0.confirmWith) },
                leftAlone: s.leftAlone, heldChanges: s.heldChanges, replacedImports: s.replacedImports, resumedBefore: s.resumedBefore.map(StravaSync.utc),
                total: .init(s.total), bikes: s.byBike.mapValues(Report.Counts.init),
                unclaimedBikes: s.unclaimedBikes.map {
                    .init(id: $0.id, name: $0.displayName, retired: $0.retired, command: StravaSync.addCommand(for: $0, taken: taken))
                }))
    }
}
