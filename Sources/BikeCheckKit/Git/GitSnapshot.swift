import Foundation

/// The garage's files as git holds them, at a commit or in the index: their bytes, read from
/// git's objects through one `git cat-file --batch` (`GitObjectReader`), nothing written out and
/// the work tree and the rider's index never touched. The loader reads a snapshot as it reads
/// the disk (`GarageLoader.Options.snapshot`); `--rev`, `diff` and the pre-commit check load
/// through it.
package struct GitSnapshot: Sendable {
    /// One garage file (or folder) as git holds it.
    package enum File: Sendable, Equatable {
        /// Its bytes, and git's id of them.
        case bytes([UInt8], blob: String)
        /// Larger than a garage file may be: its size, nothing kept.
        case tooLarge(Int)
        /// A symbolic link that leads outside the garage (or nowhere git has): not read.
        case outside
    }

    /// The files the loader reads (garage.yaml, rides.yaml, and those of bikes/, parts/ and
    /// templates/), by path relative to the garage.
    package let files: [String: File]
    /// The commit, when taken from one.
    package let commit: Commit?

    /// A commit: its full id, the day it was made (committer date, in the committer's zone), and
    /// what git warned of while finding it (a reflog that does not go back so far).
    package struct Commit: Sendable, Equatable {
        package var id: String
        package var day: Day
        package var warnings: [Warning]
    }

    /// What to read.
    package enum Source: Sendable {
        /// The index: what the next commit would hold (a hook's `GIT_INDEX_FILE`, when set).
        case index
        /// A commit (any revision git understands: `HEAD~1`, a tag, an id), or `@YYYY-MM-DD`:
        /// the garage as it stood on that day, the last commit of HEAD's history made on or
        /// before it.
        case commit(String)
    }

    /// The folders whose files the loader reads.
    static let folders: Set<String> = ["bikes", "gear", "parts", "templates"]

    /// The garage at `root` as `source` has it. Two git processes for a commit (where the garage
    /// is in its repository, and `cat-file --batch`), three for `@YYYY-MM-DD` (the commit of
    /// that day) and for the index (its listing).
    package static func take(_ source: Source, of root: String) throws(GitCommitter.Failure) -> GitSnapshot {
        let git = GitCommitter(root: root)
        guard let repository = git.repository() else {
            throw GitCommitter.Failure(description: "'\(root)' is not in a git work tree")
        }
        switch source {
        case .index: return try index(of: root)
        case .commit(let rev): return try commit(rev, of: root, prefix: repository.prefix)
        }
    }

    /// The index's garage files: listed by `ls-files`, read by `cat-file`.
    private static func index(of root: String) throws(GitCommitter.Failure) -> GitSnapshot {
        let environment = hookEnvironment()
        let listed = try GitProcess.run(["-C", root, "ls-files", "-s", "-z", "--", "."], environment: environment)
        guard listed.status == 0 else { throw GitCommitter.Failure(description: "git ls-files failed: \(listed.error)") }
        var entries: [String: Entry] = [:]
        for record in listed.output.split(separator: "\0") {
            // "MODE ID STAGE\tPATH"; only merged (stage 0) entries are what a commit holds.
            guard let tab = record.firstIndex(of: "\t") else { continue }
            let fields = record[..<tab].split(separator: " ")
            guard fields.count == 3, fields[2] == "0" else { continue }
            entries[String(record[record.index(after: tab)...])] = Entry(mode: String(fields[0]), id: String(fields[1]))
        }
        let reader = try GitObjectReader(root: root, environment: environment)
        defer { _ = reader.finish() }
        var tree = Tree(entries: entries, reader: reader, top: nil)
        return GitSnapshot(files: try tree.files(), commit: nil)
    }

    /// A commit's garage files: the commit, the garage's tree, its folders and files, each
    /// round one request to the same `cat-file`.
    private static func commit(_ rev: String, of root: String, prefix: String) throws(GitCommitter.Failure) -> GitSnapshot {
        var rev = rev
        var warnings: [Warning] = []
        if rev.hasPrefix("@"), let day = Day(String(rev.dropFirst())) {
            let found = try GitProcess.run(["-C", root, "rev-list", "-1", "--before=\(day) 23:59:59", "HEAD", "--"], environment: nil)
            let id = found.output.trimmingCharacters(in: .whitespacesAndNewlines)
            guard found.status == 0, !id.isEmpty else {
                throw GitCommitter.Failure(description: "there is no commit on or before \(day) in this repository's history")
            }
            rev = id
        } else if rev.contains("@{") {
            warnings.append(
                Warning(
                    "'\(rev)' is git's reflog: where HEAD was in this clone at that time, not the garage as it stood then",
                    help: "write --rev @YYYY-MM-DD for the last commit on or before a day"))
        }
        let reader = try GitObjectReader(root: root, environment: nil)
        let notACommit = GitCommitter.Failure(description: "'\(rev)' is not a commit of this repository")
        guard case .found(let id, "commit", _, let body?) = try reader.read([rev + "^{commit}"], limit: 1 << 20).first,
            let day = committerDay(body)
        else {
            _ = reader.finish()
            throw notACommit
        }
        let garage = prefix.isEmpty ? id + "^{tree}" : id + ":" + String(prefix.dropLast())
        var entries: [String: Entry] = [:]
        if case .found(let treeID, "tree", _, let body?) = try reader.read([garage], limit: FileSizeLimit.garageFile).first {
            for (name, entry) in Tree.entries(body, idLength: treeID.count / 2) { entries[name] = entry }
            var tree = Tree(entries: entries, reader: reader, top: treeID)
            let files = try tree.files()
            warnings += warningLines(reader.finish())
            return GitSnapshot(files: files, commit: Commit(id: id, day: day, warnings: warnings))
        }
        // The garage's folder is not in that commit: a garage with no files.
        warnings += warningLines(reader.finish())
        return GitSnapshot(files: [:], commit: Commit(id: id, day: day, warnings: warnings))
    }

    /// git's `warning:` lines in what it wrote on standard error.
    private static func warningLines(_ text: String) -> [Warning] {
        text.split(separator: "\n").filter { $0.hasPrefix("warning: ") }.map { Warning(String($0.dropFirst("warning: ".count))) }
    }

    /// The day of a commit object's committer line, in the committer's zone.
    static func committerDay(_ body: [UInt8]) -> Day? {
        let text = String(decoding: body, as: UTF8.self)
        guard let line = text.split(separator: "\n", omittingEmptySubsequences: false).first(where: { $0.hasPrefix("committer ") }),
            let close = line.lastIndex(of: ">")
        else { return nil }
        let fields = line[line.index(after: close)...].split(separator: " ")
        guard fields.count == 2, let seconds = Int(fields[0]), let zone = Int(fields[1].dropFirst()), fields[1].count == 5 else { return nil }
        let offset = (zone / 100 * 3600 + zone % 100 * 60) * (fields[1].hasPrefix("-") ? -1 : 1)
        let local = seconds + offset
        return Day(ordinal: local >= 0 ? local / 86400 : (local - 86399) / 86400)
    }

    /// A hook runs with git's paths relative to the top of the work tree; git below runs in the
    /// garage's folder, so they are made absolute (nil: nothing to change).
    private static func hookEnvironment() -> [String: String]? {
        var environment: [String: String]? = nil
        var inherited = ProcessInfo.processInfo.environment
        let cwd = FileManager.default.currentDirectoryPath
        for key in ["GIT_INDEX_FILE", "GIT_DIR", "GIT_WORK_TREE", "GIT_OBJECT_DIRECTORY"] {
            if let value = inherited[key], !value.isEmpty, !value.hasPrefix("/") {
                inherited[key] = cwd + "/" + value
                environment = inherited
            }
        }
        return environment
    }

    /// A tree entry: git's mode (`100644`, `120000` for a link, `40000` for a folder) and id.
    struct Entry: Sendable, Equatable {
        var mode: String
        var id: String
        var isTree: Bool { mode == "40000" || mode == "040000" }
        var isLink: Bool { mode == "120000" }
        var isFile: Bool { mode.hasPrefix("100") }
    }

    /// The garage's entries by path (the index: every one; a commit: those fetched so far), and
    /// the reader that fetches the rest.
    struct Tree {
        var entries: [String: Entry]
        let reader: GitObjectReader
        /// The garage's tree, for paths not fetched yet (nil: `entries` is everything).
        let top: String?

        /// The entries of a tree object's bytes: `MODE NAME\0ID` each, the id `idLength` bytes.
        static func entries(_ body: [UInt8], idLength: Int) -> [(String, Entry)] {
            var out: [(String, Entry)] = []
            var at = 0
            while at < body.count {
                guard let space = body[at...].firstIndex(of: UInt8(ascii: " ")), let nul = body[space...].firstIndex(of: 0),
                    nul + 1 + idLength <= body.count
                else { break }
                let mode = String(decoding: body[at..<space], as: UTF8.self)
                let name = String(decoding: body[(space + 1)..<nul], as: UTF8.self)
                let id = body[(nul + 1)..<(nul + 1 + idLength)].map { String(format: "%02x", $0) }.joined()
                out.append((name, Entry(mode: mode, id: id)))
                at = nul + 1 + idLength
            }
            return out
        }

        /// The path `target` (a link's text) names from the folder of `link`, inside the
        /// garage; nil when it leaves it.
        static func resolve(_ target: String, from link: String) -> String? {
            guard !target.hasPrefix("/") else { return nil }
            var parts = link.split(separator: "/").dropLast().map(String.init)
            for part in target.split(separator: "/") {
                switch part {
                case ".": continue
                case "..":
                    guard !parts.isEmpty else { return nil }
                    parts.removeLast()
                default: parts.append(String(part))
                }
            }
            return parts.isEmpty ? nil : parts.joined(separator: "/")
        }

        /// The entries at `paths`, fetched when not known yet (a commit).
        mutating func lookUp(_ paths: [String]) throws(GitCommitter.Failure) {
            guard let top else { return }
            let wanted = paths.filter { entries[$0] == nil }
            guard !wanted.isEmpty else { return }
            // `TREE:PATH` names the object; its mode comes from its folder's listing.
            let folders = Array(Set(wanted.map { $0.split(separator: "/").dropLast().joined(separator: "/") }).subtracting([""]))
            try list(folders.filter { entries[$0]?.isTree ?? true }.map { ($0, top + ":" + $0) })
        }

        /// Fetches the trees of `folders` (each a path and the name git knows its tree by) and
        /// adds their entries.
        mutating func list(_ folders: [(path: String, name: String)]) throws(GitCommitter.Failure) {
            guard !folders.isEmpty else { return }
            let objects = try reader.read(folders.map(\.name), limit: FileSizeLimit.garageFile)
            for ((folder, _), object) in zip(folders, objects) {
                guard case .found(let id, "tree", _, let body?) = object else { continue }
                entries[folder] = entries[folder] ?? Entry(mode: "40000", id: id)
                for (name, entry) in Self.entries(body, idLength: id.count / 2) { entries[folder + "/" + name] = entry }
            }
        }

        /// Follows links from `path` to a regular file or folder of the garage (at most 16):
        /// its path, or nil when a link leaves the garage or leads nowhere.
        mutating func follow(_ path: String) throws(GitCommitter.Failure) -> String? {
            var path = path
            for _ in 0..<16 {
                try lookUp([path])
                guard let entry = entries[path] else { return nil }
                guard entry.isLink else { return path }
                guard case .found(_, "blob", _, let body?) = try reader.read([entry.id], limit: 4096).first,
                    let target = Self.resolve(String(decoding: body, as: UTF8.self), from: path)
                else { return nil }
                path = target
            }
            return nil
        }

        /// The files the loader reads, with their bytes.
        mutating func files() throws(GitCommitter.Failure) -> [String: File] {
            var files: [String: File] = [:]
            // Where each of the garage's folders really is (a link inside the garage is followed).
            var folderAt: [String: String] = [:]
            if top != nil {
                try list(GitSnapshot.folders.sorted().compactMap { folder in entries[folder].flatMap { $0.isTree ? (folder, $0.id) : nil } })
            }
            for folder in GitSnapshot.folders.sorted() where entries[folder] != nil || entries.keys.contains(where: { $0.hasPrefix(folder + "/") }) {
                if entries[folder]?.isLink == true {
                    guard let real = try follow(folder), entries[real]?.isTree ?? (top == nil) else {
                        files[folder] = .outside
                        continue
                    }
                    if top != nil, let id = entries[real]?.id { try list([(real, id)]) }
                    folderAt[folder] = real
                } else {
                    folderAt[folder] = folder
                }
            }
            // The paths to read: garage.yaml, rides.yaml, and the YAML files of each folder.
            var wanted: [(shown: String, at: String)] = ["garage.yaml", "rides.yaml"].filter { entries[$0] != nil }.map { ($0, $0) }
            for (folder, real) in folderAt.sorted(by: { $0.key < $1.key }) {
                for path in entries.keys.sorted() where path.hasPrefix(real + "/") {
                    let name = String(path.dropFirst(real.count + 1))
                    guard !name.contains("/"), name.hasSuffix(".yaml") || name.hasSuffix(".yml") else { continue }
                    wanted.append((folder + "/" + name, path))
                }
            }
            var blobs: [(shown: String, id: String)] = []
            for (shown, at) in wanted {
                guard let real = try follow(at), let entry = entries[real], entry.isFile else {
                    files[shown] = .outside
                    continue
                }
                blobs.append((shown, entry.id))
            }
            let objects = try reader.read(blobs.map(\.id), limit: FileSizeLimit.garageFile)
            for (blob, object) in zip(blobs, objects) {
                switch object {
                case .found(let id, _, _, let bytes?): files[blob.shown] = .bytes(bytes, blob: id)
                case .found(_, _, let size, nil): files[blob.shown] = .tooLarge(size)
                case .missing: files[blob.shown] = .outside
                }
            }
            return files
        }
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
}
