import BikeCheckKit
import Diagnostics
import Foundation
import TestSupport
import Testing

/// The golden catalogue of user-facing diagnostics: each `Catalogue/*.case` file holds the garage
/// files of one mistake and exactly what `bikecheck validate` prints for it. The catalogue doubles
/// as documentation. Re-record with `BIKECHECK_RECORD=1 swift test --filter CatalogueTests` (the
/// run fails, as every recording run does), then read the diff.
@Suite struct CatalogueTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Catalogue")

    static var cases: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".case") }.map { String($0.dropLast(5)) }.sorted()
    }

    @Test func theCatalogueIsNotEmpty() {
        #expect(Self.cases.count >= 20)
    }

    @Test(arguments: cases)
    func diagnosticsMatchTheCatalogue(_ name: String) throws {
        let url = Self.folder.appendingPathComponent(name + ".case")
        let text = try String(contentsOf: url, encoding: .utf8)
        let parsed = CatalogueCase(text)
        let garage = try TemporaryFolder()
        if parsed.files["garage.yaml"] == nil { try garage.write("garage.yaml", Array("units: metric\n".utf8)) }
        for (path, bytes) in parsed.files {
            // `== bikes/evil.yaml -> /etc/hosts` is a symbolic link.
            if let arrow = path.range(of: " -> ") {
                let link = garage.url.appendingPathComponent(String(path[..<arrow.lowerBound]))
                try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: String(path[arrow.upperBound...]))
            } else if let sparse = path.range(of: " sparse ") {
                // `== bikes/huge.yaml sparse 214748364800`: a file of that size that takes no disk.
                try garage.write(String(path[..<sparse.lowerBound]), [])
                let handle = try FileHandle(forWritingTo: garage.url.appendingPathComponent(String(path[..<sparse.lowerBound])))
                try handle.truncate(atOffset: UInt64(path[sparse.upperBound...]) ?? 0)
                try handle.close()
            } else {
                try garage.write(path, bytes)
            }
        }

        let started = Date()
        let loaded = GarageLoader.load(at: garage.url.path, options: .init(today: Day("2026-01-15")))
        let elapsed = Date().timeIntervalSince(started)
        let rendered = DiagnosticRenderer(sources: loaded.sources).render(loaded.diagnostics).string

        #expect(!loaded.diagnostics.isEmpty, "every catalogue case shows at least one diagnostic")
        #expect(elapsed < 5, "\(name) took \(elapsed) s")
        expectGolden(parsed.recorded(rendered), file: url)
    }
}

/// One catalogue file: a comment, `== path` sections with file contents, and `== expected`.
/// A section `== LINK -> TARGET` makes LINK a symbolic link to TARGET (its body is ignored);
/// `== PATH sparse SIZE` makes a sparse file of SIZE bytes, which takes no disk.
/// In file sections `{{tab}}`, `{{byte FC}}` and `{{repeat N TEXT}}` stand for bytes that are
/// awkward to keep in a text file.
struct CatalogueCase {
    var header = ""
    var sources: [(path: String, text: String)] = []
    var expected = ""

    init(_ text: String) {
        var current: String?
        var body: [Substring] = []
        func flush() {
            guard let current else { return }
            let joined = body.map { $0 + "\n" }.joined()
            if current == "expected" { expected = joined } else { sources.append((current, joined)) }
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0) {
            if line.hasPrefix("== ") {
                flush()
                current = String(line.dropFirst(3))
                body = []
            } else if current == nil {
                header += line + "\n"
            } else {
                body.append(line)
            }
        }
        flush()
    }

    var files: [String: [UInt8]] {
        Dictionary(sources.map { ($0.path, Self.expand($0.text)) }, uniquingKeysWith: { a, _ in a })
    }

    func recorded(_ output: String) -> String {
        header + sources.map { "== \($0.path)\n\($0.text)" }.joined() + "== expected\n" + output
    }

    static func expand(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            out += Array(rest[..<open.lowerBound].utf8)
            guard let close = rest[open.upperBound...].range(of: "}}") else { break }
            let words = rest[open.upperBound..<close.lowerBound].split(separator: " ", maxSplits: 2)
            switch words.first {
            case "tab": out.append(9)
            case "byte": out.append(UInt8(words[1], radix: 16) ?? 0)
            case "repeat": out += Array(repeating: Array(words[2].utf8), count: Int(words[1]) ?? 0).flatMap { $0 }
            default: break
            }
            rest = rest[close.upperBound...]
        }
        return out + Array(rest.utf8)
    }
}
