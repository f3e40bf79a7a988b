import Diagnostics
import Foundation
import LocatedYAML

/// Applies templates to bikes and imports them from files or other garages.
package enum TemplateImporter {
    /// Adds `TEMPLATE` to the bike's `templates:` list.
    package static func apply(_ templateID: String, to bikeID: String, in context: WriteContext) throws(WriteFailure) -> GarageChange {
        let template = try context.template(templateID)
        let bike = try context.bike(bikeID).bike
        let file = bike.location.file
        guard let bytes = context.read(file) else { throw .refused("cannot read '\(file)'") }
        if bike.templates.contains(where: { $0.value.rawValue == templateID }) {
            return context.change(
                files: [FileChange(path: file, before: bytes, after: bytes)], message: "",
                summary: ["bike '\(bikeID)' already uses template '\(templateID)'"])
        }
        let doc = YAMLDocument(path: file, bytes: bytes, limits: .garage)
        guard case .mapping(let root)? = doc.root else { throw .refused("'\(file)' is not a mapping") }
        let edit: YAMLEdit
        switch root["templates"] {
        case nil: edit = .addKey("templates", .flowList([.plain(templateID)]), in: [], after: ["bought", "strava", "name"])
        case .sequence(let q)? where !q.items.isEmpty || !q.isFlow: edit = .append(.plain(templateID), to: ["templates"])
        default: edit = .set(["templates"], .flowList([.plain(templateID)]))
        }
        var after = try context.edit(file, bytes, [edit])
        var summary = ["bike '\(bikeID)' now uses template '\(templateID)'"]

        // The parts the template tracks join the bike's components, so their lives can be
        // counted; when the components are written in a way the engine will not touch, the
        // template is still applied and validate names what is missing.
        var missing: [String] = []
        for part in template.intervals.flatMap({ [$0.component?.value, $0.replaces?.value] }).compactMap({ $0?.rawValue })
        where bike.component(ComponentID(part)) == nil && !missing.contains(part) {
            missing.append(part)
        }
        if !missing.isEmpty, case .mapping(let updated)? = YAMLDocument(path: file, bytes: after).root {
            let parts = missing.map { YAMLPair($0, .null) }
            let edits: [YAMLEdit]
            switch updated["components"] {
            case nil: edits = [.addKey("components", .mapping(parts), in: [], after: ["counts", "templates", "retired", "bought", "strava", "name"])]
            case .mapping(let m)? where !m.isFlow: edits = parts.map { .addKey($0.key, $0.value, in: ["components"]) }
            case let value? where YAMLShape(value).isEmptyValue: edits = [.set(["components"], .mapping(parts))]
            default: edits = []
            }
            if !edits.isEmpty, let withParts = try? YAMLEditor(path: file, bytes: after, limits: .garage).apply(edits) {
                after = withParts
                summary.append(
                    "added component\(missing.count == 1 ? "" : "s") \(missing.joined(separator: ", ")) to '\(bikeID)': add 'installed:' dates so their lives count from then"
                )
            }
        }
        return context.change(
            files: [FileChange(path: file, before: bytes, after: after)],
            message: "\(bikeID): apply template \(templateID)", summary: summary)
    }

    /// Copies templates from a file or from another garage (its templates/ folder: the named
    /// ones, or all), noting where each came from in `source:`. A template of the same name
    /// that differs is never overwritten.
    package static func importTemplates(
        from path: String, names: [String], as newID: String?, in context: WriteContext,
        workingDirectory: String
    ) throws(WriteFailure) -> GarageChange {
        let (sources, boundary) = try templateSources(path, names: names, workingDirectory: workingDirectory)
        if newID != nil && sources.count != 1 { throw .usage("--as needs exactly one template to import") }

        var files: [FileChange] = []
        var summary: [String] = []
        for source in sources {
            let id = newID ?? source.id
            guard isIdentifier(id) else { throw .usage("'\(id)' is not a valid template id", help: "use --as NAME with letters, digits, '-', '_' and '.'") }
            guard case .read(let readable) = boundary.access(String(source.path.dropFirst(boundary.root.count + 1))) else {
                throw .refused(
                    "'\(source.path)' is a symbolic link that leads outside '\(boundary.root)'; it was not read, nothing was imported",
                    help: "import a copy of the file instead")
            }
            guard let bytes = readBytes(readable) else { throw .refused("cannot read '\(source.path)'") }
            let label = source.path
            // Recorded relative to the garage: an absolute path of this machine means nothing on another.
            let recorded = TemplateRepository.relativePath(
                from: GarageBoundary.realPath(context.root) ?? context.root,
                to: GarageBoundary.realPath(source.path) ?? source.path)
            let imported = try prepared(bytes, id: id, label: label, source: .text(recorded), replacing: false, context: context)
            let target = "templates/\(id).yaml"
            if let existing = context.read(target) ?? context.read("templates/\(id).yml") {
                if sameTemplate(existing, imported) {
                    summary.append("template '\(id)' is already in the garage, unchanged")
                    continue
                }
                throw .refused(
                    "the garage already has a different template '\(id)' (\(target)); nothing was imported",
                    help: "import it under another name: bikecheck template import \(path) --as NEW-NAME")
            }
            files.append(FileChange(path: target, before: nil, after: imported))
            summary.append("imported template '\(id)' from \(label) into \(target)")
        }
        let ids = files.map { ($0.path as NSString).lastPathComponent }.map(GarageLoader.stem)
        return context.change(files: files, message: "Import template\(ids.count == 1 ? "" : "s") \(ids.joined(separator: ", "))", summary: summary)
    }

    /// The template files an import reads (id and path) and the boundary they are read within:
    /// templates are read only from inside the garage (or folder) they come from.
    static func templateSources(_ path: String, names: [String], workingDirectory: String) throws(WriteFailure) -> (
        [(id: String, path: String)], GarageBoundary
    ) {
        let absolute = URL(fileURLWithPath: path.hasPrefix("/") ? path : workingDirectory + "/" + path).standardizedFileURL.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory) else {
            throw .usage("no file or folder '\(path)'")
        }
        var sources: [(id: String, path: String)] = []
        let boundary: GarageBoundary
        if isDirectory.boolValue {
            let folder = FileManager.default.fileExists(atPath: absolute + "/templates") ? absolute + "/templates" : absolute
            boundary = GarageBoundary(root: absolute)
            let available = GarageLoader.yamlFiles(in: folder)
            let ids = available.map { GarageLoader.stem($0) }
            if names.isEmpty {
                sources = zip(ids, available).map { ($0, folder + "/" + $1) }
            } else {
                for name in names {
                    guard let i = ids.firstIndex(of: name) else {
                        let hint = didYouMean(name, among: ids)
                        throw .usage("no template '\(name)' in '\(folder)'\(hint)", help: "templates there: \(ids.joined(separator: ", "))")
                    }
                    sources.append((name, folder + "/" + available[i]))
                }
            }
            guard !sources.isEmpty else { throw .usage("no templates (*.yaml) in '\(folder)'") }
        } else {
            guard names.isEmpty else { throw .usage("name templates only when importing from a garage folder") }
            sources = [(GarageLoader.stem((absolute as NSString).lastPathComponent), absolute)]
            let parent = (absolute as NSString).deletingLastPathComponent
            let garage = (parent as NSString).deletingLastPathComponent
            boundary = GarageBoundary(
                root: (parent as NSString).lastPathComponent == "templates"
                    && FileManager.default.fileExists(atPath: garage + "/garage.yaml") ? garage : parent)
        }
        return (sources, boundary)
    }

    /// A fetched template checked on its own and made the garage's copy: `source:` set (kept
    /// when the file has one and `replacing` is false), the schema modeline pointing here.
    /// Diagnostics are positioned in the fetched file, under `label`.
    static func prepared(
        _ bytes: [UInt8], id: String, label: String, source: YAMLValue, replacing: Bool,
        context: WriteContext
    ) throws(WriteFailure) -> [UInt8] {
        let doc = YAMLDocument(path: label, bytes: bytes, limits: .garage)
        var reader = NodeReader(file: label)
        if doc.isUsable, let root = doc.root { _ = FileDecoders.template(id: TemplateID(id), root, &reader) }
        let problems = (doc.diagnostics + reader.diagnostics).filter { $0.severity == .error }
        guard problems.isEmpty, case .mapping(let m)? = doc.root else {
            throw WriteFailure(
                .refused, "'\(label)' is not a valid template; nothing was imported", diagnostics: problems,
                sources: [label: doc.source])
        }
        var edits: [YAMLEdit] = []
        if m["source"] == nil {
            edits.append(.addKey("source", source, in: [], after: ["description", "name"]))
        } else if replacing {
            edits.append(.set(["source"], source))
        }
        return withOwnModeline(try context.edit(label, bytes, edits))
    }

    /// Imports from `source`: a git repository (a URL, or a local folder in git) with
    /// `importFromGit`, else a file or folder copied as it is.
    package static func importTemplates(
        from source: String, names: [String], ref: String?, as newID: String?, in context: WriteContext,
        workingDirectory: String, timeout: Double
    ) throws(WriteFailure) -> GarageChange {
        if ref != nil || TemplateRepository.isGitSource(source, base: workingDirectory) {
            return try importFromGit(source, names: names, ref: ref, as: newID, in: context, workingDirectory: workingDirectory, timeout: timeout)
        }
        return try importTemplates(from: source, names: names, as: newID, in: context, workingDirectory: workingDirectory)
    }

    /// Imports templates from a git repository at `ref` (default branch when nil): the named
    /// ones, or all of its `templates/` folder (or top folder). Each copy records
    /// `source: {url, path, commit}`; nothing is written unless every template is valid.
    package static func importFromGit(
        _ url: String, names: [String], ref: String?, as newID: String?, in context: WriteContext,
        workingDirectory: String, timeout: Double
    ) throws(WriteFailure) -> GarageChange {
        let location = try TemplateRepository.locate(url, base: workingDirectory, garageRoot: context.root)
        let repo = try TemplateRepository(location, ref: ref, timeout: timeout, garageRoot: context.root)
        let available = repo.templates
        var chosen: [(id: String, entry: TemplateRepository.Entry)] = []
        if names.isEmpty {
            chosen = available
        } else {
            for name in names {
                guard let found = available.first(where: { $0.id == name }) else {
                    let ids = available.map(\.id)
                    let hint = didYouMean(name, among: ids)
                    throw .usage(
                        "no template '\(name)' in '\(location.recorded)'\(hint)",
                        help: ids.isEmpty ? "it has no *.yaml files in templates/ or at its top" : "templates there: \(ids.joined(separator: ", "))")
                }
                chosen.append(found)
            }
        }
        guard !chosen.isEmpty else { throw .usage("no templates (*.yaml) in '\(location.recorded)' (in templates/ or at its top)") }
        if newID != nil && chosen.count != 1 { throw .usage("--as needs exactly one template to import") }

        var files: [FileChange] = []
        var summary: [String] = []
        let short = String(repo.commit.prefix(12))
        for source in chosen {
            let id = newID ?? source.id
            guard isIdentifier(id) else { throw .usage("'\(id)' is not a valid template id", help: "use --as NAME with letters, digits, '-', '_' and '.'") }
            let bytes = try repo.read(source.entry)
            let imported = try inRepository(location.recorded, repo.commit) { () throws(WriteFailure) in
                try prepared(
                    bytes, id: id, label: source.entry.path, source: sourceValue(location.recorded, source.entry.path, repo.commit, ref),
                    replacing: true, context: context)
            }
            let target = "templates/\(id).yaml"
            if let existing = context.read(target) ?? context.read("templates/\(id).yml") {
                if existing == imported {
                    summary.append("template '\(id)' is already in the garage at \(short), unchanged")
                    continue
                }
                throw .refused(
                    "the garage already has a template '\(id)' (\(target)); nothing was imported",
                    help: "bring upstream changes in with 'bikecheck template update \(id)', or import it under another name with --as NEW-NAME")
            }
            files.append(FileChange(path: target, before: nil, after: imported))
            summary.append("imported template '\(id)' from \(location.recorded) \(source.entry.path) at \(short) into \(target)")
        }
        let ids = files.map { GarageLoader.stem(($0.path as NSString).lastPathComponent) }
        return context.change(
            files: files, message: "Import template\(ids.count == 1 ? "" : "s") \(ids.joined(separator: ", ")) from \(location.recorded) at \(short)",
            summary: summary)
    }

    /// Says which repository and commit a refused file is from: its positions are in that file,
    /// whose path may look like one of the garage's.
    static func inRepository<T>(_ url: String, _ commit: String, _ body: () throws(WriteFailure) -> T) throws(WriteFailure) -> T {
        do {
            return try body()
        } catch {
            var failure = error
            if !failure.diagnostics.isEmpty {
                failure.message = failure.message.replacingOccurrences(
                    of: "' is not a valid template", with: "' of \(url) at \(commit.prefix(12)) is not a valid template")
            }
            throw failure
        }
    }

    /// `source:` for a template from a git repository.
    static func sourceValue(_ url: String, _ path: String, _ commit: String, _ ref: String?) -> YAMLValue {
        var pairs = [YAMLPair("url", .text(url)), YAMLPair("path", .text(path))]
        if let ref { pairs.append(YAMLPair("ref", .text(ref))) }
        pairs.append(YAMLPair("commit", .plain(commit)))
        return .mapping(pairs)
    }

    /// Points a copied file's schema modeline at this garage's schemas (`.schemas/`, which
    /// `init` writes), or gives it one, as `init` writes its templates.
    static func withOwnModeline(_ bytes: [UInt8]) -> [UInt8] {
        let prefix = Array("# yaml-language-server:".utf8)
        guard let ours = modeline("template", depth: 1).first else { return bytes }
        // A file that starts with a byte order mark is left as it is: the line would go before it.
        guard bytes.starts(with: prefix) else { return bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes : Array((ours + "\n").utf8) + bytes }
        var end = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
        if end > 0, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return Array(ours.utf8) + bytes[end...]
    }

    /// Two template files say the same thing when their trees match, `source:` aside.
    static func sameTemplate(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        func shape(_ bytes: [UInt8]) -> YAMLShape? {
            guard let root = YAMLDocument(path: "t.yaml", bytes: bytes).root, case .mapping(let entries) = YAMLShape(root) else { return nil }
            return .mapping(entries.filter { $0.key != "source" })
        }
        guard let x = shape(a) else { return false }
        return x == shape(b)
    }
}
