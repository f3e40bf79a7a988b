import Foundation
import TestSupport
import Testing

/// CONTRIBUTING.md's layout stays true: every folder under `Sources/`, `Sources/BikeCheckKit/`
/// and `Sources/BikeCheckKit/Reports/` is named in it, and every folder it names exists.
@Suite struct ContributingLayoutTests {
    /// The folders the Layout section names, as paths from the repository: a list item
    /// `` - `NAME/` `` nested under another is inside it.
    static func namedFolders() throws -> Set<String> {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("CONTRIBUTING.md"), encoding: .utf8)
        guard let start = text.range(of: "\n## Layout\n") else { return [] }
        let rest = text[start.upperBound...]
        let section = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        var open: [(indent: Int, path: String)] = []
        var named: Set<String> = []
        for line in section.split(separator: "\n") {
            let indent = line.prefix { $0 == " " }.count
            let item = line.dropFirst(indent)
            guard item.hasPrefix("- `") else { continue }
            let name = item.dropFirst(3).prefix { $0 != "`" }
            guard name.hasSuffix("/") else { continue }
            while let last = open.last, last.indent >= indent { open.removeLast() }
            let path = (open.last?.path ?? "") + name
            open.append((indent, path))
            named.insert(path)
        }
        return named
    }

    static func isFolder(_ relative: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(relative).path, isDirectory: &isDirectory)
            && isDirectory.boolValue
    }

    static func folders(in relative: String) throws -> Set<String> {
        let names = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent(relative).path)
        return Set(names.filter { !$0.hasPrefix(".") && isFolder(relative + $0) }.map { relative + $0 + "/" })
    }

    @Test func everySourceFolderIsNamedInContributing() throws {
        let named = try Self.namedFolders()
        #expect(named.count >= 20, "the Layout section lists the folders: \(named.sorted())")
        let folders = try Self.folders(in: "Sources/").union(Self.folders(in: "Sources/BikeCheckKit/")).union(Self.folders(in: "Sources/BikeCheckKit/Reports/"))
        #expect(folders.subtracting(named).sorted() == [], "folders CONTRIBUTING.md's Layout does not name")
    }

    @Test func everyFolderContributingNamesExists() throws {
        let named = try Self.namedFolders()
        #expect(named.filter { !Self.isFolder($0) }.sorted() == [], "folders CONTRIBUTING.md's Layout names that are gone")
    }

    /// The project's modules a module's sources import.
    static func projectImports(of module: String) throws -> Set<String> {
        let project = try Set(FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("Sources").path))
        let folder = repositoryRoot.appendingPathComponent("Sources/" + module)
        var imported: Set<String> = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("import ") {
                let imported1 = String(line.dropFirst("import ".count))
                if project.contains(imported1) { imported.insert(imported1) }
            }
        }
        return imported
    }

    @Test func rideFilesUsesNothingOfTheProjectButBikeCheckKit() throws {
        #expect(try Self.projectImports(of: "RideFiles") == ["BikeCheckKit"])
        let package = try String(contentsOf: repositoryRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let target = try #require(package.range(of: "name: \"RideFiles\""))
        let dependencies = package[target.upperBound...].prefix { $0 != "]" }
        #expect(!dependencies.contains("StravaKit"), "Package.swift gives RideFiles \(dependencies)")
    }
}
