import Foundation
import Testing
@testable import BikeCheckKit

/// A temporary garage folder for the core write functions, removed when the value goes away.
final class ScratchGarage {
    let root: String

    init(_ files: [String: [UInt8]]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("bikecheck-kit-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for (path, bytes) in files { try write(path, bytes) }
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    func write(_ relative: String, _ bytes: [UInt8]) throws {
        let url = URL(fileURLWithPath: root + "/" + relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

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

/// Holds `after` to the golden `NAME.after.yaml` in `folder` (re-recorded first when
/// BIKECHECK_RECORD_GOLDEN=1), and returns the old lines the write removed.
func expectGolden(_ after: [UInt8], before: [UInt8], name: String, in folder: URL) throws -> [String] {
    let goldenURL = folder.appendingPathComponent("\(name).after.yaml")
    if ProcessInfo.processInfo.environment["BIKECHECK_RECORD_GOLDEN"] == "1" {
        try Data(after).write(to: goldenURL)
    }
    let golden = [UInt8](try Data(contentsOf: goldenURL))
    #expect(after == golden, "\(name): got\n\(String(decoding: after, as: UTF8.self))")
    let ops = UnifiedDiff.script(UnifiedDiff.lines(before), UnifiedDiff.lines(after))
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
