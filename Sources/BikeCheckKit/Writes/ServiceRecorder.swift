import Diagnostics
import Foundation
import LocatedYAML

/// A service to record: `bikecheck done BIKE INTERVAL… [--date --cost --note]`.
package struct ServiceRecord: Sendable {
    package var bike: String
    package var intervals: [String]
    package var date: Day?
    /// As typed, e.g. `45.99` or `45.99 USD`: read as the file reads a cost, written as typed.
    package var cost: String?
    package var note: String?
    /// A one-off job closed by this entry: its id or its text (`--todo`).
    package var todo: String?
    /// What kind of cost it was (`parts`, `labour`): the entry's `category:`.
    package var category: String?
    /// Measurements taken, as typed: `chain-replace=0.5%` (`--reading`): the entry's `readings:`.
    package var readings: [String]

    package init(
        bike: String, intervals: [String], date: Day? = nil, cost: String? = nil, note: String? = nil, todo: String? = nil, category: String? = nil,
        readings: [String] = []
    ) {
        self.bike = bike
        self.intervals = intervals
        self.date = date
        self.cost = cost
        self.note = note
        self.todo = todo
        self.category = category
        self.readings = readings
    }
}

/// Appends services to a bike's log, in the style of the entries already there.
package enum ServiceRecorder {
    /// A record's values, checked against its owner and the garage.
    struct Checked {
        var ids: [String] = []
        var readings: [(id: String, value: WearAmount)] = []
        var todo: Todo?
        var date: Day
        /// The cost as the file reads one, in the garage's currency when it names none.
        var money: Money?
        var costText: String?
    }

    /// The record's intervals, readings, to-do, date and cost, checked.
    static func check(_ record: ServiceRecord, _ owner: LogOwner, in context: WriteContext) throws(WriteFailure) -> Checked {
        guard !record.intervals.isEmpty || record.todo != nil || !record.readings.isEmpty else {
            throw .usage(
                "name at least one interval that was done", help: "or close a to-do with --todo TEXT-OR-ID, or record a measurement with --reading ID=VALUE")
        }
        var checked = Checked(date: record.date ?? context.today)
        for name in record.intervals where !checked.ids.contains(name) {
            _ = try owner.interval(name)
            checked.ids.append(name)
        }
        for typed in record.readings {
            let reading = try owner.reading(typed)
            if let k = checked.readings.firstIndex(where: { $0.id == reading.id }) { checked.readings[k] = reading } else { checked.readings.append(reading) }
        }
        checked.todo = try record.todo.map { name throws(WriteFailure) in try owner.todo(name) }
        try context.checkDate(checked.date, "the date")
        // The cost is read as the file reads one (`45.99`, `45.99 USD`), and in the garage's
        // currency when it names none, so the same-day check compares what the file will hold.
        if let cost = record.cost {
            switch Money.parse(cost) {
            case .success(var value):
                if value.currency == nil { value.currency = context.garage.settings.currency }
                checked.money = value
                checked.costText = cost.split(separator: " ").joined(separator: " ")
            case .failure(let why):
                throw .usage(why.message("cost", cost), help: Money.amountHelp)
            }
        }
        if let note = record.note, note.isEmpty { throw .usage("the note is empty", help: "leave out --note, or write some text") }
        if let category = record.category, category.allSatisfy(\.isWhitespace) {
            throw .usage("the category is empty", help: "leave out --category, or name one, e.g. parts or labour")
        }
        return checked
    }

    /// Plans the log entry, after checking the bike, the intervals, the date and the cost.
    package static func plan(_ record: ServiceRecord, in context: WriteContext) throws(WriteFailure) -> GarageChange {
        let owner = try LogOwner(record.bike, in: context)
        var checked = try check(record, owner, in: context)
        let date = checked.date
        let file = owner.file
        try context.requireClean(file)
        guard let bytes = context.read(file) else { throw .refused("cannot read '\(file)'") }
        let doc = YAMLDocument(path: file, bytes: bytes, limits: .garage)
        guard case .mapping(let root)? = doc.root else { throw .refused("'\(file)' is not a mapping") }

        // An interval the log already has on that day is not logged twice (a retried script, a
        // double Enter, or the rider not remembering): only the others are written.
        let sameDay = owner.log.filter { $0.date == date }
        let already = checked.ids.filter { id in sameDay.contains { $0.done.contains { $0.value.rawValue == id } } }
        if let nothing = try nothingToDo(record, owner, &checked, already: already, sameDay: sameDay, bytes: bytes, in: context) { return nothing }
        let ids = checked.ids
        let style = EntryStyle(root["log"], defaultOrder: ["date", "done", "readings", "todo", "cost", "category", "note"])
        var fields: [String: YAMLValue] = ["date": .plain(date.description)]
        // A to-do alone names the job and no interval.
        if !ids.isEmpty { fields["done"] = style.done(ids) }
        if !checked.readings.isEmpty { fields["readings"] = .flowMapping(checked.readings.map { YAMLPair($0.id, .plain($0.value.description)) }) }
        if let todo = checked.todo { fields["todo"] = .text(todo.task) }
        if let costText = checked.costText { fields["cost"] = .plain(costText) }
        if let category = record.category { fields["category"] = .text(category) }
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
        // What the entry does is no longer snoozed, and the to-do it closes leaves the list; but
        // a service older than the interval's last one (history filled in later) starts no new
        // cycle, so the current cycle's snooze stays.
        let newCycles = ids.filter { id in !owner.log.contains { $0.date > date && $0.done.contains { $0.value.rawValue == id } } }
        let unsnoozed = SnoozeRecorder.snoozed(newCycles, in: root)
        var edits = [edit] + SnoozeRecorder.removals(unsnoozed, in: root)
        if let todo = checked.todo { edits.append(try TodoRecorder.removal(todo, in: root, file: file)) }
        let after = try context.edit(file, doc, edits)

        var done = ids
        if let todo = checked.todo { done.append("to-do '\(todo.task)'") }
        done += checked.readings.map { "reading \($0.id) \($0.value)" }
        // The warning the file now gives for this cost (as `validate` shows it), said at once.
        let warnings =
            checked.money.flatMap { FileDecoders.currencyProblem($0, "cost", garage: context.garage.settings.currency) }.map { problem in
                [Warning("\(owner.id): \(problem.message) [\(problem.id)]", help: problem.help)]
            } ?? []
        return context.change(
            files: [FileChange(path: file, before: bytes, after: after)],
            message: "\(owner.id): \(done.joined(separator: ", ")) \(ids.isEmpty && checked.todo == nil ? "measured" : "done") \(date)",
            summary: summary(owner, done: done, ids: ids, date: date, unsnoozed: unsnoozed, already: already), warnings: warnings)
    }

    /// What a logged service says it did.
    static func summary(_ owner: LogOwner, done: [String], ids: [String], date: Day, unsnoozed: [String], already: [String]) -> [String] {
        var summary = ["\(owner.id): logged \(done.joined(separator: ", ")) on \(date) in \(owner.file)"]
        if !unsnoozed.isEmpty { summary.append("\(owner.id): \(unsnoozed.joined(separator: ", ")) no longer snoozed") }
        if !already.isEmpty { summary.append("\(owner.id): \(already.joined(separator: ", ")) on \(date) was already in the log") }
        for id in ids {
            if let part = owner.intervals.first(where: { $0.id.rawValue == id })?.replaces {
                summary.append("\(owner.id): '\(id)' replaces \(part): its life counts from \(date)")
            }
        }
        return summary
    }

    /// What the log has on the record's day already: the change that writes nothing when there is
    /// nothing left to log (the same command again), an error when the record differs from what
    /// is logged; else nil, with what is logged left out of `checked`.
    static func nothingToDo(
        _ record: ServiceRecord, _ owner: LogOwner, _ checked: inout Checked, already: [String], sameDay: [LogEntry], bytes: [UInt8], in context: WriteContext
    ) throws(WriteFailure) -> GarageChange? {
        let (file, date) = (owner.file, checked.date)
        // Nor is the same reading on the same day.
        let measured = checked.readings.filter { r in
            sameDay.contains { $0.readings.contains { $0.interval.value.rawValue == r.id && $0.value == r.value } }
        }
        checked.readings.removeAll { r in measured.contains { $0.id == r.id } }
        if checked.ids.isEmpty, checked.todo == nil, checked.readings.isEmpty, !measured.isEmpty {
            return context.change(
                files: [FileChange(path: file, before: bytes, after: bytes)], message: "",
                summary: measured.map { "\(owner.id): reading \($0.id) \($0.value) on \(date) is already in the log; nothing to do" })
        }
        if !already.isEmpty, checked.todo == nil, checked.readings.isEmpty {
            let remaining = checked.ids.filter { !already.contains($0) }
            let line = sameDay.first { e in e.done.contains { already.contains($0.value.rawValue) } }.flatMap { $0.location.range?.start.line }
            let at = line.map { " (\(file):\($0))" } ?? ""
            if remaining.isEmpty {
                // The same command again is nothing to do; a different cost or note for a service
                // already logged is a change to make by hand.
                let same = sameDay.contains {
                    $0.cost?.value == checked.money && $0.note == record.note && $0.category == record.category
                        && Set($0.done.map(\.value.rawValue)) == Set(checked.ids)
                }
                if !same && (record.cost != nil || record.note != nil || record.category != nil) {
                    throw .refused(
                        "\(already.joined(separator: ", ")) on \(date) is already in the log\(at); nothing was written",
                        help: "edit that entry by hand to change its cost, category or note")
                }
                return context.change(
                    files: [FileChange(path: file, before: bytes, after: bytes)], message: "",
                    summary: ["\(owner.id): \(checked.ids.joined(separator: ", ")) on \(date) is already in the log\(at); nothing to do"])
            }
            checked.ids = remaining
        }
        if checked.todo != nil || !checked.readings.isEmpty, !already.isEmpty { checked.ids = checked.ids.filter { !already.contains($0) } }
        return nil
    }
}

/// Whose log a service goes in: a bike's or a part's.
struct LogOwner {
    var kind: ReportSubject.Kind
    var id: String
    var file: String
    var intervals: [ResolvedInterval]
    var log: [LogEntry]
    var todos: [Todo]

    /// The subject `name` means (see `Garage.subject(named:)`): its file must have no errors.
    init(_ name: String, in context: WriteContext) throws(WriteFailure) {
        let subject: Subject
        do { subject = try context.garage.subject(named: name) } catch { throw WriteFailure(error) }
        switch subject {
        case .part:
            let part = try context.part(name)
            self.init(kind: .part, id: name, file: part.part.location.file, intervals: part.intervals, log: part.part.log, todos: part.part.todos)
        case .bike:
            let resolved = try context.bike(name)
            self.init(
                kind: .bike, id: name, file: resolved.bike.location.file, intervals: resolved.intervals, log: resolved.bike.log,
                todos: resolved.bike.todos)
        }
    }

    init(kind: ReportSubject.Kind, id: String, file: String, intervals: [ResolvedInterval], log: [LogEntry], todos: [Todo]) {
        self.kind = kind
        self.id = id
        self.file = file
        self.intervals = intervals
        self.log = log
        self.todos = todos
    }

    /// Its interval `name`, or a usage error that suggests the nearest.
    func interval(_ name: String) throws(WriteFailure) -> ResolvedInterval {
        if let interval = intervals.first(where: { $0.id.rawValue == name }) { return interval }
        let known = intervals.map(\.id.rawValue)
        throw .usage(
            "\(kind) '\(id)' has no interval '\(name)'\(didYouMean(name, among: known))",
            help: known.isEmpty ? "give the \(kind) intervals or templates first" : "intervals: \(known.joined(separator: ", "))")
    }

    /// A measurement as `--reading` takes it, `ID=VALUE` (`chain-replace=0.5%`): of one of its
    /// intervals with a `wear_limit:`, in the limit's unit.
    func reading(_ typed: String) throws(WriteFailure) -> (id: String, value: WearAmount) {
        guard let eq = typed.firstIndex(of: "="), eq != typed.startIndex else {
            throw .usage("reading '\(typed)' should be INTERVAL=VALUE", help: "e.g. --reading chain-replace=0.5% or --reading brake-pads=1.8mm")
        }
        let name = String(typed[..<eq]), text = String(typed[typed.index(after: eq)...])
        let interval = try interval(name)
        guard let limit = interval.wearLimit else {
            throw .usage(
                "interval '\(name)' of \(kind) '\(id)' has no wear_limit, so a reading of it measures nothing",
                help: "give the interval the measurement at which it is due, e.g. wear_limit: 0.75 %")
        }
        let value: WearAmount
        switch WearAmount.parse(text) {
        case .success(let v): value = v
        case .failure: throw .usage("reading '\(text)' of '\(name)' is not a measurement", help: WearAmount.accepted)
        }
        guard value.unit == limit.unit else {
            throw .usage("reading '\(value)' of '\(name)' is in \(value.unit), but its wear_limit is \(limit)", help: "write it in \(limit.unit)")
        }
        return (name, value)
    }

    /// Its to-do with the id `name`, else with the text `name`; a usage error names the nearest.
    func todo(_ name: String) throws(WriteFailure) -> Todo {
        if let todo = todos.first(where: { $0.id == name }) ?? todos.first(where: { $0.task == name }) { return todo }
        let names = todos.map { $0.id ?? $0.task }
        throw .usage(
            "\(kind) '\(id)' has no to-do '\(name)'\(didYouMean(name, among: names + todos.map(\.task)))",
            help: names.isEmpty ? "its file lists no 'todo:'" : "to-dos: \(names.map { "'\($0)'" }.joined(separator: ", "))")
    }
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

    /// `done:` of these intervals as the log writes it: `chain-lube`, `[a, b]` or a block list.
    func done(_ ids: [String]) -> YAMLValue {
        if ids.count == 1 && doneAsScalar { return .plain(ids[0]) }
        if doneAsBlock && !flow { return .list(ids.map { .plain($0) }) }
        return .flowList(ids.map { .plain($0) })
    }

    /// An entry of these fields, in this style.
    func entry(_ fields: [String: YAMLValue]) -> YAMLValue {
        let pairs = order.compactMap { key in fields[key].map { YAMLPair(key, $0) } }
        return flow ? .flowMapping(pairs) : .mapping(pairs)
    }
}
