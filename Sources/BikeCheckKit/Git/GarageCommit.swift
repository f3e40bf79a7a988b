import Foundation

/// The commit a report describes, so a report handed on (to a buyer, kept with a sale) can be
/// traced to its data: the garage's HEAD and whether its files had changes not in it.
package struct GarageCommit: Sendable, Equatable, Encodable {
    /// The full commit id; nil before the first commit.
    package var commit: String?
    /// True when the garage's files in the work tree differ from the commit (changed, staged or
    /// new; ignored files such as the activity cache do not count).
    package var changes: Bool

    package init(commit: String?, changes: Bool) {
        self.commit = commit
        self.changes = changes
    }

    /// The garage at `root` as git has it; nil when it is not in a git work tree.
    package static func of(garage root: String) -> GarageCommit? {
        let git = GitCommitter(root: root)
        guard let repository = git.repository() else { return nil }
        let head =
            repository.hasHead ? (try? git.run(["rev-parse", "--verify", "--quiet", "HEAD"]))?.output.trimmingCharacters(in: .whitespacesAndNewlines) : nil
        let status = try? git.status(["--porcelain=v1", "-z", "--untracked-files=normal", "--", "."])
        let changes = status.map { $0.status != 0 || !$0.output.isEmpty } ?? true
        return GarageCommit(commit: head, changes: changes)
    }

    private enum Key: String, CodingKey { case commit, changes }

    package func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(commit, forKey: .commit)
        try c.encode(changes, forKey: .changes)
    }
}

/// A report's JSON with the garage's commit added as `git` (null when the garage is not in git).
package struct CommitStamped<Report: Encodable>: Encodable {
    package var report: Report
    package var git: GarageCommit?

    package init(_ report: Report, git: GarageCommit?) {
        self.report = report
        self.git = git
    }

    private enum Key: String, CodingKey { case git }

    package func encode(to encoder: Encoder) throws {
        try report.encode(to: encoder)
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(git, forKey: .git)
    }
}
