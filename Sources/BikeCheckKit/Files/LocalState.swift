import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// `<garage>/.bikecheck/`: state that belongs to this machine and never to git (sync progress,
/// the write lock, the journal of a commit in progress). One home for the folder, so every
/// user of it creates it the same way.
package enum LocalState {
    package static func directory(garage root: String) -> String { root + "/.bikecheck" }

    /// Creates `.bikecheck/` with a `.gitignore` of `*`, so local state never shows in git status
    /// even in a garage whose own `.gitignore` does not name the folder.
    /// A `.bikecheck` that is a link leading outside the garage is refused: state written there
    /// would land in another folder (a `.gitignore` of `*` in someone's work tree makes git ignore
    /// every new file in it).
    package static func prepare(garage root: String) throws(AtomicFile.Failure) {
        let dir = directory(garage: root)
        if GarageBoundary(root: root).access(".bikecheck") == .outside {
            throw AtomicFile.Failure(
                path: dir,
                reason:
                    "it is a symbolic link that leads outside the garage, and bikecheck keeps its local state inside the garage only; replace the link with a folder"
            )
        }
        do {
            try AtomicFile.makeDirectory(dir)
        } catch {
            throw AtomicFile.Failure(path: dir, reason: "cannot create the folder")
        }
        if !FileManager.default.fileExists(atPath: dir + "/.gitignore") {
            try AtomicFile.write(Array("# local state of bikecheck; not for git\n*\n".utf8), to: dir + "/.gitignore")
        }
    }
}

extension LocalState {
    /// Why a file of local state could not be opened, for a message.
    package static func openFailure(_ code: Int32) -> String {
        code == ELOOP ? "it is a symbolic link, and bikecheck never follows links in its local state; remove it" : String(cString: strerror(code))
    }
}

/// An exclusive lock on a file (`flock`), released by the kernel when the process ends however
/// it ends (a `kill -9` included), so a crash can never leave a garage locked.
package final class FileLock: Sendable {
    private let fd: Int32
    package let path: String

    /// Takes the lock, waiting up to `wait` seconds for another holder to let go; nil when it
    /// did not in time.
    package init?(path: String, wait: Double) throws(AtomicFile.Failure) {
        self.path = path
        // Read-only is enough for flock, and works on a lock file someone else created.
        // O_NOFOLLOW: a lock file that is a link is refused, never created at the link's target.
        fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { throw AtomicFile.Failure(path: path, reason: LocalState.openFailure(errno)) }
        let deadline = Date().addingTimeInterval(max(0, wait))
        // Polling, not a blocking flock: a blocking call cannot be given a deadline without
        // signals. The pause grows to 20 ms, so a waiter costs no CPU to speak of.
        var pause: useconds_t = 1_000
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let reason = String(cString: strerror(errno))
                close(fd)
                throw AtomicFile.Failure(path: path, reason: reason)
            }
            if Date() >= deadline {
                close(fd)
                return nil
            }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
