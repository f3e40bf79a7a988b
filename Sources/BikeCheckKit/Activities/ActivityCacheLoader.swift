import Diagnostics
import Foundation

/// Loads every `activities/YYYY-MM.json` file, checking names, order and duplicate ids.
package enum ActivityCacheLoader {
    package struct Result: Sendable {
        package var activities: [Activity]
        package var diagnostics: [Diagnostic]
        package var sources: [String: SourceText]
    }

    /// The cache as summaries, for status: the same checks and diagnostics as `load`.
    package struct SummaryResult: Sendable {
        package var summaries: ActivitySummaries
        package var diagnostics: [Diagnostic]
        package var sources: [String: SourceText]
        /// How many month files were answered from the activity index rather than their JSON.
        package var indexed = 0
    }

    /// `only`: just these cache files (names in `activities/`), checked among themselves.
    package static func load(root: String, only: Set<String>? = nil) -> Result {
        let files = read(root: root, ActivityBuilder.self, only: only)
        var result = Result(activities: [], diagnostics: [], sources: [:])
        result.activities.reserveCapacity(files.reduce(0) { $0 + $1.records.count })
        check(files, &result.diagnostics, &result.sources, locating: false) { _, activities in result.activities += activities }
        return result
    }

    /// `index: true` reads month files through the derived index (`ActivityIndex`), making it
    /// as needed: the same answer, from fixed-size records instead of JSON when it is warm.
    /// (`bytesPerActivity`: see `placeSummaries`.)
    package static func loadSummaries(root: String, index: Bool = true, bytesPerActivity: Int = 160) -> SummaryResult {
        let activityIndex = index ? ActivityIndex(root: root) : nil
        var records: [ActivitySummary] = []
        let files = placeSummaries(root: root, index: activityIndex, into: &records, bytesPerActivity: bytesPerActivity)
        var result = SummaryResult(summaries: ActivitySummaries(), diagnostics: [], sources: [:])
        result.indexed = files.reduce(0) { $0 + ($1.fromIndex ? 1 : 0) }
        // Each file numbers its own strings; renumber them into one list of distinct Strings.
        var index: [String: Int32] = [:]
        var strings: [String] = []
        var runs: [ActivitySummaries.Placed] = []
        check(files, records: { files[$0].placed.map { records[$0] } ?? files[$0].records[...] }, &result.diagnostics, &result.sources, locating: false) {
            k, _, duplicates in
            let renumber = files[k].strings.map { s in
                if let known = index[s] { return known }
                strings.append(s)
                index[s] = Int32(strings.count - 1)
                return Int32(strings.count - 1)
            }
            // Every file named after a month is placed (`placeSummaries`); others are not accepted.
            if let placed = files[k].placed { runs.append(ActivitySummaries.Placed(records: placed, duplicates: duplicates, renumber: renumber)) }
        }
        result.summaries = ActivitySummaries(placing: &records, runs: runs, strings: strings)
        return result
    }

    /// Every cache file as summaries, with the records of each file named after a month in one
    /// array, `records`, file after file in name order (`File.placed` says where; `File.records` is empty):
    /// a million activities' records are not held twice, a file's own and the whole cache's, as
    /// gathering them file by file did. Room is reserved first: the index files' headers give how
    /// many records each holds, and a month read from JSON has at most its size over
    /// `bytesPerActivity` (room never touched costs only address space). Month files read from
    /// JSON (no index, or a stale one) are read on all cores, each into an array that a month
    /// read before it had (`MonthPlacer`), and copied into place as soon as every month before it
    /// has its place; then each indexed month is decoded straight into its place, on all cores.
    static func placeSummaries(
        root: String, index: ActivityIndex?, into records: inout [ActivitySummary], bytesPerActivity: Int = 160
    ) -> [File<SummaryBuilder>] {
        guard case .names(let names, let boundary) = listing(root: root) else {
            // A folder that links outside the garage: one diagnosed file, with no records.
            return readSummaries(root: root, index: index).map { file in
                var file = file
                file.placed = 0..<0
                return file
            }
        }
        // Each file named after a month: its key and, when the index holds this version of it,
        // how many records.
        let stats: [(key: ActivityIndex.Key, count: Int?)?] = concurrentMap(names.count) { k in
            guard ActivityCacheFormat.month(ofFileNamed: names[k]) != nil, case .read(let path) = boundary.access("activities/" + names[k]),
                let key = ActivityIndex.key(path)
            else { return nil }
            return (key, index?.count(names[k], key: key))
        }
        let counted = stats.map { $0?.count }
        let named = names.map { ActivityCacheFormat.month(ofFileNamed: $0) != nil }
        let room = names.indices.reduce(0) { room, k in
            guard named[k] else { return room }
            let size = stats[k].map { min(Int($0.key.size), FileSizeLimit.activityMonth) } ?? 0
            return room + (counted[k] ?? size / bytesPerActivity + 1)
        }
        func readOne(_ k: Int, reusing records: consuming [ActivitySummary] = [], buffer: ActivityIndex.EncodeBuffer? = nil) -> File<SummaryBuilder> {
            read(names[k], root: root, boundary: boundary, checksums: index != nil, reusing: records) { name, path, named, read in
                guard let index, named else { return read() }
                return index.file(name, path: path, buffer: buffer, read)
            }
        }

        var files = [File<SummaryBuilder>?](repeating: nil, count: names.count)
        var failed: [Int] = []
        records = [ActivitySummary](unsafeUninitializedCapacity: room) { buffer, initialized in
            let placer = MonthPlacer(buffer, counts: counted, named: named)
            // A month indexed as it is read keeps its records: they are put in place like any
            // month read from JSON, not decoded again from the index file just written (its
            // checksum, checks and mapping were a fifth of a cold run's indexing).
            let unindexed = names.indices.filter { counted[$0] == nil }
            let read = concurrentMap(unindexed.count) { j in
                let k = unindexed[j]
                guard named[k] else { return readOne(k) }
                let (scratch, buffer) = placer.scratch()
                var file = readOne(k, reusing: scratch, buffer: buffer)
                let records = file.records
                file.records = []
                placer.place(k, records, buffer)
                return file
            }
            for (k, file) in zip(unindexed, read) { files[k] = file }
            let placed = placer.finish()
            for k in unindexed where named[k] {
                if let place = placed.places[k] { files[k]?.placed = place } else { files[k]?.records = placed.unplaced[k] ?? [] }
            }
            let keys = names.indices.map { counted[$0] == nil ? nil : stats[$0]?.key }
            let decoded = decode(names, keys: keys, places: placed.places, index: index, into: buffer)
            for k in names.indices where counted[k] != nil {
                if let file = decoded[k] { files[k] = file } else { failed.append(k) }
            }
            // Plain numbers: a place left unwritten by a file that failed leaks nothing, and is
            // not used (below).
            initialized = placed.end
        }
        index?.prune(keeping: Set(names))
        guard !failed.isEmpty || files.contains(where: { $0.map { $0.named && $0.placed == nil } ?? false }) else {
            return files.compactMap { $0 }
        }

        // An index file that failed beyond its header (rare: torn, or altered): that month is
        // read as if there were no index, and every record gathered again around it. So is a
        // month that had no room left (a cache of activities far smaller than `bytesPerActivity`).
        for (k, file) in zip(failed, concurrentMap(failed.count) { readOne(failed[$0]) }) { files[k] = file }
        return gather(files, into: &records)
    }

    /// The files the index holds (those with a key in `keys`) decoded straight into their places
    /// in `buffer`, on all cores; nil for one that fails (or has no place).
    private static func decode(
        _ names: [String], keys: [ActivityIndex.Key?], places: [Range<Int>?], index: ActivityIndex?,
        into buffer: UnsafeMutableBufferPointer<ActivitySummary>
    ) -> [File<SummaryBuilder>?] {
        concurrentMap(names.count) { k in
            guard let index, let key = keys[k], let place = places[k],
                let entry = index.entry(names[k], key: key, into: UnsafeMutableBufferPointer(rebasing: buffer[place]))
            else { return nil }
            var file = File<SummaryBuilder>(name: names[k])
            file.named = true
            file.strings = entry.strings
            file.misplaced = entry.misplaced
            file.unsorted = entry.unsorted
            file.fromIndex = true
            file.placed = place
            return file
        }
    }

    /// The named files' records gathered anew into one array, file after file, each from its
    /// place in `records` or from its own records; `records` becomes that array.
    private static func gather(_ files: [File<SummaryBuilder>?], into records: inout [ActivitySummary]) -> [File<SummaryBuilder>] {
        var files = files
        var gathered: [ActivitySummary] = []
        gathered.reserveCapacity(files.reduce(0) { $0 + ($1.map { $0.named ? ($0.placed?.count ?? $0.records.count) : 0 } ?? 0) })
        for k in files.indices {
            guard var file = files[k], file.named else { continue }
            let start = gathered.count
            if let place = file.placed { gathered += records[place] } else { gathered += file.records }
            file.records = []
            file.placed = start..<gathered.count
            files[k] = file
        }
        records = gathered
        return files.compactMap { $0 }
    }

    /// Every cache file as summaries, each through `index` (when given) where it holds that
    /// version of the file; the index's files of month files that are gone are removed.
    static func readSummaries(root: String, index: ActivityIndex?) -> [File<SummaryBuilder>] {
        let files = read(root: root, SummaryBuilder.self, checksums: index != nil) { name, path, named, read in
            guard let index, named else { return read() }
            return index.file(name, path: path, read)
        }
        index?.prune(keeping: Set(files.map(\.name)))
        return files
    }

    /// One cache file as read.
    struct File<Builder: ActivityRecordBuilder> {
        var name: String
        var records: [Builder.Record] = []
        /// The file's numbered strings (summaries only), copied out of the builder: the builder's
        /// tables point into the file's mapped bytes, which are gone once the file is read.
        var strings: [String] = []
        var diagnostics: [Diagnostic] = []
        /// The file's text when it has diagnostics, to show them (the reader's own, when it made one:
        /// a second copy and line index of a large file cost as much again).
        var source: SourceText?
        /// Whether it is named after a month; its activities are ignored when not.
        var named = false
        var misplaced = 0
        var unsorted = false
        /// Read from the activity index, not the JSON.
        var fromIndex = false
        /// Where its records are among every month's (`placeSummaries`), when not in `records`.
        var placed: Range<Int>?
        /// `ActivityIndex.laneChecksum` of the bytes read, when asked for (`read`'s `checksums`):
        /// what the index records of the file it is made from, taken while the bytes are mapped.
        var checksum: UInt64?
    }

    /// What `activities/` holds: its cache files' names, sorted, or the one diagnosed file that
    /// stands for a folder linking outside the garage.
    enum Listing {
        case names([String], GarageBoundary)
        case outside(File<SummaryBuilder>)
    }

    static func listing(root: String, only: Set<String>? = nil) -> Listing {
        let directory = root + "/activities"
        let boundary = GarageBoundary(root: root)
        // A cache folder that links outside the garage is not listed, let alone read.
        if boundary.access("activities") == .outside {
            var file = File<SummaryBuilder>(name: "")
            file.named = true
            file.diagnostics = [GarageBoundary.outsideDiagnostic("activities")]
            return .outside(file)
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { ActivityCacheFormat.isCacheFile($0) && only?.contains($0) != false }.sorted()
        return .names(names, boundary)
    }

    /// Reads and decodes every cache file, sorted by name. `through` may answer a file another way
    /// (name, path, whether named after a month, and the reading it stands in for). With
    /// `checksums`, each file read has its bytes' checksum.
    static func read<Builder: ActivityRecordBuilder>(
        root: String, _: Builder.Type, only: Set<String>? = nil, checksums: Bool = false,
        through: ((String, String, Bool, () -> File<Builder>) -> File<Builder>)? = nil
    ) -> [File<Builder>] {
        switch listing(root: root, only: only) {
        case .outside(let outside):
            var file = File<Builder>(name: outside.name)
            file.named = outside.named
            file.diagnostics = outside.diagnostics
            return [file]
        case .names(let names, let boundary):
            // Files are independent: decode them on all cores, then merge in name order.
            return concurrentMap(names.count) {
                read(names[$0], root: root, boundary: boundary, checksums: checksums, through: through)
            }
        }
    }

    /// Reads and decodes cache file `name` (see `read(root:_:only:checksums:through:)`).
    /// `reusing`: an emptied array for the records, whose memory is used again.
    static func read<Builder: ActivityRecordBuilder>(
        _ name: String, root: String, boundary: GarageBoundary, checksums: Bool = false, reusing: consuming [Builder.Record] = [],
        through: ((String, String, Bool, () -> File<Builder>) -> File<Builder>)? = nil
    ) -> File<Builder> {
        let relative = "activities/" + name
        var file = File<Builder>(name: name)
        let month = ActivityCacheFormat.month(ofFileNamed: name)
        file.named = month != nil
        guard case .read(let path) = boundary.access(relative) else {
            file.diagnostics = [GarageBoundary.outsideDiagnostic(relative)]
            return file
        }
        // Held once, so that the reader appends to it without copying it first.
        var reused: [Builder.Record]? = reusing
        let readJSON = { [file] in
            var file = file
            file.records = reused.take() ?? []
            if let size = size(of: path, over: FileSizeLimit.activityMonth) {
                file.diagnostics = [
                    FileSizeLimit.tooLarge(relative, size: size, limit: FileSizeLimit.activityMonth, kind: "a month of the activity cache")
                ]
                return file
            }
            let read: Void? = withFileBytes(path) { buffer in
                var reader = ActivityCacheReader<Builder>(buffer, path: relative, month: month)
                file.diagnostics = reader.readFile(into: &file.records)
                file.strings = reader.builder.strings
                file.misplaced = reader.misplaced
                file.unsorted = reader.unsorted
                if !file.diagnostics.isEmpty { file.source = reader.source ?? SourceText(path: relative, bytes: Array(buffer)) }
                if checksums { file.checksum = ActivityIndex.laneChecksum(UnsafeRawBufferPointer(buffer)) }
            }
            if read == nil {
                file.diagnostics = [.error(.unreadableFile, "cannot read the file", at: SourceLocation(file: relative))]
            }
            return file
        }
        return through.map { $0(name, path, file.named, readJSON) } ?? readJSON()
    }

    /// Calls `body` with a file's bytes, or returns nil when it cannot be read. A regular file is
    /// mapped rather than read: the cache is tens of megabytes, and copying it into fresh memory
    /// cost more system time than decoding it. (bikecheck replaces cache files by renaming, so a
    /// mapped file is never truncated under the reader.)
    static func withFileBytes<R>(_ path: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        var info = stat()
        let size = fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? Int(info.st_size) : 0
        // Never more than a month file may be: the caller reports a larger one.
        guard size <= FileSizeLimit.activityMonth else {
            close(fd)
            return nil
        }
        #if os(Linux)
            let flags = MAP_PRIVATE | MAP_POPULATE  // the pages are in the page cache: map them all at once
        #else
            let flags = MAP_PRIVATE
        #endif
        let mapped = size > 0 ? mmap(nil, size, PROT_READ, flags, fd, 0) : nil
        close(fd)
        guard let mapped, mapped != MAP_FAILED else {
            return readBytes(path, limit: FileSizeLimit.activityMonth)?.withUnsafeBufferPointer(body)
        }
        defer { munmap(mapped, size) }
        return body(UnsafeBufferPointer(start: mapped.assumingMemoryBound(to: UInt8.self), count: size))
    }

    /// The size of a regular file larger than `limit`, else nil.
    static func size(of path: String, over limit: Int) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > limit else { return nil }
        return Int(info.st_size)
    }
}
