import Diagnostics
import Foundation

/// Carries out a `GarageChange`: shows it (dry run), or writes every file atomically, checks
/// the garage still validates, and commits the touched files. On any failure every file is
/// put back as it was, and when one cannot be, the failure says which and what it now holds.
package struct ChangeWriter: Sendable {
    package struct Options: Sendable {
        package var dryRun: Bool
        package var commit: Bool
        /// The environment for git (tests pass an author); nil inherits.
        package var gitEnvironment: [String: String]?
        /// How long to wait for another write to the same garage to finish, in seconds.
        package var lockWait: Double

        package init(
            dryRun: Bool = false, commit: Bool = false, gitEnvironment: [String: String]? = nil,
            lockWait: Double = ChangeWriter.defaultLockWait
        ) {
            self.dryRun = dryRun
            self.commit = commit
            self.gitEnvironment = gitEnvironment
            self.lockWait = lockWait
        }
    }

    /// What was done.
    package struct Outcome: Sendable {
        /// The files that change (what was, or with `--dry-run` would be, written).
        var changed: [FileChange]
        /// The unified diff of the change: made only when asked (`--dry-run`, `--format json`),
        /// not on every write.
        package var diff: String { changed.map(\.diff).joined() }
        /// Files written, relative to the garage; empty for a dry run or when nothing changed.
        package var written: [String]
        /// The commit's short hash, when one was made.
        package var commit: String?
        /// The files the re-check after writing parsed again, rather than reused (for tests).
        var reparsed: Set<String> = []
    }

    /// Seconds a write waits for another one to finish before it refuses.
    package static let defaultLockWait = 10.0
    /// The lock every write holds from before it reads the garage until its commit is over.
    package static func lockPath(garage root: String) -> String { LocalState.directory(garage: root) + "/write.lock" }
    /// What a `--commit` write is about to commit, kept until the commit is made, so a write
    /// killed between writing and committing is committed by the next one.
    static func journalPath(garage root: String) -> String { LocalState.directory(garage: root) + "/commit-pending.json" }

    package var root: String
    package var options: Options

    package init(root: String, options: Options) {
        self.root = root
        self.options = options
    }

    /// Plans and carries out a change under the garage's write lock, taken before `plan` reads
    /// the garage and held until the files are written and committed: two writes at once run
    /// one after the other, and neither can lose the other's change. A dry run takes no lock.
    package func perform(_ plan: () throws(WriteFailure) -> GarageChange) throws(WriteFailure) -> (change: GarageChange, outcome: Outcome) {
        if options.dryRun {
            let change = try plan()
            return (change, try apply(change))
        }
        let lock = try takeLock()
        defer { withExtendedLifetime(lock) {} }
        // Holding the lock, no other bikecheck is writing: leftovers are from killed runs.
        let finished = try finishInterruptedCommit()
        do {
            var change = try plan()
            removeStaleTemporaries(besides: change.files.map(\.path))
            let outcome = try apply(change)
            if let finished { change.summary.insert(finished, at: 0) }
            return (change, outcome)
        } catch {
            // The earlier write's commit was made all the same: say so with the failure.
            var failure = error
            if let finished { failure.help = (failure.help.map { $0 + "; " } ?? "") + "meanwhile " + finished }
            throw failure
        }
    }

    /// Shows or writes the change; throws with every file as it was when anything fails (or,
    /// when putting a file back failed too, says so).
    package func apply(_ change: GarageChange) throws(WriteFailure) -> Outcome {
        let files = change.files.filter(\.isChange)
        if options.dryRun { return Outcome(changed: files, written: [], commit: nil) }

        let git = GitCommitter(root: root, environment: options.gitEnvironment)
        let repository = options.commit ? git.repository() : nil
        if let repository { try checkCommitted(change, git: git, in: repository) }
        if files.isEmpty { return Outcome(changed: files, written: [], commit: nil) }
        if options.commit && repository == nil {
            throw .refused(
                "--commit needs the garage to be a git repository, and '\(root)' is not in one",
                help: "run 'git init' in the garage, or leave out --commit")
        }

        // The files must still be what the change was planned from.
        for file in files where readBytes(path(file)) != file.before {
            throw .refused("'\(file.path)' changed while bikecheck was working; nothing was written", help: "run the command again")
        }

        let journal = Self.journalPath(garage: root)
        var journaled = false
        defer { if journaled { unlink(journal) } }
        if options.commit {
            try writeJournal(change.message, files, at: journal)
            journaled = true
        }

        let done = try write(files)

        // The load before planning kept its parsed files: only the files written are parsed again.
        let after = GarageLoader.load(at: root, options: GarageLoader.Options(activities: .skip, keepsParsedFiles: true), reusing: change.parsedFiles)
        let touched = Set(files.map(\.path))
        let broken = after.diagnostics.filter { $0.severity == .error && touched.contains($0.location.file) }
        if !broken.isEmpty {
            let problems = restore(done)
            throw WriteFailure(
                .refused, "the change would leave the garage with errors; " + Self.restored(problems),
                help: Self.help(problems, otherwise: "this is a bug in bikecheck if the files were valid before; please report it"),
                diagnostics: broken, sources: after.sources)
        }

        var hash: String?
        if options.commit {
            do {
                hash = try git.commit(files.map { target($0.path).relative }, message: change.message)
            } catch {
                let problems = restore(done)
                throw .refused(
                    error.description + "; " + Self.restored(problems),
                    help: Self.help(problems, otherwise: "check 'git status' and 'git config user.name', then run the command again"))
            }
        }
        return Outcome(changed: files, written: files.map(\.path), commit: hash, reparsed: after.parsedFiles?.parsed ?? [])
    }

    /// The commit takes whole files: a rider's own edits in them would go in unnoticed.
    private func checkCommitted(_ change: GarageChange, git: GitCommitter, in repository: GitCommitter.Repository) throws(WriteFailure) {
        let dirty: [String]
        do {
            dirty = try git.uncommitted(change.files.map { target($0.path).relative }, in: repository)
        } catch {
            throw .refused(error.description + "; nothing was written", help: "check 'git status', then run the command again")
        }
        if !dirty.isEmpty {
            let list = dirty.map { "'\($0)'" }.joined(separator: ", ")
            throw .refused(
                "\(list) \(dirty.count == 1 ? "has" : "have") changes that are not committed, and --commit would commit them too; nothing was written",
                help: "commit or stash them first ('git status' shows them), or leave out --commit")
        }
    }

    /// The commit to finish if the process dies between writing the files and committing them.
    private func writeJournal(_ message: String, _ files: [FileChange], at journal: String) throws(WriteFailure) {
        do {
            try LocalState.prepare(garage: root)
            let pending = PendingCommit(message: message, files: files.map { .init(path: $0.path, after: Data($0.after)) })
            try AtomicFile.write(Array((try? JSONEncoder().encode(pending)) ?? Data()), to: journal)
        } catch {
            throw .refused("\(error); nothing was written")
        }
    }

    /// Writes each file; on a failure, puts back those written and throws.
    private func write(_ files: [FileChange]) throws(WriteFailure) -> [FileChange] {
        var done: [FileChange] = []
        do {
            for file in files {
                try AtomicFile.write(file.after, to: path(file))
                done.append(file)
            }
        } catch {
            let problems = restore(done)
            throw .refused(
                error.description + "; " + (done.isEmpty ? "nothing was written" : Self.restored(problems)),
                help: Self.help(problems, otherwise: nil))
        }
        return done
    }

    func path(_ file: FileChange) -> String { target(file.path).path }

    /// Where a garage file is written: through a link that stays inside the garage
    /// (`bikes/grail.yaml` → `../shared/grail.yaml`) to the file it leads to, so the link is kept
    /// and its target changed, and git commits the target; else the path itself. (A link leading
    /// outside was refused when the garage was read, and is never written through.)
    func target(_ relative: String) -> (path: String, relative: String) {
        let boundary = GarageBoundary(root: root)
        let path = root + "/" + relative
        guard case .read(let real) = boundary.access(relative), real != path, let realRoot = boundary.realRoot,
            GarageBoundary.isInside(real, realRoot), real.count > realRoot.count
        else { return (path, relative) }
        return (real, String(real.dropFirst(realRoot.hasSuffix("/") ? realRoot.count : realRoot.count + 1)))
    }

    /// Puts files back as they were before the change: old bytes rewritten, new files removed.
    /// Returns, for each file that could not be, why and what it holds now.
    func restore(_ files: [FileChange]) -> [String] {
        var problems: [String] = []
        for file in files.reversed() {
            if let before = file.before {
                do {
                    try AtomicFile.write(before, to: path(file))
                } catch {
                    problems.append("'\(file.path)' could not be put back (\(error.reason)) and \(holding(file))")
                }
            } else if unlink(path(file)) != 0 && errno != ENOENT {
                problems.append("'\(file.path)' could not be removed (\(String(cString: strerror(errno)))) and \(holding(file))")
            }
        }
        return problems
    }

    /// What a file that could not be put back holds now, read back rather than assumed.
    func holding(_ file: FileChange) -> String {
        switch readBytes(path(file)) {
        case file.after?: return file.before == nil ? "is still there, as bikecheck wrote it" : "still holds the change"
        case file.before?: return "holds its old content after all"
        case nil: return "cannot be read"
        default: return "holds neither its old content nor the change"
        }
    }

    /// The end of a failure message: whether every file was put back.
    static func restored(_ problems: [String]) -> String {
        problems.isEmpty ? "every file was put back" : "not every file could be put back: " + problems.joined(separator: "; ")
    }

    static func help(_ problems: [String], otherwise: String?) -> String? {
        problems.isEmpty
            ? otherwise : "free some space, then put those files back by hand ('git checkout -- FILE' for a committed file, 'git diff' shows the change)"
    }

    /// Takes the garage's write lock, waiting for a write in progress; refuses when it does
    /// not finish in time. A folder that does not exist yet (`init` of a new garage) has
    /// nothing to lock.
    func takeLock() throws(WriteFailure) -> FileLock? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
        let lock: FileLock?
        do {
            try LocalState.prepare(garage: root)
            lock = try FileLock(path: Self.lockPath(garage: root), wait: options.lockWait)
        } catch {
            throw .refused("cannot take the garage's write lock: \(error); nothing was written")
        }
        guard let lock else {
            let wait = options.lockWait
            let seconds = wait == wait.rounded() && abs(wait) < 1e9 ? String(Int(wait)) : String(wait)
            throw .refused(
                "another bikecheck is writing to this garage and did not finish within \(seconds) s; nothing was written",
                help: "run the command again once it is done (it holds '.bikecheck/write.lock' while it writes)")
        }
        return lock
    }

    /// Removes the temporary files (`.NAME.bikecheck-XXXXXX`) that a write killed before its
    /// rename leaves, in the folders this change writes to and in the derived caches every load
    /// writes (the garage cache, the activity index). Only called with the lock held. A command
    /// that reads the garage may be writing a cache entry meanwhile: its rename then fails, and
    /// the entry is made by a later run (a derived cache ignores a failed store).
    func removeStaleTemporaries(besides paths: [String]) {
        var folders = Set(paths.map { ($0 as NSString).deletingLastPathComponent })
        folders.insert(".bikecheck")
        folders.insert(".bikecheck/" + GarageCache.folder)
        folders.insert(".bikecheck/" + ActivityIndex.folder)
        for folder in folders {
            let directory = folder.isEmpty ? root : root + "/" + folder
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
            for name in names where AtomicFile.isTemporaryName(name) {
                // In .bikecheck/ a sync may be writing its own state: only the journal's are ours.
                if folder == ".bikecheck" && !name.hasPrefix(".commit-pending.json.") { continue }
                unlink(directory + "/" + name)
            }
        }
    }

    /// Commits what a `--commit` write killed after writing its files left uncommitted: only
    /// when every file still holds exactly what that write put there, so nothing the rider
    /// changed since is swept in. Returns a line for the rider when it committed something.
    func finishInterruptedCommit() throws(WriteFailure) -> String? {
        let journal = Self.journalPath(garage: root)
        guard let data = readBytes(journal, limit: FileSizeLimit.localState).map({ Data($0) }) else { return nil }
        defer { unlink(journal) }
        guard let pending = try? JSONDecoder().decode(PendingCommit.self, from: data),
            pending.files.allSatisfy({ readBytes(root + "/" + $0.path) == [UInt8]($0.after) })
        else { return nil }
        let git = GitCommitter(root: root, environment: options.gitEnvironment)
        guard let repository = git.repository() else { return nil }
        let paths = pending.files.map { target($0.path).relative }
        do {
            // A git that outlived the killed run may still be making its commit: waited for
            // first (or its lock cleared, when no git holds it), then what is left is committed.
            try git.waitForIndexLock()
            // Its commit may have been made, and the index update that ends it rolled back.
            if repository.hasHead { try git.settleIndex(paths, in: repository) }
            let left = repository.hasHead ? try git.uncommitted(paths, in: repository) : paths
            guard !left.isEmpty else { return nil }
            do {
                let hash = try git.commit(left, message: pending.message)
                return "committed \(hash): \(pending.message) (written by an earlier bikecheck that was stopped before it could commit)"
            } catch {
                // Its commit landed meanwhile: nothing is left to do.
                if let again = git.repository(), (try? git.uncommitted(paths, in: again))?.isEmpty == true { return nil }
                throw error
            }
        } catch {
            let list = paths.map { "'\($0)'" }.joined(separator: ", ")
            throw .refused(
                "an earlier bikecheck --commit was stopped after writing \(list) and before committing; committing now failed: \(error); nothing was written",
                help: "commit them yourself (git commit -m \"\(pending.message)\" -- \(paths.joined(separator: " "))), then run the command again")
        }
    }
}

/// The journal of a `--commit` write: the message and what each file will hold.
struct PendingCommit: Codable {
    struct File: Codable {
        var path: String
        var after: Data
    }

    var message: String
    var files: [File]
}
