import Diagnostics
import LocatedYAML

/// An interval to put off: `bikecheck snooze BIKE-OR-PART INTERVAL --until D`.
package struct SnoozeRecord: Sendable {
    package var owner: String
    package var interval: String
    package var until: Day

    package init(owner: String, interval: String, until: Day) {
        self.owner = owner
        self.interval = interval
        self.until = until
    }
}

/// Writes `snooze: {INTERVAL: DATE}` in a bike's or a part's file, and takes it out again when
/// `done` records the interval.
package enum SnoozeRecorder {
    /// Plans the snooze, after checking the bike or part, the interval and the day.
    package static func plan(_ record: SnoozeRecord, in context: WriteContext) throws(WriteFailure) -> GarageChange {
        let owner = try LogOwner(record.owner, in: context)
        let interval = try owner.interval(record.interval).id.rawValue
        guard record.until > context.today else {
            throw .usage(
                "--until \(record.until) is not after today (\(context.today)): a snooze lasts until a later day",
                help: "give the day the interval should count again, e.g. --until \(context.today.adding(days: 14))")
        }
        let file = owner.file
        try context.requireClean(file)
        guard let bytes = context.read(file) else { throw .refused("cannot read '\(file)'") }
        let doc = YAMLDocument(path: file, bytes: bytes, limits: .garage)
        guard case .mapping(let root)? = doc.root else { throw .refused("'\(file)' is not a mapping") }

        let date = YAMLValue.plain(record.until.description)
        let edit: YAMLEdit
        switch root["snooze"] {
        case nil:
            edit = .addKey("snooze", .mapping([YAMLPair(interval, date)]), in: [])
        case .mapping(let m)? where !m.entries.isEmpty:
            if case .scalar(let old)? = m[interval] {
                if Day(old.value) == record.until {
                    return context.change(
                        files: [FileChange(path: file, before: bytes, after: bytes)], message: "",
                        summary: ["\(owner.id): \(interval) is already snoozed until \(record.until); nothing to do"])
                }
                edit = .set(["snooze", .key(interval)], date)
            } else {
                edit = .addKey(interval, date, in: ["snooze"])
            }
        case let value?:
            // `snooze:` with nothing under it (or `{}`): the entry goes in its place.
            guard YAMLShape(value).isEmptyValue else { throw .refused("'snooze' in '\(file)' is not a mapping", help: "fix it by hand") }
            edit = .set(["snooze"], .mapping([YAMLPair(interval, date)]))
        }
        let after = try context.edit(file, doc, [edit])
        return context.change(
            files: [FileChange(path: file, before: bytes, after: after)],
            message: "\(owner.id): snooze \(interval) until \(record.until)",
            summary: ["\(owner.id): \(interval) snoozed until \(record.until) in \(file)"])
    }

    /// Which of `ids` the file's `snooze:` names.
    static func snoozed(_ ids: [String], in root: YAMLMapping) -> [String] {
        guard case .mapping(let m)? = root["snooze"] else { return [] }
        return ids.filter { m[$0] != nil }
    }

    /// The edits that take `ids` out of `snooze:`; the whole key when nothing else is left.
    static func removals(_ ids: [String], in root: YAMLMapping) -> [YAMLEdit] {
        guard !ids.isEmpty, case .mapping(let m)? = root["snooze"] else { return [] }
        let left = m.entries.compactMap(\.keyText).filter { !ids.contains($0) }
        if left.isEmpty { return [.removeKey("snooze", from: [])] }
        return ids.map { .removeKey($0, from: ["snooze"]) }
    }
}
