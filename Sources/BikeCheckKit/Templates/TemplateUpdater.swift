import Diagnostics
import Foundation
import LocatedYAML

/// Follows templates imported from git: whether their source moved on (`template outdated`),
/// and bringing upstream's changes in while keeping the rider's own edits (`template update`).
package enum TemplateUpdater {
    /// One imported template and where its source stands.
    package struct Status: Sendable, Encodable {
        package var template: String
        package var url: String
        package var path: String
        package var ref: String?
        /// The commit the garage's copy was taken from.
        package var commit: String
        /// The commit the source is at now.
        package var upstream: String
        /// What upstream changed since `commit`: intervals added, removed, limits changed.
        package var changes: [String]
        /// Tags of the source newer than the tag it is pinned to (`ref:`), oldest first.
        package var newerTags: [String] = []
        package var isOutdated: Bool { upstream != commit || !newerTags.isEmpty }

        enum CodingKeys: String, CodingKey {
            case template, url, path, ref, commit, upstream, outdated, changes
            case newerTags = "newer_tags"
        }
        package func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(template, forKey: .template)
            try c.encode(url, forKey: .url)
            try c.encode(path, forKey: .path)
            try c.encodeIfPresent(ref, forKey: .ref)
            try c.encode(commit, forKey: .commit)
            try c.encode(upstream, forKey: .upstream)
            try c.encode(isOutdated, forKey: .outdated)
            try c.encode(changes, forKey: .changes)
            try c.encode(newerTags, forKey: .newerTags)
        }
    }

    /// The templates named (default: every template imported from git), with where they came from.
    static func imported(_ names: [String], in context: WriteContext) throws(WriteFailure) -> [(Template, TemplateOrigin)] {
        if names.isEmpty {
            return context.garage.templates.compactMap { t in t.origin.map { (t, $0) } }
        }
        var found: [(Template, TemplateOrigin)] = []
        for name in names {
            let t = try context.template(name)
            guard let origin = t.origin else {
                throw .usage(
                    "template '\(name)' was not imported from a git repository (it has no 'source: {url, path, commit}')",
                    help: "import it with 'bikecheck template import URL \(name)'")
            }
            found.append((t, origin))
        }
        return found
    }

    /// For each imported template, whether its source moved on and what changed there.
    package static func outdated(_ names: [String], in context: WriteContext, timeout: Double) throws(WriteFailure) -> [Status] {
        var result: [Status] = []
        var fetched: [String: TemplateRepository] = [:]
        for (template, origin) in try imported(names, in: context) {
            let (repo, old, new) = try fetch(origin, root: context.root, timeout: timeout, &fetched)
            result.append(
                Status(
                    template: template.id.rawValue, url: origin.url, path: origin.path, ref: origin.ref,
                    commit: origin.commit, upstream: repo.commit, changes: changes(from: old, to: new),
                    newerTags: try repo.newerTags(than: origin.ref, timeout: timeout)))
        }
        return result
    }

    /// Brings upstream's changes into each imported template (the named ones, or all) with a
    /// three-way merge on the YAML trees of the recorded commit's version, the rider's file and
    /// upstream's: a change on one side only is taken; the same key changed differently on both
    /// sides is a conflict, which refuses the whole update naming the intervals and showing both
    /// values, unless `keepingMine`: then the rider's value stays (upstream's other changes are
    /// taken) and the summary says which were kept.
    /// With `ref`, the templates move to that tag or branch (`source: ref:` follows).
    package static func update(
        _ names: [String], ref newRef: String? = nil, keepingMine: Bool = false, in context: WriteContext, timeout: Double
    ) throws(WriteFailure) -> GarageChange {
        var files: [FileChange] = []
        var summary: [String] = []
        var moves: [String] = []
        var fetched: [String: TemplateRepository] = [:]
        for (template, recorded) in try imported(names, in: context) {
            let id = template.id.rawValue
            let file = template.location.file
            var origin = recorded
            if let newRef { origin.ref = newRef }
            try context.requireClean(file)
            let (repo, base, upstream) = try fetch(origin, root: context.root, timeout: timeout, &fetched)
            guard let ours = context.read(file) else { throw .refused("cannot read '\(file)'") }
            if repo.commit == origin.commit {
                summary.append("template '\(id)' is up to date with \(origin.url) at \(origin.commit.prefix(12))")
                if let newRef, newRef != recorded.ref {
                    files.append(FileChange(path: file, before: ours, after: try noting(ref: newRef, in: ours, file: file, context: context)))
                    moves.append("\(id) \(origin.commit.prefix(12)) (ref \(newRef))")
                }
                continue
            }
            guard let upstream else {
                throw .refused(
                    "'\(origin.path)' is no longer in \(origin.url) at \(repo.commit.prefix(12)); nothing was written",
                    help: "import another template, or remove 'source:' from \(file) to keep it as your own")
            }
            guard let base else {
                throw .refused(
                    "\(origin.url) no longer has commit \(origin.commit.prefix(12)) that '\(id)' was imported from, so your edits cannot be told from upstream's; nothing was written",
                    help: "compare by hand, or import it again with --as NEW-NAME")
            }
            let source = TemplateImporter.sourceValue(origin.url, origin.path, repo.commit, origin.ref)
            // The new upstream version must be valid on its own, with positions in its file.
            _ = try TemplateImporter.inRepository(origin.url, repo.commit) { () throws(WriteFailure) in
                try TemplateImporter.prepared(upstream, id: id, label: origin.path, source: source, replacing: true, context: context)
            }
            var (merged, kept) = try merge(
                ours: ours, base: base, theirs: upstream, file: file, id: id, commit: repo.commit, keepingMine: keepingMine, context: context)
            if let newRef, newRef != recorded.ref { merged = try noting(ref: newRef, in: merged, file: file, context: context) }
            files.append(FileChange(path: file, before: ours, after: merged))
            let what = changes(from: base, to: upstream)
            summary.append(
                "updated template '\(id)' from \(origin.commit.prefix(12)) to \(repo.commit.prefix(12))"
                    + (what.isEmpty ? "" : ": " + what.joined(separator: "; ")))
            summary += kept.map { "  kept yours: \($0)" }
            moves.append("\(id) \(origin.commit.prefix(12))..\(repo.commit.prefix(12))")
        }
        return context.change(files: files, message: "Update template\(moves.count == 1 ? "" : "s") \(moves.joined(separator: ", "))", summary: summary)
    }

    /// The file with `source: ref:` set to `ref`.
    static func noting(ref: String, in bytes: [UInt8], file: String, context: WriteContext) throws(WriteFailure) -> [UInt8] {
        guard case .mapping(let root)? = YAMLDocument(path: file, bytes: bytes).root, case .mapping(let source)? = root["source"] else {
            throw .refused("'\(file)' has no 'source:' mapping to note the ref in")
        }
        return try context.edit(
            file, bytes,
            [
                source["ref"] == nil
                    ? .addKey("ref", .text(ref), in: ["source"], after: ["path"])
                    : .set(["source", "ref"], .text(ref))
            ])
    }

    /// Fetches the source at its ref: the repository, the file at the recorded commit and now
    /// (nil when absent).
    /// Templates from the same repository and ref share one clone (`fetched`).
    static func fetch(
        _ origin: TemplateOrigin, root: String, timeout: Double,
        _ fetched: inout [String: TemplateRepository]
    ) throws(WriteFailure) -> (TemplateRepository, [UInt8]?, [UInt8]?) {
        let key = origin.url + "\u{0}" + (origin.ref ?? "")
        let repo: TemplateRepository
        if let known = fetched[key] {
            repo = known
        } else {
            // A local repository is recorded relative to the garage.
            let location = try TemplateRepository.locate(origin.url, base: root, garageRoot: root)
            repo = try TemplateRepository(location, ref: origin.ref, timeout: timeout, garageRoot: root)
            fetched[key] = repo
        }
        let new = try repo.entry(at: origin.path).map { e throws(WriteFailure) in try repo.read(e) }
        let old = origin.commit == repo.commit ? new : try repo.read(origin.path, at: origin.commit, timeout: timeout)
        return (repo, old, new)
    }

    // MARK: - The merge

    /// The rider's file with upstream's changes, by the garage's one three-way merge of YAML
    /// trees (`YAMLMerge`); `source:` is the rider's, and only its commit moves. Where both sides
    /// changed a value: refused, each place shown with both values, or with `keepingMine` the
    /// rider's kept (returned: what was kept, as lines for the summary).
    static func merge(
        ours: [UInt8], base: [UInt8], theirs: [UInt8], file: String, id: String, commit: String,
        keepingMine: Bool = false, context: WriteContext
    ) throws(WriteFailure) -> (bytes: [UInt8], kept: [String]) {
        let o = YAMLDocument(path: file, bytes: ours, limits: .garage)
        let b = YAMLDocument(path: "base", bytes: base), t = YAMLDocument(path: "upstream", bytes: theirs)
        guard case .mapping? = o.root, case .mapping? = b.root, case .mapping? = t.root else {
            throw .refused("'\(file)' or its upstream versions are not YAML mappings; nothing was written")
        }
        let plan = YAMLMerge(skipped: { $0 == ["source"] }).plan(base: b, ours: o, theirs: t)
        // Conflicts are named by interval (or by top key), once each.
        var conflicts: [String] = []
        for path in plan.conflictPaths {
            let name: String
            if path.first == "intervals", path.count > 1 { name = "interval '\(path[1])'" } else { name = "'\(path.first?.description ?? "")'" }
            if !conflicts.contains(name) { conflicts.append(name) }
        }
        // Each place: what it is, yours and upstream's values, and where both started.
        let places = plan.conflictPaths.indices.map { i -> String in
            let path = plan.conflictPaths[i], values = plan.conflictValues[i]
            let place: String
            if path.first == "intervals", path.count > 1 {
                place = "interval '\(path[1])'" + (path.count > 2 ? " " + YAMLMerge.describe(Array(path.dropFirst(2))) : "")
            } else {
                place = "'\(YAMLMerge.describe(path))'"
            }
            return "\(place): yours \(values.ours), upstream \(values.theirs)" + (values.base.map { " (both were \($0))" } ?? "")
        }
        if !conflicts.isEmpty, !keepingMine {
            let shown = plan.conflicts.indices.map { i in
                Diagnostic.error(.mergeConflict, places[i], at: plan.conflicts[i].location, help: nil)
            }
            throw WriteFailure(
                .refused,
                "template '\(id)' has changes of yours and of upstream to the same \(conflicts.count == 1 ? "place" : "places"): \(conflicts.joined(separator: ", ")); nothing was written",
                help:
                    "keep yours there and take upstream's other changes with 'bikecheck template update \(id) --keep-mine', or take upstream's value into \(file) by hand (or undo yours) and run the update again",
                diagnostics: shown, sources: [file: SourceText(path: file, bytes: ours)])
        }
        var bytes = ours
        // One edit at a time: each is planned on the file as the previous one left it.
        bytes = try context.edit(file, bytes, [.set(["source", "commit"], .plain(commit))])
        for (index, edit) in plan.edits.enumerated() {
            do {
                bytes = try context.edit(file, bytes, [edit])
            } catch  where plan.cosmetic.contains(index) {
                // Upstream's comments on a new entry: it stays in the file's own style.
                continue
            }
        }
        return (bytes, places)
    }

    // MARK: - What changed

    /// Intervals added and removed, limits changed, between two versions of a template file.
    static func changes(from old: [UInt8]?, to new: [UInt8]?) -> [String] {
        func intervals(_ bytes: [UInt8]?) -> [(String, YAMLMapping?)] {
            guard let bytes, case .mapping(let m)? = YAMLDocument(path: "t", bytes: bytes).root, case .mapping(let i)? = m["intervals"] else { return [] }
            return i.entries.compactMap { e in
                e.keyText.map { key in
                    if case .mapping(let fields) = e.value { return (key, fields) }
                    return (key, nil)
                }
            }
        }
        let a = intervals(old), b = intervals(new)
        let aIDs = a.map(\.0), bIDs = b.map(\.0)
        var out: [String] = []
        let added = bIDs.filter { !aIDs.contains($0) }, removed = aIDs.filter { !bIDs.contains($0) }
        if !added.isEmpty { out.append("added \(added.map { "'\($0)'" }.joined(separator: ", "))") }
        if !removed.isEmpty { out.append("removed \(removed.map { "'\($0)'" }.joined(separator: ", "))") }
        for (id, fields) in b {
            guard let old = a.first(where: { $0.0 == id }) else { continue }
            let before = old.1?["every"].map(YAMLShape.init), after = fields?["every"].map(YAMLShape.init)
            if before != after {
                out.append("'\(id)' every \(before.map(limitText) ?? "nothing") → \(after.map(limitText) ?? "nothing")")
            }
            let otherOld = old.1.map { YAMLShape(.mapping($0)) }, otherNew = fields.map { YAMLShape(.mapping($0)) }
            if before == after && otherOld != otherNew { out.append("'\(id)' changed") }
        }
        return out
    }

    static func limitText(_ shape: YAMLShape) -> String {
        switch shape {
        case .scalar(let text, _): text
        case .sequence(let items): items.map(limitText).joined(separator: " or ")
        case .mapping: shape.description
        }
    }
}
