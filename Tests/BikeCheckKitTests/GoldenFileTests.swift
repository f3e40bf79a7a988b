import Foundation
import TestSupport
import Testing

/// `expectGolden`, the one golden-file check: a match passes, a difference fails naming the
/// line, and a recording run writes the file and fails, so it can never pass by accident.
@Suite struct GoldenFileTests {
    @Test func aMatchPasses() throws {
        let folder = try TemporaryFolder(["same.txt": Array("a\nb\n".utf8)])
        expectGolden("a\nb\n", file: folder.url.appendingPathComponent("same.txt"), recording: false)
    }

    @Test func aDifferenceFailsAndSaysWhere() throws {
        let folder = try TemporaryFolder(["golden.txt": Array("a\nb\n".utf8)])
        withKnownIssue {
            expectGolden("a\nc\n", file: folder.url.appendingPathComponent("golden.txt"), recording: false)
        } matching: { issue in
            String(describing: issue).contains("golden.txt differs at line 2")
        }
        #expect(try String(contentsOf: folder.url.appendingPathComponent("golden.txt"), encoding: .utf8) == "a\nb\n", "checking writes nothing")
    }

    @Test func recordingWritesTheFileAndFailsTheTest() throws {
        let folder = try TemporaryFolder(["golden.txt": Array("old\n".utf8)])
        let file = folder.url.appendingPathComponent("golden.txt")
        withKnownIssue {
            expectGolden("new\n", file: file, recording: true)
        } matching: { issue in
            String(describing: issue).contains("recorded golden.txt")
        }
        #expect(try String(contentsOf: file, encoding: .utf8) == "new\n")
        withKnownIssue("even when nothing changed") { expectGolden("new\n", file: file, recording: true) }
    }

    @Test func aMissingGoldenFileFails() throws {
        let folder = try TemporaryFolder()
        withKnownIssue { expectGolden("x", file: folder.url.appendingPathComponent("none.txt"), recording: false) }
    }
}
