import Diagnostics
import LocatedYAML

/// A template file, and where a fetched one came from (`source:`).
extension FileDecoders {
    static func template(id: TemplateID, _ root: YAMLNode, _ r: inout NodeReader) -> Template? {
        guard let m = r.mapping(root, "a template file") else { return nil }
        let f = r.fields(m, of: "template '\(shown(id))'", allowed: templateKeys, required: ["name", "intervals"])
        var t = Template(id: id, name: id.rawValue, intervals: [], location: r.location(root))
        if let e = f["name"], let name = r.string(e.value, "the template's name") { t.name = name }
        if let e = f["description"] { t.description = r.string(e.value, "description") }
        if let e = f["source"] {
            if case .mapping(let m) = e.value {
                t.origin = origin(m, at: e.value, &r)
                t.source = t.origin?.description
            } else {
                t.source = r.string(e.value, "source")
            }
        }
        if let e = f["intervals"] { t.intervals = intervals(e.value, owner: "template '\(shown(id))'", &r) }
        // A template is shared whole, so each of its intervals needs its own limit.
        for spec in t.intervals where spec.every == nil && !spec.everyIsInvalid {
            r.diagnostics.append(missingLimit(spec))
        }
        return t
    }

    /// `source: {url, path, commit, ref}` as `template import` writes it for a git repository.
    static func origin(_ m: YAMLMapping, at node: YAMLNode, _ r: inout NodeReader) -> TemplateOrigin? {
        let f = r.fields(m, of: "source", allowed: ["url", "path", "commit", "ref"], required: ["url", "path", "commit"], at: node)
        let url = f["url"].flatMap { r.string($0.value, "source url") }
        let path = f["path"].flatMap { r.string($0.value, "source path") }
        var commit = f["commit"].flatMap { r.string($0.value, "source commit") }
        if let c = commit, let e = f["commit"], !isCommitID(c) {
            r.error(
                .badValue, "source commit '\(shown(c))' is not a git commit id", e.value,
                help: "write the full 40-hex-digit id of the commit the template was taken from")
            commit = nil
        }
        let ref = f["ref"].flatMap { r.string($0.value, "source ref") }
        guard let url, let path, let commit else { return nil }
        return TemplateOrigin(url: url, path: path, commit: commit, ref: ref)
    }

    /// A full git object id (SHA-1 or SHA-256), lower-case hex.
    static func isCommitID(_ text: String) -> Bool {
        (text.utf8.count == 40 || text.utf8.count == 64) && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    static func missingLimit(_ spec: IntervalSpec) -> Diagnostic {
        .error(
            .missingLimit, "interval '\(shown(spec.id))' has no limit", at: spec.location,
            help: "add 'every:', e.g. every: 10 h, or every: [100 h, 12 months]")
    }
}
