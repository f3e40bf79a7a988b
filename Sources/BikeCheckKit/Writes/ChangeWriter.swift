import Diagnostics
import Foundation

/// Carries out a `GarageChange`: shows it (dry run), or writes every file atomically, checks
/// the garage still validates, and commits the touched files. On any failure every file is
/// put back as it was.
public struct ChangeWriter: Sendable {
    public struct Options: Sendable {
        public var dryRun: Bool
        public var commit: Bool
        /// The environment for git (tests pass an author); nil inherits.
        public var gitEnvironment: [String: String]?

        public init(dryRun: Bool = false, commit: Bool = false, gitEnvironment: [String: String]? = nil) {
            self.dryRun = dryRun
            self.commit = commit
            self.gitEnvironment = gitEnvironment
        }
    }

    /// What was done.
    public struct Outcome: Sendable {
        /// The unified diff of the change (what was, or with `--dry-run` would be, written).
        public var diff: String
        /// Files written, relative to the garage; empty for a dry run or when nothing changed.
        public var written: [String]
        /// The commit's short hash, when one was made.
        public var commit: String?
    }

    public var root: String
    public var options: Options

    public init(root: String, options: Options) {
        self.root = root
        self.options = options
    }

    /// Shows or writes the change; throws with every file as it was when anything fails.
    public func apply(_ change: GarageChange) throws(WriteFailure) -> Outcome {
        let files = change.files.filter(\.isChange)
        let diff = change.diff
        if options.dryRun || files.isEmpty { return Outcome(diff: diff, written: [], commit: nil) }

        let git = GitCommitter(root: root, environment: options.gitEnvironment)
        if options.commit && !git.isRepository() {
            throw .refused("--commit needs the garage to be a git repository, and '\(root)' is not in one",
                           help: "run 'git init' in the garage, or leave out --commit")
        }
        // The files must still be what the change was planned from.
        for file in files where readBytes(path(file)) != file.before {
            throw .refused("'\(file.path)' changed while bikecheck was working; nothing was written", help: "run the command again")
        }

        var done: [FileChange] = []
        do {
            for file in files {
                try AtomicFile.write(file.after, to: path(file))
                done.append(file)
            }
        } catch {
            restore(done)
            throw .refused(error.description)
        }

        let after = GarageLoader.load(at: root, options: GarageLoader.Options(activities: .skip))
        let touched = Set(files.map(\.path))
        let broken = after.diagnostics.filter { $0.severity == .error && touched.contains($0.location.file) }
        if !broken.isEmpty {
            restore(done)
            throw WriteFailure(.refused, "the change would leave the garage with errors, so every file was put back",
                               help: "this is a bug in bikecheck if the files were valid before; please report it",
                               diagnostics: broken, sources: after.sources)
        }

        var hash: String?
        if options.commit {
            do {
                hash = try git.commit(files.map(\.path), message: change.message)
            } catch {
                restore(done)
                throw .refused(error.description + "; every file was put back", help: "check 'git status' and 'git config user.name', then run the command again")
            }
        }
        return Outcome(diff: diff, written: files.map(\.path), commit: hash)
    }

    func path(_ file: FileChange) -> String { root + "/" + file.path }

    /// Puts files back as they were before the change: old bytes rewritten, new files removed.
    func restore(_ files: [FileChange]) {
        for file in files.reversed() {
            if let before = file.before {
                _ = try? AtomicFile.write(before, to: path(file))
            } else {
                try? FileManager.default.removeItem(atPath: path(file))
            }
        }
    }
}
