import Foundation

/// A templates repository fetched with the real `git`: a shallow clone without a work tree in a
/// temporary folder, read through git's own tree, so a symbolic link or a submodule in it is
/// seen for what it is and never followed. The repository is someone else's files: only the
/// https, ssh, git and local transports are allowed (never `ext::`), no configuration, hooks or
/// credentials of this machine or of the remote take part, and time and size are bounded.
final class TemplateRepository {
    /// Where a repository is, as given and as it is recorded in `source:`.
    struct Location: Equatable {
        /// What `git clone` is given.
        var clone: String
        /// What `source: url:` records: credentials stripped, a local repository relative to the garage.
        var recorded: String
        var isLocal: Bool
    }

    /// One file of the fetched commit.
    struct Entry {
        var mode: String
        var object: String
        var size: Int
        var path: String
        var isRegularFile: Bool { mode == "100644" || mode == "100755" }
    }

    /// Largest template file read, in bytes.
    static let maximumFileSize = 1 << 20
    /// Largest clone accepted, in bytes, and most files in its tree.
    static let maximumCloneSize = 64 << 20
    static let maximumEntries = 20_000

    let folder: String
    let commit: String
    let entries: [Entry]
    let location: Location
    private let environment: [String: String]

    private let scratch: ScratchFolder
    deinit { scratch.remove() }

    /// Where `text` (a URL, `host:path`, or a local path resolved against `base`) points, and
    /// how it is recorded for the garage at `garageRoot`.
    static func locate(_ text: String, base: String, garageRoot: String) throws(WriteFailure) -> Location {
        guard !text.isEmpty, !text.hasPrefix("-") else { throw .usage("'\(text)' is not a repository URL or path") }
        if let scheme = text.range(of: "://").map({ text[..<$0.lowerBound].lowercased() }) {
            if scheme == "file" {
                guard let path = URL(string: text)?.path, path.hasPrefix("/") else { throw .usage("'\(stripCredentials(text))' is not a file URL of a folder") }
                return try local(path, base: base, garageRoot: garageRoot)
            }
            guard ["https", "ssh", "git"].contains(scheme) else {
                throw .usage("'\(stripCredentials(text))' uses '\(scheme)://'; templates are fetched only over https, ssh, git or from a local repository")
            }
            return Location(clone: text, recorded: stripCredentials(text), isLocal: false)
        }
        // git's `transport::address` runs a remote helper program; `ext::` runs any command.
        if let helper = text.range(of: "::"), !text[..<helper.lowerBound].contains("/") {
            throw .usage("'\(text)' names a git remote helper; templates are fetched only over https, ssh, git or from a local repository")
        }
        // `host:path` (scp-like ssh) when a colon comes before any slash, as git reads it.
        if let colon = text.firstIndex(of: ":"), !text[..<colon].contains("/"), text.distance(from: text.startIndex, to: colon) > 1 {
            return Location(clone: text, recorded: text, isLocal: false)
        }
        return try local(text, base: base, garageRoot: garageRoot)
    }

    /// Whether `text` is fetched with git: a URL or `host:path`, or a local folder that is a git
    /// repository (its top, or a bare one). Anything else is a file or folder copied as it is.
    static func isGitSource(_ text: String, base: String) -> Bool {
        if text.contains("://") || text.contains("::") { return true }
        if let colon = text.firstIndex(of: ":"), !text[..<colon].contains("/"), text.distance(from: text.startIndex, to: colon) > 1 { return true }
        let absolute = text.hasPrefix("/") ? text : base + "/" + text
        let fm = FileManager.default
        if fm.fileExists(atPath: absolute + "/.git") { return true }
        return fm.fileExists(atPath: absolute + "/HEAD") && fm.fileExists(atPath: absolute + "/objects") && fm.fileExists(atPath: absolute + "/refs")
    }

    private static func local(_ path: String, base: String, garageRoot: String) throws(WriteFailure) -> Location {
        let absolute = URL(fileURLWithPath: path.hasPrefix("/") ? path : base + "/" + path).standardizedFileURL.path
        guard let real = GarageBoundary.realPath(absolute) else { throw .refused("no repository at '\(path)'; nothing was written") }
        let garage = GarageBoundary.realPath(garageRoot) ?? garageRoot
        return Location(clone: real, recorded: relativePath(from: garage, to: real), isLocal: true)
    }

    /// A URL without a password, and for http(s) without any user name (a token often sits there).
    static func stripCredentials(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return url }
        let user = authority[..<at]
        let host = authority[authority.index(after: at)...]
        var kept = ""
        if !scheme.hasPrefix("http"), let name = user.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first, !name.isEmpty {
            kept = name + "@"
        }
        return url[..<schemeEnd.upperBound] + kept + host + rest[authorityEnd...]
    }

    /// `to` as seen from the folder `from`, both absolute: `../club/templates`.
    static func relativePath(from: String, to: String) -> String {
        let a = from.split(separator: "/"), b = to.split(separator: "/")
        var common = 0
        while common < a.count, common < b.count, a[common] == b[common] { common += 1 }
        let parts = Array(repeating: "..", count: a.count - common) + b[common...].map(String.init)
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }

    /// Clones `location` at `ref` (a tag or branch; nil for the default branch), shallow, into a
    /// `ScratchFolder` of the garage at `garageRoot` (one a killed run leaves is removed by the
    /// next run; git itself dies with bikecheck: `GitProcess`).
    init(_ location: Location, ref: String?, timeout: Double, garageRoot: String) throws(WriteFailure) {
        do { scratch = try ScratchFolder(garage: garageRoot, purpose: "template") } catch {
            throw .refused("cannot create a temporary folder for the repository: \(error)")
        }
        let temp = scratch.path
        do {
            for sub in ["home", "template"] {
                try FileManager.default.createDirectory(atPath: temp + "/" + sub, withIntermediateDirectories: true)
            }
        } catch {
            throw .refused("cannot create a temporary folder for the repository: \(error.localizedDescription)")
        }
        self.folder = temp
        self.location = location
        // deinit runs only for an instance that was made: every failure below removes the clone
        // here, or each failed fetch would leave one in the temporary folder.
        var made = false
        defer { if !made { try? FileManager.default.removeItem(atPath: temp) } }
        let env = Self.isolatedEnvironment(home: temp + "/home")
        self.environment = env

        if let ref, ref.isEmpty || ref.hasPrefix("-") { throw .usage("'\(ref)' is not a tag or branch name") }
        let shown = location.recorded
        try Self.clone(location, ref: ref, into: temp, env, timeout: timeout)
        if Self.size(of: temp + "/repo") > Self.maximumCloneSize {
            throw .refused(
                "'\(shown)' is larger than \(Self.maximumCloneSize >> 20) MiB; nothing was written",
                help: "keep templates in a small repository of their own")
        }
        let head = try Self.git(["-C", temp + "/repo", "rev-parse", "--verify", "HEAD^{commit}"], env, timeout: timeout)
        commit = head.output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard head.status == 0, FileDecoders.isCommitID(commit) else { throw .refused("'\(shown)' has no commit to import from") }
        let tree = try Self.git(["-C", temp + "/repo", "ls-tree", "-r", "-z", "--long", "--full-tree", "HEAD"], env, timeout: timeout)
        guard tree.status == 0 else { throw .refused("cannot list the files of '\(shown)': \(tree.error)") }
        let entries = try Self.entries(tree.output, of: shown)
        self.entries = entries
        made = true
    }

    /// Nothing of this machine's or the user's git configuration applies: no credential helpers,
    /// url rewrites, hooks or prompts.
    static func isolatedEnvironment(home: String) -> [String: String] {
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GIT_") && $0.key != "SSH_ASKPASS" }
        env["HOME"] = home
        env["XDG_CONFIG_HOME"] = home
        env["GIT_CONFIG_NOSYSTEM"] = "1"
        env["GIT_CONFIG_GLOBAL"] = "/dev/null"
        env["GIT_TERMINAL_PROMPT"] = "0"
        env["GIT_SSH_COMMAND"] = "ssh -o BatchMode=yes"
        return env
    }

    /// The shallow clone, without a checkout, into `temp/repo`.
    static func clone(_ location: Location, ref: String?, into temp: String, _ env: [String: String], timeout: Double) throws(WriteFailure) {
        let shown = location.recorded
        var clone =
            safety + [
                "clone", "--quiet", "--no-checkout", "--depth", "1", "--single-branch", "--no-tags",
                "--template=" + temp + "/template",
            ]
        if location.isLocal { clone.append("--no-local") }
        if let ref { clone += ["--branch", ref] }
        clone += ["--", location.clone, temp + "/repo"]
        let r = try git(clone, env, timeout: timeout)
        guard r.status == 0 else {
            if r.timedOut {
                throw .refused(
                    "fetching '\(shown)' took longer than \(Int(timeout)) s and was stopped; nothing was written",
                    help: "check the URL and the network; BIKECHECK_GIT_TIMEOUT sets the limit in seconds")
            }
            let why = r.error.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.last ?? "git clone failed"
            throw .refused(
                "cannot fetch '\(shown)'\(ref.map { " at '\($0)'" } ?? ""): \(stripCredentials(why)); nothing was written",
                help: "check the URL (and the tag or branch); bikecheck fetches over https, ssh, git or from a local repository")
        }
    }

    /// `git ls-tree -r -z --long`'s records as entries; refused past `maximumEntries`.
    static func entries(_ listing: String, of shown: String) throws(WriteFailure) -> [Entry] {
        var entries: [Entry] = []
        for record in listing.split(separator: "\0") {
            guard let tab = record.firstIndex(of: "\t") else { continue }
            let fields = record[..<tab].split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 4 else { continue }
            entries.append(
                Entry(
                    mode: String(fields[0]), object: String(fields[2]), size: Int(fields[3]) ?? 0,
                    path: String(record[record.index(after: tab)...])))
            if entries.count > maximumEntries {
                throw .refused(
                    "'\(shown)' has more than \(maximumEntries) files; nothing was written", help: "keep templates in a small repository of their own")
            }
        }
        return entries
    }

    /// The folder templates are read from: `templates/` when the repository has one (a garage or
    /// an exported folder), else its top.
    var templatesFolder: String { entries.contains { $0.path.hasPrefix("templates/") } ? "templates/" : "" }

    /// The template files of the templates folder, by id.
    var templates: [(id: String, entry: Entry)] {
        let folder = templatesFolder
        return entries.compactMap { e in
            guard e.path.hasPrefix(folder) else { return nil }
            let name = String(e.path.dropFirst(folder.count))
            guard !name.contains("/"), name.hasSuffix(".yaml") || name.hasSuffix(".yml") else { return nil }
            return (GarageLoader.stem(name), e)
        }.sorted { $0.id < $1.id }
    }

    /// The file at `path` of the fetched commit, if there is one.
    func entry(at path: String) -> Entry? { entries.first { $0.path == path } }

    /// The bytes of a template file: only a regular file, and not too large.
    func read(_ entry: Entry) throws(WriteFailure) -> [UInt8] {
        guard entry.isRegularFile else {
            let what = entry.mode == "120000" ? "a symbolic link" : entry.mode == "160000" ? "a submodule" : "not a regular file"
            throw .refused(
                "'\(entry.path)' in '\(location.recorded)' is \(what); it was not read, nothing was written",
                help: "a templates repository holds template files themselves")
        }
        guard entry.size <= Self.maximumFileSize else {
            throw .refused("'\(entry.path)' in '\(location.recorded)' is larger than \(Self.maximumFileSize >> 10) KiB; nothing was written")
        }
        let r = try Self.git(["-C", folder + "/repo", "cat-file", "blob", entry.object], environment, timeout: 60)
        guard r.status == 0 else { throw .refused("cannot read '\(entry.path)' from '\(location.recorded)': \(r.error)") }
        return Array(r.output.utf8)
    }

    /// The bytes of `path` at an earlier `commit` of the same repository, fetched on demand (one
    /// shallow fetch of that commit); nil when the repository no longer has it.
    func read(_ path: String, at commit: String, timeout: Double) throws(WriteFailure) -> [UInt8]? {
        guard FileDecoders.isCommitID(commit) else { return nil }
        let repo = folder + "/repo"
        if commit != self.commit {
            let r = try Self.git(Self.safety + ["-C", repo, "fetch", "--quiet", "--depth", "1", "--no-tags", "origin", commit], environment, timeout: timeout)
            guard r.status == 0 else { return nil }
        }
        let tree = try Self.git(["-C", repo, "ls-tree", "-z", "--long", commit, "--", path], environment, timeout: 60)
        guard tree.status == 0, let record = tree.output.split(separator: "\0").first, let tab = record.firstIndex(of: "\t") else { return nil }
        let fields = record[..<tab].split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 4 else { return nil }
        return try read(Entry(mode: String(fields[0]), object: String(fields[2]), size: Int(fields[3]) ?? 0, path: path))
    }

    /// The source's tags newer than `tag` by their numbers (`v1.10` after `v1.9`), oldest first,
    /// when `tag` is one of its tags and a version; empty for a branch or the default branch.
    func newerTags(than tag: String?, timeout: Double) throws(WriteFailure) -> [String] {
        guard let tag, let pinned = Self.version(tag) else { return [] }
        let r = try Self.git(Self.safety + ["ls-remote", "--tags", "--refs", "--", location.clone], environment, timeout: timeout)
        guard r.status == 0 else { return [] }
        let tags = r.output.split(separator: "\n").compactMap { line -> String? in
            guard let tab = line.firstIndex(of: "\t") else { return nil }
            let ref = line[line.index(after: tab)...]
            return ref.hasPrefix("refs/tags/") ? String(ref.dropFirst("refs/tags/".count)) : nil
        }
        guard tags.contains(tag) else { return [] }
        let newer = tags.compactMap { t in Self.version(t).map { (t, $0) } }.filter { pinned.lexicographicallyPrecedes($0.1) }
        return newer.sorted { $0.1.lexicographicallyPrecedes($1.1) }.map(\.0)
    }

    /// A tag's numbers (`v1.10.2` → 1, 10, 2), nil for a tag that is not a version.
    static func version(_ tag: String) -> [Int]? {
        var text = Substring(tag)
        if text.first == "v" || text.first == "V" { text = text.dropFirst() }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { Int($0) }
        return !parts.isEmpty && numbers.count == parts.count ? numbers : nil
    }

    /// Options on every git call that talks to the remote.
    static let safety = [
        "-c", "protocol.allow=never", "-c", "protocol.https.allow=always",
        "-c", "protocol.ssh.allow=always", "-c", "protocol.git.allow=always", "-c", "protocol.file.allow=always",
        "-c", "protocol.ext.allow=never", "-c", "core.hooksPath=/dev/null", "-c", "core.symlinks=false",
        "-c", "submodule.recurse=false", "-c", "fetch.recurseSubmodules=false", "-c", "credential.helper=",
        "-c", "core.fsmonitor=false", "-c", "transfer.fsckObjects=true",
    ]

    private static func git(_ arguments: [String], _ environment: [String: String], timeout: Double) throws(WriteFailure) -> GitProcess.Output {
        do {
            return try GitProcess.run(arguments, environment: environment, timeout: timeout)
        } catch {
            throw .refused(error.description + "; nothing was written", help: "bikecheck needs git installed to fetch templates")
        }
    }

    private static func size(of folder: String) -> Int {
        var total = 0
        let e = FileManager.default.enumerator(atPath: folder)
        while let item = e?.nextObject() as? String {
            if let attributes = try? FileManager.default.attributesOfItem(atPath: folder + "/" + item),
                let n = attributes[.size] as? Int
            {
                total += n
            }
        }
        return total
    }
}
