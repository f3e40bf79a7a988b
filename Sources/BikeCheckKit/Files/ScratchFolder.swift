import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A folder for one run's temporaries (a template clone),
/// under the garage's `.bikecheck/tmp/`: `NAME/` beside `NAME.lock`, which its run holds
/// (`flock`) while it lives. A run killed with `kill -9` cannot remove its folder, but the kernel
/// lets go of its lock, and the next run's `clearLeftovers` removes what it finds unlocked. A
/// garage where `.bikecheck/` cannot be made (read-only) uses the same layout under the system's
/// temporary folder (`bikecheck-tmp/`), swept the same way.
package final class ScratchFolder: Sendable {
    /// The folder; empty when made.
    package let path: String
    private let lock: FileLock

    /// `.bikecheck/tmp/` of the garage at `root`.
    package static func directory(garage root: String) -> String { LocalState.directory(garage: root) + "/tmp" }
    /// Where scratch folders go when the garage's cannot be made.
    static var fallback: String { FileManager.default.temporaryDirectory.path + "/bikecheck-tmp" }

    /// A new, empty folder named after `purpose` (`template`), locked by this run.
    package init(garage root: String?, purpose: String) throws(AtomicFile.Failure) {
        var parent = Self.fallback
        if let root {
            do {
                try LocalState.prepare(garage: root)
                try AtomicFile.makeDirectory(Self.directory(garage: root))
                parent = Self.directory(garage: root)
            } catch {}
        }
        if parent == Self.fallback {
            do { try AtomicFile.makeDirectory(parent) } catch { throw AtomicFile.Failure(path: parent, reason: "cannot create the folder") }
        }
        // The lock first, then the folder, then a look that the lock is still there: a sweep
        // that took the lock file between its creation and this run's lock removed it, and a
        // new name is tried.
        for _ in 0..<3 {
            let name = parent + "/\(purpose)-\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
            guard let lock = try FileLock(path: name + ".lock", wait: 0) else { continue }
            do { try AtomicFile.makeDirectory(name) } catch {
                unlink(name + ".lock")
                throw AtomicFile.Failure(path: name, reason: "cannot create the folder")
            }
            guard FileManager.default.fileExists(atPath: name + ".lock") else {
                try? FileManager.default.removeItem(atPath: name)
                continue
            }
            self.lock = lock
            path = name
            return
        }
        throw AtomicFile.Failure(path: parent, reason: "cannot make a folder of its own there")
    }

    /// Removes the folder and its lock (also done when the last reference goes).
    package func remove() {
        try? FileManager.default.removeItem(atPath: path)
        unlink(path + ".lock")
    }

    deinit { remove() }

    /// Removes the scratch folders of runs that ended without removing theirs (killed): those
    /// whose lock no process holds, in the garage's `.bikecheck/tmp/` and the fallback. Returns
    /// how many it removed.
    @discardableResult
    package static func clearAbandoned(garage root: String?) -> Int {
        var removed = 0
        for parent in (root.map { [directory(garage: $0)] } ?? []) + [fallback] {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent) else { continue }
            let locks = Set(names.filter { $0.hasSuffix(".lock") })
            for name in names {
                let base = name.hasSuffix(".lock") ? String(name.dropLast(5)) : name
                // Each folder once: by its lock when it has one, else (its lock already gone) by itself.
                if !name.hasSuffix(".lock") && locks.contains(name + ".lock") { continue }
                let lockPath = parent + "/" + base + ".lock"
                if name.hasSuffix(".lock") {
                    guard let held = try? FileLock(path: lockPath, wait: 0) else { continue }
                    try? FileManager.default.removeItem(atPath: parent + "/" + base)
                    unlink(lockPath)
                    withExtendedLifetime(held) {}
                } else {
                    // A folder whose lock is gone: its run removed the lock last, or a sweep
                    // stopped between the two. Only folders, and only scratch ones.
                    guard base.contains("-") else { continue }
                    try? FileManager.default.removeItem(atPath: parent + "/" + base)
                }
                removed += 1
            }
        }
        return removed
    }
}

extension LocalState {
    /// The locks of the runs that write `.bikecheck/`'s own files: writes, syncs and imports,
    /// notify.
    static let lockNames = ["write.lock", "sync.lock", "notify.lock"]
    /// The files of `.bikecheck/` only a holder of one of those locks writes (the journal of a
    /// `--commit` write, the sync's state and its last sync, notify's deliveries): only their
    /// temporaries are cleared (`.gitignore`, say, is written by any run, under no lock).
    static let lockedStateFiles = ["commit-pending.json", "strava-sync.json", "last-sync.json", "notify-state.json"]

    /// What killed runs left, cleared by every run: scratch folders no run holds
    /// (`ScratchFolder.clearAbandoned`), and, when no other bikecheck holds any of the garage's
    /// locks, the temporary files of `.bikecheck/`'s state that only lock holders write
    /// (`.last-sync.json.bikecheck-…`, `AtomicFile`'s: `lockedStateFiles`). Never fails: what cannot be removed now
    /// is removed by a later run. Returns how many it removed.
    @discardableResult
    package static func clearLeftovers(garage root: String) -> Int {
        let dir = directory(garage: root)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue,
            GarageBoundary(root: root).access(".bikecheck") != .outside
        else { return ScratchFolder.clearAbandoned(garage: nil) }
        var removed = ScratchFolder.clearAbandoned(garage: root)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return removed }
        let temporaries = names.filter { name in
            AtomicFile.isTemporaryName(name) && lockedStateFiles.contains { name.hasPrefix("." + $0 + ".bikecheck-") }
        }
        guard !temporaries.isEmpty else { return removed }
        // Only lock files that exist are taken (a lock never made is held by nobody).
        var held: [FileLock] = []
        for name in lockNames where names.contains(name) {
            guard let lock = try? FileLock(path: dir + "/" + name, wait: 0) else { return removed }
            held.append(lock)
        }
        for name in temporaries where unlink(dir + "/" + name) == 0 { removed += 1 }
        withExtendedLifetime(held) {}
        return removed
    }
}
