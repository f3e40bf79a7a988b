import Foundation
import StravaStandIn
import TestSupport
import Testing

/// A real SMTP server on 127.0.0.1 (PyPI's aiosmtpd, in the project's tool environment) that
/// requires STARTTLS and a login, with a certificate made for the test; each message it takes
/// is written as JSON (envelope, TLS, login, subject, decoded body) to a folder.
final class SMTPReceiver {
    static let script = """
        import email, json, os, socket, ssl, sys
        from email import policy
        from aiosmtpd.controller import Controller
        from aiosmtpd.smtp import AuthResult, LoginPassword
        out, cert, key, user, password, tls = sys.argv[1:7]
        class Handler:
            async def handle_DATA(self, server, session, envelope):
                message = email.message_from_bytes(envelope.content, policy=policy.default)
                record = {"from": envelope.mail_from, "to": envelope.rcpt_tos, "tls": session.ssl is not None,
                          "login": bool(session.authenticated), "subject": str(message["subject"]),
                          "message_id": str(message["message-id"]),
                          "body": message.get_content().replace("\\r\\n", "\\n")}
                name = os.path.join(out, "%03d.json" % len([f for f in os.listdir(out) if f.endswith(".json")]))
                with open(name + ".tmp", "w") as f:
                    json.dump(record, f)
                os.rename(name + ".tmp", name)
                return "250 OK"
        def authenticate(server, session, envelope, mechanism, auth_data):
            ok = isinstance(auth_data, LoginPassword) and auth_data.login.decode() == user and auth_data.password.decode() == password
            return AuthResult(success=ok, handled=False)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
        if tls == "starttls":
            controller = Controller(Handler(), hostname="127.0.0.1", port=port, tls_context=context, require_starttls=True,
                                    authenticator=authenticate, auth_required=True, auth_require_tls=True)
        else:
            # A server that offers no STARTTLS, and would take a login and a message in the clear.
            controller = Controller(Handler(), hostname="127.0.0.1", port=port, authenticator=authenticate,
                                    auth_required=True, auth_require_tls=False)
        controller.start()
        print(port, flush=True)
        sys.stdin.read()
        controller.stop()
        """

    let folder: TemporaryFolder
    let process = Process()
    private let input = Pipe()
    private(set) var port = 0
    static let user = "rider"
    static let password = "s3cret-for-the-test"

    /// `startTLS: false` is a server that offers no STARTTLS.
    init(startTLS: Bool = true) throws {
        folder = try TemporaryFolder()
        try folder.write("receiver.py", Self.script)
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("mail"), withIntermediateDirectories: true)
        // A certificate for 127.0.0.1, trusted by bikecheck only through BIKECHECK_SMTP_CA_FILE.
        let cert = try runProcess(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "cert.pem", "-days", "2", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1",
            ], in: folder.url)
        #expect(cert.status == 0, "\(cert.stderr)")
        process.executableURL = toolsPython
        process.arguments = ["receiver.py", "mail", "cert.pem", "key.pem", Self.user, Self.password, startTLS ? "starttls" : "plain"]
        process.currentDirectoryURL = folder.url
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        if port == 0 { Issue.record("the SMTP receiver did not start (is aiosmtpd installed? run scripts/bootstrap)") }
    }

    deinit {
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    var caFile: String { folder.url.appendingPathComponent("cert.pem").path }

    /// The messages taken so far, in order.
    func messages() throws -> [[String: Any]] {
        let dir = folder.url.appendingPathComponent("mail")
        return try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }.sorted().map {
            try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent($0))) as? [String: Any] ?? [:]
        }
    }
}

/// A TCP listener on 127.0.0.1 that never accepts a connection.
final class SilentListener {
    let descriptor: Int32
    private(set) var port = 0

    init() throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
        guard bound == 0, listen(descriptor, 16) == 0 else { throw CocoaError(.fileWriteUnknown) }
        withUnsafeMutablePointer(to: &address) { p in
            _ = p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}

/// Results gathered from threads.
final class Box: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [CommandResult?] = []
    func append(_ r: CommandResult?) {
        lock.lock()
        stored.append(r)
        lock.unlock()
    }
    var values: [CommandResult?] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
    var count: Int { values.count }
}

/// `bikecheck notify` end to end: the real binary, a loopback HTTP server for ntfy and the
/// webhook, and a real SMTP server with STARTTLS.
@Suite(.serialized) struct NotifyEndToEndTests {
    /// The urgency tests' garage, with channels pointing at the receivers.
    final class World {
        let garage: TemporaryFolder
        let http = NotifyReceiver()
        let smtp: SMTPReceiver
        var environment: [String: String] = [:]

        init(repeat quiet: String = "7 days") async throws {
            garage = try UrgencyEndToEndTests.garage()
            smtp = try SMTPReceiver()
            try await http.start()
            let base = await http.baseURL
            try garage.write(
                "garage.yaml",
                """
                name: Test garage
                units: metric
                notify:
                  ntfy: {url: \(base), topic: my-bikes}
                  webhook: {url: \(base)/hooks/bikes}
                  email: {to: me@example.org, from: bikecheck@example.org, smtp: 127.0.0.1:\(smtp.port)}
                  repeat: \(quiet)

                """)
            // The receivers answer in milliseconds, but a full `swift test` starts dozens of
            // bikecheck processes at once on 2 cores when the synchronous suites finish, and a
            // receiver could then go 7 s (the default 30 s bound's stall limit) without being
            // scheduled: a generous bound keeps "sent once" from failing on load. The test of a
            // channel that hangs sets its own.
            environment = [
                "BIKECHECK_NOTIFY_TIMEOUT_MS": "60000",
                "BIKECHECK_SMTP_USER": SMTPReceiver.user, "BIKECHECK_SMTP_PASSWORD": SMTPReceiver.password, "BIKECHECK_SMTP_CA_FILE": smtp.caFile,
            ]
        }

        /// Runs bikecheck off the test's task pool, which the receivers need to answer.
        func run(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> CommandResult {
            let root = garage.root, env = environment.merging(extra) { $1 }
            let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<CommandResult, Error>, Never>) in
                DispatchQueue.global().async { continuation.resume(returning: Result { try runBikecheck(arguments, in: root, environment: env) }) }
            }
            return try result.get()
        }

        func notify(_ arguments: [String] = [], environment extra: [String: String] = [:]) async throws -> CommandResult {
            try await run(["notify"] + arguments, environment: extra)
        }

        func ntfy() async -> [NotifyReceiver.Request] { await http.requests(to: "/my-bikes") }
        func webhook() async -> [NotifyReceiver.Request] { await http.requests(to: "/hooks/bikes") }

        /// The webhook's reminders of its `n`th request, as `bike/interval=band`.
        func webhookReminders(_ n: Int) async throws -> [String] {
            let requests = await webhook()
            let json = try #require(try JSONSerialization.jsonObject(with: requests[n].body) as? [String: Any])
            return (json["reminders"] as? [[String: Any]] ?? []).map { "\($0["bike"] ?? "")/\($0["interval"] ?? "")=\($0["band"] ?? "")" }
        }

        func stop() async { await http.stop() }
    }

    @Test func theFirstRunSendsEachDueItemOnceOnEveryChannelAndASecondRunSendsNothing() async throws {
        let world = try await World()
        let first = try await world.notify(["--as-of", "2026-01-25"])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout == "ntfy: sent 4 reminders\nwebhook: sent 4 reminders\nemail: sent 4 reminders\n", "\(first.stdout)")

        let ntfy = await world.ntfy()
        #expect(ntfy.count == 1)
        #expect(ntfy.first?.method == "POST")
        #expect(ntfy.first?.headers["title"] == "bikecheck: 4 reminders")
        #expect(ntfy.first?.headers["priority"] == "high")
        #expect(ntfy.first?.headers["tags"] == "bicycle,warning")
        #expect(ntfy.first?.headers["content-type"] == "text/plain; charset=utf-8")
        let text = ntfy.first?.text ?? ""
        #expect(text.hasPrefix("As of 2026-01-25 (Test garage):\n- gravel: wax: wax — overdue (150%)\n- grail: lube: lube — overdue (125%)\n"), "\(text)")
        #expect(text.contains("- gravel: check: check — due within 7 days (~2026-01-30, 75%)\n"), "\(text)")
        #expect(!text.contains("grail: service"), "not due: \(text)")

        #expect(try await world.webhookReminders(0) == ["gravel/wax=overdue", "grail/lube=overdue", "gravel/check=within:7d", "grail/sealant=within:7d"])
        let body = try #require(await world.webhook().first?.body)
        let folder = try TemporaryFolder()
        try folder.write("webhook.json", Array(body))
        let schema = repositoryRoot.appendingPathComponent("schemas/notify-webhook.schema.json").path
        let check = try #require(try checkJSONSchema(["--schemafile", schema, "webhook.json"], in: folder.url))
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")

        let mail = try world.smtp.messages()
        #expect(mail.count == 1)
        #expect(mail.first?["tls"] as? Bool == true, "STARTTLS was used")
        #expect(mail.first?["login"] as? Bool == true, "the login came from the environment")
        #expect(mail.first?["from"] as? String == "bikecheck@example.org")
        #expect(mail.first?["to"] as? [String] == ["me@example.org"])
        #expect(mail.first?["subject"] as? String == "bikecheck: 4 reminders")
        #expect((mail.first?["body"] as? String)?.contains("- grail: sealant: sealant — due within 7 days (~2026-01-31, 80%)\n") == true, "\(mail)")

        // An hour later, cron runs again: nothing changed, nothing is sent.
        let second = try await world.notify(["--as-of", "2026-01-25"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout == "nothing new to send (4 reminders due, all sent)\n")
        #expect(await world.ntfy().count == 1)
        #expect(await world.webhook().count == 1)
        #expect(try world.smtp.messages().count == 1)
        let state = try world.garage.read(".bikecheck/notify-state.json")
        #expect(
            state.contains(
                "\"bike/grail/lube/overdue\" : { \"since\" : \"2026-01-01\", \"sent\" : { \"email\" : \"2026-01-25\", \"ntfy\" : \"2026-01-25\", \"webhook\" : \"2026-01-25\" } }"
            ), "\(state)")
        #expect(try world.garage.read(".bikecheck/.gitignore").contains("\n*\n"), "the state is git-ignored")
        await world.stop()
    }

    @Test func aNewOverdueItemSendsOneAndACloserBandSendsAgain() async throws {
        let world = try await World()
        // On 2026-01-12 three intervals are forecast due within 30 days.
        let first = try await world.notify(["--as-of", "2026-01-12"])
        #expect(first.stdout == "ntfy: sent 3 reminders\nwebhook: sent 3 reminders\nemail: sent 3 reminders\n", "\(first.stdout)\(first.stderr)")
        // A ride entered by hand makes grail's lube overdue: that one alone goes out.
        let ride = try await world.run(["ride", "add", "grail", "--date", "2026-01-11", "--time", "3h"])
        #expect(ride.status == 0, "\(ride.stderr)")
        let second = try await world.notify(["--as-of", "2026-01-12"])
        #expect(second.stdout == "ntfy: sent 1 reminder\nwebhook: sent 1 reminder\nemail: sent 1 reminder\n", "\(second.stdout)\(second.stderr)")
        #expect(try await world.webhookReminders(1) == ["grail/lube=overdue"])
        #expect(try world.smtp.messages().last?["subject"] as? String == "bikecheck: 1 reminder")
        // Days later gravel's wax is within a week of its due day: the closer band is news.
        let third = try await world.notify(["--as-of", "2026-01-14"])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(try await world.webhookReminders(2) == ["gravel/wax=within:7d"])
        await world.stop()
    }

    @Test func aFailingChannelIsRetriedOnTheNextRunAndTheOthersStillDeliver() async throws {
        let world = try await World()
        await world.http.answer("/my-bikes", with: .status(500))
        let failed = try await world.notify(["--as-of", "2026-01-25"])
        #expect(failed.status == 1)
        #expect(failed.stdout == "webhook: sent 4 reminders\nemail: sent 4 reminders\n", "\(failed.stdout)")
        #expect(
            failed.stderr.contains(
                "error: ntfy: '127.0.0.1:\(await world.http.port)' answered HTTP 500; its 4 reminders will be tried again on the next run\n"),
            "\(failed.stderr)")
        #expect(await world.ntfy().count == 1)

        // The server is back: ntfy gets the 4 it missed; the others, which have them, get nothing.
        await world.http.answer("/my-bikes", with: nil)
        let retried = try await world.notify(["--as-of", "2026-01-25"])
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(retried.stdout == "ntfy: sent 4 reminders\n", "\(retried.stdout)")
        #expect(await world.ntfy().count == 2)
        #expect(await world.webhook().count == 1)
        #expect(try world.smtp.messages().count == 1)
        await world.stop()
    }

    @Test func aChannelThatIsDownFailsAloneAndKeepsItsReminders() async throws {
        let world = try await World()
        // Nothing listens on port 1 of 127.0.0.1, for the webhook nor for mail.
        let settings = try world.garage.read("garage.yaml").replacingOccurrences(
            of: "url: \(await world.http.baseURL)/hooks/bikes", with: "url: http://127.0.0.1:1/hooks/bikes")
        try world.garage.write("garage.yaml", settings.replacingOccurrences(of: "smtp: 127.0.0.1:\(world.smtp.port)", with: "smtp: 127.0.0.1:1"))
        let r = try await world.notify(["--as-of", "2026-01-25"])
        #expect(r.status == 1)
        #expect(r.stdout == "ntfy: sent 4 reminders\n", "\(r.stdout)")
        #expect(r.stderr.contains("error: webhook: no connection to '127.0.0.1:1'"), "\(r.stderr)")
        #expect(r.stderr.contains("error: email: no connection to '127.0.0.1:1'; its 4 reminders will be tried again on the next run\n"), "\(r.stderr)")
        let again = try await world.notify(["--as-of", "2026-01-25"])
        #expect(again.status == 1)
        #expect(again.stdout.isEmpty, "ntfy has them all: \(again.stdout)")
        #expect(again.stderr.contains("error: webhook: "), "still retried: \(again.stderr)")
        #expect(await world.ntfy().count == 1)
        await world.stop()
    }

    @Test func hangingChannelsTimeOutTogetherWithoutHoldingUpTheOthers() async throws {
        let world = try await World()
        // A listener that never accepts: the kernel takes the connection and the request, and
        // no answer ever comes. Independent of the test's own scheduling, unlike a slow handler.
        let silent = try SilentListener()
        let settings = try world.garage.read("garage.yaml")
            .replacingOccurrences(of: "url: \(await world.http.baseURL), topic", with: "url: http://127.0.0.1:\(silent.port), topic")
            .replacingOccurrences(of: "url: \(await world.http.baseURL)/hooks/bikes", with: "url: http://127.0.0.1:\(silent.port)/hooks/bikes")
        try world.garage.write("garage.yaml", settings)
        let started = Date()
        let r = try await world.notify(["--as-of", "2026-01-25"], environment: ["BIKECHECK_NOTIFY_TIMEOUT_MS": "3000"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(r.status == 1)
        for channel in ["ntfy", "webhook"] {
            #expect(r.stderr.contains("error: \(channel): no complete answer from '127.0.0.1:\(silent.port)' within 3 s; its 4 reminders"), "\(r.stderr)")
        }
        #expect(r.stdout == "email: sent 4 reminders\n", "\(r.stdout)")
        #expect(try world.smtp.messages().count == 1)
        // Both hung at once: the run took about one timeout, not one per channel (6 s or more
        // one after the other); the 3 s between leave room for a busy machine's start-up.
        #expect(elapsed >= 3 && elapsed < 5.9, "took \(elapsed) s")
        await world.stop()
    }

    @Test func mailGoesOverVerifiedTLSWithTheRightLoginOrNotAtAll() async throws {
        let world = try await World()
        let settings = try world.garage.read("garage.yaml")
        try world.garage.write(
            "garage.yaml", settings.replacingOccurrences(of: "  ntfy:", with: "  # ntfy:").replacingOccurrences(of: "  webhook:", with: "  # webhook:"))
        // The test's certificate authority is not trusted unless named: verification stays on.
        let untrusted = try await world.notify(["--as-of", "2026-01-25"], environment: ["BIKECHECK_SMTP_CA_FILE": ""])
        #expect(untrusted.status == 1)
        #expect(untrusted.stderr.contains("error: email: no secure connection to '127.0.0.1:\(world.smtp.port)' ("), "\(untrusted.stderr)")
        let wrongLogin = try await world.notify(["--as-of", "2026-01-25"], environment: ["BIKECHECK_SMTP_PASSWORD": "not-it"])
        #expect(wrongLogin.status == 1)
        #expect(
            wrongLogin.stderr.contains(
                "error: email: '127.0.0.1:\(world.smtp.port)' refused the login; check BIKECHECK_SMTP_USER and BIKECHECK_SMTP_PASSWORD;"),
            "\(wrongLogin.stderr)")
        let noLogin = try await world.notify(["--as-of", "2026-01-25"], environment: ["BIKECHECK_SMTP_USER": "", "BIKECHECK_SMTP_PASSWORD": ""])
        #expect(noLogin.stderr.contains("error: email: '127.0.0.1:\(world.smtp.port)' wants a login; set BIKECHECK_SMTP_USER"), "\(noLogin.stderr)")
        #expect(try world.smtp.messages().isEmpty)
        // A server that offers no STARTTLS gets neither the login nor the message.
        let plain = try SMTPReceiver(startTLS: false)
        try world.garage.write(
            "garage.yaml", try world.garage.read("garage.yaml").replacingOccurrences(of: "127.0.0.1:\(world.smtp.port)", with: "127.0.0.1:\(plain.port)"))
        let refused = try await world.notify(["--as-of", "2026-01-25"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("error: email: no secure connection to '127.0.0.1:\(plain.port)'"), "\(refused.stderr)")
        #expect(refused.stderr.contains("bikecheck sends mail over TLS only; its 4 reminders will be tried again"), "\(refused.stderr)")
        #expect(try plain.messages().isEmpty)
        let state = (try? world.garage.read(".bikecheck/notify-state.json")) ?? ""
        #expect(!state.contains("email"), "nothing recorded as sent by mail: \(state)")
        await world.stop()
    }

    @Test func dryRunPrintsWhatWouldBeSentAndChangesNothing() async throws {
        let world = try await World()
        let r = try await world.notify(["--dry-run", "--as-of", "2026-01-12"])
        #expect(r.status == 0, "\(r.stderr)")
        // The sealant's progress rounded half up from its four decimals (docs/due.md): 37 %.
        let list = """
              gravel: wax  due within 30 days (~2026-01-20, 20%)  wax
              gravel: check  due within 30 days (~2026-01-30, 10%)  check
              grail: sealant  due within 30 days (~2026-01-31, 37%)  sealant

            """
        #expect(
            r.stdout == "ntfy: would send 3 reminders\n\(list)webhook: would send 3 reminders\n\(list)email: would send 3 reminders\n\(list)", "\(r.stdout)")
        #expect(await world.http.requests.isEmpty)
        #expect(try world.smtp.messages().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: world.garage.path + "/.bikecheck/notify-state.json"))
        await world.stop()
    }

    @Test func aReminderRepeatsAfterTheQuietPeriodAndIsForgottenOnceDone() async throws {
        let world = try await World(repeat: "3 days")
        _ = try await world.notify(["--as-of", "2026-01-25"])
        // Two days on, still quiet; three days on, the four unresolved reminders go again.
        let quiet = try await world.notify(["--as-of", "2026-01-27"])
        #expect(quiet.stdout.hasPrefix("nothing new to send"), "\(quiet.stdout)")
        let repeated = try await world.notify(["--as-of", "2026-01-28"])
        #expect(repeated.stdout.contains("webhook: sent 4 reminders"), "\(repeated.stdout)\(repeated.stderr)")
        // Waxing the chain resolves it: its overdue record goes, the others stay, and the next
        // wax, due in ten days, starts a cycle of its own.
        let done = try await world.run(["done", "gravel", "wax", "--date", "2026-01-28"])
        #expect(done.status == 0, "\(done.stderr)")
        let after = try await world.notify(["--as-of", "2026-01-28"])
        #expect(after.stdout.hasPrefix("ntfy: sent 1 reminder\n"), "\(after.stdout)")
        #expect(try await world.webhookReminders(2) == ["gravel/wax=within:30d"])
        let state = try world.garage.read(".bikecheck/notify-state.json")
        #expect(!state.contains("gravel/wax/overdue") && state.contains("\"bike/gravel/wax/within:30d\" : { \"since\" : \"2026-01-28\""), "\(state)")
        #expect(state.contains("gravel/check/within:7d"), "\(state)")
        // Ten days after the service, the wax is overdue again.
        let again = try await world.notify(["--as-of", "2026-02-07"])
        #expect(try await world.webhookReminders(3).contains("gravel/wax=overdue"), "\(again.stdout)")
        await world.stop()
    }

    @Test func aDamagedStateFileWarnsAndStartsOverWithoutLosingAReminder() async throws {
        let world = try await World()
        for damaged in [
            "{\"version\": 1, \"reminders\": {\"bike/grail/lube/overdue\": {\"since\": \"someday\", \"sent\": {}}}}", "\u{0}garbage", "[]",
            "{\"version\": 1, \"reminders\": {\"stale/elsewhere\": {\"since\": null, \"sent\": {}}}}",
            "{\"version\": 1, \"reminders\": {\"bike/grail/todo/fit mudguards/overdue\": {\"since\": null, \"sent\": {}}}}",
        ] {
            try world.garage.write(".bikecheck/notify-state.json", damaged)
            let r = try await world.notify(["--dry-run", "--as-of", "2026-01-25"])
            #expect(r.status == 0)
            #expect(r.stderr.hasPrefix("warning: ignored the notify state in .bikecheck/notify-state.json ("), "\(r.stderr)")
            #expect(r.stdout.contains("webhook: would send 4 reminders"), "\(r.stdout)")
        }
        let r = try await world.notify(["--as-of", "2026-01-25"])
        #expect(r.status == 0, "\(r.stderr)")
        // The state was rebuilt: the next run reads it without a word.
        let next = try await world.notify(["--as-of", "2026-01-25"])
        #expect(next.stderr.isEmpty && next.stdout.hasPrefix("nothing new to send"), "\(next.stdout)\(next.stderr)")
        await world.stop()
    }

    @Test func twoRunsAtOnceSendEachReminderOnce() async throws {
        let world = try await World()
        let root = world.garage.root, environment = world.environment
        // Threads of their own: the receivers run on the test's task pool, which must stay free.
        let results = Box()
        for _ in 0..<2 {
            Thread {
                let r = try? runBikecheck(["notify", "--as-of", "2026-01-25"], in: root, environment: environment)
                results.append(r)
            }.start()
        }
        while results.count < 2 { try await Task.sleep(nanoseconds: 20_000_000) }
        let both = results.values.compactMap { $0 }
        try #require(both.count == 2)
        let (first, second) = (both[0], both[1])
        #expect(first.status == 0 && second.status == 0, "\(first.stderr)\(second.stderr)")
        #expect(await world.ntfy().count == 1)
        #expect(await world.webhook().count == 1)
        #expect(try world.smtp.messages().count == 1)
        #expect([first.stdout, second.stdout].filter { $0.hasPrefix("nothing new to send") }.count == 1, "\(first.stdout)\(second.stdout)")
        await world.stop()
    }

    @Test func aGarageWithErrorsOrWithoutChannelsSendsNothing() async throws {
        let world = try await World()
        try world.garage.write("bikes/broken.yaml", "name: Broken\nbought: 2026-02-30\n")
        let broken = try await world.notify(["--as-of", "2026-01-25"])
        #expect(broken.status == 1)
        #expect(
            broken.stderr.contains("bikes/broken.yaml:2:9: error:") && broken.stderr.hasSuffix("notify sent nothing: fix the errors above first\n"),
            "\(broken.stderr)")
        #expect(await world.http.requests.isEmpty)
        try FileManager.default.removeItem(atPath: world.garage.path + "/bikes/broken.yaml")
        try world.garage.write("garage.yaml", "units: metric\n")
        let none = try await world.notify(["--as-of", "2026-01-25"])
        #expect(none.status == 2)
        #expect(none.stderr.hasPrefix("error: garage.yaml sets no notify channel\n"), "\(none.stderr)")
        await world.stop()
    }
}
