import Foundation
import TestSupport
import Testing

/// What the binary loads at start-up: no networking library for offline commands.
@Suite struct StartUpEndToEndTests {
    @Test func theBinaryDoesNotLinkLibcurl() throws {
        // Commands that never talk to Strava (--help, status, validate, the writes) start without
        // libcurl and the libraries it pulls in; the Strava commands load it on first use.
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/ldd"), [bikecheckBinary.path], in: repositoryRoot)
        #expect(result.status == 0)
        #expect(result.stdout.contains("libc.so"), "ldd listed the binary's libraries")
        #expect(!result.stdout.contains("libcurl"), "\(result.stdout)")
    }

}
