import Foundation

/// One catalogue file: a comment, `== path` sections with file contents, and `== expected`.
/// A section `== LINK -> TARGET` makes LINK a symbolic link to TARGET (its body is ignored);
/// `== PATH sparse SIZE` makes a sparse file of SIZE bytes, which takes no disk.
/// In file sections `{{tab}}`, `{{byte FC}}` and `{{repeat N TEXT}}` stand for bytes that are
/// awkward to keep in a text file.
public struct CatalogueCase {
    /// Where the catalogue lives: `Tests/BikeCheckKitTests/Catalogue/`.
    public static let folder = repositoryRoot.appendingPathComponent("Tests/BikeCheckKitTests/Catalogue")

    /// The names of the cases, sorted (file names without `.case`).
    public static var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".case") }.map { String($0.dropLast(5)) }.sorted()
    }

    public var header = ""
    public var sources: [(path: String, text: String)] = []
    public var expected = ""

    public init(_ text: String) {
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

    public var files: [String: [UInt8]] {
        Dictionary(sources.map { ($0.path, Self.expand($0.text)) }, uniquingKeysWith: { a, _ in a })
    }

    public func recorded(_ output: String) -> String {
        header + sources.map { "== \($0.path)\n\($0.text)" }.joined() + "== expected\n" + output
    }

    public static func expand(_ text: String) -> [UInt8] {
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

    /// Writes the case's garage into `garage`: its files, links and sparse files, and a
    /// `garage.yaml` when it has none.
    public func write(into garage: TemporaryFolder) throws {
        if files["garage.yaml"] == nil { try garage.write("garage.yaml", Array("units: metric\n".utf8)) }
        for (path, bytes) in files {
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
    }
}
