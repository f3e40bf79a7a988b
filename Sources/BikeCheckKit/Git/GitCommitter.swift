import Foundation

/// Commits garage changes with the real `git`, run as a subprocess.
package struct GitCommitter: Sendable {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// The garage folder; git runs there.
    package var root: String
    package var environment: [String: String]?

    package init(root: String, environment: [String: String]? = nil) {
        self.root = root
        self.environment = environment
    }

    /// Where the garage sits in git.
    package struct Repository: Sendable {
        /// The garage's folder below the top of the work tree: "" at the top, else "sub/".
        package var prefix: String
        /// False before the first commit.
        package var hasHead: Bool
    }

    /// The repository the garage is in, or nil when it is not in a git work tree (one git call).
    package func repository() -> Repository? {
        guard let r = try? run(["rev-parse", "--is-inside-work-tree", "--show-prefix", "--verify", "--quiet", "HEAD"]) else { return nil }
        let lines = r.output.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first == "true" else { return nil }
        return Repository(prefix: lines.count > 1 ? String(lines[1]) : "", hasHead: r.status == 0)
    }

    /// Those of `paths` (relative to the garage) whose content git has not committed: changed
    /// since the last commit (staged or not), or present but untracked. Before the first commit
    /// every file is new, and none counts.
    package func uncommitted(_ paths: [String], in repository: Repository) throws(Failure) -> [String] {
        guard !paths.isEmpty, repository.hasHead else { return [] }
        let status = try status(["--porcelain=v1", "-z", "--untracked-files=all", "--"] + paths)
        guard status.status == 0 else { throw Failure(description: "git status failed: \(status.error)") }
        // Porcelain paths are relative to the repository's top, which may be above the garage;
        // with -z they are not quoted.
        var found: Set<String> = []
        var fields = status.output.split(separator: "\0", omittingEmptySubsequences: true).makeIterator()
        while let field = fields.next() {
            guard field.utf8.count > 3 else { continue }
            let code = field.prefix(2)
            var path = String(field.dropFirst(3))
            // A rename or copy is followed by its source path.
            if code.contains("R") || code.contains("C") { _ = fields.next() }
            if path.hasPrefix(repository.prefix) { path.removeFirst(repository.prefix.count) }
            found.insert(path)
        }
        return paths.filter(found.contains)
    }

    /// Commits exactly `paths` (relative to the garage) as they are in the work tree, with
    /// `message`, in one git step: nothing is staged first, so a kill cannot leave the change
    /// staged but uncommitted, and whatever else the rider has staged stays as it is. New files
    /// are only announced to git (`add --intent-to-add`, no content) so the commit may name them.
    /// Returns the new commit's short hash.
    package func commit(_ paths: [String], message: String) throws(Failure) -> String {
        try waitForIndexLock()
        let known = try run(["ls-files", "-z", "--"] + paths)
        guard known.status == 0 else { throw Failure(description: "git ls-files failed: \(known.error)") }
        let tracked = Set(known.output.split(separator: "\0").map(String.init))
        let new = paths.filter { !tracked.contains($0) }
        if !new.isEmpty {
            let add = try run(["add", "--intent-to-add", "--"] + new)
            guard add.status == 0 else { throw Failure(description: "git add failed: \(add.error)") }
        }
        // The rider's hooks run (a pre-commit 'bikecheck validate' is a good one); if one refuses,
        // the caller puts the files back.
        let commit = try run(["commit", "--quiet", "-m", message, "--only", "--"] + paths)
        guard commit.status == 0 else {
            if !new.isEmpty { _ = try? run(["rm", "--cached", "--quiet", "--ignore-unmatch", "--"] + new) }
            let why = (commit.error + commit.output).trimmingCharacters(in: .whitespacesAndNewlines)
            throw Failure(description: "git commit failed: \(why)")
        }
        let head = try run(["rev-parse", "--short", "HEAD"])
        return head.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Sets the index entries of those of `paths` whose work-tree file is what HEAD holds, but
    /// whose index entry is not, to HEAD's. A `git commit` killed after it moved the branch and
    /// before it wrote the index leaves that (dying, it rolls its index update back): `git status`
    /// shows the file changed both ways, and committing it finds nothing to commit. Only for
    /// files bikecheck knows it wrote, so no staging of the rider's is undone. Returns the paths
    /// it set.
    @discardableResult
    func settleIndex(_ paths: [String], in repository: Repository) throws(Failure) -> [String] {
        let left = try uncommitted(paths, in: repository)
        guard !left.isEmpty else { return [] }
        // The paths whose work-tree file differs from HEAD's (or HEAD has none): those are not
        // committed, and stay as they are.
        let differing = try GitProcess.run(
            ["-C", root] + GitProcess.filterOverrides(in: root) + ["diff", "--name-only", "--relative", "-z", "HEAD", "--"] + left,
            environment: environment)
        guard differing.status == 0 else { throw Failure(description: "git diff failed: \(differing.error)") }
        let changed = Set(differing.output.split(separator: "\0").map(String.init))
        let settled = left.filter { !changed.contains($0) }
        guard !settled.isEmpty else { return [] }
        let reset = try run(["reset", "--quiet", "HEAD", "--"] + settled)
        guard reset.status == 0 else { throw Failure(description: "git reset failed: \(reset.error)") }
        return settled
    }

    /// How long a commit waits for another git to let go of the index.
    static let indexLockWait = 10.0

    /// Waits while git's locks of a commit exist (`index.lock`, `HEAD.lock`, the branch's and
    /// `packed-refs`' lock): a `git commit` still running (the rider's own, or one a hook holds)
    /// keeps them until it ends. Locks no git holds (its git was killed with `kill -9` before it
    /// could remove them: `GitProcess` runs git so that it dies with bikecheck and removes its
    /// locks, but a kill of git itself leaves them) are removed, so the next write goes on. One
    /// still held after the wait is named, with what to do, instead of git's error behind
    /// unrelated advice.
    func waitForIndexLock() throws(Failure) {
        let where_ = try run([
            "rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-path", "index.lock", "--git-path", "HEAD.lock", "--git-path", "packed-refs.lock",
            "--git-common-dir",
        ])
        let lines = where_.output.split(separator: "\n").map(String.init)
        guard where_.status == 0, lines.count == 6 else { return }
        func absolute(_ path: String) -> String { path.hasPrefix("/") ? path : root + "/" + path }
        var locks = lines[2...4].map(absolute)
        if let branch = try? run(["symbolic-ref", "-q", "HEAD"]), branch.status == 0 {
            let ref = branch.output.trimmingCharacters(in: .whitespacesAndNewlines)
            if ref.hasPrefix("refs/"), !ref.split(separator: "/").contains("..") { locks.append(absolute(lines[5]) + "/" + ref + ".lock") }
        }
        let deadline = Date().addingTimeInterval(Self.indexLockWait)
        while let held = locks.first(where: { FileManager.default.fileExists(atPath: $0) }) {
            // No git runs there: the locks are stale (a git started since could not have taken
            // one, as git creates a lock only when it is absent).
            if Self.gitRunning(in: [lines[0], lines[1]], holding: held) == false {
                var removed = true
                for lock in locks where FileManager.default.fileExists(atPath: lock) { removed = unlink(lock) == 0 && removed }
                if removed { continue }
            }
            guard Date() < deadline else {
                throw Failure(
                    description:
                        "'\(held)' has been held for \(Int(Self.indexLockWait)) s: another git is working in this repository; when it is done, run the command again (if no git is running, remove that file)"
                )
            }
            usleep(50_000)
        }
    }

    /// Whether a git process works in the repository (its folder or its work tree, `places`):
    /// one whose working folder is in either, or whose arguments name either, or that has
    /// `lock` open. Nil where processes cannot be seen (no `/proc`): then a lock is waited for.
    static func gitRunning(in places: [String], holding lock: String) -> Bool? {
        guard let pids = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        guard FileManager.default.fileExists(atPath: "/proc/self/cmdline") else { return nil }
        let me = String(getpid())
        func within(_ path: String) -> Bool { places.contains { path == $0 || path.hasPrefix($0 + "/") } }
        for pid in pids where pid != me && pid.allSatisfy(\.isNumber) {
            let base = "/proc/" + pid
            guard let comm = try? String(contentsOfFile: base + "/comm", encoding: .utf8), comm.hasPrefix("git") else { continue }
            if let cwd = try? FileManager.default.destinationOfSymbolicLink(atPath: base + "/cwd"), within(cwd) { return true }
            if let cmdline = FileManager.default.contents(atPath: base + "/cmdline") {
                let arguments = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
                if arguments.contains(where: within) { return true }
            }
            for fd in (try? FileManager.default.contentsOfDirectory(atPath: base + "/fd")) ?? []
            where (try? FileManager.default.destinationOfSymbolicLink(atPath: base + "/fd/" + fd)) == lock {
                return true
            }
        }
        return false
    }

    /// `git merge-file`: git's line merge of three files into `ours`, with conflict markers
    /// where the lines clash (what git does for a file without a merge driver). Returns whether
    /// it merged without conflicts.
    @discardableResult
    package static func mergeFile(ours: String, base: String, theirs: String, markerSize: Int = 7) throws(Failure) -> Bool {
        let out = try GitProcess.run(
            ["merge-file", "--marker-size=\(markerSize)", "-L", "ours", "-L", "base", "-L", "theirs", ours, base, theirs], environment: nil)
        guard out.status >= 0, out.status < 128 else { throw Failure(description: "git merge-file failed: \(out.error)") }
        return out.status == 0
    }

    func run(_ arguments: [String]) throws(Failure) -> GitProcess.Output {
        try GitProcess.run(["-C", root] + arguments, environment: environment)
    }

    /// `git status` of `paths`, running none of the content filters the repository configures.
    func status(_ arguments: [String]) throws(Failure) -> GitProcess.Output {
        try GitProcess.run(["-C", root] + GitProcess.filterOverrides(in: root) + ["status"] + arguments, environment: environment)
    }
}
