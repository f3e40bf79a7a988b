import Diagnostics
import Foundation
import LocatedYAML

/// The three-way merge of one garage file, as git's merge driver (`bikecheck git merge-driver`):
/// the YAML trees merged by their keys (`YAMLMerge`), services, to-dos and hand-entered rides as
/// sets, the result written through the edit engine, and checked by the file's own decoder.
package enum GarageMerge {
    /// What a garage file holds, from its path (relative to the garage or to the top of the
    /// repository: the last two components decide).
    package enum Kind: Sendable, Equatable {
        case settings, rides
        case bike(String), gear(String), part(String), template(String)

        package init?(path: String) {
            let parts = path.split(separator: "/").map(String.init)
            guard let name = parts.last else { return nil }
            let stem = GarageLoader.stem(name)
            guard stem != name else { return nil }
            let folder = parts.count > 1 ? parts[parts.count - 2] : ""
            switch (folder, name) {
            case ("bikes", _): self = .bike(stem)
            case ("gear", _): self = .gear(stem)
            case ("parts", _): self = .part(stem)
            case ("templates", _): self = .template(stem)
            case (_, "garage.yaml"): self = .settings
            case (_, "rides.yaml"): self = .rides
            default: return nil
            }
        }

        /// The lists merged as sets, and what orders their new items.
        var sets: Set<YAMLPath> {
            switch self {
            // Gear is a bike with a kind: its file merges as a bike's.
            case .bike, .gear, .part: [["log"], ["todo"]]
            case .rides: [["rides"]]
            case .settings, .template: []
            }
        }
    }

    /// The merge engine's rules for a kind of file: the log and rides in date order, to-dos as
    /// they come.
    static func rules(_ kind: Kind) -> YAMLMerge {
        let sets = kind.sets
        return YAMLMerge(sets: { path in
            guard sets.contains(path) else { return nil }
            if path == ["todo"] { return YAMLMerge.SetRule() }
            return YAMLMerge.SetRule(order: { item in
                guard case .mapping(let m) = item, case .scalar(let s)? = m["date"], Day(s.value) != nil else { return nil }
                return s.value
            })
        })
    }

    /// What a merge gave: the merged file, or the reasons it is a conflict (located in our file,
    /// or in the merged one when the merge does not validate), with the texts to show them.
    package struct Outcome: Sendable {
        package var merged: [UInt8]?
        package var diagnostics: [Diagnostic]
        package var sources: [String: SourceText]
    }

    /// Merges the three versions of the garage file at `path`. A conflict's messages and
    /// excerpts mask every secret any of the versions holds, as `validate` masks them
    /// (`Diagnostic.masking`): they land in terminals and CI logs.
    package static func merge(base: [UInt8], ours: [UInt8], theirs: [UInt8], path: String) -> Outcome {
        var outcome = unmasked(base: base, ours: ours, theirs: theirs, path: path)
        guard !outcome.diagnostics.isEmpty, let kind = Kind(path: path) else { return outcome }
        let secrets = Array(
            Set(
                [base, ours, theirs, outcome.merged ?? []].flatMap { bytes in
                    Diagnostic.secrets(redactedBy: validate(bytes, path: path, kind: kind).filter { $0.id == DiagnosticID.secretInGarage.rawValue }, in: bytes)
                })
        ).sorted { $0.count > $1.count }
        outcome.diagnostics = outcome.diagnostics.map { $0.masking(secrets, source: outcome.sources[$0.location.file]?.bytes) }
        return outcome
    }

    static func unmasked(base: [UInt8], ours: [UInt8], theirs: [UInt8], path: String) -> Outcome {
        // Our text, for a conflict's excerpts: made only for one.
        var oursSource: [String: SourceText] { [path: SourceText(path: path, bytes: ours)] }
        guard let kind = Kind(path: path) else {
            return Outcome(
                merged: nil,
                diagnostics: [
                    .error(
                        .mergeConflict, "'\(path)' is not a garage file bikecheck knows how to merge", at: SourceLocation(file: path),
                        help: "route only garage.yaml, rides.yaml, bikes/, parts/ and templates/ to bikecheck ('bikecheck git setup' writes these lines)")
                ], sources: oursSource)
        }
        switch rules(kind).mergeDocument(base: base, ours: ours, theirs: theirs, path: path, limits: .garage) {
        case .failure(let failure):
            return Outcome(merged: nil, diagnostics: failure.diagnostics, sources: oursSource)
        case .success(let document):
            let merged = document.source.bytes
            let errors = validate(merged, path: path, kind: kind, parsed: document).filter { $0.severity == .error }
            guard errors.isEmpty else {
                let note = Diagnostic.error(
                    .mergeConflict, "the merge of both sides' changes to '\(path)' does not validate", at: SourceLocation(file: path),
                    help: "each side is valid on its own; make the merged file valid by hand, then 'git add' it")
                return Outcome(merged: merged, diagnostics: [note] + errors, sources: [path: SourceText(path: path, bytes: merged)])
            }
            return Outcome(merged: merged, diagnostics: [], sources: [:])
        }
    }

    /// The diagnostics of the file's own decoder for these bytes (as `validate` shows them for
    /// the file alone: no checks across files); `parsed`: the bytes' document, when the merge has it.
    /// The decoder's warnings are not built: every caller keeps errors only.
    static func validate(_ bytes: [UInt8], path: String, kind: Kind, parsed: YAMLDocument? = nil) -> [Diagnostic] {
        switch kind {
        case .settings: GarageLoader.parse(path, bytes, parsed: parsed, warnings: false) { FileDecoders.settings($0, &$1) }.diagnostics
        case .rides: GarageLoader.parse(path, bytes, parsed: parsed, warnings: false) { FileDecoders.rides($0, &$1) }.diagnostics
        case .bike(let id): GarageLoader.parse(path, bytes, parsed: parsed, warnings: false) { FileDecoders.bike(id: BikeID(id), $0, &$1) }.diagnostics
        case .gear(let id):
            GarageLoader.parse(path, bytes, parsed: parsed, warnings: false) { FileDecoders.bike(id: BikeID(id), $0, &$1, gear: true) }.diagnostics
        case .part(let id): GarageLoader.parse(path, bytes, parsed: parsed, warnings: false) { FileDecoders.part(id: PartID(id), $0, &$1) }.diagnostics
        case .template(let id):
            GarageLoader.parse(path, bytes, parsed: parsed, warnings: false) { FileDecoders.template(id: TemplateID(id), $0, &$1) }.diagnostics
        }
    }
}
