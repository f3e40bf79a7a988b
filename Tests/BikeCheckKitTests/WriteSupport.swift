import Foundation
import TestSupport
import Testing
@testable import BikeCheckKit

/// A temporary garage for the core write functions.
extension TemporaryFolder {
    /// The garage's path, as the kit's functions take it.
    var root: String { url.path }

    func read(_ relative: String) -> [UInt8]? {
        FileManager.default.contents(atPath: root + "/" + relative).map { [UInt8]($0) }
    }

    func context(today: String = "2026-11-20") -> WriteContext {
        WriteContext(root: root, today: Day(today) ?? Day(ordinal: 0))
    }
}

let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

/// Golden write cases in a folder: each `NAME.before.yaml` with its `NAME.after.yaml`.
func goldenCases(in folder: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        .filter { $0.hasSuffix(".before.yaml") }.map { String($0.dropLast(".before.yaml".count)) }.sorted()
}

/// Holds `after` to the golden `NAME.after.yaml` in `folder` (`expectGolden`: BIKECHECK_RECORD=1
/// re-records it), and returns the old lines the write removed.
func expectGolden(_ after: [UInt8], before: [UInt8], name: String, in folder: URL, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> [String]
{
    expectGolden(after, file: folder.appendingPathComponent("\(name).after.yaml"), sourceLocation: sourceLocation)
    let ops = UnifiedDiff.script(before, after)
    return ops.filter { $0.kind == .removed }.map { String(decoding: $0.text, as: UTF8.self) }
}
let repositoryFolder = testsFolder.deletingLastPathComponent().deletingLastPathComponent()

/// The templates of the example garage plus a plain `road` one, as files.
func exampleTemplates() throws -> [String: [UInt8]] {
    var files: [String: [UInt8]] = ["garage.yaml": Array("name: test\n".utf8)]
    let folder = repositoryFolder.appendingPathComponent("example-garage/templates")
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
        files["templates/" + name] = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
    }
    files["templates/road.yaml"] = Array("name: Road\nintervals:\n  chain-lube:\n    every: 10 h\n  bar-tape:\n    every: 12 months\n".utf8)
    return files
}

extension LoadedGarage {
    /// The activities of a load with `.full`; none otherwise.
    var wholeActivities: [Activity] {
        if case .full(let all) = activities { return all }
        return []
    }
}
