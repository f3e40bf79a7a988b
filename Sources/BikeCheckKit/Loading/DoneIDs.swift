extension Resolver {
    /// The done ids of a log that are not `known`, in log order, each found among the few known
    /// ids by comparing, lengths first (no entry copied, no id hashed: a long log names
    /// thousands, on every load); a list of more than `FewIDs.limit` ids is looked up in a
    /// dictionary.
    ///
    /// The first done id found equal to a known one also takes its place in `known`: a done id
    /// read from the garage cache is the one String of its file's every entry (the cache numbers
    /// its strings, `CacheReader.string`), but a template's interval is another String of the same
    /// text, and comparing two Strings of 16 bytes or more (not small strings) that are not the
    /// same String calls the standard library's comparison, for each of the log's ids, here and
    /// again wherever a report looks a done id up among the intervals (`StatusPlanner`, history).
    /// The intervals made with `known`'s ids (`Resolver.resolve`) compare as the same String as
    /// their log's: equal ids, so no answer changes.
    static func unknownDone(in log: [LogEntry], known: inout [IntervalID]) -> [Located<IntervalID>] {
        guard known.count <= FewIDs<IntervalKind>.limit else { return unknownDone(in: log, known: FewIDs(known)) }
        let lengths = known.map { $0.rawValue.utf8.count }
        var adopted = [Bool](repeating: false, count: known.count)
        var unknown: [Located<IntervalID>] = []
        known.withUnsafeMutableBufferPointer { ids in
            log.withUnsafeBufferPointer { log in
                for n in log.indices {
                    log[n].done.withUnsafeBufferPointer { done in
                        for j in done.indices {
                            let id = done[j].value, length = id.rawValue.utf8.count
                            guard let k = lengths.indices.first(where: { lengths[$0] == length && ids[$0] == id }) else {
                                unknown.append(done[j])
                                continue
                            }
                            if !adopted[k] {
                                ids[k] = id
                                adopted[k] = true
                            }
                        }
                    }
                }
            }
        }
        return unknown
    }

    /// `intervals` with the ids of `known` (as `unknownDone` left them), `positions[i]` being
    /// where interval `i`'s id is among them.
    static func adopting(_ known: [IntervalID], positions: [Int], in intervals: inout [ResolvedInterval]) {
        for (i, p) in positions.enumerated() where intervals[i].id == known[p] { intervals[i].id = known[p] }
    }
}
