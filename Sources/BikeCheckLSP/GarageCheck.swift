import BikeCheckKit
import Diagnostics
import Foundation

/// One garage as the editor sees it: checked by the same load as `bikecheck validate`, with the
/// open buffers laid over the files on disk. The parses of one check are kept for the next, so
/// an edit re-parses only the file it changed; the checks across files run on everything.
struct GarageCheck {
    let root: String
    /// `root` with symbolic links resolved, for paths an editor opened through another name.
    private let resolvedRoot: String
    private var parsed: ParsedFiles?
    private(set) var loaded: LoadedGarage?
    /// What was last published, by file relative to the garage (files without problems absent).
    private var published: [String: [LSPDiagnostic]] = [:]
    /// The activity cache as last read, and the names, sizes and times of its files then: an edit
    /// of a YAML file does not change it, so it is read again only when its files changed (a
    /// sync meanwhile). `BIKECHECK_NO_CACHE` reads it every time.
    private var activities: (files: [FileStamp], read: ActivityCacheLoader.SummaryResult)?

    init(root: String) {
        self.root = root
        resolvedRoot = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
    }

    /// A path relative to the garage, or nil outside it.
    func relative(_ path: String) -> String? {
        for base in [root, resolvedRoot] where path.hasPrefix(base + "/") { return String(path.dropFirst(base.count + 1)) }
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        if resolved.hasPrefix(resolvedRoot + "/") { return String(resolved.dropFirst(resolvedRoot.count + 1)) }
        return nil
    }

    func uri(of file: String) -> String { URL(fileURLWithPath: root + "/" + file).absoluteString }

    /// Checks the garage (`overlay`: bytes by relative path for the open buffers) and returns what
    /// to publish: every file whose diagnostics changed (an empty list for one that became
    /// clean) and every file of `alwaysPublishing`, by file name.
    mutating func run(overlay: [String: [UInt8]], today: Day, alwaysPublishing: Set<String>) -> [(file: String, diagnostics: [LSPDiagnostic])] {
        // As `bikecheck validate` loads: activity summaries, checked as of today.
        var options = GarageLoader.Options(activities: .summaries, today: today, keepsParsedFiles: true)
        options.overlay = overlay
        if !options.bypassesDerivedCaches {
            let files = Self.activityFiles(root)
            if activities?.files != files {
                activities = (files, ActivityCacheLoader.loadSummaries(root: root))
            }
            options.readSummaries = activities?.read
        }
        let loaded = GarageLoader.load(at: root, options: options, reusing: parsed)
        parsed = loaded.parsedFiles
        self.loaded = loaded
        var now: [String: [LSPDiagnostic]] = [:]
        for d in loaded.diagnostics { now[d.location.file, default: []].append(lspDiagnostic(d, loaded.sources)) }
        let files = Set(now.keys).union(published.keys).union(alwaysPublishing).sorted()
        let changed = files.filter { alwaysPublishing.contains($0) || now[$0] != published[$0] }
        published = now
        return changed.map { ($0, now[$0] ?? []) }
    }

    /// The files of `activities/` with their sizes, modification times and inodes, to notice a
    /// change (the folder's own first: a file added, removed or renamed changes it).
    static func activityFiles(_ root: String) -> [FileStamp] {
        let folder = root + "/activities"
        var info = stat()
        var stamps = [FileStamp(name: [], stat(folder, &info) == 0 ? info : nil)]
        guard let dir = opendir(folder) else { return stamps }
        defer { closedir(dir) }
        let fd = dirfd(dir)
        while let item = readdir(dir) {
            withUnsafeBytes(of: item.pointee.d_name) { name in
                guard name.first != UInt8(ascii: "."), let path = name.baseAddress?.assumingMemoryBound(to: CChar.self) else { return }
                // Looked at by name in the open folder: no path is built per file.
                stamps.append(FileStamp(name: Array(name.prefix { $0 != 0 }), fstatat(fd, path, &info, 0) == 0 ? info : nil))
            }
        }
        // In readdir's order, not sorted: the folder's while it is unchanged, and when it changed
        // its own stamp did too.
        return stamps
    }

    /// One file's name, size, modification time and inode (all -1 when it cannot be read).
    struct FileStamp: Equatable {
        var name: [UInt8]
        var size = -1, seconds = -1, nanoseconds = -1
        var inode: UInt64 = 0

        init(name: [UInt8], _ info: stat?) {
            self.name = name
            guard let info else { return }
            #if canImport(Darwin)
                let time = info.st_mtimespec
            #else
                let time = info.st_mtim
            #endif
            size = Int(info.st_size)
            seconds = time.tv_sec
            nanoseconds = time.tv_nsec
            inode = UInt64(info.st_ino)
        }
    }

    /// A diagnostic as the protocol has it. The message is `validate`'s, with its help line after
    /// it (an editor has no other place for it).
    func lspDiagnostic(_ d: Diagnostic, _ sources: [String: SourceText]) -> LSPDiagnostic {
        let severity =
            switch d.severity {
            case .error: 1
            case .warning: 2
            case .note: 3
            }
        let related = d.notes.map { note in
            DiagnosticRelatedInformation(
                location: Location(uri: uri(of: note.location.file), range: range(note.location, sources)), message: note.message)
        }
        return LSPDiagnostic(
            range: range(d.location, sources), severity: severity, code: d.id,
            message: d.message + (d.help.map { "\nhelp: " + $0 } ?? ""), relatedInformation: related.isEmpty ? nil : related,
            data: d.fix.map(FixData.init(replacement:)))
    }

    private func range(_ location: SourceLocation, _ sources: [String: SourceText]) -> TextRange {
        if let text = sources[location.file] { return text.range(of: location.range) }
        // A file with no text (unreadable, too large): its lines and columns as they are.
        guard let r = location.range else { return TextRange(start: Position(line: 0, character: 0), end: Position(line: 0, character: 0)) }
        return TextRange(
            start: Position(line: r.start.line - 1, character: r.start.column - 1), end: Position(line: r.end.line - 1, character: r.end.column - 1))
    }
}
