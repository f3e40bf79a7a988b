/// Where each of a few ids first is in a list, found by comparing: a bike or a part has a few
/// intervals, and comparing a log entry's done id with each of them, lengths first (most ids of a
/// bike differ in length), costs less than hashing it, over the thousands of ids a long log
/// names. A list of more than `limit` ids is looked up in a dictionary instead.
package struct FewIDs<Kind> {
    /// The list as given (the first of an id found first), and the length of each in UTF-8.
    private let ids: [ID<Kind>]
    private let lengths: [Int]
    private let index: [ID<Kind>: Int]?
    package static var limit: Int { 16 }

    package init(_ list: [ID<Kind>]) {
        ids = list
        guard list.count <= Self.limit else {
            lengths = []
            index = Dictionary(list.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            return
        }
        lengths = list.map { $0.rawValue.utf8.count }
        index = nil
    }

    /// The first place of `id` in the list, if it is there.
    package func position(of id: ID<Kind>) -> Int? {
        if let index { return index[id] }
        let length = id.rawValue.utf8.count
        for k in lengths.indices where lengths[k] == length && ids[k] == id { return k }
        return nil
    }

    package func contains(_ id: ID<Kind>) -> Bool { position(of: id) != nil }
}
