import Diagnostics
import Foundation

/// How large each kind of file bikecheck reads may be. A file's size is checked before any
/// memory is allocated for it, so a huge (or sparse) file is a located `file-too-large`, never an
/// abort. The limits are far above any real garage's: a bike file with decades of log is tens of
/// kilobytes, a month of a busy rider's activities a few megabytes.
package enum FileSizeLimit {
    /// garage.yaml, rides.yaml and the files of bikes/, parts/ and templates/: 64 MiB.
    package static let garageFile = 64 << 20
    /// One month file of the activity cache (`activities/*.json`): 256 MiB.
    package static let activityMonth = 256 << 20
    /// One index file of the activity cache (`.bikecheck/index/*.idx`): 256 MiB; a larger one is
    /// not trusted and is rebuilt.
    package static let activityIndex = 256 << 20
    /// A file of local state (`.bikecheck/`, the saved token, the sync state): 16 MiB.
    package static let localState = 16 << 20
    /// `activities.csv` or `bikes.csv` of a Strava export, in its folder or its zip: 256 MiB
    /// (a decade of a busy rider's activities is tens of megabytes).
    package static let stravaExportFile = 256 << 20
    /// What one decompression may produce (an entry of a Strava export's zip, a `.gz` ride file):
    /// 128 MiB, counted on the bytes as they inflate, whatever a header declares (a deflate bomb's
    /// header lies). Strava takes uploads of 25 MB at most; a bomb stops here, in well under a
    /// second and 300 MB of memory.
    package static let unpacked = 128 << 20

    /// `200 GiB`, `64.5 MiB`, `900 bytes`: a size as messages show it, the same in every locale.
    package static func describe(_ bytes: Int) -> String {
        for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] where bytes >= 1 << shift {
            // Without overflow, however large: whole units, then tenths of the rest.
            let tenths = (bytes >> shift) * 10 + ((bytes & ((1 << shift) - 1)) * 10) >> shift
            return tenths % 10 == 0 ? "\(tenths / 10) \(unit)" : "\(tenths / 10).\(tenths % 10) \(unit)"
        }
        return "\(bytes) byte\(bytes == 1 ? "" : "s")"
    }

    /// The located diagnostic for a file larger than its kind may be.
    package static func tooLarge(_ relative: String, size: Int, limit: Int, kind: String) -> Diagnostic {
        .error(
            .fileTooLarge, "the file is \(describe(size)), more than \(kind) may be (\(describe(limit)))",
            at: SourceLocation(file: relative, range: SourceRange(at: SourcePosition(offset: 0, line: 1, column: 1))),
            help: "check that it is the file you meant; bikecheck reads no file larger than this")
    }
}

/// What reading a whole file found.
package enum FileRead {
    case bytes([UInt8])
    /// Larger than the limit: its size, nothing read.
    case tooLarge(Int)
    /// Missing, not a regular file, or a failed read.
    case unreadable
}

/// Reads a whole regular file of at most `limit` bytes.
package func readFile(_ path: String, limit: Int) -> FileRead {
    // Regular files go straight into the array: through Data, every cache file was copied twice.
    // O_NONBLOCK: opening a named pipe must not wait for a writer; only regular files are read.
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { return .unreadable }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return .unreadable }
    // The size is checked before anything is allocated: a sparse 200 GB file costs nothing.
    guard info.st_size <= limit else { return .tooLarge(Int(info.st_size)) }
    var failed = false
    let bytes = [UInt8](unsafeUninitializedCapacity: Int(info.st_size)) { buffer, count in
        while count < buffer.count {
            let n = read(fd, buffer.baseAddress! + count, buffer.count - count)
            if n > 0 { count += n } else if n < 0, errno == EINTR { continue } else { failed = n < 0; break }
        }
    }
    return failed ? .unreadable : .bytes(bytes)
}

/// Reads a whole file of at most `limit` bytes, or nil when it cannot be read or is larger.
package func readBytes(_ path: String, limit: Int = FileSizeLimit.garageFile) -> [UInt8]? {
    if case .bytes(let bytes) = readFile(path, limit: limit) { return bytes }
    return nil
}
