/// The names of some cached activities, by their index in `ActivitySummaries.records`: what a
/// report that lists rides one by one shows beside the summaries, which carry no names.
package struct ActivityNames: Sendable {
    private var byRecord: [String?]

    package init() { byRecord = [] }

    package subscript(record: Int32) -> String? { Int(record) < byRecord.count ? byRecord[Int(record)] : nil }

    /// The names of `records` (indices into `summaries.records`), read from the month files of the
    /// cache they can be in: an activity's file is named after the month of its UTC start, a day
    /// either side of the local day summaries keep. Only those files are read, on all cores.
    package static func load(root: String, summaries: ActivitySummaries, records: [Int32]) -> ActivityNames {
        var names = ActivityNames()
        guard !records.isEmpty else { return names }
        names.byRecord = Array(repeating: nil, count: summaries.records.count)
        // Each record once (a ride with no gear is listed under every bike that counts its sport).
        var wanted = [Bool](repeating: false, count: summaries.records.count)
        var unique = 0
        for r in records where !wanted[Int(r)] {
            wanted[Int(r)] = true
            unique += 1
        }
        var monthNumbers: Set<Int> = []
        var lastDay = Int32.min
        var table = ActivityIDTable(capacity: unique)
        for (r, a) in summaries.records.enumerated() where wanted[r] {
            _ = table.updateValue(Int32(r), forKey: a.id)
            guard a.day != lastDay else { continue }
            lastDay = a.day
            for d in -1...1 {
                let (y, m, _) = Day(ordinal: Int(a.day) + d).components
                monthNumbers.insert(y * 12 + m - 1)
            }
        }
        let months = Set(monthNumbers.map { Day(year: $0 / 12, month: $0 % 12 + 1, day: 1)?.monthKey ?? "" }.map(ActivityCacheFormat.fileName(month:)))
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
struct NameBuilder: ActivityRecordBuilder, BytesCanonicalValues {
    var strings: [String] { [] }
    mutating func record(_ f: ActivityFields) -> NamedActivity { NamedActivity(id: f.id, name: f.name?.string ?? "") }
}
