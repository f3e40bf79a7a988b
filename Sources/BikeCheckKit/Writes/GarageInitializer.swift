import Foundation
import LocatedYAML

/// Creates a new garage: garage.yaml, bikes/, templates/ with a starter library, a .gitignore
/// for the activity cache and local state, and the JSON Schemas editors use.
package enum GarageInitializer {
    /// What `.gitignore` keeps out of git: the Strava cache (Strava's terms), local state, and
    /// the temporary files of a write that was killed before it finished.
    package static let ignored = ["activities/", ".bikecheck/", AtomicFile.temporaryPattern]

    /// Where a new garage's `currency:` comes from.
    package enum Currency: Sendable, Equatable {
        /// `init --currency CODE`: a code the rider chose, refused when it is not one.
        case given(String)
        /// The locale's currency code (nil when it names none): used when it is a code.
        case locale(String?)
    }

    /// Plans every file of a new garage in `root`; refuses a folder that has a garage.
    package static func plan(at root: String, name: String?, currency: Currency = .locale(nil)) throws(WriteFailure) -> GarageChange {
        let code = try currencyCode(currency)
        let fm = FileManager.default
        if fm.fileExists(atPath: root + "/garage.yaml") {
            throw .refused(
                "'\(root)' already holds a garage (garage.yaml); nothing was written",
                help: "edit it, or choose another folder: bikecheck init DIR")
        }
        var files: [FileChange] = []
        func add(_ path: String, _ text: String) throws(WriteFailure) { files.append(try planned(path, text, in: root)) }

        var settings: [YAMLPair] = []
        if let name { settings.append(YAMLPair("name", .text(name))) }
        settings += [YAMLPair("units", .plain("metric")), YAMLPair("due_soon", .plain("80%"))]
        let header =
            modeline("garage", depth: 0) + [
                "# bikecheck garage settings. Bikes go in bikes/ID.yaml, service schedules in templates/."
            ]
        let garage: [UInt8]
        do {
            garage = try YAMLEditor.render(settings, header: header) + currencyLines(code)
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

        files.append(try ignoreFile(in: root))
        // The merge driver's lines (`GitSetup`): committed with the garage, so every clone has them.
        let attributesBefore = fm.contents(atPath: root + "/.gitattributes").map { [UInt8]($0) }
        if let attributes = GitSetup.attributesFile(attributesBefore) {
            files.append(FileChange(path: ".gitattributes", before: attributesBefore, after: attributes))
        }
        var summary = ["created a garage in \(root) with templates: \(TemplateLibrary.templates.map(\.id).joined(separator: ", "))"]
        summary.append(
            code.map { "costs without a currency are in \($0) (currency: in garage.yaml)" }
                ?? "no currency: the locale names none; set one in garage.yaml (currency: EUR) so that costs count")
        summary.append("next: bikecheck bike add ID --name NAME --template \(TemplateLibrary.templates[0].id)")
        return GarageChange(files: files, message: "New bikecheck garage", summary: summary)
    }

    /// The currency code `init` writes: a given one (checked), or the locale's when it is one.
    static func currencyCode(_ currency: Currency) throws(WriteFailure) -> String? {
        switch currency {
        case .given(let text):
            guard Money.isCurrencyCode(text) else {
                throw .usage("currency '\(text)' should be a currency code of three capital letters", help: "write e.g. --currency EUR, USD, GBP")
            }
            return text
        case .locale(let text):
            // `XXX` is ISO 4217's "no currency", what a C or POSIX locale may say.
            return text.flatMap { Money.isCurrencyCode($0) && $0 != "XXX" ? $0 : nil }
        }
    }

    /// A new file of the garage; refused when a different file is in the way.
    static func planned(_ path: String, _ text: String, in root: String) throws(WriteFailure) -> FileChange {
        // A file in the way larger than the one planned is different, whatever its size: it
        // is refused without being read.
        let existing: [UInt8]?
        switch readFile(root + "/" + path, limit: text.utf8.count) {
        case .bytes(let bytes): existing = bytes
        case .tooLarge: throw .refused("'\(path)' already exists in '\(root)'; nothing was written", help: "move it away, or choose another folder")
        case .unreadable: existing = nil
        }
        if let existing, existing != Array(text.utf8) {
            throw .refused("'\(path)' already exists in '\(root)'; nothing was written", help: "move it away, or choose another folder")
        }
        // An identical file is planned as unchanged (so it is left alone), not as new: the
        // writer checks that every file still holds `before`.
        return FileChange(path: path, before: existing, after: Array(text.utf8))
    }

    /// `.gitignore`: an existing one keeps its lines; the missing ones are added at its end.
    static func ignoreFile(in root: String) throws(WriteFailure) -> FileChange {
        let existingIgnore: [UInt8]?
        switch readFile(root + "/.gitignore", limit: FileSizeLimit.garageFile) {
        case .bytes(let bytes): existingIgnore = bytes
        case .tooLarge(let size):
            throw .refused(
                "'.gitignore' in '\(root)' is \(FileSizeLimit.describe(size)), more than a garage file may be (\(FileSizeLimit.describe(FileSizeLimit.garageFile))); nothing was written",
                help: "check that it is the file you meant, or choose another folder")
        case .unreadable: existingIgnore = nil
        }
        guard let existing = existingIgnore else {
            return FileChange(
                path: ".gitignore", before: nil,
                after: Array(
                    ("# Written by bikecheck init.\n# Activities synced from Strava stay on this machine (Strava's terms); local state and\n# the temporary files of an interrupted write too.\n"
                        + ignored.joined(separator: "\n") + "\n").utf8))
        }
        let text = String(decoding: existing, as: UTF8.self)
        let present = Set(text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) })
        let missing = ignored.filter { !present.contains($0) }
        var after = existing
        if !missing.isEmpty {
            if let last = after.last, last != UInt8(ascii: "\n") { after.append(UInt8(ascii: "\n")) }
            after += Array((missing.joined(separator: "\n") + "\n").utf8)
        }
        return FileChange(path: ".gitignore", before: existing, after: after)
    }

    /// garage.yaml's `currency:` with a comment that says what it does and how to change it;
    /// without a code, the line commented out, to fill in.
    static func currencyLines(_ code: String?) throws(YAMLEditFailure) -> [UInt8] {
        let comment = [
            "# Costs written without a currency code (cost: 45.99) are in this currency; a cost can name",
            "# its own (cost: 45.99 USD). To change it, write your currency's code, e.g. currency: GBP.",
        ]
        guard let code else {
            return Array((comment + ["# currency: EUR"]).map { $0 + "\n" }.joined().utf8)
        }
        return try YAMLEditor.render([YAMLPair("currency", .plain(code))], header: comment)
    }
}
