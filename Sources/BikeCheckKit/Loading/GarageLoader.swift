import Diagnostics
import Foundation
import LocatedYAML

/// Everything the loading pipeline produced: the garage as far as it could be read, the cached
/// activities, every diagnostic, and the source texts for showing them.
package struct LoadedGarage: Sendable {
    /// The cached activities, as much of them as the load read (`GarageLoader.ActivityData`).
    package enum Activities: Sendable {
        /// Not read (`.skip`).
        case none
        /// Every field of every activity (`.full`).
        case full([Activity])
        /// What status and the reports need (`.summaries`).
        case summaries(ActivitySummaries)
    }

    package var garage: Garage
    package var activities: Activities
    package var diagnostics: [Diagnostic]
    package var sources: [String: SourceText]
    /// The YAML files as parsed, when loaded with `keepsParsedFiles`: a write's re-check reuses them.
    package var parsedFiles: ParsedFiles?
    /// The commit its files were read from (`GarageLoader.Options.snapshot`); nil: the work tree.
    package var commit: GitSnapshot.Commit?

    package var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    /// The activities as summaries: those read, those of the full activities, or none.
    package var activitySummaries: ActivitySummaries {
        switch activities {
        case .none: ActivitySummaries()
        case .full(let all): ActivitySummaries(all)
        case .summaries(let summaries): summaries
        }
    }
}

/// The loading pipeline: read → compose YAML → decode → resolve → check. A broken file skips the
/// later stages; every other file keeps going, so one run reports every problem.
package enum GarageLoader {
    package struct Options: Sendable {
        /// How much of the activity cache to read: all of it, what status needs, or none.
        package var activities: ActivityData
        /// Today, for plausibility checks (dates in the future); nil skips them.
        package var today: Day?
        /// Keep the parsed YAML files in `LoadedGarage.parsedFiles`, for a write's re-check.
        package var keepsParsedFiles: Bool
        /// Read everything from the garage's own files, bypassing every derived cache: the
        /// activity index and the garage cache are neither read nor written, and earlier parses
        /// are not reused (a write's re-check parses every file). Output is the same either way;
        /// this is for debugging the fast paths. `BIKECHECK_NO_CACHE=1` turns it on.
        package var bypassesDerivedCaches: Bool
        /// Gets the time each stage took (`BIKECHECK_TIMINGS=1`: printed on standard error).
        package var timings: (@Sendable (LoadTimings) -> Void)?
        /// Bytes to read instead of a file's on disk, by path relative to the garage: the unsaved
        /// buffers of an editor (`bikecheck lsp`). Only files that exist on disk are read.
        package var overlay: [String: [UInt8]] = [:]
        /// The garage's files as git holds them at a commit or in the index, read instead of the
        /// disk's (`--rev`, `diff`, the pre-commit check). A file whose bytes are those a garage
        /// cache entry of the work tree's file was made from is read from that entry; none is
        /// written.
        package var snapshot: GitSnapshot?
        /// With `.summaries`: the activity cache as the caller already read it
        /// (`ActivityCacheLoader.loadSummaries`), used instead of reading it again. The language
        /// server re-checks on every edit and reads the cache again only when its files changed.
        package var readSummaries: ActivityCacheLoader.SummaryResult?

        /// `environment` gives the two debugging switches, `BIKECHECK_NO_CACHE` and
        /// `BIKECHECK_TIMINGS` (on when set to anything but empty or `0`).
        package init(
            activities: ActivityData = .full, today: Day? = nil, keepsParsedFiles: Bool = false,
            environment: [String: String] = ProcessInfo.processInfo.environment
        ) {
            self.activities = activities
            self.today = today
            self.keepsParsedFiles = keepsParsedFiles
            func on(_ name: String) -> Bool { environment[name].map { !$0.isEmpty && $0 != "0" } ?? false }
            bypassesDerivedCaches = on("BIKECHECK_NO_CACHE")
            if on("BIKECHECK_TIMINGS") {
                timings = { (taken: LoadTimings) in FileHandle.standardError.write(Data((taken.line + "\n").utf8)) }
            }
        }
    }

    /// What to read of the activity cache. Each checks the whole cache and reports the same
    /// diagnostics; summaries take a fraction of the time and memory.
    package enum ActivityData: Sendable, Equatable {
        /// None: for commands that do not look at activities.
        case skip
        /// `LoadedGarage.Activities.full`, for commands that need every field.
        case full
        /// `LoadedGarage.Activities.summaries`, enough for status and for validating.
        case summaries
    }

    /// `reusing`: the files an earlier load parsed; those whose bytes (or, when they were settled,
    /// size, times and inode) are unchanged are not parsed again (see `ParsedFiles`). Files neither
    /// kept there nor changed since the garage cache's entry for them come from that entry
    /// (`GarageCache`).
    package static func load(at root: String, options: Options = Options(), reusing: ParsedFiles? = nil) -> LoadedGarage {
        let started = LoadTimings.now()
        var diagnostics: [Diagnostic] = []
        var sources: [String: SourceText] = [:]

        // The activity cache does not depend on the YAML files: read it meanwhile, on other threads.
        let reading = DispatchGroup()
        let index = !options.bypassesDerivedCaches
        nonisolated(unsafe) var cache: ActivityCacheLoader.Result?
        nonisolated(unsafe) var summaries: ActivityCacheLoader.SummaryResult?
        nonisolated(unsafe) var activitiesTime = 0.0
        switch options.activities {
        case .skip: break
        case .full:
            DispatchQueue.global().async(group: reading) {
                let start = LoadTimings.now()
                cache = ActivityCacheLoader.load(root: root)
                activitiesTime = LoadTimings.since(start)
            }
        case .summaries where options.readSummaries != nil:
            summaries = options.readSummaries
        case .summaries:
            DispatchQueue.global().async(group: reading) {
                let start = LoadTimings.now()
                summaries = ActivityCacheLoader.loadSummaries(root: root, index: index)
                activitiesTime = LoadTimings.since(start)
            }
        }

        var files = Files(
            root: root, reusing: options.bypassesDerivedCaches ? nil : reusing, keeping: options.keepsParsedFiles,
            cache: options.bypassesDerivedCaches ? nil : GarageCache(root: root))
        files.overlay = options.overlay
        files.snapshot = options.snapshot
        let settings = files.decode("garage.yaml", \.settings, &diagnostics, &sources) { FileDecoders.settings($0, &$1) } ?? GarageSettings()
        let templates = files.decodeFolder("templates", kind: "template", \.templates, &diagnostics, &sources) {
            FileDecoders.template(id: TemplateID($0), $1, &$2)
        }
        // Bikes and parts are decoded with the garage's currency: kept ones only serve the same.
        files.currency(settings.currency)
        var bikes = files.decodeFolder("bikes", kind: "bike", \.bikes, context: settings.currency, &diagnostics, &sources) {
            FileDecoders.bike(id: BikeID($0), $1, &$2, currency: settings.currency)
        }
        // Gear (`gear/`) is a bike with a kind: after the bikes, one namespace of ids with them.
        let gear = files.decodeFolder("gear", kind: "gear", \.bikes, context: settings.currency, &diagnostics, &sources) {
            FileDecoders.bike(id: BikeID($0), $1, &$2, currency: settings.currency, gear: true)
        }
        bikes += Resolver.gearWithOwnIDs(gear, bikes: bikes, files: files.listed("bikes")?.names ?? [], &diagnostics)
        var parts = files.decodeFolder("parts", kind: "part", \.parts, context: settings.currency, &diagnostics, &sources) {
            FileDecoders.part(id: PartID($0), $1, &$2, currency: settings.currency)
        }
        // rides.yaml is optional.
        let rides =
            files.exists("rides.yaml")
            ? files.decode("rides.yaml", \.rides, &diagnostics, &sources) { FileDecoders.rides($0, &$1) } ?? [] : []

        // Resolve and check; what a file's bike or part alone gives is reused from the load
        // whose parses this one reused when nothing it depends on changed (`CheckedFiles`).
        var stage = LoadTimings.now()
        var resolver = Resolver(settings: settings, templates: templates)
        resolver.mountOnParts(&parts)
        var checks = FileChecks(
            earlier: files.reusing?.checked, files: options.keepsParsedFiles ? files.kept : nil, today: options.today, templates: templates,
            bikes: bikes, parts: parts)
        let resolved = Resolver.shareRides(bikes.map { checks.resolve($0, &resolver) })
        resolver.reportTemplateGaps()
        resolver.checkOwnership(bikes, parts: parts)
        resolver.checkRides(rides, bikes: bikes)
        let resolvedParts = parts.map { checks.resolve($0, &resolver) }
        checks.checkMounts(parts, bikes: bikes, &resolver)
        resolver.checkRiders(bikes.map(\.rider) + parts.map(\.rider))
        diagnostics += resolver.diagnostics
        files.timings.resolve = LoadTimings.since(stage)
        stage = LoadTimings.now()
        if let today = options.today { diagnostics += checks.checks(bikes: bikes, rides: rides, parts: parts, today: today) }
        if options.keepsParsedFiles { files.kept.checked = checks.made }

        files.timings.check = LoadTimings.since(stage)
        var activities = LoadedGarage.Activities.none
        reading.wait()
        files.timings.activities = activitiesTime
        if let cache {
            activities = .full(cache.activities)
            diagnostics += cache.diagnostics
            sources.merge(cache.sources) { a, _ in a }
        }
        if let summaries {
            activities = .summaries(summaries.summaries)
            diagnostics += summaries.diagnostics
            sources.merge(summaries.sources) { a, _ in a }
        }
        stage = LoadTimings.now()
        switch activities {
        case .none: break
        // Whole activities are summarised only when some hand-entered ride needs the check.
        case .full(let all): diagnostics += Checks.ridesAlsoOnStrava(rides, bikes: bikes, summaries: ActivitySummaries(all))
        case .summaries(let read): diagnostics += Checks.ridesAlsoOnStrava(rides, bikes: bikes, summaries: read)
        }
        files.timings.check += LoadTimings.since(stage)
        files.timings.indexed = summaries?.indexed ?? 0

        let garage = Garage(root: root, settings: settings, bikes: resolved, templates: templates, rides: rides, parts: resolvedParts)
        files.readSources(shownBy: diagnostics, into: &sources)
        // The entries are the work tree's: a commit's files say nothing of which are gone.
        // Not again while the garage has the same files as when the load it reuses pruned: this
        // load writes entries only for files there are (one another run wrote meanwhile for a file
        // since gone is used only for that file's identity, and goes with the next change of files).
        if options.snapshot == nil, let cache = files.cache {
            if files.reusing?.prunedWith != files.present { cache.prune(keeping: Set(files.present.joined())) }
            files.kept.prunedWith = files.present
        }
        files.timings.total = LoadTimings.since(started)
        options.timings?(files.timings)
        return LoadedGarage(
            garage: garage, activities: activities,
            diagnostics: Diagnostic.limitedPerFile(Diagnostic.sortedForDisplay(diagnostics)), sources: sources,
            parsedFiles: options.keepsParsedFiles ? files.kept : nil, commit: options.snapshot?.commit)
    }

    /// One YAML file read, parsed and decoded: its value (nil when missing or broken), its
    /// diagnostics and its source text.
    struct DecodedFile<T: Sendable>: Sendable {
        var value: T?
        var diagnostics: [Diagnostic] = []
        var source: SourceText?
        /// Where the source text is, when the file came from the garage cache: it is read only to
        /// show it under a diagnostic (`Files.readSources`).
        var unreadSource: UnreadSource?
        /// Seconds spent reading, composing and decoding it in the load that returned it.
        var time = LoadTimings.FileTime()
    }

    /// A file's text not read yet, and which bytes it must be.
    struct UnreadSource: Sendable {
        var path: String
        var stamp: GarageCache.SourceStamp
    }

    /// What `decodeFile` made of one file: the file, in the box a load keeps it in (`keeps`
    /// false: not to be kept, it could not be read or came from git), the time this load spent on
    /// it, and whether it parsed it.
    struct Outcome<T: Sendable>: Sendable {
        var kept: ParsedFiles.Kept<T>
        var keeps = true
        var time = LoadTimings.FileTime()
        var parsed = false

        /// A file not to keep.
        init(alone file: DecodedFile<T>, parsed: Bool = false) {
            kept = ParsedFiles.Kept(bytes: nil, key: nil, file: file, generation: 0)
            keeps = false
            time = file.time
            self.parsed = parsed
        }

        init(kept: ParsedFiles.Kept<T>, time: LoadTimings.FileTime, parsed: Bool = false) {
            self.kept = kept
            self.time = time
            self.parsed = parsed
        }
    }

    /// Reads and decodes one file (`access`: whether and where the garage's boundary lets it be
    /// read, asked only when it is read from the disk): the kept parse when `kept` was made from
    /// the same file, else the garage cache's entry when `cache` has one for this version of it,
    /// else a parse (saved in `cache`). `context` is what decoding depends on besides the bytes (the garage currency,
    /// for bikes and parts). `overlay` is the file's bytes when an editor holds them (neither
    /// looked up in nor saved to `cache`: the entry is the file on disk's). `git` is the file as
    /// a `GitSnapshot` has it, read instead of the disk's (`.some(nil)`: git has no such file);
    /// the cache's entry for the work tree's file serves when it was made from the same bytes.
    /// What is kept of a file decoded now is of load `generation` (`ParsedFiles.generation`).
    static func decodeFile<T: CacheCodable>(
        _ relative: String, access: @autoclosure () -> GarageBoundary.Access, kept: ParsedFiles.Kept<T>? = nil, cache: GarageCache? = nil,
        context: String? = nil, generation: Int = 1,
        overlay: [UInt8]? = nil, git: GitSnapshot.File?? = nil,
        _ body: (YAMLNode, inout NodeReader) -> T?
    ) -> Outcome<T> {
        if let git { return decodeFile(relative, git: git, cache: cache, context: context, body) }
        guard case .read(let path) = access() else {
            return Outcome(alone: DecodedFile(value: nil, diagnostics: [GarageBoundary.outsideDiagnostic(relative)]))
        }
        let readStart = LoadTimings.now()
        // The file's version before its bytes are read: an entry made from it is that version's.
        let key = cache == nil || overlay != nil ? nil : ActivityIndex.key(path)
        if let key {
            if let kept, kept.key == key {
                return Outcome(kept: kept, time: LoadTimings.FileTime(read: LoadTimings.since(readStart)))
            }
            if let entry: GarageCache.Entry<T> = cache?.entry(relative, key: key, context: context)
                ?? cache?.sameContent(relative, file: path, key: key, context: context)
            {
                var file = entry.file
                file.unreadSource = UnreadSource(path: path, stamp: entry.source)
                let time = LoadTimings.FileTime(read: LoadTimings.since(readStart), cached: true)
                return Outcome(kept: ParsedFiles.Kept(bytes: nil, key: key, file: file, generation: generation), time: time)
            }
        }
        let read: FileRead =
            if let overlay { overlay.count > FileSizeLimit.garageFile ? .tooLarge(overlay.count) : .bytes(overlay) } else {
                readFile(path, limit: FileSizeLimit.garageFile)
            }
        let readTime = LoadTimings.since(readStart)
        guard case .bytes(let bytes) = read else {
            return Outcome(alone: DecodedFile(value: nil, diagnostics: unread(relative, read)))
        }
        var outcome: Outcome<T>
        if let kept, kept.bytes == bytes {
            outcome = Outcome(kept: kept, time: LoadTimings.FileTime(read: readTime))
        } else {
            var file = parse(relative, bytes, body)
            file.time.read = readTime
            outcome = Outcome(kept: ParsedFiles.Kept(bytes: bytes, key: nil, file: file, generation: generation), time: file.time, parsed: true)
        }
        // Cached only when the file did not change while it was read, and is settled: a file
        // changed within its timestamps' granularity could change again with the same key.
        if let cache, let key, !key.isSettling, ActivityIndex.key(path) == key {
            cache.store(outcome.kept.file, relative: relative, key: key, context: context, source: bytes)
            if outcome.kept.key != key {
                let kept = outcome.kept
                outcome.kept = ParsedFiles.Kept(bytes: bytes, key: key, file: kept.file, generation: kept.generation)
            }
        }
        return outcome
    }

    /// `decodeFile` of the file as a `GitSnapshot` has it (`nil`: git has no such file); the
    /// cache's entry for the work tree's file serves when it was made from the same bytes.
    private static func decodeFile<T: CacheCodable>(
        _ relative: String, git: GitSnapshot.File?, cache: GarageCache?, context: String?,
        _ body: (YAMLNode, inout NodeReader) -> T?
    ) -> Outcome<T> {
        let read: FileRead
        switch git {
        case .bytes(let bytes, _)?: read = .bytes(bytes)
        case .tooLarge(let size)?: read = .tooLarge(size)
        case .outside?: return Outcome(alone: DecodedFile(value: nil, diagnostics: [GarageBoundary.outsideDiagnostic(relative)]))
        case nil: read = .unreadable
        }
        if case .bytes(let bytes) = read, let cache,
            let entry: GarageCache.Entry<T> = cache.entry(relative, madeFrom: GarageCache.SourceStamp(bytes), context: context)
        {
            var file = entry.file
            file.source = SourceText(path: relative, bytes: bytes)
            file.time = LoadTimings.FileTime(cached: true)
            return Outcome(alone: file)
        }
        guard case .bytes(let bytes) = read else {
            return Outcome(alone: DecodedFile(value: nil, diagnostics: unread(relative, read)))
        }
        return Outcome(alone: parse(relative, bytes, body), parsed: true)
    }

    /// Why a file was not read: too large, or unreadable (none when it was).
    static func unread(_ relative: String, _ read: FileRead) -> [Diagnostic] {
        switch read {
        case .bytes: []
        case .tooLarge(let size): [FileSizeLimit.tooLarge(relative, size: size, limit: FileSizeLimit.garageFile, kind: "a garage file")]
        case .unreadable:
            [
                .error(
                    .unreadableFile, "cannot read the file", at: SourceLocation(file: relative),
                    help: "check that it is a file you may read")
            ]
        }
    }

    /// Parses and decodes one file's bytes; `parsed`: their document (at `relative`, with the
    /// garage's limits) when the caller has it; `warnings` false: the decoder builds errors only.
    static func parse<T>(
        _ relative: String, _ bytes: [UInt8], parsed: YAMLDocument? = nil, warnings: Bool = true, _ body: (YAMLNode, inout NodeReader) -> T?
    ) -> DecodedFile<T> {
        var file = DecodedFile<T>(value: nil)
        var start = LoadTimings.now()
        if let markers = unresolvedMerge(relative, bytes) {
            // git's conflict markers: a merge to finish, not YAML to read.
            file.source = markers.source
            file.diagnostics = [markers.diagnostic]
            return file
        }
        let doc = parsed ?? YAMLDocument(path: relative, bytes: bytes, limits: .garage)
        file.time.compose = LoadTimings.since(start)
        file.source = doc.source
        file.diagnostics = doc.diagnostics
        guard doc.isUsable, let node = doc.root else { return file }
        start = LoadTimings.now()
        var r = NodeReader(file: relative, warnings: warnings)
        file.value = body(node, &r)
        file.diagnostics += r.diagnostics
        file.time.decode = LoadTimings.since(start)
        return file
    }

    /// git's conflict markers in a file (`<<<<<<<`, then `=======`, then `>>>>>>>`, each at the
    /// start of a line): an unresolved merge, located at its first marker, with notes at the others.
    static func unresolvedMerge(_ relative: String, _ bytes: [UInt8]) -> (diagnostic: Diagnostic, source: SourceText)? {
        // Every file is looked at: memchr from line to line, not a loop over bytes.
        let lt = [UInt8](repeating: UInt8(ascii: "<"), count: 7)
        let first: Int? = bytes.withUnsafeBufferPointer { b -> Int? in
            guard let base = b.baseAddress else { return nil }
            var at = 0
            while at < b.count {
                if b.count - at >= 7, memcmp(base + at, lt, 7) == 0 { return at }
                guard let newline = memchr(base + at, Int32(UInt8(ascii: "\n")), b.count - at) else { return nil }
                at = base.distance(to: newline.assumingMemoryBound(to: UInt8.self)) + 1
            }
            return nil
        }
        guard let first else { return nil }
        let source = SourceText(path: relative, bytes: bytes)
        func marker(_ char: Character, after offset: Int) -> Int? {
            let run = [UInt8](repeating: UInt8(ascii: char.unicodeScalars.first!), count: 7)
            var line = source.position(ofOffset: offset).line
            while line < source.lineStarts.count {
                let start = source.lineStarts[line]
                if bytes[start...].starts(with: run),
                    start + 7 == bytes.count || [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains(bytes[start + 7])
                {
                    return start
                }
                line += 1
            }
            return nil
        }
        guard let middle = marker("=", after: first), let last = marker(">", after: middle) else { return nil }
        func at(_ offset: Int) -> SourceLocation {
            let lineEnd = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            return SourceLocation(
                file: relative, range: SourceRange(start: source.position(ofOffset: offset), end: source.position(ofOffset: min(lineEnd, offset + 7))))
        }
        return (
            .error(
                .unresolvedMerge, "'\(relative)' holds git's conflict markers: a merge was not finished here", at: at(first),
                notes: [.init("the other side's lines start here", at: at(middle)), .init("and end here", at: at(last))],
                help: "keep the lines you want from both sides, remove the three marker lines, run 'bikecheck validate', then 'git add' the file"),
            source
        )
    }

    /// The YAML files of one load: where they are, the kept parses it may reuse, the garage
    /// cache, and what it keeps.
    struct Files {
        let root: String
        /// The garage's symlink policy, its root's real path looked up once for the load.
        let boundary: GarageBoundary
        var reusing: ParsedFiles?
        let keeping: Bool
        let cache: GarageCache?
        var kept = ParsedFiles()
        var timings = LoadTimings()
        /// The files there are (relative to the garage), whether or not they could be read: each
        /// file read alone, each folder's (`ParsedFiles.Listing.relatives`, the same array from
        /// one load to the next while the folder is unchanged: compared at once), in load order.
        var present: [[String]] = []
        /// The files whose source text was not read (they came from the cache), for `readSources`.
        var unread: [String: UnreadSource] = [:]
        /// `Options.overlay`.
        var overlay: [String: [UInt8]] = [:]
        /// `Options.snapshot`: where the files are read from instead of the disk.
        var snapshot: GitSnapshot?

        /// Whether the garage has the file `relative`.
        func exists(_ relative: String) -> Bool {
            if let snapshot { return snapshot.files[relative] != nil }
            return FileManager.default.fileExists(atPath: root + "/" + relative)
        }

        /// The YAML files of `folder` (names, sorted), or nil when it is a link that leads
        /// outside the garage.
        func names(in folder: String) -> [String]? {
            if let snapshot {
                if snapshot.files[folder] == .outside { return nil }
                let names = snapshot.files.keys.filter { $0.hasPrefix(folder + "/") }.map { String($0.dropFirst(folder.count + 1)) }
                return names.filter { ($0.hasSuffix(".yaml") || $0.hasSuffix(".yml")) && !$0.hasPrefix(".") }.sorted()
            }
            if boundary.access(folder) == .outside { return nil }
            return yamlFiles(in: root + "/" + folder)
        }

        /// `names(in:)`, listed once per load; not at all when the load this one reuses listed
        /// the folder and it has not changed since (`ParsedFiles.Listing`: the same key, taken
        /// before it was listed and settled then).
        mutating func listed(_ folder: String) -> ParsedFiles.Listing? {
            if let listing = kept.listings[folder] { return listing }
            func listing(_ names: [String], key: ActivityIndex.Key? = nil) -> ParsedFiles.Listing {
                ParsedFiles.Listing(root: root, folder: folder, names: names, key: key)
            }
            guard snapshot == nil else { return names(in: folder).map { listing($0) } }
            if boundary.access(folder) == .outside { return nil }
            let path = root + "/" + folder
            let key = keeping ? ParsedFiles.Listing.key(ofFolder: path) : nil
            if let key, let earlier = reusing?.listings[folder], earlier.key == key {
                kept.listings[folder] = earlier
                return earlier
            }
            let names = yamlFiles(in: path)
            // Kept for the next load only when the folder did not change while it was listed, and
            // is settled: one changed within its times' granularity could change again unseen.
            let settled = key.flatMap { !$0.isSettling && ParsedFiles.Listing.key(ofFolder: path) == $0 ? $0 : nil }
            let made = listing(names, key: settled)
            kept.listings[folder] = made
            return made
        }

        /// The file as the snapshot has it, when reading one (`.some(nil)`: it has none).
        func git(_ relative: String) -> GitSnapshot.File?? { snapshot.map { $0.files[relative] } }

        init(root: String, reusing: ParsedFiles?, keeping: Bool, cache: GarageCache? = nil) {
            self.root = root
            boundary = GarageBoundary(root: root)
            self.reusing = reusing
            self.keeping = keeping
            self.cache = cache
            kept.generation = (reusing?.generation ?? 0) + 1
            if keeping, let reusing {
                kept.templates.reserveCapacity(reusing.templates.count)
                kept.bikes.reserveCapacity(reusing.bikes.count)
                kept.parts.reserveCapacity(reusing.parts.count)
            }
        }

        /// Reads the text of every file from the cache that one of `diagnostics` shows (its own
        /// location or a note's), so excerpts are as a parse would have shown them. A file whose
        /// bytes are no longer those its entry was made from (changed during this load) is left
        /// without an excerpt rather than shown with text that was not parsed.
        func readSources(shownBy diagnostics: [Diagnostic], into sources: inout [String: SourceText]) {
            guard !unread.isEmpty else { return }
            for d in diagnostics {
                for file in [d.location.file] + d.notes.map(\.location.file) where sources[file] == nil {
                    guard let source = unread[file], let bytes = readBytes(source.path, limit: FileSizeLimit.garageFile),
                        GarageCache.SourceStamp(bytes) == source.stamp
                    else { continue }
                    sources[file] = SourceText(path: file, bytes: bytes)
                }
            }
        }

        /// Notes one file's outcome: its time, its source text (or where to read it).
        mutating func account<T>(_ relative: String, _ outcome: Outcome<T>, _ sources: inout [String: SourceText]) {
            timings.add(outcome.time)
            let file = outcome.kept
            if let source = file.file.source {
                sources[relative] = source
            } else if let unreadSource = file.file.unreadSource {
                unread[relative] = unreadSource
            }
        }

        /// Notes the currency bikes and parts are decoded with; kept ones made with another are
        /// not reused.
        mutating func currency(_ currency: String?) {
            kept.currency = currency
            if let earlier = reusing, earlier.currency != currency {
                reusing?.bikes = [:]
                reusing?.parts = [:]
            }
        }

        /// Parses and decodes one file; nil when the file is missing or broken.
        mutating func decode<T: CacheCodable>(
            _ relative: String, _ kind: WritableKeyPath<ParsedFiles, [String: ParsedFiles.Kept<T>]>, _ diagnostics: inout [Diagnostic],
            _ sources: inout [String: SourceText], _ body: (YAMLNode, inout NodeReader) -> T?
        ) -> T? {
            present.append([relative])
            let outcome = decodeFile(
                relative, access: boundary.access(relative), kept: reusing?[keyPath: kind][relative], cache: cache, generation: kept.generation,
                overlay: overlay[relative], git: git(relative), body)
            note(relative, outcome, kind)
            account(relative, outcome, &sources)
            diagnostics += outcome.kept.file.diagnostics
            return outcome.kept.file.value
        }

        /// What this load keeps of a file, and whether it parsed it.
        mutating func note<T>(_ relative: String, _ outcome: Outcome<T>, _ kind: WritableKeyPath<ParsedFiles, [String: ParsedFiles.Kept<T>]>) {
            guard keeping else { return }
            if outcome.parsed { kept.parsed.insert(relative) }
            kept[keyPath: kind][relative] = outcome.keeps ? outcome.kept : nil
        }

        /// Every YAML file of a folder, each named after the id of what it holds. Files are
        /// independent, so they are parsed and decoded on all cores; results and diagnostics are
        /// merged in file name order, as if read one by one.
        mutating func decodeFolder<T: CacheCodable>(
            _ folder: String, kind: String, _ keyPath: WritableKeyPath<ParsedFiles, [String: ParsedFiles.Kept<T>]>,
            context: String? = nil, _ diagnostics: inout [Diagnostic], _ sources: inout [String: SourceText],
            _ body: @Sendable (String, YAMLNode, inout NodeReader) -> T?
        ) -> [T] {
            // A folder that links outside the garage is not listed, let alone read.
            guard let listing = listed(folder) else {
                diagnostics.append(GarageBoundary.outsideDiagnostic(folder))
                return []
            }
            let cache = cache, inFolder = boundary.folder(folder), overlay = overlay, snapshot = snapshot, generation = kept.generation
            let names = listing.names, relatives = listing.relatives, paths = listing.paths, ids = listing.ids
            present.append(relatives)
            let earlier = reusing?[keyPath: keyPath] ?? [:]
            // nil: the file's name is no id.
            let decodeOne = { (index: Int) -> Outcome<T>? in
                guard let id = ids[index] else { return nil }
                let relative = relatives[index]
                return decodeFile(
                    relative, access: inFolder.access(names[index], relative, path: paths[index]), kept: earlier[relative], cache: cache,
                    context: context, generation: generation, overlay: overlay.isEmpty ? nil : overlay[relative],
                    git: snapshot.map { $0.files[relative] }
                ) { node, r in
                    body(id, node, &r)
                }
            }
            // With an earlier load's parses of all files but one (an editor's re-check after an
            // edit, a write's re-check), most files are only looked at: one thread does it, the
            // start and the waits of a pool of threads would cost more.
            let decoded = Self.allKeptButOne(relatives, earlier) ? names.indices.map(decodeOne) : concurrentMap(names.count, decodeOne)
            var values: [T] = []
            // What this load keeps of the folder's files, out of `kept` while they are noted (a
            // key path once, not per file).
            var keptFiles: [String: ParsedFiles.Kept<T>] = [:]
            if keeping { swap(&keptFiles, &kept[keyPath: keyPath]) }
            for index in names.indices {
                let relative = relatives[index]
                guard let outcome = decoded[index] else {
                    diagnostics.append(GarageLoader.badID(names[index], kind: kind, relative: relative))
                    continue
                }
                if keeping {
                    if outcome.parsed { kept.parsed.insert(relative) }
                    keptFiles[relative] = outcome.keeps ? outcome.kept : nil
                }
                // grail.yaml and grail.yml would be two bikes with one id.
                if let first = listing.earlierWithID[index] {
                    diagnostics.append(Self.twoFiles(relative, relatives[first], kind: kind, id: stem(names[index])))
                    timings.add(outcome.time)
                    continue
                }
                diagnostics += outcome.kept.file.diagnostics
                account(relative, outcome, &sources)
                if let value = outcome.kept.file.value { values.append(value) }
            }
            if keeping { swap(&keptFiles, &kept[keyPath: keyPath]) }
            return values
        }

        /// Whether an earlier load kept every file of `relatives` but at most one.
        private static func allKeptButOne<V>(_ relatives: [String], _ earlier: [String: V]) -> Bool {
            guard !earlier.isEmpty else { return false }
            var new = 0
            for relative in relatives where earlier.index(forKey: relative) == nil {
                new += 1
                if new > 1 { return false }
            }
            return true
        }

        /// Two files defining one id (grail.yaml and grail.yml).
        private static func twoFiles(_ relative: String, _ first: String, kind: String, id: String) -> Diagnostic {
            .error(
                .duplicateId, "\(relative) and \(first) both define \(kind) '\(id)'",
                at: SourceLocation(file: relative), notes: [.init("first defined here", at: SourceLocation(file: first))],
                help: "keep one of the two files")
        }
    }

    /// The garage's YAML files that a load reads, relative to the garage: garage.yaml and
    /// rides.yaml when there, then templates/, bikes/ and parts/ (each sorted), and none through a
    /// folder that leads outside the garage (the files the MCP server offers as resources).
    package static func garageFiles(at root: String) -> [String] {
        let files = Files(root: root, reusing: nil, keeping: false)
        var found = ["garage.yaml", "rides.yaml"].filter(files.exists)
        for folder in ["templates", "bikes", "parts"] {
            found += (files.names(in: folder) ?? []).map { "\(folder)/\($0)" }
        }
        return found
    }

    /// `*.yaml` and `*.yml` files of a folder, sorted by name; none when it does not exist.
    static func yamlFiles(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { ($0.hasSuffix(".yaml") || $0.hasSuffix(".yml")) && !$0.hasPrefix(".") }.sorted()
    }

    /// A file's name without `.yaml` or `.yml`: the id of what it holds.
    package static func stem(_ file: String) -> String {
        file.hasSuffix(".yaml") ? String(file.dropLast(5)) : file.hasSuffix(".yml") ? String(file.dropLast(4)) : file
    }

    /// A file whose name is no id (`ParsedFiles.Listing.ids`).
    private static func badID(_ file: String, kind: String, relative: String) -> Diagnostic {
        .error(
            .badId, "'\(shown(stem(file)))' is not a valid \(kind) id (it comes from the file name)",
            at: SourceLocation(file: relative),
            help: "rename the file using letters, digits, '-', '_' and '.', e.g. grail.yaml")
    }
}
