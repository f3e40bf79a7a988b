import Diagnostics
import Foundation
import LocatedYAML

/// A service to record: `bikecheck done BIKE INTERVAL… [--date --cost --note]`.
public struct ServiceRecord: Sendable {
    public var bike: String
    public var intervals: [String]
    public var date: Day?
    /// As typed, e.g. `45.99`; written as is.
    public var cost: String?
    public var note: String?

    public init(bike: String, intervals: [String], date: Day? = nil, cost: String? = nil, note: String? = nil) {
        self.bike = bike
        self.intervals = intervals
        self.date = date
        self.cost = cost
        self.note = note
    }
}

/// Appends services to a bike's log, in the style of the entries already there.
public enum ServiceRecorder {
    /// Plans the log entry, after checking the bike, the intervals, the date and the cost.
    public static func plan(_ record: ServiceRecord, in context: WriteContext) throws(WriteFailure) -> GarageChange {
        // A part (parts/ID.yaml) keeps its own log; a bike's name wins if both exist.
        let owner: LogOwner
        if context.garage.bike(BikeID(record.bike)) == nil, context.garage.part(PartID(record.bike)) != nil {
            let part = try context.part(record.bike)
            owner = LogOwner(kind: "part", id: record.bike, file: part.part.location.file, intervals: part.intervals, log: part.part.log)
        } else {
            let resolved = try context.bike(record.bike)
            owner = LogOwner(kind: "bike", id: record.bike, file: resolved.bike.location.file, intervals: resolved.intervals, log: resolved.bike.log)
        }
        let resolved = owner
        let bike = owner
        guard !record.intervals.isEmpty else { throw .usage("name at least one interval that was done") }
        var ids: [String] = []
        for name in record.intervals where !ids.contains(name) {
            guard resolved.intervals.contains(where: { $0.id.rawValue == name }) else {
                let known = resolved.intervals.map(\.id.rawValue)
                let hint = didYouMean(name, among: known)
                throw .usage(
                    "\(owner.kind) '\(bike.id)' has no interval '\(name)'\(hint)",
                    help: known.isEmpty ? "give the \(owner.kind) intervals or templates first" : "intervals: \(known.joined(separator: ", "))")
            }
            ids.append(name)
        }
        let date = record.date ?? context.today
        try context.checkDate(date, "the date")
        var amount: Decimal?
        if let cost = record.cost {
            guard case .success(let value) = Money.parseAmount(Substring(cost)) else {
                throw .usage("cost '\(cost)' is not an amount", help: "write a number such as 45.99, without the currency")
            }
            amount = value
        }
        if let note = record.note, note.isEmpty { throw .usage("the note is empty", help: "leave out --note, or write some text") }

        let file = owner.file
        try context.requireClean(file)
        guard let bytes = context.read(file) else { throw .refused("cannot read '\(file)'") }
        let doc = YAMLDocument(path: file, bytes: bytes)
        guard case .mapping(let root)? = doc.root else { throw .refused("'\(file)' is not a mapping") }

        // An interval the log already has on that day is not logged twice (a retried script, a
        // double Enter, or the rider not remembering): only the others are written.
        let sameDay = bike.log.filter { $0.date == date }
        let already = ids.filter { id in sameDay.contains { $0.done.contains { $0.value.rawValue == id } } }
        if !already.isEmpty {
            let remaining = ids.filter { !already.contains($0) }
            let line = sameDay.first { e in e.done.contains { already.contains($0.value.rawValue) } }.flatMap { $0.location.range?.start.line }
            let at = line.map { " (\(file):\($0))" } ?? ""
            if remaining.isEmpty {
                // The same command again is nothing to do; a different cost or note for a service
                // already logged is a change to make by hand.
                let same = sameDay.contains { $0.cost?.value.amount == amount && $0.note == record.note && Set($0.done.map(\.value.rawValue)) == Set(ids) }
                if !same && (record.cost != nil || record.note != nil) {
                    throw .refused(
                        "\(already.joined(separator: ", ")) on \(date) is already in the log\(at); nothing was written",
                        help: "edit that entry by hand to change its cost or note")
                }
                return GarageChange(
                    files: [FileChange(path: file, before: bytes, after: bytes)], message: "",
                    summary: ["\(bike.id): \(ids.joined(separator: ", ")) on \(date) is already in the log\(at); nothing to do"])
            }
            ids = remaining
        }

        let style = EntryStyle(root["log"], defaultOrder: ["date", "done", "cost", "note"])
        var fields: [String: YAMLValue] = ["date": .plain(date.description)]
        if ids.count == 1 && style.doneAsScalar {
            fields["done"] = .plain(ids[0])
        } else if style.doneAsBlock && !style.flow {
            fields["done"] = .list(ids.map { .plain($0) })
        } else {
            fields["done"] = .flowList(ids.map { .plain($0) })
        }
        if let cost = record.cost { fields["cost"] = .plain(cost) }
        if let note = record.note { fields["note"] = .text(note) }
        let entry = style.entry(fields)

        // A log kept in date order stays in date order: a backdated service goes before the
        // first later entry. Any other log gets the entry at its end.
        let edit: YAMLEdit
        if let position = datedPosition(of: date, in: root["log"]) {
            edit = .insert(entry, into: ["log"], at: position)
        } else {
            edit = .appendOrCreate(entry, list: "log", current: root["log"])
        }
        let after = try context.edit(file, bytes, [edit])

        var summary = ["\(bike.id): logged \(ids.joined(separator: ", ")) on \(date) in \(file)"]
        if !already.isEmpty { summary.append("\(bike.id): \(already.joined(separator: ", ")) on \(date) was already in the log") }
        for id in ids {
            if let part = resolved.intervals.first(where: { $0.id.rawValue == id })?.replaces {
                summary.append("\(bike.id): '\(id)' replaces \(part): its life counts from \(date)")
            }
        }
        return GarageChange(
            files: [FileChange(path: file, before: bytes, after: after)],
            message: "\(bike.id): \(ids.joined(separator: ", ")) done \(date)", summary: summary)
    }
}

/// Whose log a service goes in: a bike's or a part's.
struct LogOwner {
    var kind: String
    var id: String
    var file: String
    var intervals: [ResolvedInterval]
    var log: [LogEntry]
}

extension ServiceRecorder {
    /// Where an entry dated `date` goes in a block-style log whose entries are in date order,
    /// oldest first, when that is not the end; nil for the end, or for a log in any other order.
    static func datedPosition(of date: Day, in log: YAMLNode?) -> Int? {
        guard case .sequence(let q)? = log, !q.isFlow else { return nil }
        var dates: [Day] = []
        for item in q.items {
            guard case .mapping(let m) = item, case .scalar(let s)? = m["date"], let day = Day(s.value) else { return nil }
            dates.append(day)
        }
        guard zip(dates, dates.dropFirst()).allSatisfy({ $0 <= $1 }) else { return nil }
        guard let later = dates.firstIndex(where: { $0 > date }) else { return nil }
        return later
    }
}

/// How the entries of a list already in a file are written (key order, one line or several,
/// `done` as a list or a single id), so a new entry looks the same.
struct EntryStyle {
    var order: [String]
    /// The last entry is written `{date: …, done: […]}` on one line.
    var flow = false
    var doneAsBlock = false
    var doneAsScalar = false

    init(_ list: YAMLNode?, defaultOrder: [String]) {
        order = defaultOrder
        guard case .sequence(let q)? = list, case .mapping(let last)? = q.items.last else { return }
        let keys = last.entries.compactMap(\.keyText).filter { defaultOrder.contains($0) }
        order = keys + defaultOrder.filter { !keys.contains($0) }
        flow = last.isFlow
        switch last["done"] {
        case .sequence(let s)?: doneAsBlock = !s.isFlow
        case .scalar?: doneAsScalar = true
        default: break
        }
    }

    /// An entry of these fields, in this style.
    func entry(_ fields: [String: YAMLValue]) -> YAMLValue {
        let pairs = order.compactMap { key in fields[key].map { YAMLPair(key, $0) } }
        return flow ? .flowMapping(pairs) : .mapping(pairs)
    }
}
