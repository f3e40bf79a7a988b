import Diagnostics
import Foundation
import LocatedYAML

/// The loaded garage a write command starts from, with the checks every command shares.
package struct WriteContext: Sendable {
    package var root: String
    package var loaded: LoadedGarage
    /// The rider's today, for default dates and refusing dates in the future.
    package var today: Day
    /// Bytes by relative path that stand in for the files on disk: an editor's open buffers,
    /// which the language server plans a change over (the same plan, never written by it).
    private var overlay: [String: [UInt8]] = [:]

    package init(root: String, today: Day) {
        self.root = root
        self.today = today
        // Its parsed files are kept for the re-check after writing (see `change`, ChangeWriter.apply).
        self.loaded = GarageLoader.load(at: root, options: GarageLoader.Options(activities: .skip, keepsParsedFiles: true))
    }

    /// A context over a garage already loaded with `overlay` laid over its files (as
    /// `GarageLoader.Options.overlay`): planning reads those bytes, not the files'.
    package init(root: String, today: Day, loaded: LoadedGarage, overlay: [String: [UInt8]]) {
        self.root = root
        self.today = today
        self.loaded = loaded
        self.overlay = overlay
    }

    /// A change planned from this context: it carries the files parsed here to the re-check
    /// after writing, which then parses only the files whose bytes changed. The parses of the
    /// files it changes are left behind: a large file is not in memory twice while its new bytes
    /// are checked.
    func change(files: [FileChange], message: String, summary: [String] = [], warnings: [Warning] = []) -> GarageChange {
        let changed = files.filter(\.isChange).map(\.path)
        return GarageChange(
            files: files, message: message, summary: summary, warnings: warnings, parsedFiles: loaded.parsedFiles?.forgetting(changed))
    }

    var garage: Garage { loaded.garage }

    /// The bike with this id, or a usage error that suggests the nearest one.
    func bike(_ id: String) throws(WriteFailure) -> ResolvedBike {
        if let file = bikeFile(id) { try requireClean(file) }
        if let bike = garage.bike(BikeID(id)) { return bike }
        throw WriteFailure(garage.noBike(id))
    }

    /// The template with this id, or a usage error that suggests the nearest one (shared by
    /// every command that names a template).
    package func template(_ id: String) throws(WriteFailure) -> Template {
        if let t = garage.templates.first(where: { $0.id.rawValue == id }) { return t }
        let ids = garage.templates.map(\.id.rawValue)
        let hint = didYouMean(id, among: ids)
        throw .usage(
            "no template '\(id)'\(hint)", help: ids.isEmpty ? "import one with 'bikecheck template import PATH'" : "templates: \(ids.joined(separator: ", "))")
    }

    /// The relative path of a bike's (or gear's) file, if it exists.
    func bikeFile(_ id: String) -> String? {
        for folder in ["bikes", "gear"] {
            for ext in ["yaml", "yml"] where FileManager.default.fileExists(atPath: root + "/\(folder)/\(id).\(ext)") {
                return "\(folder)/\(id).\(ext)"
            }
        }
        return nil
    }

    /// Refuses to touch a file that has errors: its tree cannot be trusted.
    func requireClean(_ file: String) throws(WriteFailure) {
        let errors = loaded.diagnostics.filter { $0.severity == .error && $0.location.file == file }
        guard errors.isEmpty else {
            throw WriteFailure(
                .refused, "'\(file)' has errors; fix them before bikecheck writes to it",
                help: "'bikecheck validate' lists them", diagnostics: errors, sources: loaded.sources)
        }
    }

    /// A date for the log: not in the future, not before 1990.
    func checkDate(_ day: Day, _ what: String) throws(WriteFailure) {
        if day > today {
            throw .usage("\(what) \(day) is in the future (today is \(today))", help: "record work once it is done")
        }
        if day < Day(ordinal: Day.ordinal(year: 1990, month: 1, day: 1)) {
            throw .usage("\(what) \(day) is before 1990", help: "check the year; write the date as YYYY-MM-DD")
        }
    }

    /// The bytes of a garage file (its overlay's, if any), or nil when it does not exist.
    func read(_ relative: String) -> [UInt8]? { overlay[relative] ?? readBytes(root + "/" + relative) }

    /// Applies located edits to a file, turning a refusal into a `WriteFailure` with excerpts.
    func edit(_ relative: String, _ bytes: [UInt8], _ edits: [YAMLEdit]) throws(WriteFailure) -> [UInt8] {
        try edit(relative, YAMLDocument(path: relative, bytes: bytes, limits: .garage), edits)
    }

    /// Applies located edits to a file the command has parsed (with `.garage` limits): its tree
    /// is edited, not parsed again, so a large file is in memory as two trees (before and after),
    /// never more.
    func edit(_ relative: String, _ doc: YAMLDocument, _ edits: [YAMLEdit]) throws(WriteFailure) -> [UInt8] {
        do {
            return try YAMLEditor(document: doc).apply(edits)
        } catch {
            throw WriteFailure(
                .refused, "bikecheck cannot make this change to '\(relative)' safely; nothing was written",
                help: "make the change by hand", diagnostics: error.diagnostics, sources: [relative: doc.source])
        }
    }
}

/// The first line of a new garage file: hooks editors up to the file's JSON Schema when one is
/// embedded (see `EmbeddedSchemas`).
func modeline(_ kind: String, depth: Int) -> [String] {
    guard EmbeddedSchemas.files.contains(where: { $0.name == "\(kind).schema.json" }) else { return [] }
    let up = String(repeating: "../", count: depth)
    return ["# yaml-language-server: $schema=\(up)\(EmbeddedSchemas.folder)/\(kind).schema.json"]
}
