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
            that cannot be read whole, or are symbolic links, are left alone. A sync that reaches \
            Strava's 15-minute rate limit waits for the window to reset (at most --max-wait minutes), \
            with a note and the progress line saying until when. A sync stopped by the daily \
            limit or a fault keeps what it fetched and resumes on the next run. Strava bikes with no \
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

    @Option(
        name: .customLong("max-wait"),
        help: ArgumentHelp(
            "Minutes to wait at most for Strava's 15-minute rate limit to reset, saying until when (0: stop at the limit instead). The daily limit always stops the sync.",
            valueName: "minutes"))
    var maxWait: Int = 16

    @Option(
        help: ArgumentHelp(
            "Sync only this rider's login (garage.yaml's riders:; see 'login --rider'). Default: every rider who logged in.", valueName: "name"))
    var rider: String?

    func validate() throws {
        if let maxDelete, maxDelete < 0 { throw ValidationError("--max-delete must be 0 or more, not \(maxDelete)") }
        if maxWait < 0 { throw ValidationError("--max-wait must be 0 or more minutes, not \(maxWait)") }
    }

    func run() throws {
        let root = try global.garageRoot()
        let line = ProgressLine("sync", quiet: progressOptions.quiet)
        line.update("reading the garage…", now: true)
        defer { line.clear() }
        let options = GarageLoader.Options(activities: .skip)
        let loaded = GarageLoader.load(at: root, options: options)
        if let rider { try loaded.garage.checkRider(rider) }
        let settings = try StravaCommandSupport.settings(garage: root, loaded: loaded)
        let logins = Self.logins(rider: rider, riders: loaded.garage.settings.riders.map(\.name), settings: settings)
        // A household's logins are each one athlete's: each sync keeps to that athlete's rides.
        let household = logins.contains { $0 != nil }
        let client = StravaCommandSupport.client(settings)
        client.log = { [weak client] in line.note("note: \(StravaCommandSupport.forRider(client?.settings.rider, $0))") }
        // A first sync of years, or a household's, may reach the 15-minute window: it waits, and says until when.
        client.rateLimitWait = TimeInterval(maxWait) * 60
        client.onRateLimitWait = { window, until in
            line.update("waiting for Strava's \(window) rate limit until \(StravaError.format(until, seconds: true))…", now: true)
        }
        let taken = Set(loaded.garage.bikes.map(\.bike.id.rawValue))
        var reports: [Report] = []
        var exit: Int32 = 0
        for login in logins {
            client.switchRider(to: login)
            let sync = Self.sync(for: login, client: client, root: root, garage: loaded.garage, household: household)
            let who = household ? "\(login ?? "garage login"): " : ""
            sync.maxDelete = maxDelete
            sync.usesActivityIndex = !options.bypassesDerivedCaches
            let requestsBefore = client.requestCount
            guard let summary = try Self.runSync(sync, full: full, who: who, login: login, household: household, line: line) else {
                exit = 1
                continue
            }
            let requests = client.requestCount - requestsBefore
            if let problem = summary.gearLookupProblem { ErrorStyle.write([Warning(who + problem)]) }
            if format == .json {
                var report = Self.report(summary, requests: requests, taken: taken)
                report.rider = login
                reports.append(report)
            } else {
                Self.say(summary, who: who, requests: requests, taken: taken)
            }
            if Self.warnHeldBack(summary, login: login, who: who) { exit = 1 }
        }
        if format == .json {
            do {
                let text = household ? try JSONOutput.encode(HouseholdReport(logins: reports)) : try JSONOutput.encode(reports[0])
                Terminal.standardOutput.write(json: text)
            } catch {
                throw StravaCommandSupport.fail(error)
            }
        }
        if exit != 0 { throw ExitCode(exit) }
    }

    /// Runs one login's sync with its progress on `line`; nil when it failed in a household (said
    /// on standard error: one rider's failure, a login to renew, stops only their sync).
    static func runSync(_ sync: StravaSync, full: Bool, who: String, login: String?, household: Bool, line: ProgressLine) throws -> SyncSummary? {
        line.update("\(who)asking Strava for activities…", now: true)
        // A page is a request: few enough to show each.
        sync.progress = { line.update(who + $0, now: true) }
        sync.warn = { warning in
            var warning = warning
            warning.message = who + warning.message
            line.note(text: ErrorStyle.render(warning))
        }
        defer { line.clear() }
        do { return try sync.run(full: full) } catch {
            line.clear()
            guard household else { throw StravaCommandSupport.fail(error, rider: login) }
            Terminal.standardError.write(ErrorStyle.render(message: who + StravaCommandSupport.forRider(login, "\(error)")))
            return nil
        }
    }

    /// The sync of one login's rides.
    static func sync(for login: String?, client: StravaClient, root: String, garage: Garage, household: Bool) -> StravaSync {
        let sync = StravaSync(garageRoot: root, client: client, bikeFiles: garage.bikeIDsByGearID)
        sync.rider = login
        sync.scopedToAthlete = household
        // A ride from a file on another rider's bike is theirs, however like one of this rider's it is.
        if household {
            let riderOfGear = garage.riderByGearID
            sync.mayReplaceImported = { file in
                guard let owner = file.gearID.flatMap({ riderOfGear[$0] }) else { return true }
                return owner == login
            }
        }
        return sync
    }

    /// A sync's line, and the command to add each Strava bike without a bike file.
    static func say(_ summary: SyncSummary, who: String, requests: Int, taken: Set<String>) {
        Terminal.standardOutput.write("\(who)\(summary.line) in \(requests) request\(requests == 1 ? "" : "s")\n")
        for gear in summary.unclaimedBikes {
            Terminal.standardOutput.write(
                "Strava bike \(gear.id) '\(gear.displayName)'\(gear.retired ? " (retired)" : "") has no bike file; add one with:\n  \(StravaSync.addCommand(for: gear, taken: taken))\n"
            )
        }
    }

    /// Everything else is written; the cache still holds what may be gone, until the rider says.
    /// True when deletions were held back (the exit status says so).
    static func warnHeldBack(_ summary: SyncSummary, login: String?, who: String) -> Bool {
        guard let held = summary.deletionsHeldBack, let count = held.confirmWith else { return false }
        let (one, reason) = (count == 1, held.reason)
        let activities = one ? "activity" : "activities", they = one ? "it is" : "they are", them = one ? "it" : "them"
        let command = "bikecheck sync\(login.map { " --rider " + $0 } ?? "") --full --max-delete \(count)"
        ErrorStyle.write([
            Warning(
                "\(who)held back the deletion of \(count) cached \(activities) Strava no longer lists (\(reason))",
                help: "if \(they) really gone from Strava, delete \(them) with: \(command)")
        ])
        return true
    }

    /// Whose logins a sync uses, in order: `--rider`'s; in a household (garage.yaml's `riders:`)
    /// every rider who logged in with `login --rider`, after the garage's own login if there is
    /// one; else (no rider logged in) the garage's own login, as in a garage of one rider.
    static func logins(rider: String?, riders: [String], settings: StravaSettings) -> [String?] {
        if let rider { return [rider] }
        let riders = settings.ridersLoggedIn(among: riders)
        if riders.isEmpty { return [nil] }
        let own: [String?] = FileManager.default.fileExists(atPath: settings.tokenPath) ? [nil] : []
        return own + riders.map { $0 }
    }

    /// A household's sync for machines: one report per login, each with its `rider`.
    struct HouseholdReport: Encodable {
        var logins: [Report]
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
        /// The household rider whose login this was (null: the garage's own); only in a household's `logins`.
        var rider: String??

        enum CodingKeys: String, CodingKey {
            case rider
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

    static func report(_ s: SyncSummary, requests: Int, taken: Set<String>) -> Report {
        Report(
            full: s.full, listed: s.listed, pages: s.pages, requests: requests, filesWritten: s.filesWritten, skipped: s.skipped,
            skippedIDs: s.skippedIDs,
            deletionsHeldBack: s.deletionsHeldBack.map { .init(count: $0.count, reason: $0.reason, confirmMaxDelete: $0.confirmWith) },
            leftAlone: s.leftAlone, heldChanges: s.heldChanges, replacedImports: s.replacedImports, resumedBefore: s.resumedBefore.map(StravaSync.utc),
            total: .init(s.total), bikes: s.byBike.mapValues(Report.Counts.init),
            unclaimedBikes: s.unclaimedBikes.map {
                .init(id: $0.id, name: $0.displayName, retired: $0.retired, command: StravaSync.addCommand(for: $0, taken: taken))
            })
    }
}
