import Foundation

/// When the last Strava sync finished: `.bikecheck/last-sync.json` (local state, never in git),
/// written by the sync itself (`StravaSync.run`) when it completes, and read by status and reminders. Its
/// encoder and decoder live here, together.
package enum LastSync {
    package static let displayPath = ".bikecheck/last-sync.json"
    static func path(garage root: String) -> String { LocalState.directory(garage: root) + "/last-sync.json" }

    struct Record: Codable {
        /// UTC, e.g. `2026-11-20T06:00:00Z`.
        var finished: String
    }

    /// Notes that a sync finished at `time`.
    package static func record(garage root: String, at time: Date) throws {
        try LocalState.prepare(garage: root)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = ISO8601DateFormatter().string(from: time)
        try AtomicFile.write(Array(try encoder.encode(Record(finished: text))) + [0x0A], to: path(garage: root))
    }

    /// When the last sync finished, or nil when none is on record (or the file is not what
    /// `record` writes: then it says nothing, and status falls back on the cache).
    package static func read(garage root: String) -> Date? {
        guard let bytes = readBytes(path(garage: root), limit: 4096), case let data = Data(bytes),
            let record = try? JSONDecoder().decode(Record.self, from: data)
        else { return nil }
        return ISO8601DateFormatter().date(from: record.finished)
    }
}

/// Something that may make "nothing is due" wrong: data that stopped arriving.
package struct StaleWarning: Sendable, Codable, Equatable {
    package enum Kind: String, Sendable, Codable {
        /// The last sync (or, with none on record, the newest cached activity) is old.
        case staleSync = "stale-sync"
        /// A bike on Strava has had no ride for long while other bikes have.
        case quietBike = "quiet-bike"
        /// No bike on Strava has had a ride for long, though the sync is recent.
        case quietGarage = "quiet-garage"
    }

    package var kind: Kind
    /// The bike it is about (`quiet-bike`).
    package var bike: String?
    /// The day the data stops: the last sync, or the bike's (or the garage's) last ride (absent
    /// when it has none).
    package var since: Day?
    package var message: String
    package var help: String

    package init(kind: Kind, bike: String? = nil, since: Day?, message: String, help: String) {
        self.kind = kind
        self.bike = bike
        self.since = since
        self.message = message
        self.help = help
    }
}

/// Warns when the garage's Strava data may be stale, so that "nothing is due" is never the
/// result of a sync that stopped running or a gear id that no longer matches. For status, and
/// for anything that sends reminders.
package enum Staleness {
    /// The warnings as of `asOf`. `lastSync` is the local day the last sync finished (see
    /// `LastSync`); without one the newest cached activity stands in for it. Only bikes with a
    /// Strava gear id, not retired as of `asOf`, are considered; nothing after `asOf` counts.
    package static func warnings(_ garage: Garage, summaries: ActivitySummaries, lastSync: Day?, asOf: Day) -> [StaleWarning] {
        // Bikes only: shoes and other gear keep their own rhythm (a cyclist runs now and then).
        let onStrava = garage.bikes.map(\.bike).filter { b in !b.isGear && b.strava != nil && (b.retired.map { $0 > asOf } ?? true) }
        guard !onStrava.isEmpty else { return [] }
        // The newest activity on or before `asOf`, overall and per gear id.
        let newestDays = summaries.newestDays(onOrBefore: Int32(clamping: asOf.ordinal))
        let newest = newestDays.any == Int32.min ? nil : Int(newestDays.any)
        let settings = garage.settings
        var out: [StaleWarning] = []
        if let stale = staleSync(lastSync: lastSync, newest: newest, asOf: asOf, staleAfter: settings.staleAfter) { out.append(stale) }

        // Each bike's last ride: on Strava with its gear, or entered by hand.
        var index: [String: Int32] = [:]
        for (k, s) in summaries.strings.enumerated() where index[s] == nil { index[s] = Int32(k) }
        var handEntered: [BikeID: Int] = [:]
        for ride in garage.rides where ride.date <= asOf {
            handEntered[ride.bike.value] = max(handEntered[ride.bike.value] ?? Int.min, ride.date.ordinal)
        }
        func newestOfGear(_ gear: Int32) -> Int? { newestDays.byGear[Int(gear)] == Int32.min ? nil : Int(newestDays.byGear[Int(gear)]) }
        let last = onStrava.map { b -> Int? in
            let strava = b.strava.flatMap { index[$0.value] }.flatMap(newestOfGear)
            return [strava, handEntered[b.id]].compactMap { $0 }.max()
        }
        out += quietBikes(onStrava, last: last, asOf: asOf, quietAfter: settings.quietAfter)
        if !out.contains(where: { $0.kind == .staleSync }),
            let quiet = quietGarage(onStrava, last: last, lastSync: lastSync, asOf: asOf, quietAfter: settings.quietAfter)
        {
            out.append(quiet)
        }
        return out
    }

    static func plural(_ n: Int) -> String { n == 1 ? "1 day" : "\(n) days" }

    /// The last sync (else the newest cached activity) older than `staleAfter` days.
    static func staleSync(lastSync: Day?, newest: Int?, asOf: Day, staleAfter: Int) -> StaleWarning? {
        if let lastSync, lastSync <= asOf {
            let age = asOf.ordinal - lastSync.ordinal
            guard age > staleAfter else { return nil }
            return StaleWarning(
                kind: .staleSync, since: lastSync,
                message: "the last Strava sync was on \(lastSync), \(plural(age)) before \(asOf): usage since then is missing",
                help: "run 'bikecheck sync' (and check the job that runs it); stale_after in garage.yaml sets the limit (\(plural(staleAfter)))")
        } else if lastSync == nil, let newest {
            let age = asOf.ordinal - newest
            guard age > staleAfter else { return nil }
            return StaleWarning(
                kind: .staleSync, since: Day(ordinal: newest),
                message: "no Strava sync on record, and the newest cached activity is from \(Day(ordinal: newest)), \(plural(age)) before \(asOf)",
                help: "run 'bikecheck sync'; stale_after in garage.yaml sets the limit (\(plural(staleAfter)))")
        }
        return nil
    }

    /// A bike that has gone quiet while another on Strava has been ridden within the limit:
    /// most likely rides recorded without its gear, or a gear id that changed.
    static func quietBikes(_ onStrava: [Bike], last: [Int?], asOf: Day, quietAfter: Int) -> [StaleWarning] {
        let limit = asOf.ordinal - quietAfter
        var out: [StaleWarning] = []
        for (k, bike) in onStrava.enumerated() {
            let lastRide = last[k]
            guard (lastRide ?? Int.min) < limit else { continue }
            // A bike bought within the limit has not had the time.
            if let bought = bike.bought, bought.ordinal >= limit { continue }
            guard let other = onStrava.indices.filter({ $0 != k && (last[$0] ?? Int.min) >= limit }).first else { continue }
            let gear = bike.strava?.value ?? ""
            let message =
                lastRide.map {
                    "bike '\(bike.id)' (Strava gear \(gear)) has had no ride since \(Day(ordinal: $0)), \(plural(asOf.ordinal - $0)) before \(asOf), while '\(onStrava[other].id)' has"
                }
                ?? "bike '\(bike.id)' (Strava gear \(gear)) has no cached ride at all, while '\(onStrava[other].id)' has rides in the last \(plural(quietAfter))"
            out.append(
                StaleWarning(
                    kind: .quietBike, bike: bike.id.rawValue, since: lastRide.map(Day.init(ordinal:)), message: message,
                    help:
                        "check that its rides on Strava carry this gear id, or retire the bike; quiet_after in garage.yaml sets the limit (\(plural(quietAfter)))"
                ))
        }
        return out
    }

    /// Every bike quiet at once, while the sync is recent: the quiet-bike check has no other
    /// bike to compare with, yet the garage's newest ride is old (gear ids that all changed,
    /// rides recorded elsewhere, or bikes no longer ridden). Said once, for the garage.
    static func quietGarage(_ onStrava: [Bike], last: [Int?], lastSync: Day?, asOf: Day, quietAfter: Int) -> StaleWarning? {
        let limit = asOf.ordinal - quietAfter
        let newestRide = last.compactMap { $0 }.max()
        let hadTime = onStrava.contains { b in b.bought.map { $0.ordinal < limit } ?? true }
        guard (newestRide ?? Int.min) < limit, hadTime else { return nil }
        let sync = lastSync.flatMap { $0 <= asOf ? ", though the last Strava sync was on \($0)" : nil } ?? ""
        let message =
            newestRide.map {
                "no bike on Strava has had a ride since \(Day(ordinal: $0)), \(plural(asOf.ordinal - $0)) before \(asOf)\(sync)"
            } ?? "no bike on Strava has a cached ride at all\(sync)"
        return StaleWarning(
            kind: .quietGarage, since: newestRide.map(Day.init(ordinal:)), message: message,
            help:
                "run 'bikecheck sync'; if it ran, check that your rides on Strava carry the bikes' gear ids, or retire the bikes no longer ridden; quiet_after in garage.yaml sets the limit (\(plural(quietAfter)))"
        )
    }

    /// The warnings for a garage loaded with its activity summaries, by the sync noted in its
    /// local state: what status prints, for any command that reminds.
    package static func warnings(_ loaded: LoadedGarage, root: String, asOf: Day) -> [StaleWarning] {
        warnings(loaded.garage, summaries: loaded.activitySummaries, lastSync: LastSync.read(garage: root).flatMap(localDay), asOf: asOf)
    }

    /// The rider's local day of an instant: in the system's time zone (`TZ`, else
    /// /etc/localtime, as `TimeZone.current` has it) on the Gregorian calendar, from the C
    /// library; `Calendar.current` gave the same at the cost of loading ICU's calendars, a
    /// fiftieth of a warm `status`.
    package static func localDay(_ time: Date) -> Day? {
        guard var seconds = time_t(exactly: time.timeIntervalSince1970.rounded(.down)) else { return nil }
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return nil }
        return Day(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
    }
}
