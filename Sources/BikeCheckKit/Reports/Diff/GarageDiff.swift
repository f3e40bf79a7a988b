import Foundation

/// What changed in the garage between two versions of its files (two commits, or a commit and
/// the work tree), as a rider reads it: services logged or taken out, intervals added, removed
/// or given another `every`, parts moved between bikes, bikes and parts added, removed or
/// retired. Built from the two loaded garages, never from the text of the files, so a file
/// re-indented or a comment changed is no change here.
package struct GarageDiff: Sendable, Encodable {
    package enum Kind: String, Sendable, Encodable, Comparable {
        case bikeAdded = "bike-added"
        case bikeRemoved = "bike-removed"
        case bikeRetired = "bike-retired"
        case partAdded = "part-added"
        case partRemoved = "part-removed"
        case partRetired = "part-retired"
        case serviceLogged = "service-logged"
        case serviceRemoved = "service-removed"
        case intervalAdded = "interval-added"
        case intervalRemoved = "interval-removed"
        case intervalChanged = "interval-changed"
        case partMounted = "part-mounted"
        case partUnmounted = "part-unmounted"
        case mountRemoved = "mount-removed"

        private var order: Int {
            [
                .bikeAdded, .bikeRemoved, .bikeRetired, .partAdded, .partRemoved, .partRetired, .serviceLogged, .serviceRemoved,
                .intervalAdded, .intervalRemoved, .intervalChanged, .partMounted, .partUnmounted, .mountRemoved,
            ].firstIndex(of: self) ?? 0
        }
        package static func < (a: Kind, b: Kind) -> Bool { a.order < b.order }

        /// The words text, CSV and Markdown show.
        package var words: String { rawValue.replacingOccurrences(of: "-", with: " ") }
    }

    package struct Change: Sendable, Encodable {
        package var change: Kind
        package var subject: ReportSubject
        /// The service's day, a mount's first (or, unmounted, last) day, the day retired.
        package var date: Day?
        /// The intervals a service did (their ids).
        package var done: [String] = []
        /// The interval added, removed or changed.
        package var interval: String? = nil
        /// An interval's `every` (its limits, as written: `10 h`) before and after, then its
        /// `repeat:` when not `from-done` and its `wear_limit:` when it has one
        /// (`repeat: fixed`, `wear_limit: 0.75 %`).
        package var before: [String]? = nil
        package var after: [String]? = nil
        /// The bike a part was mounted on or taken off.
        package var bike: String? = nil
        package var cost: ReportAmount? = nil
        package var currency: String? = nil
        package var note: String? = nil

        /// An interval's terms as read: its limits joined by "or", then the rest (`10 h or 200 km, repeat: fixed`).
        static func words(_ terms: [String]) -> String {
            let limits = terms.filter { !$0.contains(": ") }, rest = terms.filter { $0.contains(": ") }
            return ([limits.joined(separator: " or ")] + rest).joined(separator: ", ")
        }

        /// One line for people.
        package var what: String {
            switch change {
            case .serviceLogged, .serviceRemoved: return (done.joined(separator: ", ") + (note.map { " — \($0)" } ?? ""))
            case .intervalAdded: return "\(interval ?? ""): every \(Self.words(after ?? []))"
            case .intervalRemoved: return "\(interval ?? ""): was every \(Self.words(before ?? []))"
            case .intervalChanged:
                return "\(interval ?? ""): every \(Self.words(before ?? [])) → \(Self.words(after ?? []))"
            case .partMounted: return "on \(bike ?? "")"
            case .partUnmounted: return "off \(bike ?? "")"
            case .mountRemoved: return "no longer on \(bike ?? "")"
            case .bikeAdded, .bikeRemoved, .partAdded, .partRemoved, .bikeRetired, .partRetired: return subject.name
            }
        }
    }

    /// The revisions as given (`HEAD~3`, `@2026-01-01`), and the commits they are; `to` is nil
    /// for the work tree.
    package var from: String
    package var fromCommit: String
    package var to: String?
    package var toCommit: String?
    package var changes: [Change]

    enum CodingKeys: String, CodingKey {
        case from, to, changes
        case fromCommit = "from_commit"
        case toCommit = "to_commit"
    }

    /// What a bike or part was or is, as far as the diff compares it.
    typealias Side = (retired: Day?, log: [LogEntry], intervals: [ResolvedInterval])

    /// The changes from `old` to `new`, by subject (bikes, then parts, by id), then kind, then day.
    package static func build(from old: Garage, to new: Garage, revisions: (from: String, fromCommit: String, to: String?, toCommit: String?))
        -> GarageDiff
    {
        var changes: [Change] = []
        let oldBikes = Dictionary(old.bikes.map { ($0.bike.id, $0) }, uniquingKeysWith: { a, _ in a })
        let newBikes = Dictionary(new.bikes.map { ($0.bike.id, $0) }, uniquingKeysWith: { a, _ in a })
        for id in Set(oldBikes.keys).union(newBikes.keys).sorted() {
            guard let bike = newBikes[id]?.bike ?? oldBikes[id]?.bike else { continue }
            changes += compare(
                .bike(bike), old: oldBikes[id].map { ($0.bike.retired, $0.bike.log, $0.intervals) },
                new: newBikes[id].map { ($0.bike.retired, $0.bike.log, $0.intervals) }, kinds: (.bikeAdded, .bikeRemoved, .bikeRetired))
        }
        let oldParts = Dictionary(old.parts.map { ($0.part.id, $0) }, uniquingKeysWith: { a, _ in a })
        let newParts = Dictionary(new.parts.map { ($0.part.id, $0) }, uniquingKeysWith: { a, _ in a })
        for id in Set(oldParts.keys).union(newParts.keys).sorted() {
            guard let part = newParts[id]?.part ?? oldParts[id]?.part else { continue }
            changes += compare(
                .part(part), old: oldParts[id].map { ($0.part.retired, $0.part.log, $0.intervals) },
                new: newParts[id].map { ($0.part.retired, $0.part.log, $0.intervals) }, kinds: (.partAdded, .partRemoved, .partRetired))
            guard let now = newParts[id]?.part else { continue }
            changes += mounts(of: now, were: oldParts[id]?.part.mounts ?? [])
        }
        // Bikes first, then parts; within each, by id, kind and day (the order found otherwise).
        let ordered = changes.enumerated().sorted { a, b in
            let x = a.element
            let y = b.element
            if x.subject != y.subject { return x.subject < y.subject }
            if x.change != y.change { return x.change < y.change }
            if x.date != y.date { return (x.date?.ordinal ?? Int.min) < (y.date?.ordinal ?? Int.min) }
            return a.offset < b.offset
        }.map(\.element)
        return GarageDiff(
            from: revisions.from, fromCommit: revisions.fromCommit, to: revisions.to, toCommit: revisions.toCommit, changes: ordered)
    }

    /// A bike or part: added, removed, retired; its log and intervals.
    private static func compare(_ subject: ReportSubject, old: Side?, new: Side?, kinds: (added: Kind, removed: Kind, retired: Kind)) -> [Change] {
        guard let new else { return [Change(change: kinds.removed, subject: subject, date: nil)] }
        var changes: [Change] = []
        if old == nil { changes.append(Change(change: kinds.added, subject: subject, date: nil)) }
        if let retired = new.retired, old?.retired != retired { changes.append(Change(change: kinds.retired, subject: subject, date: retired)) }
        // Services: log entries as multisets of what they say.
        var before: [String: Int] = [:]
        for entry in old?.log ?? [] { before[key(entry), default: 0] += 1 }
        var after: [String: Int] = [:]
        for entry in new.log { after[key(entry), default: 0] += 1 }
        var seen: [String: Int] = [:]
        for entry in new.log {
            let k = key(entry)
            seen[k, default: 0] += 1
            if seen[k, default: 0] > before[k, default: 0] { changes.append(service(.serviceLogged, subject, entry)) }
        }
        seen = [:]
        for entry in old?.log ?? [] {
            let k = key(entry)
            seen[k, default: 0] += 1
            if seen[k, default: 0] > after[k, default: 0] { changes.append(service(.serviceRemoved, subject, entry)) }
        }
        guard let old else { return changes }
        return changes + intervals(of: subject, were: old.intervals, are: new.intervals)
    }

    /// Intervals (as resolved: a template's count too), by id: added, changed, removed.
    private static func intervals(of subject: ReportSubject, were: [ResolvedInterval], are: [ResolvedInterval]) -> [Change] {
        var changes: [Change] = []
        let was = Dictionary(were.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let now = Dictionary(are.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for interval in are {
            let limits = terms(interval)
            if let previous = was[interval.id] {
                let before = terms(previous)
                if before != limits {
                    changes.append(Change(change: .intervalChanged, subject: subject, date: nil, interval: interval.id.rawValue, before: before, after: limits))
                }
            } else {
                changes.append(Change(change: .intervalAdded, subject: subject, date: nil, interval: interval.id.rawValue, after: limits))
            }
        }
        for interval in were where now[interval.id] == nil {
            changes.append(Change(change: .intervalRemoved, subject: subject, date: nil, interval: interval.id.rawValue, before: terms(interval)))
        }
        return changes
    }

    /// A part's mounts: a new one is the part moved on; an end given to one is the part taken off.
    private static func mounts(of now: Part, were was: [Mount]) -> [Change] {
        var changes: [Change] = []
        func same(_ a: Mount, _ b: Mount) -> Bool { a.bike.value == b.bike.value && a.from == b.from }
        for mount in now.mounts {
            if let previous = was.first(where: { same($0, mount) }) {
                if let to = mount.to, previous.to != to {
                    changes.append(Change(change: .partUnmounted, subject: .part(now), date: to, bike: mount.bike.value.rawValue))
                } else if mount.to == nil, previous.to != nil {
                    // Its end taken out: on the bike again, from the mount's first day.
                    changes.append(Change(change: .partMounted, subject: .part(now), date: mount.from, bike: mount.bike.value.rawValue))
                }
            } else {
                changes.append(Change(change: .partMounted, subject: .part(now), date: mount.from, bike: mount.bike.value.rawValue))
                if let to = mount.to {
                    changes.append(Change(change: .partUnmounted, subject: .part(now), date: to, bike: mount.bike.value.rawValue))
                }
            }
        }
        for mount in was where !now.mounts.contains(where: { same($0, mount) }) {
            changes.append(Change(change: .mountRemoved, subject: .part(now), date: mount.from, bike: mount.bike.value.rawValue))
        }
        return changes
    }

    /// What an interval says of when it is due: its limits as written, then its repeat rule
    /// (when not the default) and its wear limit.
    private static func terms(_ interval: ResolvedInterval) -> [String] {
        interval.limits.map(\.description) + (interval.repeatRule == .fromDone ? [] : ["repeat: \(interval.repeatRule.rawValue)"])
            + (interval.wearLimit.map { ["wear_limit: \($0)"] } ?? [])
    }

    /// What makes two log entries the same service.
    private static func key(_ entry: LogEntry) -> String {
        [
            entry.date.description, entry.done.map(\.value.rawValue).joined(separator: ","),
            entry.cost.map { "\($0.value.amount) \($0.value.currency ?? "")" } ?? "", entry.category ?? "", entry.note ?? "", entry.todo ?? "",
            measured(entry).joined(separator: ","),
        ].joined(separator: "\u{1F}")
    }

    /// An entry's readings, as a change names them: `measured chain-replace 0.5 %`.
    private static func measured(_ entry: LogEntry) -> [String] {
        entry.readings.map { "measured \($0.interval.value) \($0.value)" }
    }

    private static func service(_ kind: Kind, _ subject: ReportSubject, _ entry: LogEntry) -> Change {
        Change(
            change: kind, subject: subject, date: entry.date,
            done: entry.done.map(\.value.rawValue) + (entry.todo.map { ["to-do: \($0)"] } ?? []) + measured(entry),
            cost: entry.cost.map { ReportAmount($0.value.amount) }, currency: entry.cost?.value.currency, note: entry.note)
    }

    package var table: ReportTable {
        let parts = changes.contains { $0.subject.kind == .part }
        let columns: [ReportTable.Column] =
            [.init("change", "CHANGE")] + ReportTable.subjectColumns(parts: parts) + [
                .init("date", "DATE"), .init("what", "WHAT"), .init("cost", "COST", numeric: true), .init("currency", "CUR"),
            ]
        let rows = changes.map { c in
            [c.change.words] + ReportTable.subjectCells(c.subject, bike: c.bike, parts: parts) + [
                c.date?.description ?? "", c.what, c.cost?.description ?? "", c.cost == nil ? "" : c.currency ?? "",
            ]
        }
        let footer = changes.isEmpty ? ["No changes to bikes, parts, intervals or the logs."] : []
        return ReportTable(columns: columns, rows: rows, footer: footer)
    }
}
