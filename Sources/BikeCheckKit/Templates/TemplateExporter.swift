import Foundation
import LocatedYAML

/// Writes templates as a folder another rider can import: a small garage of its own (`garage.yaml`,
/// `templates/`, the schemas), with nothing that refers back to this garage, so a club can keep
/// it as a git repository and run `bikecheck validate` on it in CI.
package enum TemplateExporter {
    /// Plans the folder `destination` (absolute) with the named templates of `context`'s garage.
    package static func export(_ ids: [String], to destination: String, from context: WriteContext) throws(WriteFailure) -> GarageChange {
        guard !ids.isEmpty else { throw .usage("name the templates to export") }
        let fm = FileManager.default
        let garageReal = GarageBoundary.realPath(context.root) ?? context.root
        let destinationReal = GarageBoundary.realPath(destination) ?? destination
        if destinationReal == garageReal || destinationReal.hasPrefix(garageReal + "/") {
            throw .usage("'\(destination)' is inside the garage; export to a folder of its own")
        }
        var files: [FileChange] = []
        func put(_ path: String, _ bytes: [UInt8], replacing: Bool) throws(WriteFailure) {
            let existing: [UInt8]?
            switch readFile(destination + "/" + path, limit: FileSizeLimit.garageFile) {
            case .bytes(let bytes): existing = bytes
            case .tooLarge(let size):
                if !replacing { return }
                // What it holds is kept to put back if the export fails: too large to hold.
                throw .refused(
                    "'\(path)' in '\(destination)' is \(FileSizeLimit.describe(size)), more than a garage file may be (\(FileSizeLimit.describe(FileSizeLimit.garageFile))); nothing was written",
                    help: "check that it is the file you meant; move it away, or export to another folder")
            case .unreadable: existing = nil
            }
            if existing != nil && !replacing { return }
            files.append(FileChange(path: path, before: existing, after: bytes))
        }
        let isNew = !fm.fileExists(atPath: destination + "/garage.yaml")
        if isNew {
            let header =
                modeline("garage", depth: 0) + [
                    "# A bikecheck templates repository: riders import from it with",
                    "#   bikecheck template import URL [NAME…] [--ref TAG]",
                    "# and CI checks it with: bikecheck validate --garage .",
                ]
            let settings = (try? YAMLEditor.render([YAMLPair("units", .plain("metric"))], header: header)) ?? []
            try put("garage.yaml", settings, replacing: false)
            try put(".gitignore", Array((GarageInitializer.ignored.joined(separator: "\n") + "\n").utf8), replacing: false)
        }
        for schema in EmbeddedSchemas.files {
            try put("\(EmbeddedSchemas.folder)/\(schema.name)", Array(schema.text.utf8), replacing: true)
        }
        var seen: Set<String> = []
        for id in ids where seen.insert(id).inserted {
            let template = try context.template(id)
            let file = template.location.file
            try context.requireClean(file)
            guard let bytes = context.read(file) else { throw .refused("cannot read '\(file)'") }
            try put("templates/\(id).yaml", try withoutGarageReferences(bytes, file: file, context: context), replacing: true)
        }
        let touched = files.filter(\.isChange).map(\.path).filter { $0.hasPrefix("templates/") }
        return context.change(
            files: files, message: "Export template\(ids.count == 1 ? "" : "s") \(ids.joined(separator: ", "))",
            summary: [
                "exported \(ids.joined(separator: ", ")) to \(destination)" + (touched.isEmpty ? " (unchanged)" : ""),
                "check it with: bikecheck validate --garage \(destination)",
            ])
    }

    /// The template without what only means something in this garage: a git `source:` (the
    /// folder is its own source now) or a `source:` that is a path to a file of this machine.
    static func withoutGarageReferences(_ bytes: [UInt8], file: String, context: WriteContext) throws(WriteFailure) -> [UInt8] {
        guard case .mapping(let m)? = YAMLDocument(path: file, bytes: bytes).root, let source = m["source"] else { return bytes }
        switch source {
        case .mapping:
            return try context.edit(file, bytes, [.removeKey("source", from: [])])
        case .scalar(let s):
            let path = s.value.hasPrefix("/") ? s.value : context.root + "/" + s.value
            guard !s.value.contains("://"), s.value.contains("/"), FileManager.default.fileExists(atPath: path) else { return bytes }
            return try context.edit(file, bytes, [.removeKey("source", from: [])])
        case .sequence:
            return bytes
        }
    }
}
