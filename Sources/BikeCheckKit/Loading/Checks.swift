import Diagnostics

/// The last stage of loading: checks over a resolved garage that are about plausibility rather
/// than shape. They warn; a rider may know better. Each bike's and part's are its own
/// (`FileChecks` runs them, and reuses them while the file does not change).
enum Checks {
    /// A warning when `day` is after today.
    private static func future(_ day: Day, _ what: String, at location: SourceLocation, today: Day) -> [Diagnostic] {
        guard day > today else { return [] }
        return [
            .warning(
                .futureDate, "\(what) \(day) is in the future (today is \(today))", at: location,
                help: "check the year and month; services are recorded when they are done")
        ]
    }

    /// One bike's checks, each located in its file: its log's dates, its components' install
    /// dates, its own dates, its snoozes, its log's likely duplicates.
    static func bike(_ bike: Bike, today: Day) -> [Diagnostic] {
        var out: [Diagnostic] = []
        // Most entries are dated inside the bike's days and up to today: those are passed over
        // by their dates alone (no location copied, no empty list appended per entry).
        let bought = bike.bought ?? Day(ordinal: .min)
        let latest = min(bike.retired ?? today, today)
        let odd = bike.log.withUnsafeBufferPointer { log in log.indices.filter { log[$0].date < bought || log[$0].date > latest } }
        for n in odd {
            let entry = bike.log[n]
            out += future(entry.date, "log entry", at: entry.dateLocation, today: today)
            // A service before the bike was bought is almost always a slip of the year or the
            // month; it would also move the anchor of a part back before the bike existed.
            out += outsideOwnership(
                "log entry", entry.date, of: bike, at: entry.dateLocation, ids: (.logBeforeBought, .logAfterRetired), today: today,
                consequence: "",
                help: (
                    "check the year and month of the entry, or the 'bought' date",
                    "check the date of the entry, or the 'retired' date; status stops counting on the day a bike is retired"
                ))
        }
        // A component installed after the bike's clock stopped: status and `part list` count
        // it as if no install date were written (on the bike since it was bought).
        if let retired = bike.retired {
            for c in bike.components {
                guard let installed = c.installed, installed > retired else { continue }
                out.append(
                    .warning(
                        .componentAfterRetired,
                        "component '\(shown(c.id))' is installed on \(installed), after bike '\(shown(bike.id))' was retired (\(retired)); it counts as if no install date were written",
                        at: c.installedLocation ?? c.location, notes: [.init("retired here", at: bike.fieldLocations["retired"] ?? bike.location)],
                        help: "check the 'installed' date, or the 'retired' date; status stops counting on the day a bike is retired"))
            }
        }
        if let bought = bike.bought, let retired = bike.retired, retired < bought {
            out.append(
                .warning(
                    .retiredBeforeBought, "bike '\(shown(bike.id))' is retired (\(retired)) before it was bought (\(bought))",
                    at: bike.fieldLocations["retired"] ?? bike.location, help: "check the dates of 'bought' and 'retired'"))
        }
        out += expiredSnoozes(bike.snoozes, today: today)
        out += possibleDuplicates(bike.log)
        return out
    }

    /// The hand-entered rides' dates: in the future, or outside their bike's days.
    static func rides(_ rides: [Ride], bikes: [Bike], today: Day) -> [Diagnostic] {
        var out: [Diagnostic] = []
        let byID = Dictionary(bikes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for ride in rides {
            out += future(ride.date, "ride", at: ride.dateLocation, today: today)
            // Rides outside the days a bike was the rider's do not count (`rides` says so);
            // entered by hand, such a date is almost always a slip.
            guard let bike = byID[ride.bike.value] else { continue }
            out += outsideOwnership(
                "ride", ride.date, of: bike, at: ride.dateLocation, ids: (.rideBeforeBought, .rideAfterRetired), today: nil,
                consequence: "; it does not count",
                help: (
                    "check the year and month of the ride, or the 'bought' date",
                    "check the date and the bike of the ride, or the 'retired' date"
                ))
        }
        return out
    }

    /// The same service logged twice on one day with different costs: most likely one service
    /// entered twice, or in two clones (a merge keeps both entries, as they differ).
    static func possibleDuplicates(_ log: [LogEntry]) -> [Diagnostic] {
        // Only entries of one day can be the same service: the log by day (kept in date order,
        // it is runs of neighbours), and within a day by interval, in log order. No text or
        // hash per entry: a long log is checked on every load, and on every edit in an editor.
        // The days read in place: copying each entry out to compare cost more than the check.
        let days = log.withUnsafeBufferPointer { log in log.indices.map { log[$0].date } }
        var order = Array(log.indices)
        if days.indices.dropFirst().contains(where: { days[$0 - 1] > days[$0] }) {
            order.sort { (days[$0], $0) < (days[$1], $1) }
        }
        func cost(_ entry: LogEntry) -> String {
            entry.cost.map { "\($0.value.amount)" + ($0.value.currency.map { " " + $0 } ?? "") } ?? "no cost"
        }
        var reports: [(index: Int, diagnostic: Diagnostic)] = []
        var start = 0
        while start < order.count {
            var end = start + 1
            while end < order.count, days[order[end]] == days[order[start]] { end += 1 }
            defer { start = end }
            guard end - start > 1 else { continue }
            var first: [String: Int] = [:]
            for index in order[start..<end] {
                let entry = log[index]
                var reported = false
                for interval in entry.done {
                    guard let earlierIndex = first[interval.value.rawValue] else {
                        first[interval.value.rawValue] = index
                        continue
                    }
                    let earlier = log[earlierIndex]
                    guard !reported, earlier.cost?.value != entry.cost?.value else { continue }
                    reported = true
                    reports.append(
                        (
                            index,
                            .warning(
                                .possibleDuplicateService,
                                "'\(shown(interval.value.rawValue))' is logged twice on \(entry.date), with different costs (\(cost(earlier)) and \(cost(entry))): the same service entered twice?",
                                at: entry.dateLocation, notes: [.init("first logged here", at: earlier.dateLocation)],
                                help: "keep one entry with the right cost, or give the two different days")
                        ))
                }
            }
        }
        // In log order, as they were found one entry after another (one report an entry at most).
        return reports.sorted { $0.index < $1.index }.map(\.diagnostic)
    }

    /// Something dated before its bike was bought, or after it was retired (up to `today`, when
    /// given: a future date has its own warning).
    static func outsideOwnership(
        _ what: String, _ day: Day, of bike: Bike, at location: SourceLocation, ids: (before: DiagnosticID, after: DiagnosticID), today: Day?,
        consequence: String, help: (before: String, after: String)
    ) -> [Diagnostic] {
        if let bought = bike.bought, day < bought {
            return [
                .warning(
                    ids.before, "\(what) \(day) is before bike '\(bike.id)' was bought (\(bought))\(consequence)", at: location,
                    notes: [.init("bought here", at: bike.fieldLocations["bought"] ?? bike.location)], help: help.before)
            ]
        }
        if let retired = bike.retired, day > retired, today.map({ day <= $0 }) ?? true {
            return [
                .warning(
                    ids.after, "\(what) \(day) is after bike '\(bike.id)' was retired (\(retired))\(consequence)", at: location,
                    notes: [.init("retired here", at: bike.fieldLocations["retired"] ?? bike.location)], help: help.after)
            ]
        }
        return []
    }

    /// A snooze whose day has come: it no longer does anything, and is best removed.
    static func expiredSnoozes(_ snoozes: [Snooze], today: Day) -> [Diagnostic] {
        snoozes.filter { $0.until <= today }.map { s in
            .warning(
                .snoozeExpired, "the snooze of '\(s.interval.value)' until \(s.until) has expired (today is \(today))", at: s.untilLocation,
                help: "status counts the interval again; remove the line, or snooze it again with a later date")
        }
    }

    /// Plausibility of one part, each located in its file: services and mounts in the future,
    /// snoozes, likely duplicates.
    static func part(_ part: Part, today: Day) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for entry in part.log where entry.date > today {
            out.append(
                .warning(
                    .futureDate, "log entry \(entry.date) is in the future (today is \(today))", at: entry.dateLocation,
                    help: "check the year and month; services are recorded when they are done"))
        }
        out += expiredSnoozes(part.snoozes, today: today)
        out += possibleDuplicates(part.log)
        // The mounts as written (text and order made for each) only when one starts after today.
        let anyFuture = part.mounts.contains { $0.from > today } || part.partMounts.contains { $0.from > today }
        for mount in anyFuture ? part.writtenMounts : [] where mount.from > today {
            out.append(
                .warning(
                    .futureDate, "mount \(mount.from) is in the future (today is \(today))", at: mount.fromLocation,
                    help: "check the year and month; record a mount when the part goes on"))
        }
        return out
    }

    /// A ride entered by hand for a bike whose Strava activities are cached, on a day Strava
    /// already has a ride of that bike: most likely the same ride, counted twice.
    static func ridesAlsoOnStrava(_ rides: [Ride], bikes: [Bike], summaries makeSummaries: @autoclosure () -> ActivitySummaries) -> [Diagnostic] {
        let gearOf = Dictionary(bikes.compactMap { b in b.strava.map { (b.id, $0.value) } }, uniquingKeysWith: { a, _ in a })
        let gears = Set(rides.compactMap { gearOf[$0.bike.value] })
        guard !gears.isEmpty else { return [] }
        let summaries = makeSummaries()
        var index: [String: Int32] = [:]
        for (k, s) in summaries.strings.enumerated() where gears.contains(s) { index[s] = Int32(k) }
        // Each ride's (gear, day), looked up only in the summaries' runs that take in its day.
        var asked: [Int] = []
        var wanted: [(gear: Int32, day: Int32)] = []
        for (k, ride) in rides.enumerated() {
            guard let gear = gearOf[ride.bike.value], let g = index[gear], let day = Int32(exactly: ride.date.ordinal) else { continue }
            asked.append(k)
            wanted.append((g, day))
        }
        var out: [Diagnostic] = []
        for (k, found) in zip(asked, summaries.contains(gearDays: wanted)) where found {
            let ride = rides[k]
            out.append(
                .warning(
                    .rideAlsoOnStrava, "bike '\(ride.bike.value)' also has a Strava ride on \(ride.date); this one counts on top of it",
                    at: ride.dateLocation,
                    help: "remove the ride from rides.yaml if it is the same one; keep it if you rode twice that day"))
        }
        return out
    }
}
