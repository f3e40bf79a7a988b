import Foundation
import TestSupport
import Testing

/// `bikecheck notify` against hostile input: secrets and line breaks from the environment and
/// the garage must not reach headers, messages or other channels.
extension NotifyEndToEndTests {
    @Test func aTokenWithALineBreakAddsNoHeaderFailsItsChannelAloneAndIsNeverPrinted() async throws {
        let world = try await World()
        let token = "tk_secret\r\nX-Injected: yes"
        let r = try await world.notify(
            ["--as-of", "2026-01-25"], environment: ["BIKECHECK_NTFY_TOKEN": token, "BIKECHECK_WEBHOOK_TOKEN": "tk_other\n"])
        #expect(r.status == 1)
        let requests = await world.ntfy() + world.webhook()
        let headers = requests.flatMap(\.headers.keys)
        #expect(!headers.contains { $0.lowercased() == "x-injected" }, "\(headers)")
        #expect(r.stdout == "email: sent 4 reminders\n", "\(r.stdout)")
        #expect(r.stderr.contains("error: ntfy: BIKECHECK_NTFY_TOKEN holds a space, a line break"), "\(r.stderr)")
        #expect(r.stderr.contains("error: webhook: BIKECHECK_WEBHOOK_TOKEN holds a space, a line break"), "\(r.stderr)")
        #expect(!r.stderr.contains("tk_secret") && !r.stderr.contains("tk_other"), "\(r.stderr)")
        await world.stop()
    }
}

extension NotifyEndToEndTests {
    @Test func aTimeoutThatIsNotANumberOfMillisecondsIsAnErrorNotTheDefault() async throws {
        let world = try await World()
        for value in ["30s", "-5", "0", "99999999999999999999"] {
            let r = try await world.notify(["--as-of", "2026-01-25"], environment: ["BIKECHECK_NOTIFY_TIMEOUT_MS": value])
            #expect(r.status == 2, "\(value): \(r.stdout)\(r.stderr)")
            #expect(r.stderr.contains("error: BIKECHECK_NOTIFY_TIMEOUT_MS '\(value)' is not a number of milliseconds"), "\(r.stderr)")
        }
        let (ntfy, webhook, mail) = (await world.ntfy(), await world.webhook(), try world.smtp.messages())
        #expect(ntfy.isEmpty && webhook.isEmpty && mail.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: world.garage.root.appendingPathComponent(".bikecheck/notify-state.json").path))
        await world.stop()
    }
}
