import BikeCheckKit
import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// An exclusive `flock` on `strava-token.lock` in the config folder, held while the tokens are
/// refreshed or replaced: processes sharing one login (two garages, say) refresh one at a time,
/// and each re-reads the token file once it holds the lock. The kernel drops the lock when its
/// process dies, so a killed bikecheck never leaves it behind.
final class RefreshLock {
    private let fd: Int32

    /// Waits (polling every 20 ms, burning no CPU) until the lock is free or `timeout` passes;
    /// `waiting` is called once when the lock is busy.
    init(path: String, timeout: TimeInterval, waiting: () -> Void) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try AtomicFile.makeDirectory(directory, mode: 0o700)
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StravaError.refreshBusy("cannot open the lock '\(path)': \(String(cString: strerror(errno)))")
        }
        let deadline = Date().addingTimeInterval(timeout)
        var told = false
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let why = String(cString: strerror(errno))
                close(fd)
                throw StravaError.refreshBusy("cannot lock '\(path)': \(why)")
            }
            if !told { waiting(); told = true }
            if Date() > deadline {
                close(fd)
                throw StravaError.refreshBusy("another bikecheck has held '\(path)' for \(Int(timeout)) s while renewing the Strava login")
            }
            usleep(20_000)
        }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
