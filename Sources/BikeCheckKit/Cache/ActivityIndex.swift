import Foundation

/// A derived index of the activity cache: for each month file, its `ActivitySummary` records and
/// strings in fixed-size binary form, in `.bikecheck/activity-index/` (local state, never in git).
/// A warm `status` or `validate` reads these instead of parsing JSON.
///
/// The JSON files stay the source of truth. An index file is used only when it names the same
/// month file and the file's size, modification and change times (ns), inode and device are
/// what they were when the index was made; its magic, version, lengths, checksum and every
/// record are checked too. When only the change time, inode or device differ (a `chmod`, a
/// hard-linked copy, a backup put back) and the size and modification time are the same, it is
/// used when the file's bytes still have the checksum of those it was made from, and stored
/// again under the file's new key. Anything else (stale, corrupt, truncated, foreign) is read
/// from the JSON as if there were no index, and the index is rebuilt. Only month files the reader found
/// no problem in are indexed, so the diagnostics of a file are always the reader's own.
/// Writes of the cache (sync, import) do not touch the index: they replace files, which changes
/// the inode and times.
struct ActivityIndex: Sendable {
    static let folder = "activity-index"
    static let magic: [UInt8] = Array("BCAIDX\r\n".utf8)
    /// 2: records carry the elevation gain (48 bytes); indexes of version 1 are rebuilt. 3: the
    /// checksum of the month file's bytes. 4: records carry the ride name's hashtags (56 bytes).
    /// 5: both checksums are `laneChecksum`. 6: `laneChecksum` in eight lanes, two to a vector.
    static let version: UInt32 = 6
    static let recordSize = 56
    /// magic, version, record size, key (7 × 8), the month file's checksum, name length,
    /// counts, string bytes.
    static let headerSize = 8 + 4 + 4 + 56 + 8 + 6 * 4
    /// A file changed this recently (seconds) may change again within the same timestamp tick
    /// without its times changing: it is read from JSON and not indexed until it has settled.
    static let settleTime = 0.05
    /// On a filesystem with whole-second (FAT: two-second) timestamps, an in-place edit of the
    /// same size later in the tick a file was indexed in changes none of its key: such a file,
    /// known by times without nanoseconds, settles only when its tick is surely over.
    static let coarseSettleTime = 2 + settleTime

    /// The index folder, or nil when the index is not to be used (`.bikecheck` links outside).
    let directory: String?
    private let root: String

    init(root: String) {
        self.root = root
        let boundary = GarageBoundary(root: root)
        if boundary.access(".bikecheck") == .outside || boundary.access(".bikecheck/" + Self.folder) == .outside {
            directory = nil
        } else {
            directory = LocalState.directory(garage: root) + "/" + Self.folder
        }
    }

    /// What identifies one version of a cache file.
    struct Key: Equatable {
        var size: Int64
        var modified: (Int64, Int64)
        var changed: (Int64, Int64)
        var inode: UInt64
        var device: UInt64

        static func == (a: Key, b: Key) -> Bool {
            a.size == b.size && a.modified == b.modified && a.changed == b.changed && a.inode == b.inode && a.device == b.device
        }

        /// How many `words` a key is.
        static let wordCount = 7

        var words: [UInt64] {
            [
                UInt64(bitPattern: size), UInt64(bitPattern: modified.0), UInt64(bitPattern: modified.1),
                UInt64(bitPattern: changed.0), UInt64(bitPattern: changed.1), inode, device,
            ]
        }

        /// Whether the file changed too recently to be indexed (see `settleTime`).
        var isSettling: Bool {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let age = Double(Int64(now.tv_sec) - changed.0) + Double(Int64(now.tv_nsec) - changed.1) / 1e9
            let modifiedAge = Double(Int64(now.tv_sec) - modified.0) + Double(Int64(now.tv_nsec) - modified.1) / 1e9
            func settle(_ time: (Int64, Int64)) -> Double { time.1 == 0 ? ActivityIndex.coarseSettleTime : ActivityIndex.settleTime }
            return age < settle(changed) || modifiedAge < settle(modified)
        }
    }

    /// The key of a regular file (or of a folder, `kind: S_IFDIR`), or nil.
    static func key(_ path: String, kind: mode_t = S_IFREG) -> Key? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == kind else { return nil }
        #if os(Linux)
            let m = info.st_mtim, c = info.st_ctim
        #else
            let m = info.st_mtimespec, c = info.st_ctimespec
        #endif
        return Key(
            size: Int64(info.st_size), modified: (Int64(m.tv_sec), Int64(m.tv_nsec)), changed: (Int64(c.tv_sec), Int64(c.tv_nsec)),
            inode: UInt64(info.st_ino), device: UInt64(info.st_dev))
    }

    /// What the index holds of one month file.
    struct Entry: Equatable {
        var records: [ActivitySummary]
        var strings: [String]
        var misplaced: Int
        var unsorted: Bool
        /// The checksum (`laneChecksum`) of the month file's bytes it was made from.
        var source: UInt64 = 0
    }

    /// How an index file's key must match the month file's.
    enum Match {
        /// Every word of the key.
        case exact
        /// The size and modification time only: the entry is then used only once the file's
        /// bytes are found to be the ones it was made from (`Entry.source`).
        case sizeAndModified
    }

    /// Cache file `name` at `path` (named after a month): from the index when it holds this
    /// version of it, else `read` from the JSON, indexing the result when the file had no problem
    /// and did not change while it was read.
    /// `buffer` is the calling thread's memory to encode an index file into, when it has one.
    func file(
        _ name: String, path: String, buffer: EncodeBuffer? = nil, _ read: () -> ActivityCacheLoader.File<SummaryBuilder>
    ) -> ActivityCacheLoader.File<SummaryBuilder> {
        guard directory != nil, let key = Self.key(path) else { return read() }
        if let entry = entry(name, key: key) ?? sameContent(name, path: path, key: key) {
            var file = ActivityCacheLoader.File<SummaryBuilder>(name: name)
            file.named = true
            file.records = entry.records
            file.strings = entry.strings
            file.misplaced = entry.misplaced
            file.unsorted = entry.unsorted
            file.fromIndex = true
            return file
        }
        var file = read()
        // The checksum of the bytes read (taken as they were read), unchanged since: same key.
        if file.diagnostics.isEmpty, !key.isSettling, let checksum = file.checksum, Self.key(path) == key {
            store(
                Entry(records: file.records, strings: file.strings, misplaced: file.misplaced, unsorted: file.unsorted, source: checksum),
                name: name, key: key, buffer: buffer)
        }
        return file
    }

    /// The entry of a month file whose size and modification time are those the entry was made
    /// from but whose change time, inode or device are not, when its bytes are still the same;
    /// stored again under `key` when the file is settled, so the next run need not read it.
    func sameContent(_ name: String, path: String, key: Key) -> Entry? {
        guard let indexPath = self.path(name), let indexBytes = readBytes(indexPath, limit: FileSizeLimit.activityIndex),
            let entry = Self.decode(indexBytes, name: name, key: key, match: .sizeAndModified),
            let bytes = readBytes(path, limit: FileSizeLimit.activityMonth), bytes.count == key.size,
            bytes.withUnsafeBytes(Self.laneChecksum) == entry.source,
            Self.key(path) == key
        else { return nil }
        if !key.isSettling { store(entry, name: name, key: key) }
        return entry
    }

    /// Removes the index files of month files that are gone (`names`: the cache files there are).
    func prune(keeping names: Set<String>) {
        guard let directory, let present = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for file in present where file.hasSuffix(".idx") && !file.hasPrefix(".") && !names.contains(String(file.dropLast(4))) {
            unlink(directory + "/" + file)
        }
    }

    func path(_ name: String) -> String? { directory.map { $0 + "/" + name + ".idx" } }

    /// The entry for cache file `name` in the version `key` with its records written into
    /// `buffer` (as many as `count` said there are) instead of an array of their own, or nil when
    /// there is none that can be trusted.
    func entry(_ name: String, key: Key, into buffer: UnsafeMutableBufferPointer<ActivitySummary>) -> Entry? {
        guard let path = path(name) else { return nil }
        // Mapped, not copied into an array: a warm read decodes the whole index (56 MB at 1,000,000).
        return ActivityCacheLoader.withFileBytes(path) { bytes in
            Self.decode(UnsafeRawBufferPointer(bytes), name: name, key: key) { count, write in count == buffer.count && write(buffer) }
        } ?? nil
    }

    /// The entry for cache file `name` in the version `key`, or nil when there is none that can
    /// be trusted.
    func entry(_ name: String, key: Key) -> Entry? {
        guard let path = path(name), let bytes = readBytes(path, limit: FileSizeLimit.activityIndex) else { return nil }
        return Self.decode(bytes, name: name, key: key)
    }

    /// Saves the entry for `name` made from the version `key`; a failure only means no index.
    @discardableResult
    func store(_ entry: Entry, name: String, key: Key, buffer: EncodeBuffer? = nil) -> Bool {
        // Making the folders again for each file costs a few system calls, and both steps are
        // safe to race: no state shared between the threads that index files at once.
        guard let path = path(name), let directory, (try? LocalState.prepare(garage: root)) != nil,
            (try? AtomicFile.makeDirectory(directory)) != nil
        else { return false }
        // The index can always be rebuilt: no fsync (a torn file fails its checksum).
        let buffer = buffer ?? EncodeBuffer()
        return withExtendedLifetime(buffer) {
            (try? AtomicFile.write(Self.encode(entry, name: name, key: key, into: buffer), to: path, durable: false)) != nil
        }
    }
}
