import Diagnostics
import LocatedYAML

/// A bike's or part's `log:`, `snooze:` and `todo:`, and the currency of its costs.
extension FileDecoders {
    static func log(_ node: YAMLNode, _ r: inout NodeReader, currency garageCurrency: String? = nil) -> [LogEntry] {
        if case .scalar(let s) = node, s.isNull { return [] }
        guard case .sequence(let q) = node else {
            r.error(.wrongType, "log should be a list of entries ('- date: …'), found \(node.kindDescription)", node)
            return []
        }
        var result: [LogEntry] = []
        result.reserveCapacity(q.items.count)  // a long log is not copied as it grows
        for item in q.items {
            guard let m = r.mapping(item, "a log entry") else { continue }
            let f = r.fields(m, of: "a log entry", allowed: logKeys, required: ["date"], at: item)
            // A service names intervals; a closed to-do names the job instead (or as well); a
            // measurement names what it measured, and is no service; an expense (a repair, a
            // purchase: what another tracker's records are) its cost.
            if f["done"] == nil, f["todo"] == nil, f["readings"] == nil, f["cost"] == nil, !f.misspelled.contains("done"),
                !f.misspelled.contains("todo"), !f.misspelled.contains("readings"), !f.misspelled.contains("cost")
            {
                r.diagnostics.append(
                    .error(
                        .missingKey, "a log entry is missing required key 'done'", at: r.location(SourceRange(at: item.range.start)),
                        help:
                            "add 'done: …' with the intervals done (or 'todo: …' for a one-off job, 'readings: …' for a measurement, 'cost: …' for an expense)"
                    ))
            }
            guard let dateEntry = f["date"], let date = r.day(dateEntry.value, "date") else { continue }
            var entry = LogEntry(date: date, dateLocation: r.location(dateEntry.value), done: [], location: r.location(item))
            if let e = f["done"], let list = r.stringList(e.value, "an interval id") {
                entry.done = list.map { Located(IntervalID($0.value), at: $0.location) }
                if list.isEmpty { r.error(.wrongType, "done is an empty list", e.value, help: "name the intervals that were done, e.g. done: [chain-lube]") }
            }
            if let e = f["readings"] { entry.readings = readings(e.value, &r) }
            var entryCurrency: String?
            if let e = f["currency"], let code = r.string(e.value, "currency") {
                if Money.isCurrencyCode(code) {
                    entryCurrency = code
                } else {
                    r.error(
                        .badValue, "currency '\(shown(code))' should be a currency code of three capital letters", e.value, help: "write e.g. EUR, USD, GBP")
                }
            }
            if let e = f["cost"], var cost = r.money(e.value, "cost", currency: entryCurrency ?? garageCurrency) {
                if let entryCurrency, cost.value.currency != entryCurrency, let c = f["currency"], case .scalar(let written) = e.value {
                    r.error(
                        .conflictingCurrency,
                        "cost '\(shown(written.value))' is in \(cost.value.currency ?? "no currency"), but the entry's currency is '\(shown(entryCurrency))'",
                        e.value,
                        help: "keep one currency: drop the code after the amount, or the 'currency:' key",
                        notes: [.init("currency given here", at: r.location(c.value))])
                    cost.value.currency = entryCurrency
                }
                entry.cost = cost
                checkCurrency(cost, "cost", garage: garageCurrency, &r)
            }
            if let e = f["category"] { entry.category = r.string(e.value, "category") }
            if let e = f["note"] { entry.note = r.string(e.value, "note") }
            if let e = f["todo"] { entry.todo = r.string(e.value, "todo") }
            result.append(entry)
        }
        return result
    }

    /// `readings: {chain-replace: 0.5 %, brake-pads: 1.8 mm}`: measurements by interval id. Whether
    /// each interval exists and has a `wear_limit:` in the reading's unit is checked once the
    /// bike's or part's intervals are resolved.
    static func readings(_ node: YAMLNode, _ r: inout NodeReader) -> [Reading] {
        guard case .mapping(let m) = node else {
            r.error(
                .wrongType, "readings should map interval ids to measurements, found \(node.kindDescription)", node,
                help: "write e.g. readings: {chain-replace: 0.5 %}")
            return []
        }
        var result: [Reading] = []
        for entry in m.entries {
            guard let key = entry.keyText else { continue }
            if !isIdentifier(key) {
                r.error(.badId, "'\(shown(key))' is not a valid interval id", entry.key, help: "use letters, digits, '-', '_' and '.', e.g. chain-replace")
                continue
            }
            guard let value = wearAmount(entry.value, "a reading", &r) else { continue }
            result.append(Reading(interval: Located(IntervalID(key), at: r.location(entry.key)), value: value, valueLocation: r.location(entry.value)))
        }
        return result
    }

    /// A measurement of wear (`0.5 %`, `1.8 mm`), for `readings:` and `wear_limit:`.
    static func wearAmount(_ node: YAMLNode, _ what: String, _ r: inout NodeReader) -> WearAmount? {
        guard case .scalar(let s) = node, !s.isNull else {
            r.error(.badQuantity, "\(what) should be a measurement like '0.5 %', found \(node.kindDescription)", node, help: WearAmount.accepted)
            return nil
        }
        switch WearAmount.parse(s.value) {
        case .success(let amount): return amount
        case .failure(.badNumber):
            r.error(.badQuantity, "\(what) '\(shown(s.value))' does not start with a number", node, help: WearAmount.accepted)
        case .failure(.missingUnit):
            r.error(.badQuantity, "\(what) '\(shown(s.value))' has no unit", node, help: WearAmount.accepted)
        case .failure(.unknownUnit(let unit)):
            let meant = Suggestion(unit, among: WearAmount.units)
            r.error(.badQuantity, "unknown unit '\(shown(unit))' in \(what) '\(shown(s.value))'\(meant.hint)", node, help: WearAmount.accepted)
        case .failure(.negative):
            r.error(.negativeNumber, "\(what) must be zero or more, found '\(shown(s.value))'", node, help: WearAmount.accepted)
        case .failure(.tooLarge):
            r.error(.quantityTooLarge, "\(what) '\(shown(s.value))' is more than any part measures", node, help: WearAmount.accepted)
        }
        return nil
    }

    /// `snooze: {chain-lube: 2026-12-01}`: intervals put off until a day.
    static func snoozes(_ node: YAMLNode, _ r: inout NodeReader) -> [Snooze] {
        if r.isNull(node) { return [] }
        guard case .mapping(let m) = node else {
            r.error(
                .wrongType, "snooze should map interval ids to dates, found \(node.kindDescription)", node,
                help: "write e.g. snooze: {chain-lube: 2026-12-01}")
            return []
        }
        var result: [Snooze] = []
        for entry in m.entries {
            guard let key = entry.keyText else { continue }
            guard isIdentifier(key) else {
                r.error(.badId, "'\(shown(key))' is not a valid interval id", entry.key, help: "use letters, digits, '-', '_' and '.', e.g. chain-lube")
                continue
            }
            guard let until = r.day(entry.value, "the snooze of '\(key)'") else { continue }
            result.append(Snooze(interval: Located(IntervalID(key), at: r.location(entry.key)), until: until, untilLocation: r.location(entry.value)))
        }
        return result
    }

    /// One to-do: a line of text or `{task, due, id, note}`; nil (with the error in `r`) when it
    /// is not one.
    static func todo(_ item: YAMLNode, _ r: inout NodeReader) -> Todo? {
        var todo: Todo
        switch item {
        case .scalar(let s) where !s.isNull:
            todo = Todo(task: s.value, location: r.location(item))
        case .mapping(let m):
            let f = r.fields(m, of: "a to-do", allowed: todoKeys, required: ["task"], at: item)
            guard let e = f["task"], let task = r.string(e.value, "the to-do's task") else { return nil }
            todo = Todo(task: task, location: r.location(e.value))
            if let d = f["due"] {
                guard let due = r.day(d.value, "due") else { return nil }
                todo.due = due
            }
            if let i = f["id"] {
                guard let id = r.identifier(i.value, "to-do id") else { return nil }
                todo.id = id
            }
            if let n = f["note"] { _ = r.string(n.value, "note") }
        case .scalar:
            r.error(.emptyTodo, "a to-do is empty", item, help: "write what needs doing, e.g. - replace rear derailleur hanger")
            return nil
        case .sequence:
            r.error(
                .wrongType, "a to-do should be text or a mapping with 'task:', found \(item.kindDescription)", item,
                help: "write '- replace rear derailleur hanger', or '- {task: …, due: 2026-12-01}'")
            return nil
        }
        return todo
    }

    /// `todo:`: one-off jobs, each a line of text or `{task, due, id, note}`.
    static func todos(_ node: YAMLNode, _ r: inout NodeReader) -> [Todo] {
        if r.isNull(node) { return [] }
        guard case .sequence(let q) = node else {
            r.error(
                .wrongType, "todo should be a list of jobs, found \(node.kindDescription)", node,
                help: "write '- replace rear derailleur hanger' lines, or '- {task: …, due: 2026-12-01}'")
            return []
        }
        var result: [Todo] = []
        // The first to-do with each id, each text, and each text without an id: the duplicate
        // check looks up instead of scanning, so a long list costs linear time.
        var firstWithID: [String: Int] = [:], firstWithTask: [String: Int] = [:], firstWithTaskNoID: [String: Int] = [:]
        for item in q.items {
            guard let todo = FileDecoders.todo(item, &r) else { continue }
            if todo.task.allSatisfy(\.isWhitespace) {
                r.diagnostics.append(
                    .error(
                        .emptyTodo, "a to-do has no text", at: todo.location,
                        help: "write what needs doing, e.g. replace rear derailleur hanger"))
                continue
            }
            // `done --todo NAME` closes one to-do: two with one id, or with one text and not both
            // an id to tell them apart, could not be named.
            let earlier: Int? =
                if let id = todo.id {
                    [firstWithID[id], firstWithTaskNoID[todo.task]].compactMap { $0 }.min()
                } else {
                    firstWithTask[todo.task]
                }
            if let earlier {
                let first = result[earlier]
                let name = todo.id.flatMap { first.id == $0 ? $0 : nil } ?? todo.task
                r.diagnostics.append(
                    .error(
                        .duplicateTodo, "to-do '\(shown(name))' is listed twice", at: todo.location,
                        notes: [.init("first listed here", at: first.location)],
                        help: "remove one, or give each an 'id:' so 'bikecheck done --todo' can tell them apart"))
                continue
            }
            // Nor one whose text is another's id: `done --todo` reads an id first, and reminders
            // and calendar events, named by id or else text, would have one name for both.
            let crossed: Int? = if let id = todo.id { firstWithTaskNoID[id] } else { firstWithID[todo.task] }
            if let crossed {
                let first = result[crossed]
                let name = todo.id ?? todo.task
                r.diagnostics.append(
                    .error(
                        .duplicateTodo, "to-do '\(shown(name))' names two to-dos: one by its id, the other by its text", at: todo.location,
                        notes: [.init("the other is listed here", at: first.location)],
                        help: "give the one without an 'id:' an id of its own, so 'bikecheck done --todo' can tell them apart"))
                continue
            }
            if let id = todo.id { firstWithID[id] = firstWithID[id] ?? result.count }
            firstWithTask[todo.task] = firstWithTask[todo.task] ?? result.count
            if todo.id == nil { firstWithTaskNoID[todo.task] = firstWithTaskNoID[todo.task] ?? result.count }
            result.append(todo)
        }
        return result
    }

    /// An amount in another currency than the garage's, or in none: kept, and reported apart,
    /// never added to the garage's totals without a word.
    static func checkCurrency(_ money: Located<Money>, _ what: String, garage: String?, _ r: inout NodeReader) {
        guard r.warnings, let problem = currencyProblem(money.value, what, garage: garage) else { return }
        r.diagnostics.append(.warning(problem.id, problem.message, at: money.location, help: problem.help))
    }

    /// What is wrong with an amount's currency for a garage in `garage` (its `currency:`): the
    /// warning a file gets, which `done --cost` repeats for the entry it writes.
    static func currencyProblem(_ money: Money, _ what: String, garage: String?) -> (id: DiagnosticID, message: String, help: String)? {
        // Formatting an amount (through `Decimal`) costs more than the check: only for a message.
        func amount() -> String { Money.format(money.amount, fractionDigits: Money.fractionDigits(of: money.amount)) }
        guard let currency = money.currency else {
            return (
                .costWithoutCurrency, "\(what) \(amount()) has no currency, and garage.yaml names none",
                "add 'currency: EUR' (your currency's code) to garage.yaml"
            )
        }
        guard let garage, currency != garage else { return nil }
        return (
            .foreignCurrency, "\(what) \(amount()) \(currency) is not in the garage's currency \(garage)",
            "costs and exports report \(currency) apart from \(garage), never summed; write the amount in \(garage) to count it with the rest"
        )
    }
}
