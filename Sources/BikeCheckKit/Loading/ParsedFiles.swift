import Foundation

/// The YAML files one load decoded, each kept with what identifies the file it was decoded from:
/// the per-file memo in memory, whose persistent form is the garage cache (`GarageCache`). A write
/// carries it as a value from the load it plans from (`WriteContext`, through
/// `GarageChange.parsedFiles`) to the re-check after it writes
/// (`GarageLoader.load(at:options:reusing:)`): a file whose bytes are exactly the same gives
/// exactly the same parse, so the re-check parses only the files the write touched (and any
/// someone else changed meanwhile) and reuses the rest; the checks across files run again on
/// everything. A text held in memory (an editor's buffer) is kept by its bytes just the same.
package struct ParsedFiles: Sendable {
    /// One decoded file and what it was decoded from: its bytes, and its size, times and inode
    /// when it was settled (as the garage cache keys its entries). An entry that came from the
    /// garage cache has only the key; a text not from a file has only the bytes. Shared, not
    /// copied, from one load to the next: a re-check looks at every file and takes most as
    /// they were, and a copy of a decoded bike or part (every string and array in it retained,
    /// then released) costs more than looking.
    final class Kept<T: Sendable>: Sendable {
        let bytes: [UInt8]?
        let key: ActivityIndex.Key?
        let file: GarageLoader.DecodedFile<T>
        /// The load that decoded it (`ParsedFiles.generation`).
        let generation: Int

        init(bytes: [UInt8]?, key: ActivityIndex.Key?, file: GarageLoader.DecodedFile<T>, generation: Int) {
            self.bytes = bytes
            self.key = key
            self.file = file
            self.generation = generation
        }
    }

    var settings: [String: Kept<GarageSettings>] = [:]
    var templates: [String: Kept<Template>] = [:]
    var bikes: [String: Kept<Bike>] = [:]
    var parts: [String: Kept<Part>] = [:]
    var rides: [String: Kept<[Ride]>] = [:]
    /// The currency bikes and parts were decoded with (from garage.yaml): when it differs, their
    /// files are parsed again even with the same bytes.
    var currency: String?
    /// The files the load that made this parsed rather than reused, relative to the garage.
    package internal(set) var parsed: Set<String> = []
    /// Which load of a chain of loads, each reusing the one before, made this: 1 for the first.
    var generation = 1
    /// The garage's files when the load that made this pruned the garage cache (nil: it did not).
    var prunedWith: [[String]]?
    /// What resolving and checking found in each bike's and part's file (`CheckedFiles`).
    var checked: CheckedFiles?
    /// The YAML files of each folder as the load listed them (`GarageLoader.Files.listed`).
    var listings: [String: Listing] = [:]

    /// A folder's YAML files, and the folder's size, times and inode when it was settled: adding,
    /// removing or renaming a file changes a folder's modification time, so while the key is the
    /// same the names are, and the next load need not list the folder again.
    struct Listing: Sendable {
        var key: ActivityIndex.Key?
        var names: [String]
        /// The names' paths relative to the garage (`folder/name`), made once: a location's file
        /// name is then the same string from one load to the next, and bikes compare faster.
        var relatives: [String]
        /// The paths to read them at (the garage's, a slash and `relatives`).
        var paths: [String]
        /// Each file's id (its name without `.yaml` or `.yml`), nil when that is no id.
        var ids: [String?]
        /// For each file whose id a file before it has too (grail.yml after grail.yaml), that
        /// file's index.
        var earlierWithID: [Int?]

        init(root: String, folder: String, names: [String], key: ActivityIndex.Key?) {
            self.key = key
            self.names = names
            let prefix = folder + "/"
            let relatives = names.map { prefix + $0 }
            let ids = names.map { name in
                let id = GarageLoader.stem(name)
                return isIdentifier(id) ? id : nil
            }
            var first: [String: Int] = [:]
            var earlier: [Int?] = []
            for (k, id) in ids.enumerated() {
                guard let id else {
                    earlier.append(nil)
                    continue
                }
                earlier.append(first[id])
                if first[id] == nil { first[id] = k }
            }
            self.relatives = relatives
            paths = relatives.map { root + "/" + $0 }
            self.ids = ids
            earlierWithID = earlier
        }

        /// The key of a folder (`ActivityIndex.key`'s of a file), or nil.
        static func key(ofFolder path: String) -> ActivityIndex.Key? { ActivityIndex.key(path, kind: S_IFDIR) }
    }

    /// Whether the file `relative` is the one the load before this one decoded: the same
    /// value, kept from it (not decoded again, nor taken from the garage cache).
    /// `kept`: this memo's files of the kind (`bikes`, …).
    func unchanged<T>(_ kept: [String: Kept<T>], _ relative: String) -> Bool {
        (kept[relative]?.generation).map { $0 < generation } ?? false
    }

    package init() {}

    /// The same memo without the files at these paths: a write forgets the files it changes, whose
    /// old parses could never be reused, so they are not held in memory beside their new ones.
    func forgetting(_ paths: some Sequence<String>) -> ParsedFiles {
        var copy = self
        for path in paths {
            copy.settings[path] = nil
            copy.templates[path] = nil
            copy.bikes[path] = nil
            copy.parts[path] = nil
            copy.rides[path] = nil
        }
        return copy
    }
}
