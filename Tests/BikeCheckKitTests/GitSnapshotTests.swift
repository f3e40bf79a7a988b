import Foundation
import TestSupport
import Testing

@testable import BikeCheckKit

/// Reading git's objects through one `cat-file --batch` (`GitObjectReader`, `GitSnapshot`).
@Suite struct GitSnapshotTests {
    func git(_ arguments: [String], in folder: TemporaryFolder) throws -> String {
        let r = try runProcess(
            URL(fileURLWithPath: "/usr/bin/env"), ["git", "-c", "user.name=Test", "-c", "user.email=test@example.org"] + arguments, in: folder.url)
        #expect(r.status == 0, "\(arguments): \(r.stderr)")
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func manyObjectsInOneRoundComeBackWholeWhateverWhereGitsWritesAreCut() throws {
        let folder = try TemporaryFolder()
        _ = try git(["init", "--quiet"], in: folder)
        // Sizes that put headers and contents across every boundary of the reader's 64 KiB reads.
        var ids: [String] = []
        var texts: [String] = []
        for i in 0..<40 {
            let text = String(repeating: "line \(i) of a service note\n", count: 1 + i * 37)
            try folder.write("f\(i).yaml", text)
            ids.append(try git(["hash-object", "-w", "f\(i).yaml"], in: folder))
            texts.append(text)
        }
        let reader = try GitObjectReader(root: folder.path, environment: nil)
        let names = (0..<2000).map { ids[$0 % ids.count] } + ["no-such-object"]
        let objects = try reader.read(names, limit: 1 << 20)
        #expect(objects.count == names.count)
        for (i, object) in objects.enumerated() {
            if i == names.count - 1 {
                guard case .missing = object else { Issue.record("\(object)"); continue }
                continue
            }
            guard case .found(let id, "blob", let size, let bytes?) = object else {
                Issue.record("object \(i): \(object)")
                break
            }
            #expect(id == ids[i % ids.count] && size == texts[i % ids.count].utf8.count)
            #expect(String(decoding: bytes, as: UTF8.self) == texts[i % ids.count], "object \(i)")
        }
        // A second round on the same git; one over the limit is read past, not kept.
        guard case .found(_, _, let size, nil) = try reader.read([ids[39]], limit: 100).first else {
            Issue.record("the large object was kept")
            return
        }
        #expect(size == texts[39].utf8.count)
        #expect(reader.finish().isEmpty)
    }

    @Test func theCommitDayIsTheCommittersInTheirZone() {
        func day(_ line: String) -> String? { GitSnapshot.committerDay(Array("tree 0\n\(line)\n\nmessage\n".utf8)).map(\.description) }
        // 2025-10-05 23:30 UTC is the 6th in Berlin and still the 5th in New York.
        #expect(day("committer A <a@b> 1759707000 +0200") == "2025-10-06")
        #expect(day("committer A <a@b> 1759707000 -0400") == "2025-10-05")
        #expect(day("committer A <a@b> 1759707000 +0000") == "2025-10-05")
        #expect(day("committer A <a@b> 1759707000 +0530") == "2025-10-06")
        #expect(day("committer broken") == nil)
    }
}
