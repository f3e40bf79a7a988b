import Diagnostics
import LocatedYAML

/// A one-off job to add: `bikecheck todo add BIKE-OR-PART TEXT [--due D] [--id ID]`.
package struct NewTodo: Sendable {
    package var owner: String
    package var task: String
    package var due: Day?
    package var id: String?

    package init(owner: String, task: String, due: Day? = nil, id: String? = nil) {
        self.owner = owner
        self.task = task
        self.due = due
        self.id = id
    }
}

/// Adds to-dos to a bike's or a part's `todo:` list; `done --todo` takes them out again.
package enum TodoRecorder {
    /// Plans the new to-do, after checking the bike or part, the text, the id and the due day.
    package static func plan(_ new: NewTodo, in context: WriteContext) throws(WriteFailure) -> GarageChange {
        let owner = try LogOwner(new.owner, in: context)
        let task = new.task.trimmingSpaces()
        guard !task.isEmpty else { throw .usage("the to-do's text is empty", help: "write what needs doing, e.g. \"replace rear derailleur hanger\"") }
        // One line of text: it travels in reminders (ntfy, mail, webhooks) and status lines.
        guard !task.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}" }) else {
            throw .usage("the to-do's text has a line break or a control character", help: "write it on one line, e.g. \"replace rear derailleur hanger\"")
        }
        if let id = new.id, !isIdentifier(id) {
            throw .usage("'\(id)' is not a valid to-do id", help: "use letters, digits, '-', '_' and '.', e.g. hanger")
        }
        // `done --todo NAME` looks for an id first, then a text: no name may answer for two.
        let answersTo = { (t: Todo) -> Bool in
            (t.id != nil && (t.id == new.id || t.id == task)) || (new.id != nil && t.task == new.id) || (t.task == task && (t.id == nil || new.id == nil))
        }
        if let clash = owner.todos.first(where: answersTo) {
            throw .usage(
                "\(owner.kind) '\(owner.id)' already has the to-do '\(clash.id ?? clash.task)'",
                help: "close it with 'bikecheck done \(owner.id) --todo …', or give the new one its own --id")
        }
        let file = owner.file
        try context.requireClean(file)
        guard let bytes = context.read(file) else { throw .refused("cannot read '\(file)'") }
        let doc = YAMLDocument(path: file, bytes: bytes, limits: .garage)
        guard case .mapping(let root)? = doc.root else { throw .refused("'\(file)' is not a mapping") }

        // A bare line of text reads best; a due day or an id makes it a mapping, on one line in
        // a `[ ]` list.
        var pairs = [YAMLPair("task", .text(task))]
        if let due = new.due { pairs.append(YAMLPair("due", .plain(due.description))) }
        if let id = new.id { pairs.append(YAMLPair("id", .plain(id))) }
        let flow: Bool
        if case .sequence(let q)? = root["todo"] { flow = q.isFlow && !q.items.isEmpty } else { flow = false }
        let entry: YAMLValue = pairs.count == 1 ? .text(task) : flow ? .flowMapping(pairs) : .mapping(pairs)
        let after = try context.edit(file, doc, [.appendOrCreate(entry, list: "todo", current: root["todo"])])
        let due = new.due.map { ", due \($0)" } ?? ""
        return context.change(
            files: [FileChange(path: file, before: bytes, after: after)],
            message: "\(owner.id): to-do \(task)\(due)",
            summary: ["\(owner.id): added the to-do '\(task)'\(due) to \(file)"])
    }

    /// The edit that takes `todo` out of the file's `todo:` list; the whole key when it is the
    /// only one.
    static func removal(_ todo: Todo, in root: YAMLMapping, file: String) throws(WriteFailure) -> YAMLEdit {
        guard let at = todo.location.range?.start.offset, case .sequence(let q)? = root["todo"],
            let index = q.items.firstIndex(where: { $0.range.start.offset <= at && at <= $0.range.end.offset })
        else {
            throw .refused("cannot find the to-do '\(todo.task)' in '\(file)'", help: "remove it by hand")
        }
        return q.items.count == 1 ? .removeKey("todo", from: []) : .removeItem(index, from: ["todo"])
    }
}
