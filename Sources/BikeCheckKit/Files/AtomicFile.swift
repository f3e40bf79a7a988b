import Foundation

/// Writes files the safe way: a temporary file in the same folder, flushed to disk, then
/// renamed over the target, so a reader sees the old bytes or the new ones and never half.
package enum AtomicFile {
    package struct Failure: Error, CustomStringConvertible {
        package var path: String
        package var reason: String
        package var description: String { "cannot write '\(path)': \(reason)" }

        package init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    /// Writes `bytes` to `path` unless it already holds exactly them; returns whether it wrote.
    /// With a `mode`, the temporary file has it from creation (so a secret is never readable by
    /// others, not even briefly); without one, the replaced file's permissions are kept.
    /// `syncDirectory: false` leaves the folder's fsync to the caller (`syncDirectory(_:)`), for batches.
    /// `durable: false` skips every fsync, for derived files that are checked when read and can
    /// be made again (the activity index): still all or nothing, not necessarily on disk.
    @discardableResult
    package static func write(
        _ bytes: [UInt8], to path: String, mode: mode_t? = nil, syncDirectory: Bool = true,
        durable: Bool = true
    ) throws(Failure) -> Bool {
        // `withUnsafeBytes` rethrows untyped errors: the typed one is carried out as a result.
        let result = bytes.withUnsafeBytes { bytes in
            Result { () throws(Failure) in try write(bytes, to: path, mode: mode, syncDirectory: syncDirectory, durable: durable) }
        }
        return try result.get()
    }

    /// `write` of bytes held elsewhere (a buffer a caller reuses from file to file).
    @discardableResult
    package static func write(
        _ bytes: UnsafeRawBufferPointer, to path: String, mode: mode_t? = nil, syncDirectory: Bool = true,
        durable: Bool = true
    ) throws(Failure) -> Bool {
        var info = stat()
        let exists = stat(path, &info) == 0
        // Compared only at the same size: a huge (or sparse) file in the way is never read.
        if exists, info.st_size == bytes.count, mode == nil || info.st_mode & 0o777 == mode! & 0o777,
            let current = readBytes(path, limit: bytes.count), current.elementsEqual(bytes)
        {
            return false
        }
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw Failure(path: path, reason: "cannot create its folder")
        }
        var template = Array((directory + "/." + url.lastPathComponent + ".bikecheck-XXXXXX").utf8) + [0]
        let fd = template.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { mkstemp($0.baseAddress!) }
        }
        guard fd >= 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
        let temporary = String(decoding: template.dropLast(), as: UTF8.self)
        var ok = false
        defer {
            if !ok { unlink(temporary) }
        }
        // mkstemp creates 0600; keep the permissions of the file being replaced, new files get 0644.
        fchmod(fd, mode ?? (exists ? info.st_mode & 0o7777 : 0o644))
        var written = 0
        var failed = false
        while written < bytes.count {
            let n = Foundation.write(fd, bytes.baseAddress! + written, bytes.count - written)
            if n <= 0 {
                failed = true
                break
            }
            written += n
        }
        if failed || (durable && fsync(fd) != 0) {
            close(fd)
            throw Failure(path: path, reason: String(cString: strerror(errno)))
        }
        close(fd)
        guard rename(temporary, path) == 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
        ok = true
        if syncDirectory && durable { Self.syncDirectory(directory) }
        return true
    }

    /// True for the name of a temporary file `write` makes (`.NAME.bikecheck-XXXXXX`), which a
    /// process killed before its rename leaves behind.
    package static func isTemporaryName(_ name: String) -> Bool {
        let marker = ".bikecheck-"
        guard name.hasPrefix("."), let range = name.range(of: marker, options: .backwards),
            range.lowerBound > name.index(after: name.startIndex)
        else { return false }
        let tail = name[range.upperBound...]
        return tail.count == 6 && tail.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }

    /// The `.gitignore` pattern for those temporary files.
    package static let temporaryPattern = ".*.bikecheck-??????"

    /// Makes renames in `directory` durable.
    package static func syncDirectory(_ directory: String) {
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }

    /// Creates `path` and its parents if missing, with `mode` for the folders it creates.
    package static func makeDirectory(_ path: String, mode: Int = 0o755) throws {
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true,
            attributes: [.posixPermissions: mode])
    }
}
