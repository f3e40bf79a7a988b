import BikeCheckKit
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

extension NotifyEndToEndTests {
    @Test func aRunThatWaitsForAnotherReadsTheGarageOnlyOnceItsTurnComesSoWhatWasDoneMeanwhileIsNotSent() async throws {
        let world = try await World()
        let root = world.garage.root, environment = world.environment
        // This process holds the notify lock, as a run sending would.
        try FileManager.default.createDirectory(at: root.appendingPathComponent(".bikecheck"), withIntermediateDirectories: true)
        var lock: FileLock? = try FileLock(path: root.appendingPathComponent(".bikecheck/notify.lock").path, wait: 1)
        try #require(lock != nil, "the test holds the lock")
        let results = Box()
        Thread { results.append(try? runBikecheck(["notify", "--as-of", "2026-01-25"], in: root, environment: environment)) }.start()
        // The run has started and waits for the lock; meanwhile the rider lubes the chain.
        try await Task.sleep(nanoseconds: 700_000_000)
        let done = try await world.run(["done", "grail", "lube", "--date", "2026-01-25"])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(await world.webhook().isEmpty, "it waited")
        withExtendedLifetime(lock) {}
        lock = nil
        while results.count < 1 { try await Task.sleep(nanoseconds: 20_000_000) }
        let waited = try #require(results.values.first ?? nil)
        #expect(waited.status == 0, "\(waited.stderr)")
        let sent = try await world.webhookReminders(0)
        // The lube done meanwhile is not sent as overdue; done, it starts again, and at the
        // bike's own pace (it is young) it is forecast within 30 days: a new band, sent.
        #expect(!sent.contains("grail/lube=overdue") && sent.contains("grail/lube=within:30d") && sent.count == 4, "\(sent)")
        await world.stop()
    }
}

extension NotifyEndToEndTests {
    @Test func aTokenIsNeverSentOverPlainHTTPToAnotherMachine() async throws {
        let world = try await World()
        // 192.0.2.1 (TEST-NET-1) is never reached: nothing may be sent to it, least of all the token.
        let settings = try world.garage.read("garage.yaml").replacingOccurrences(
            of: "url: \(await world.http.baseURL)/hooks/bikes", with: "url: http://192.0.2.1/hooks/bikes")
        try world.garage.write("garage.yaml", settings)
        let r = try await world.notify(
            ["--as-of", "2026-01-25"], environment: ["BIKECHECK_WEBHOOK_TOKEN": "tk_clear", "BIKECHECK_NOTIFY_TIMEOUT_MS": "500"])
        #expect(r.status == 1)
        #expect(
            r.stderr.contains(
                "error: webhook: BIKECHECK_WEBHOOK_TOKEN would cross the network in the clear to '192.0.2.1' (an http:// address); write its https:// address"
            ), "\(r.stderr)")
        #expect(r.stdout == "ntfy: sent 4 reminders\nemail: sent 4 reminders\n", "\(r.stdout)")
        await world.stop()
    }
}

extension NotifyEndToEndTests {
    @Test func aToDoWithLineBreaksForgesNoLineHeaderOrMailLineOnAnyChannel() async throws {
        let world = try await World()
        let gravel = try world.garage.read("bikes/gravel.yaml")
        let forged = #"fit mudguards\r\nX-Forged: yes\n.\nRCPT TO:<all@example.net>\u2028end"#
        try world.garage.write("bikes/gravel.yaml", gravel + "todo:\n  - {task: \"\(forged)\", due: 2026-01-27}\n")
        let garage = try world.garage.read("garage.yaml")
        try world.garage.write("garage.yaml", garage.replacingOccurrences(of: "name: Test garage", with: #"name: "Test\r\nX-Garage: yes""#))
        let r = try await world.notify(["--as-of", "2026-01-25"])
        #expect(r.status == 0, "\(r.stderr)")
        let requests = await world.ntfy() + world.webhook()
        let headers = requests.flatMap(\.headers.keys).map { $0.lowercased() }
        #expect(!headers.contains { $0.hasPrefix("x-forged") || $0.hasPrefix("x-garage") || $0.hasPrefix("rcpt") }, "\(headers)")
        let text = await world.ntfy().first?.text ?? ""
        let mail = try #require(try world.smtp.messages().first)
        let body = mail["body"] as? String ?? ""
        for message in [text, body] {
            let lines = message.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(
                lines.contains("- gravel: to-do: fit mudguards  X-Forged: yes . RCPT TO:<all@example.net> end — due within 7 days (2026-01-27)"), "\(message)")
            #expect(lines.first == "As of 2026-01-25 (Test  X-Garage: yes):", "\(message)")
            #expect(!lines.contains { $0.hasPrefix("X-") || $0 == "." || $0.hasPrefix("RCPT") || $0.contains("\r") }, "\(message)")
        }
        #expect(mail["to"] as? [String] == ["me@example.org"] && mail["subject"] as? String == "bikecheck: 5 reminders", "\(mail)")
        await world.stop()
    }
}

extension NotifyEndToEndTests {
    /// `secret-in-garage` never quoted the secret, but the line under it did: in CI logs. The
    /// excerpt shows each secret as '****', the carets under it, in every command and format.
    @Test func aSecretInGarageYamlIsMaskedInTheExcerptUnderItsDiagnostic() throws {
        let garage = try TemporaryFolder(copying: true)
        var settings = try garage.read("garage.yaml")
        settings += """

            notify:
              webhook: {url: "https://example.org/hooks/bikes?token=tk_abc123"}
              ntfy: {url: "https://bob:hunter2@ntfy.example.org", topic: my-bikes, token: tk_ntfy99}
              email:
                to: me@example.org
                from: bikecheck@example.org
                smtp: "carol:s3cr3tpw@mail.example.org:587"
                password: pw_in_yaml

            """
        try garage.write("garage.yaml", settings)
        let secrets = ["tk_abc123", "hunter2", "tk_ntfy99", "s3cr3tpw", "pw_in_yaml"]
        for arguments in [["validate"], ["status"], ["validate", "--format", "json"], ["status", "--format", "json"]] {
            let r = try garage.run(arguments + ["--color", "never"])
            #expect(r.status != 0, "\(arguments)")
            let output = r.stdout + r.stderr
            #expect(output.contains("[secret-in-garage]") || output.contains("\"secret-in-garage\""), "\(arguments): \(output)")
            for secret in secrets { #expect(!output.contains(secret), "\(arguments) printed \(secret): \(output)") }
        }
        let text = try garage.run(["validate", "--color", "never"]).stderr
        let lines = text.components(separatedBy: "\n")
        // The masked value with the carets under it, and the key of a secret kept in view.
        let webhook = try #require(lines.firstIndex { $0.contains("webhook: {url: ****}") }, "\(text)")
        #expect(lines[webhook + 1].hasSuffix("|                  ^^^^"), "\(lines[webhook + 1])")
        let password = try #require(lines.firstIndex { $0.contains("    password: ****") }, "\(text)")
        #expect(lines[password + 1].hasSuffix("|     ^^^^^^^^"), "\(lines[password + 1])")
    }
}
