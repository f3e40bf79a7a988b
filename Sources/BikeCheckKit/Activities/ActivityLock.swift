import Foundation

/// An exclusive lock on a garage's activity store, held by every run that adds to it (`sync`,
/// `import files`, `import strava-archive`), released by the kernel even if the process dies.
package final class SyncLock {
    private let fd: Int32

    package init(garage root: String) throws {
        try LocalState.prepare(garage: root)
        let path = LocalState.directory(garage: root) + "/sync.lock"
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { throw AtomicFile.Failure(path: path, reason: LocalState.openFailure(errno)) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            close(fd)
            throw ActivityStoreError.locked(path)
        }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}

/// Why a run that adds to the activity store stopped before adding anything.
package enum ActivityStoreError: Error, CustomStringConvertible, Equatable {
    /// Another run holds the store's lock (`SyncLock`).
    case locked(String)
    /// The store's month files have this many errors; adding to them could lose rides.
    case unreadable(Int)

    package var description: String {
        switch self {
        case .locked(let path): return "another sync is running in this garage (lock '\(path)')"
        case .unreadable(let n):
            return
                "the activity cache has \(n) error\(n == 1 ? "" : "s") (see 'bikecheck validate'); fix or move away the files it names, then run 'bikecheck sync --full'"
        }
    }
}
