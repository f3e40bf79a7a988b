import Foundation

/// `bikecheck git setup`: routes the garage's YAML files to bikecheck's merge driver and checks
/// what is staged before each commit. Idempotent: a second run changes nothing.
package enum GitSetup {
    /// The driver's name in `.gitattributes` and in git's configuration.
    package static let driver = "bikecheck"

    /// The `.gitattributes` lines (committed, so every clone routes the same files), relative
    /// to the garage's folder.
    package static let attributes: [String] =
        ["/garage.yaml", "/rides.yaml"]
        + ["bikes", "parts", "templates"].flatMap { ["/\($0)/*.yaml", "/\($0)/*.yml"] }.map { $0 }
    static var attributeLines: [String] { attributes.map { "\($0) merge=\(driver)" } }
    static let attributesComment = "# bikecheck: garage files merge with 'bikecheck git merge-driver'; each clone runs 'bikecheck git setup' once"

    /// The line that marks the pre-commit hook as bikecheck's.
    static let hookMarker = "# bikecheck pre-commit hook (written by 'bikecheck git setup')"
    /// Where a hook the rider had before is kept; bikecheck's hook runs it first.
    static let chainedHook = "pre-commit.before-bikecheck"

    /// `.gitattributes` with the driver's lines: the existing text kept, the missing lines added
    /// at its end (nil when none is missing).
    package static func attributesFile(_ existing: [UInt8]?) -> [UInt8]? {
        let text = existing.map { String(decoding: $0, as: UTF8.self) } ?? ""
        let present = Set(text.split(whereSeparator: \.isNewline).map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") })
        let missing = attributeLines.filter { !present.contains($0) }
        guard !missing.isEmpty else { return nil }
        var out = text
        if !out.isEmpty, !out.hasSuffix("\n") { out += "\n" }
        if !out.contains(attributesComment) { out += attributesComment + "\n" }
        out += missing.joined(separator: "\n") + "\n"
        return Array(out.utf8)
    }

    /// What a setup did, one line each (empty: all was in place).
    package struct Done: Sendable {
        package var changes: [String] = []
    }

    /// Sets up the garage at `root`: `.gitattributes`, the driver in the repository's local
    /// configuration, and the pre-commit hook (a hook already there is kept and run first).
    /// `executable` is the bikecheck git runs (an absolute path).
    package static func run(root: String, executable: String) throws(GitCommitter.Failure) -> Done {
        let git = GitCommitter(root: root)
        guard let repository = git.repository() else {
            throw GitCommitter.Failure(description: "'\(root)' is not in a git work tree: run 'git init' there first, then 'bikecheck git setup'")
        }
        var done = Done()
        // 1. .gitattributes, beside garage.yaml.
        let attributesPath = root + "/.gitattributes"
        if let bytes = attributesFile(readBytes(attributesPath)) {
            do {
                try AtomicFile.write(bytes, to: attributesPath)
            } catch {
                throw GitCommitter.Failure(description: error.description)
            }
            done.changes.append("wrote the merge driver's lines to .gitattributes (commit it, so every clone has them)")
        }
        // 2. The driver, in this clone's configuration.
        let command = "\(shellQuoted(executable)) git merge-driver %O %A %B %P"
        for (key, value) in [
            ("merge.\(driver).name", "bikecheck: garage YAML merged by its keys, services and to-dos as sets"), ("merge.\(driver).driver", command),
        ] {
            let current = try git.run(["config", "--local", "--get", key])
            if current.output.trimmingCharacters(in: .newlines) == value { continue }
            let set = try git.run(["config", "--local", key, value])
            guard set.status == 0 else { throw GitCommitter.Failure(description: "git config failed: \(set.error)") }
            if key.hasSuffix(".driver") { done.changes.append("configured the merge driver (\(key))") }
        }
        // 3. The pre-commit hook.
        let hooksOut = try git.run(["rev-parse", "--git-path", "hooks"])
        let hooksRelative = hooksOut.output.trimmingCharacters(in: .newlines)
        guard hooksOut.status == 0, !hooksRelative.isEmpty else { throw GitCommitter.Failure(description: "cannot find git's hooks folder: \(hooksOut.error)") }
        let hooks = URL(fileURLWithPath: hooksRelative.hasPrefix("/") ? hooksRelative : root + "/" + hooksRelative).standardizedFileURL.path
        let hookPath = hooks + "/pre-commit"
        let garage = repository.prefix.isEmpty ? "." : String(repository.prefix.dropLast())
        let hook = hookText(executable: executable, garage: garage)
        let existing = readBytes(hookPath)
        if let existing, existing != Array(hook.utf8), !String(decoding: existing, as: UTF8.self).contains(hookMarker) {
            // The rider's own hook: kept, and run first by ours.
            let kept = hooks + "/" + chainedHook
            guard !FileManager.default.fileExists(atPath: kept) else {
                throw GitCommitter.Failure(
                    description:
                        "'\(hookPath)' is not bikecheck's hook, and '\(kept)' already exists; move one of them away, then run 'bikecheck git setup' again")
            }
            guard rename(hookPath, kept) == 0 else {
                throw GitCommitter.Failure(description: "cannot move '\(hookPath)' to '\(kept)': \(String(cString: strerror(errno)))")
            }
            done.changes.append("kept your pre-commit hook as \(chainedHook); bikecheck's hook runs it first")
        }
        if existing.map({ $0 != Array(hook.utf8) }) ?? true || !FileManager.default.isExecutableFile(atPath: hookPath) {
            do {
                try AtomicFile.write(Array(hook.utf8), to: hookPath, mode: 0o755)
            } catch {
                throw GitCommitter.Failure(description: error.description)
            }
            done.changes.append("installed the pre-commit hook that validates what is staged (\(hookPath))")
        }
        return done
    }

    /// The hook: the rider's earlier hook first (when there is one), then bikecheck on the index.
    static func hookText(executable: String, garage: String) -> String {
        """
        #!/bin/sh
        \(hookMarker)
        # Validates the garage as staged (the index, not the work tree); a hook that was here before
        # is kept as \(chainedHook) and runs first. Skip both once with 'git commit --no-verify'.
        hooks=$(dirname "$0")
        if [ -x "$hooks/\(chainedHook)" ]; then
            "$hooks/\(chainedHook)" "$@" || exit $?
        fi
        exec \(shellQuoted(executable)) git check-staged --garage \(shellQuoted(garage))

        """
    }

    /// `text` in single quotes for sh.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
