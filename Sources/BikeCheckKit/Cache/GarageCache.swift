import Diagnostics
import Foundation

/// A derived cache of the garage's parsed files, in `.bikecheck/garage-cache/` (local state, never
/// in git): for each YAML file (garage.yaml, rides.yaml, and those of bikes/, parts/ and
/// templates/), what decoding it gave (the model value, or none) and its own diagnostics, in the
/// binary form of `CacheCodable`. A warm `status` reads these instead of parsing YAML; the checks
/// across files (`Resolver`, `Checks`) run on every load as before.
///
/// Built on the principles of the activity index (`ActivityIndex`): the YAML stays the source of
/// truth, and an entry is used only when it names the same file, the file's size, modification
/// and change times (ns), inode and device are what they were when it was made, it was made in
/// this garage (the folder's device and inode), by this bikecheck (`bikecheckVersion` and
/// `formatVersion`), for the same garage currency (bikes and parts are decoded with it), and its
/// magic, lengths, checksum and every value check. Anything else — stale, corrupt, truncated,
/// foreign, another version's — means the file is parsed again and its entry written anew,
/// except that an entry whose file has the same size and modification time but another change
/// time, inode or device, or that was made in another garage folder (a `chmod`, a hard-linked
/// copy, a backup put back), is used when the file's bytes still match its source stamp, and
/// stored again under the new key (`sameContent`); otherwise it is parsed again and written anew,
/// atomically and without a lock (two runs that race write the same bytes). A file changed too
/// recently to be sure of its times (`ActivityIndex.Key.isSettling`) is parsed and not cached.
///
/// The source text is not kept: an entry holds the checksum of the bytes it was made from, and a
/// file is read again only when some diagnostic must show an excerpt of it (`SourceLoad`).
struct GarageCache: Sendable {
    static let folder = "garage-cache"
    static let magic: [UInt8] = Array("BCGCACH\n".utf8)
    /// The layout of the entries and of `CacheCodable`: raise it whenever either changes (a
    /// property added to the model included), so entries of the old layout are never read.
    /// 2: bikes' `devices`; a range's end relative to its start. 3: parts' `devices`. 4: a
    /// diagnostic's `fix`; bikes' and parts' `rider`; a component's located `installed:`. 5: the
    /// merge of those (branches had each raised 3 to 4). 6: intervals' `repeat`. 7: parts on parts
    /// (`partMounts`, a mount's `entry`). 8: gear (a bike's `kind`); measured wear (`wear_limit`,
    /// `readings`); a mount's `tag` and `unless_tag`. 9: the merge of those. 10: a location's
    /// start relative to the location before it (`CacheWriter.location`).
    static let formatVersion: UInt32 = 10
    static let suffix = ".cache"

    /// The cache folder, or nil when the cache is not to be used (`.bikecheck` links outside, or
    /// the garage folder cannot be identified).
    let directory: String?
    /// The garage folder's device and inode: an entry made in another garage is foreign.
    let garage: [UInt64]
    private let root: String

    init(root: String) {
        self.root = root
        let boundary = GarageBoundary(root: root)
        var info = stat()
        if stat(root, &info) != 0 || boundary.access(".bikecheck") == .outside || boundary.access(".bikecheck/" + Self.folder) == .outside {
            directory = nil
            garage = []
        } else {
            directory = LocalState.directory(garage: root) + "/" + Self.folder
            garage = [UInt64(info.st_dev), UInt64(info.st_ino)]
        }
    }

    /// One file's entry: what decoding it gave, and which bytes it was made from.
    struct Entry<T: Sendable> {
        var file: GarageLoader.DecodedFile<T>
        var source: SourceStamp
    }

    /// Identifies the bytes an entry was made from, so the text shown under a diagnostic is
    /// exactly the text that was parsed.
    struct SourceStamp: Sendable, Equatable {
        var size: Int
        var checksum: UInt64

        init(_ bytes: [UInt8]) {
            size = bytes.count
            checksum = ActivityIndex.checksum(bytes)
        }

        init(size: Int, checksum: UInt64) {
            self.size = size
            self.checksum = checksum
        }
    }

    /// The entry file of a garage file: `bikes/grail.yaml` → `bikes+grail.yaml.cache` (ids never
    /// hold a `+`), all in one folder.
    func path(_ relative: String) -> String? {
        directory.map { $0 + "/" + Self.swapping(relative, "/", "+") + Self.suffix }
    }

    /// The entry for `relative` in its version `key`, decoded in `context` (the garage currency,
    /// for bikes and parts), or nil when there is none that can be trusted.
    func entry<T: CacheCodable>(_ relative: String, key: ActivityIndex.Key, context: String?) -> Entry<T>? {
        guard let path = path(relative), let bytes = readBytes(path, limit: FileSizeLimit.activityIndex) else { return nil }
        return Self.decode(bytes, relative: relative, context: context, key: key, garage: garage)
    }

    /// The entry for `relative` made from bytes with stamp `source` (whatever version of the file
    /// on disk it was made from), decoded in `context`: what decoding those bytes gives, wherever
    /// they come from (a commit's file that is the same as the work tree's: `--rev HEAD`).
    func entry<T: CacheCodable>(_ relative: String, madeFrom source: SourceStamp, context: String?) -> Entry<T>? {
        guard let path = path(relative), let bytes = readBytes(path, limit: FileSizeLimit.activityIndex),
            let entry: Entry<T> = Self.decode(bytes, relative: relative, context: context, key: nil, garage: garage), entry.source == source
        else { return nil }
        return entry
    }

    /// The entry for `relative` when the file at `file` has the size and modification time it was
    /// made from but another change time, inode or device (or the entry was made in another
    /// garage folder), and its bytes still match the entry's source stamp; stored again under
    /// `key` when the file is settled, so the next run need not read it.
    func sameContent<T: CacheCodable>(_ relative: String, file: String, key: ActivityIndex.Key, context: String?) -> Entry<T>? {
        guard let path = path(relative), let bytes = readBytes(path, limit: FileSizeLimit.activityIndex),
            let entry: Entry<T> = Self.decode(bytes, relative: relative, context: context, key: key, garage: garage, match: .sizeAndModified),
            let source = readBytes(file, limit: FileSizeLimit.garageFile), SourceStamp(source) == entry.source, ActivityIndex.key(file) == key
        else { return nil }
        if !key.isSettling { store(entry.file, relative: relative, key: key, context: context, source: source) }
        return entry
    }

    /// Saves what decoding `source` (the file's bytes, in version `key`) gave; a failure only
    /// means no cache.
    func store<T: CacheCodable>(_ file: GarageLoader.DecodedFile<T>, relative: String, key: ActivityIndex.Key, context: String?, source: [UInt8]) {
        guard let path = path(relative), let directory,
            let bytes = Self.encode(file, relative: relative, context: context, key: key, garage: garage, source: SourceStamp(source)),
            (try? LocalState.prepare(garage: root)) != nil, (try? AtomicFile.makeDirectory(directory)) != nil
        else { return }
        // Derived and checked when read: no fsync (a torn file fails its checksum).
        _ = try? AtomicFile.write(bytes, to: path, durable: false)
    }

    /// Removes the entries of files that are gone (`present`: the garage files there are).
    func prune(keeping present: Set<String>) {
        guard let directory, let dir = opendir(directory) else { return }
        var gone: [String] = []
        while let item = readdir(dir) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard name.hasSuffix(Self.suffix), !name.hasPrefix(".") else { continue }
            let relative = Self.swapping(String(name.dropLast(Self.suffix.count)), "+", "/")
            if !present.contains(relative) { gone.append(name) }
        }
        closedir(dir)
        for name in gone { unlink(directory + "/" + name) }
    }

    /// `text` with every `from` made `to` (ASCII), without Foundation's cost on every file.
    static func swapping(_ text: String, _ from: Unicode.Scalar, _ to: Unicode.Scalar) -> String {
        String(decoding: text.utf8.map { $0 == UInt8(from.value) ? UInt8(to.value) : $0 }, as: UTF8.self)
    }

    // MARK: - Format

    /// magic, format version (u32), then in `CacheWriter`'s form: bikecheck's version, the file,
    /// the context, the garage, the file's key, the source stamp, the value and the diagnostics;
    /// then a checksum of everything before it (u64). Little-endian. Nil when some value cannot
    /// be written to read back the same (then the file is simply parsed every time).
    static func encode<T: CacheCodable>(
        _ file: GarageLoader.DecodedFile<T>, relative: String, context: String?, key: ActivityIndex.Key, garage: [UInt64],
        source: SourceStamp, version: String = bikecheckVersion
    ) -> [UInt8]? {
        var w = CacheWriter()
        w.string(version)
        w.string(relative)
        w.write(context)
        for word in garage + key.words { w.uint(word) }
        w.uint(UInt64(source.size))
        w.fixed(source.checksum)
        w.write(file.value)
        w.write(file.diagnostics)
        guard !w.refused else { return nil }
        var out = magic
        out.reserveCapacity(magic.count + 4 + w.bytes.count + 8)
        withUnsafeBytes(of: formatVersion.littleEndian) { out += $0 }
        out += w.bytes
        let sum = ActivityIndex.checksum(out)
        withUnsafeBytes(of: sum.littleEndian) { out += $0 }
        return out
    }

    /// The entry in `bytes` if everything checks: nil for any other file. `key` nil: made from
    /// any version of the file (the caller compares the source stamp).
    static func decode<T: CacheCodable>(
        _ bytes: [UInt8], relative: String, context: String?, key: ActivityIndex.Key?, garage: [UInt64],
        match: ActivityIndex.Match = .exact
    ) -> Entry<T>? {
        bytes.withUnsafeBytes { raw -> Entry<T>? in
            let head = magic.count + 4
            guard raw.count >= head + 8, raw.prefix(magic.count).elementsEqual(magic),
                UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: magic.count, as: UInt32.self)) == formatVersion,
                checksum(raw) == UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: raw.count - 8, as: UInt64.self))
            else { return nil }
            var r = CacheReader(UnsafeRawBufferPointer(rebasing: raw[0..<(raw.count - 8)]), at: head)
            do {
                guard try r.string() == bikecheckVersion, try r.string() == relative, try String?(from: &r) == context else { return nil }
                // The garage folder's two words, then the key's: size and modification time first.
                // No key: made from any version of the file (the caller compares the source stamp).
                let expected: [UInt64?] =
                    garage.map(Optional.some) + (key.map { $0.words.map(Optional.some) } ?? Array(repeating: nil, count: ActivityIndex.Key.wordCount))
                for (index, word) in expected.enumerated() {
                    let read = try r.uint()
                    guard let word else { continue }
                    guard match == .exact ? read == word : !(2..<5).contains(index) || read == word else { return nil }
                }
                let size = try r.uint()
                let source = SourceStamp(size: Int(truncatingIfNeeded: size), checksum: try r.fixed())
                guard key == nil || size == UInt64(bitPattern: key?.size ?? 0) else { return nil }
                let file = GarageLoader.DecodedFile<T>(value: try T?(from: &r), diagnostics: try r.read())
                guard r.isAtEnd else { return nil }
                return Entry(file: file, source: source)
            } catch {
                return nil
            }
        }
    }

    /// The checksum of all but the last eight bytes.
    private static func checksum(_ raw: UnsafeRawBufferPointer) -> UInt64 {
        ActivityIndex.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<(raw.count - 8)]))
    }
}
