import Foundation

/// Writes files the safe way: a temporary file in the same folder, flushed to disk, then
/// renamed over the target, so a reader sees the old bytes or the new ones and never half.
public enum AtomicFile {
    public struct Failure: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "cannot write '\(path)': \(reason)" }
    }

    /// Writes `bytes` to `path` unless it already holds exactly them; returns whether it wrote.
    @discardableResult
    public static func write(_ bytes: [UInt8], to path: String) throws(Failure) -> Bool {
        if let current = FileManager.default.contents(atPath: path), [UInt8](current) == bytes { return false }
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
        // Keep the permissions of the file being replaced; new files get the usual 0644.
        var info = stat()
        let mode: mode_t = stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0o644
        fchmod(fd, mode)
        var written = 0
        let failed: Bool = bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let n = Foundation.write(fd, buffer.baseAddress! + written, buffer.count - written)
                if n <= 0 { return true }
                written += n
            }
            return false
        }
        if failed || fsync(fd) != 0 {
            close(fd)
            throw Failure(path: path, reason: String(cString: strerror(errno)))
        }
        close(fd)
        guard rename(temporary, path) == 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
        ok = true
        // Make the rename itself durable.
        let dirfd = open(directory, O_RDONLY)
        if dirfd >= 0 {
            fsync(dirfd)
            close(dirfd)
        }
        return true
    }
}
