import Foundation

/// The garage's files as git holds them, at a commit or in the index, written out to a
/// temporary folder to load from: the work tree and the rider's index are never touched. The
/// folder is a `ScratchFolder` of the garage's `.bikecheck/tmp/`, so one a killed run leaves is
/// removed by the next run.
package struct GitSnapshot: Sendable {
    private let scratch: ScratchFolder
    /// The temporary folder (removed by `remove()`).
    package var folder: String { scratch.path }
    /// The garage inside it (the folder, or the garage's subfolder of the repository).
    package let garage: String

    /// What was written out.
    package enum Source: Sendable {
        /// The index: what the next commit would hold (a hook's `GIT_INDEX_FILE`, when set).
        case index
        /// A commit (any revision git understands: `HEAD~1`, a tag, an id).
        case commit(String)
    }

    /// Writes the garage at `root` as `source` has it into a new temporary folder.
    package static func take(_ source: Source, of root: String) throws(GitCommitter.Failure) -> GitSnapshot {
        let git = GitCommitter(root: root)
        guard let repository = git.repository() else {
            throw GitCommitter.Failure(description: "'\(root)' is not in a git work tree")
        }
        let scratch: ScratchFolder
        do { scratch = try ScratchFolder(garage: root, purpose: "snapshot") } catch {
            throw GitCommitter.Failure(description: "cannot create a temporary folder: \(error)")
        }
        let folder = scratch.path
        let snapshot = GitSnapshot(scratch: scratch, garage: folder + "/" + repository.prefix)
        do throws(GitCommitter.Failure) {
            var environment: [String: String]? = nil
            // A hook runs with git's paths relative to the top of the work tree; git below runs
            // in the garage's folder, so they are made absolute.
            var inherited = ProcessInfo.processInfo.environment
            let cwd = FileManager.default.currentDirectoryPath
            for key in ["GIT_INDEX_FILE", "GIT_DIR", "GIT_WORK_TREE", "GIT_OBJECT_DIRECTORY"] {
                if let value = inherited[key], !value.isEmpty, !value.hasPrefix("/") {
                    inherited[key] = cwd + "/" + value
                    environment = inherited
                }
            }
            if case .commit(let rev) = source {
                // The commit's tree goes into an index of its own, so the rider's stays as it is.
                var env = inherited
                env["GIT_INDEX_FILE"] = folder + "/.index"
                environment = env
                let read = try GitProcess.run(["-C", root, "read-tree", "--end-of-options", rev + "^{tree}"], environment: environment)
                guard read.status == 0 else {
                    throw GitCommitter.Failure(
                        description: "'\(rev)' is not a commit of this repository: \(read.error.trimmingCharacters(in: .whitespacesAndNewlines))")
                }
            }
            // Only the garage's files (paths relative to it), written under the folder by their
            // path from the top of the work tree.
            let listed = try GitProcess.run(["-C", root, "ls-files", "-z", "--", "."], environment: environment)
            guard listed.status == 0 else { throw GitCommitter.Failure(description: "git ls-files failed: \(listed.error)") }
            let paths = listed.output.split(separator: "\0").map(String.init)
            let filters = GitProcess.filterOverrides(in: root)
            for batch in stride(from: 0, to: paths.count, by: 500).map({ Array(paths[$0..<min($0 + 500, paths.count)]) }) {
                let out = try GitProcess.run(["-C", root] + filters + ["checkout-index", "--prefix=\(folder)/", "--"] + batch, environment: environment)
                guard out.status == 0 else { throw GitCommitter.Failure(description: "git checkout-index failed: \(out.error)") }
            }
            try? FileManager.default.removeItem(atPath: folder + "/.index")
            try? FileManager.default.createDirectory(atPath: snapshot.garage, withIntermediateDirectories: true)
        } catch {
            snapshot.remove()
            throw error
        }
        return snapshot
    }

    /// Every garage of the repository that `folder` is in, as the index has them: the folders
    /// of the staged `garage.yaml` files (absolute paths, the top of the work tree first), and
    /// the top of the work tree. Empty when there is none (a repository without a garage).
    package static func stagedGarages(in folder: String) throws(GitCommitter.Failure) -> (top: String, garages: [String]) {
        let top = try GitProcess.run(["-C", folder, "rev-parse", "--show-toplevel"], environment: nil)
        let topPath = top.output.trimmingCharacters(in: .newlines)
        guard top.status == 0, !topPath.isEmpty else { throw GitCommitter.Failure(description: "'\(folder)' is not in a git work tree") }
        let listed = try GitProcess.run(["-C", topPath, "ls-files", "-z", "--", ":(glob)**/garage.yaml"], environment: nil)
        guard listed.status == 0 else { throw GitCommitter.Failure(description: "git ls-files failed: \(listed.error)") }
        let folders = listed.output.split(separator: "\0").map { path in
            let parts = path.split(separator: "/").dropLast()
            return parts.isEmpty ? topPath : topPath + "/" + parts.joined(separator: "/")
        }
        return (topPath, folders.sorted())
    }

    /// Removes the temporary folder.
    package func remove() { scratch.remove() }

    /// A commit's full id, the day it was made (committer date, in the committer's zone), and
    /// what git warned of while finding it (a reflog that does not go back so far). `@YYYY-MM-DD`
    /// is the garage as it stood on that day: the last commit of HEAD's history made on or
    /// before it.
    package static func commit(_ rev: String, of root: String) throws(GitCommitter.Failure) -> (id: String, day: Day, warnings: [String]) {
        var rev = rev
        var warnings: [String] = []
        if rev.hasPrefix("@"), let day = Day(String(rev.dropFirst())) {
            let found = try GitProcess.run(["-C", root, "rev-list", "-1", "--before=\(day) 23:59:59", "HEAD", "--"], environment: nil)
            let id = found.output.trimmingCharacters(in: .whitespacesAndNewlines)
            guard found.status == 0, !id.isEmpty else {
                throw GitCommitter.Failure(description: "there is no commit on or before \(day) in this repository's history")
            }
            rev = id
        } else if rev.contains("@{") {
            warnings.append(
                "'\(rev)' is git's reflog: where HEAD was in this clone at that time, not the garage as it stood then; write --rev @YYYY-MM-DD for the last commit on or before a day"
            )
        }
        let out = try GitProcess.run(
            ["-C", root, "show", "-s", "--format=%H %cd", "--date=format:%Y-%m-%d", "--end-of-options", rev + "^{commit}", "--"], environment: nil)
        let fields = out.output.split(separator: " ")
        guard out.status == 0, fields.count == 2, let day = Day(String(fields[1]).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw GitCommitter.Failure(description: "'\(rev)' is not a commit of this repository")
        }
        warnings += out.error.split(separator: "\n").filter { $0.hasPrefix("warning: ") }.map { String($0.dropFirst("warning: ".count)) }
        return (String(fields[0]), day, warnings)
    }
}
