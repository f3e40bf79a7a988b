import Foundation

/// The YAML files a write's first load parsed, kept for the re-check after it writes: a file
/// whose bytes are still exactly the same gives exactly the same parse, so the re-check parses
/// only the files the write touched (and any someone else changed meanwhile) and reuses the
/// rest; the checks across files run again on everything. Used only by loads that ask for it
/// (`GarageLoader.Options.reusesParsedFiles`: the write path), and emptied for a garage once its
/// write has been checked.
final class ParsedFileMemo: @unchecked Sendable {
    static let shared = ParsedFileMemo()

    private let lock = NSLock()
    private var entries: [String: (bytes: [UInt8], file: Any)] = [:]
    /// How many times each path was parsed through the memo (for tests).
    private var parseCounts: [String: Int] = [:]

    /// The decoded file at `path` (absolute) for these bytes: the kept one when the bytes are the
    /// same, else `parse()`, kept for next time.
    func file<T>(_ path: String, bytes: [UInt8], parse: () -> GarageLoader.DecodedFile<T>) -> GarageLoader.DecodedFile<T> {
        lock.lock()
        let kept = entries[path]
        lock.unlock()
        if let kept, kept.bytes == bytes, let file = kept.file as? GarageLoader.DecodedFile<T> { return file }
        let file = parse()
        lock.lock()
        entries[path] = (bytes, file)
        parseCounts[path, default: 0] += 1
        lock.unlock()
        return file
    }

    /// Drops what was kept for the garage at `root`.
    func forget(root: String) {
        lock.lock()
        defer { lock.unlock() }
        let prefix = root + "/"
        for key in entries.keys where key.hasPrefix(prefix) { entries[key] = nil }
    }

    func parses(_ path: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return parseCounts[path] ?? 0
    }
}
