import BikeCheckKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Local sync state in `<garage>/.bikecheck/` (git-ignored): a listing in progress, so an
/// interrupted sync resumes where it stopped, and the gear already looked up.
public struct SyncState: Codable, Equatable, Sendable {
    /// A listing that has not finished yet.
    public struct Pending: Codable, Equatable, Sendable {
        /// "full" or "incremental".
        public var mode: String
        /// Epoch seconds of the `after` filter (incremental only).
        public var after: Int64?
        /// The next page to fetch.
        public var nextPage: Int
        /// Ids listed so far (full listings only: the rest are deleted at the end).
        public var seen: [Int64]

        enum CodingKeys: String, CodingKey { case mode, after, nextPage = "next_page", seen }
    }

    public var pending: Pending?
    /// Gear fetched with `/gear/{id}` (retired bikes missing from `/athlete`); `null` when Strava did not know it.
    public var gear: [String: StravaGear?]

    public init(pending: Pending? = nil, gear: [String: StravaGear?] = [:]) {
        self.pending = pending
        self.gear = gear
    }

    public static func directory(garage root: String) -> String { LocalState.directory(garage: root) }
    static func path(garage root: String) -> String { directory(garage: root) + "/strava-sync.json" }

    public static func load(garage root: String) -> SyncState {
        guard let data = FileManager.default.contents(atPath: path(garage: root)),
              let state = try? JSONDecoder().decode(SyncState.self, from: data) else { return SyncState() }
        return state
    }

    public func save(garage root: String) throws {
        try Self.prepareDirectory(garage: root)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try AtomicFile.write(Array(try encoder.encode(self)) + [0x0A], to: Self.path(garage: root))
    }

    /// Creates `.bikecheck/` with a `.gitignore` of `*`, so local state never shows in git status.
    static func prepareDirectory(garage root: String) throws {
        try LocalState.prepare(garage: root)
    }
}

/// An exclusive lock on a garage's sync, released by the kernel even if the process dies.
public final class SyncLock {
    private let fd: Int32

    public init(garage root: String) throws {
        try SyncState.prepareDirectory(garage: root)
        let path = SyncState.directory(garage: root) + "/sync.lock"
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw AtomicFile.Failure(path: path, reason: String(cString: strerror(errno))) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            close(fd)
            throw StravaError.locked(path)
        }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
