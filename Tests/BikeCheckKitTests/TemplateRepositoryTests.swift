import Foundation
import Testing
@testable import BikeCheckKit

/// Where a templates repository is and how it is written into `source:`.
@Suite struct TemplateRepositoryTests {
    @Test(arguments: [
        ("https://rider:s3cret@github.com/club/templates", "https://github.com/club/templates"),
        ("https://ghp_token@github.com/club/templates.git", "https://github.com/club/templates.git"),
        ("ssh://git:pass@example.org:2222/club.git", "ssh://git@example.org:2222/club.git"),
        ("ssh://git@example.org/club.git", "ssh://git@example.org/club.git"),
        ("git://example.org/club.git", "git://example.org/club.git"),
        ("https://example.org/a@b/club.git", "https://example.org/a@b/club.git"),
        ("git@github.com:club/templates.git", "git@github.com:club/templates.git"),
    ])
    func aURLIsRecordedWithoutItsCredentials(url: String, recorded: String) throws {
        #expect(TemplateRepository.stripCredentials(url) == recorded)
        let location = try TemplateRepository.locate(url, base: "/tmp", garageRoot: "/tmp")
        #expect(location.recorded == recorded && location.clone == url && !location.isLocal)
    }

    @Test func aLocalRepositoryIsRecordedRelativeToTheGarage() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bikecheck-loc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("garage"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("clubs/road.git"), withIntermediateDirectories: true)
        let garage = folder.appendingPathComponent("garage").path
        for text in [folder.path + "/clubs/road.git", "file://" + folder.path + "/clubs/road.git", "../clubs/road.git"] {
            let location = try TemplateRepository.locate(text, base: garage, garageRoot: garage)
            #expect(location.isLocal && location.recorded == "../clubs/road.git", "\(text)")
            #expect(location.clone.hasSuffix("/clubs/road.git") && location.clone.hasPrefix("/"))
        }
        #expect(TemplateRepository.relativePath(from: "/a/b", to: "/a/b") == ".")
        #expect(TemplateRepository.relativePath(from: "/a/b", to: "/a/b/c") == "c")
        #expect(TemplateRepository.relativePath(from: "/a/b/c", to: "/x") == "../../../x")
    }

    @Test(arguments: ["ext::sh -c touch% /tmp/x", "fd::3", "http://example.org/club.git", "ftp://example.org/club", "--upload-pack=touch x", ""])
    func transportsOtherThanHttpsSshGitAndLocalAreRefused(url: String) {
        #expect(throws: WriteFailure.self) { try TemplateRepository.locate(url, base: "/tmp", garageRoot: "/tmp") }
    }
}
