import Foundation
@testable import StravaKit
import Testing

/// Where the config folder really is, and what of a server's words may be printed.
@Suite struct TokenSafetyTests {
    func folder() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("realpath-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/garage/bikes", withIntermediateDirectories: true)
        return RealPath.location(of: dir)
    }

    @Test func theRealLocationFollowsLinksDanglingOnesTooAndKeepsWhatDoesNotExistYet() throws {
        let base = try folder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: base + "/to-garage", withDestinationPath: "garage")
        try fm.createSymbolicLink(atPath: base + "/dangling", withDestinationPath: base + "/garage/not-yet")
        try fm.createSymbolicLink(atPath: base + "/chain", withDestinationPath: "dangling/deeper")
        try fm.createSymbolicLink(atPath: base + "/loop-a", withDestinationPath: "loop-b")
        try fm.createSymbolicLink(atPath: base + "/loop-b", withDestinationPath: "loop-a")
        #expect(RealPath.location(of: base + "/to-garage/new/bikecheck") == base + "/garage/new/bikecheck")
        #expect(RealPath.location(of: base + "/dangling/bikecheck") == base + "/garage/not-yet/bikecheck")
        #expect(RealPath.location(of: base + "/chain/bikecheck") == base + "/garage/not-yet/deeper/bikecheck")
        #expect(RealPath.location(of: base + "/garage/bikes/../../to-garage/x") == base + "/garage/x")
        #expect(RealPath.location(of: base + "/missing/../to-garage/x") == base + "/garage/x")
        #expect(RealPath.location(of: base + "/loop-a/x") == "/", "a loop cannot be judged")

        let settings = StravaSettings(
            baseURL: URL(string: "http://127.0.0.1")!, configDirectory: base + "/loop-a/bikecheck",
            clientID: nil, clientSecret: nil)
        #expect(throws: StravaError.self) { try settings.checkOutside(garage: base + "/garage") }
        var outside = settings
        outside.configDirectory = base + "/config/bikecheck"
        try outside.checkOutside(garage: base + "/garage")
    }

    @Test func serverTextLosesEveryKnownSecretAndAnyTokenFieldsValue() {
        let secrets: Set<String> = ["s3cret/with+signs", "refresh-abc123"]
        let text =
            #"bad: client_secret=s3cret%2Fwith%2Bsigns&refresh_token=refresh-abc123 {"access_token": "unknown-9", "code":"c0de"} Authorization: Bearer xyz.789 keep this"#
        let out = Redaction.redact(text, secrets: secrets)
        #expect(
            out
                == #"bad: client_secret=[redacted]&refresh_token=[redacted] {"access_token": "[redacted]", "code":"[redacted]"} Authorization: Bearer [redacted] keep this"#
        )
        #expect(Redaction.redact("Bad Request; RefreshToken refresh_token invalid", secrets: secrets) == "Bad Request; RefreshToken refresh_token invalid")
    }
}
