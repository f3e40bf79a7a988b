/// The names of some cached activities, by their index in `ActivitySummaries.records`: what a
/// report that lists rides one by one shows beside the summaries, which carry no names.
public struct ActivityNames: Sendable {
    private var byRecord: [String?]

    public init() { byRecord = [] }

    /// Names taken from whole activities, in the order `ActivitySummaries(activities)` keeps them.
    init(dated activities: [Activity]) { byRecord = activities.map(\.name) }

    public subscript(record: Int32) -> String? { Int(record) < byRecord.count ? byRecord[Int(record)] : nil }

    /// The names of `records` (indices into `summaries.records`), read from the month files of the
    /// cache they can be in: an activity's file is named after the month of its UTC start, a day
    /// either side of the local day summaries keep. Only those files are read, on all cores.
    public static func load(root: String, summaries: ActivitySummaries, records: [Int32]) -> ActivityNames {
        var names = ActivityNames()
        guard !records.isEmpty else { return names }
        names.byRecord = Array(repeating: nil, count: summaries.records.count)
        var months: Set<String> = []
        var lastDay = Int32.min
        var table = ActivityIDTable(capacity: records.count)
        for r in records {
            let a = summaries.records[Int(r)]
            _ = table.updateValue(r, forKey: a.id)
            guard a.day != lastDay else { continue }
            lastDay = a.day
            for d in -1...1 { months.insert(Day(ordinal: Int(a.day) + d).monthKey + ".json") }
        }
        let files = ActivityCacheLoader.read(root: root, NameBuilder.self) { name, _, named, read in
            named && months.contains(name) ? read() : ActivityCacheLoader.File<NameBuilder>(name: name)
        }
        for file in files {
            for named in file.records {
                if let r = table.value(forKey: named.id), summaries.records[Int(r)].id == named.id { names.byRecord[Int(r)] = named.name }
            }
        }
        return names
    }
}

/// An activity's id and name.
struct NamedActivity: Sendable, CachedActivityRecord {
    var id: Int64
    var name: String
}

/// Only ids and names, for `ActivityNames`.
struct NameBuilder: ActivityRecordBuilder {
    var strings: [String] { [] }
    mutating func record(_ f: ActivityFields) -> NamedActivity { NamedActivity(id: f.id, name: f.name?.string ?? "") }
}
