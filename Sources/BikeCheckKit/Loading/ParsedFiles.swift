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
    /// garage cache has only the key; a text not from a file has only the bytes.
    struct Kept<T: Sendable>: Sendable {
        var bytes: [UInt8]?
        var key: ActivityIndex.Key?
        var file: GarageLoader.DecodedFile<T>
        /// The load that decoded it (`ParsedFiles.generation`; 0: this one, not noted yet).
        var generation = 0
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
    var prunedWith: Set<String>?
    /// What resolving and checking found in each bike's and part's file (`CheckedFiles`).
    var checked: CheckedFiles?

    /// Whether the file `relative` is the one the load before this one decoded: the same
    /// value, kept from it (not decoded again, nor taken from the garage cache).
    func unchanged<T>(_ kind: KeyPath<ParsedFiles, [String: Kept<T>]>, _ relative: String) -> Bool {
        (self[keyPath: kind][relative]?.generation).map { $0 < generation } ?? false
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
