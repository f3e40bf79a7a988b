import Foundation
import LocatedYAML

/// Creates a new garage: garage.yaml, bikes/, templates/ with a starter library, a .gitignore
/// for the activity cache and local state, and the JSON Schemas editors use.
public enum GarageInitializer {
    /// What `.gitignore` keeps out of git: the Strava cache (Strava's terms), local state, and
    /// the temporary files of a write that was killed before it finished.
    public static let ignored = ["activities/", ".bikecheck/", AtomicFile.temporaryPattern]

    /// Plans every file of a new garage in `root`; refuses a folder that has a garage.
    public static func plan(at root: String, name: String?) throws(WriteFailure) -> GarageChange {
        let fm = FileManager.default
        if fm.fileExists(atPath: root + "/garage.yaml") {
            throw .refused(
                "'\(root)' already holds a garage (garage.yaml); nothing was written",
                help: "edit it, or choose another folder: bikecheck init DIR")
        }
        var files: [FileChange] = []
        func add(_ path: String, _ text: String) throws(WriteFailure) {
            let existing = fm.contents(atPath: root + "/" + path).map { [UInt8]($0) }
            if let existing, existing != Array(text.utf8) {
                throw .refused("'\(path)' already exists in '\(root)'; nothing was written", help: "move it away, or choose another folder")
            }
            // An identical file is planned as unchanged (so it is left alone), not as new: the
            // writer checks that every file still holds `before`.
            files.append(FileChange(path: path, before: existing, after: Array(text.utf8)))
        }

        var settings: [YAMLPair] = []
        if let name { settings.append(YAMLPair("name", .text(name))) }
        settings += [YAMLPair("units", .plain("metric")), YAMLPair("due_soon", .plain("80%"))]
        let header =
            modeline("garage", depth: 0) + [
                "# bikecheck garage settings. Bikes go in bikes/ID.yaml, service schedules in templates/."
            ]
        let garage: [UInt8]
        do {
            garage = try YAMLEditor.render(settings, header: header)
        } catch {
            throw .usage("cannot write the garage name '\(name ?? "")'")
        }
        try add("garage.yaml", String(decoding: garage, as: UTF8.self))
        try add("bikes/.gitkeep", "")
        for template in TemplateLibrary.templates {
            let text = (modeline("template", depth: 1) + [template.text]).joined(separator: "\n")
            try add("templates/\(template.id).yaml", text)
        }
        for schema in EmbeddedSchemas.files {
            try add("\(EmbeddedSchemas.folder)/\(schema.name)", schema.text)
        }

        // An existing .gitignore keeps its lines; the missing ones are added at its end.
        let ignorePath = root + "/.gitignore"
        if let existing = fm.contents(atPath: ignorePath).map({ [UInt8]($0) }) {
            let text = String(decoding: existing, as: UTF8.self)
            let present = Set(text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) })
            let missing = ignored.filter { !present.contains($0) }
            var after = existing
            if !missing.isEmpty {
                if let last = after.last, last != UInt8(ascii: "\n") { after.append(UInt8(ascii: "\n")) }
                after += Array((missing.joined(separator: "\n") + "\n").utf8)
            }
            files.append(FileChange(path: ".gitignore", before: existing, after: after))
        } else {
            files.append(
                FileChange(
                    path: ".gitignore", before: nil,
                    after: Array(
                        ("# Written by bikecheck init.\n# Activities synced from Strava stay on this machine (Strava's terms); local state and\n# the temporary files of an interrupted write too.\n"
                            + ignored.joined(separator: "\n") + "\n").utf8)))
        }
        return GarageChange(
            files: files, message: "New bikecheck garage",
            summary: [
                "created a garage in \(root) with templates: \(TemplateLibrary.templates.map(\.id).joined(separator: ", "))",
                "next: bikecheck bike add ID --name NAME --template \(TemplateLibrary.templates[0].id)",
            ])
    }
}
