import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Atomic file writes: a temp file in the same folder, fsync, rename; skipped when the bytes
/// would not change, so an idle sync leaves `git status` clean.
public enum AtomicWrite {
    /// Writes `bytes` to `path` unless the file already holds exactly them; returns whether it wrote.
    /// The temp file is created with `mode`, so secrets are never readable by others, not even briefly.
    @discardableResult
    /// `syncDirectory: false` leaves the folder's fsync to the caller (`syncDirectory(_:)`), for batches.
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644, syncDirectory: Bool = true) throws -> Bool {
        if let current = FileManager.default.contents(atPath: path), current.elementsEqual(bytes) {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            let currentMode = (attributes?[.posixPermissions] as? NSNumber)?.uint16Value
            if currentMode == nil || mode_t(currentMode!) & 0o777 == mode & 0o777 { return false }
        }
        let directory = (path as NSString).deletingLastPathComponent
        let temp = directory + "/." + (path as NSString).lastPathComponent + ".\(getpid()).tmp"
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw AtomicWriteError(path: path, reason: String(cString: strerror(errno))) }
        // open() honours the umask; set the mode explicitly so 0600 stays 0600 and 0644 stays 0644.
        fchmod(fd, mode)
        var offset = 0
        let ok = bytes.withUnsafeBytes { raw -> Bool in
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 { if errno == EINTR { continue }; return false }
                offset += n
            }
            return fsync(fd) == 0
        }
        let reason = ok ? "" : String(cString: strerror(errno))
        close(fd)
        guard ok else {
            unlink(temp)
            throw AtomicWriteError(path: path, reason: reason)
        }
        guard rename(temp, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temp)
            throw AtomicWriteError(path: path, reason: reason)
        }
        if syncDirectory { Self.syncDirectory(directory) }
        return true
    }

    /// Makes renames in `directory` durable.
    public static func syncDirectory(_ directory: String) {
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY)
        if fd >= 0 { fsync(fd); close(fd) }
    }

    /// Creates `path` and its parents if missing.
    public static func makeDirectory(_ path: String, mode: Int = 0o755) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: mode])
    }
}

/// A write that could not be completed; the original file is untouched.
public struct AtomicWriteError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "cannot write '\(path)': \(reason)" }
}
