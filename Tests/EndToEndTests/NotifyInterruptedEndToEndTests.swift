import Foundation
import TestSupport
import Testing

import BikeCheckKit
@testable import NotifyKit

/// `bikecheck notify` killed between two channels' answers, and the stable id that lets a
/// receiver drop a message sent twice.
extension NotifyEndToEndTests {
    /// Each webhook request's `id`, in order.
    static func webhookIDs(_ world: World) async throws -> [String] {
        try await world.webhook().map { request in
            let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
            return json["id"] as? String ?? ""
        }
    }

    /// Each message's `Message-ID`, in order.
    static func messageIDs(_ world: World) throws -> [String] {
        try world.smtp.messages().map { $0["message_id"] as? String ?? "" }
    }

    /// Issue 20 item 9: every reminder a killed run had delivered was sent again (17 kills, 17
    /// duplicate batches per channel), as the state was saved only once every channel answered.
    @Test func aRunKilledAfterOneChannelAnsweredAndBeforeAnotherDidSendsTheFirstNothingAgain() async throws {
        let world = try await World()
        // The webhook hangs (a listener that never accepts), ntfy and mail answer at once.
        let silent = try SilentListener()
        let base = await world.http.baseURL
        let settings = try world.garage.read("garage.yaml")
        try world.garage.write(
            "garage.yaml", settings.replacingOccurrences(of: "url: \(base)/hooks/bikes", with: "url: http://127.0.0.1:\(silent.port)/hooks/bikes"))
        var environment = world.environment
        environment["BIKECHECK_NOTIFY_TIMEOUT_MS"] = "120000"
        let run = try StartedBikecheck(["notify", "--as-of", "2026-01-25"], in: world.garage.root, environment: environment)
        // ntfy and mail took their reminders; the run waits for the webhook. Give it until its
        // state records both (at most 20 s: without saving as they answer, it never does).
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let state = (try? world.garage.read(".bikecheck/notify-state.json")) ?? ""
            let ntfy = await world.ntfy().count
            if ntfy == 1, try world.smtp.messages().count == 1, state.contains("\"ntfy\""), state.contains("\"email\"") { break }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        #expect(run.process.isRunning, "still waiting for the webhook")
        kill(run.process.processIdentifier, SIGKILL)
        let killed = try run.finish()
        #expect(killed.status == SIGKILL, "\(killed.stdout)\(killed.stderr)")
        #expect(await world.ntfy().count == 1)
        #expect(try world.smtp.messages().count == 1)

        // The webhook is back: the next run sends to it alone.
        try world.garage.write("garage.yaml", settings)
        let again = try await world.notify(["--as-of", "2026-01-25"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout == "webhook: sent 4 reminders\n", "\(again.stdout)")
        #expect(await world.ntfy().count == 1, "ntfy had them")
        #expect(try world.smtp.messages().count == 1, "mail had them")
        #expect(try await world.webhookReminders(0) == ["gravel/wax=overdue", "grail/lube=overdue", "gravel/check=within:7d", "grail/sealant=within:7d"])
        let state = try world.garage.read(".bikecheck/notify-state.json")
        #expect(
            state.contains(
                "\"bike/grail/lube/overdue\" : { \"since\" : \"2026-01-01\", \"sent\" : { \"email\" : \"2026-01-25\", \"ntfy\" : \"2026-01-25\", \"webhook\" : \"2026-01-25\" } }"
            ), "\(state)")
        await world.stop()
    }

    /// A message sent again (its channel took it, and the run was killed before the answer was
    /// saved) has the id it had: the webhook's `id` and mail's `Message-ID` come from what the
    /// message tells, never from the time or chance; other reminders give another id.
    @Test func theSameRemindersHaveTheSameMessageIDAndOthersAnother() async throws {
        let world = try await World()
        let first = try await world.notify(["--as-of", "2026-01-25"])
        #expect(first.status == 0, "\(first.stderr)")
        // As if nothing had been recorded: the same reminders go again.
        try FileManager.default.removeItem(at: world.garage.root.appendingPathComponent(".bikecheck/notify-state.json"))
        let second = try await world.notify(["--as-of", "2026-01-25"])
        #expect(second.stdout == first.stdout, "\(second.stdout)\(second.stderr)")
        // Lubing the chain changes what is due: another message, another id.
        let done = try await world.run(["done", "grail", "lube", "--date", "2026-01-25"])
        #expect(done.status == 0, "\(done.stderr)")
        try FileManager.default.removeItem(at: world.garage.root.appendingPathComponent(".bikecheck/notify-state.json"))
        let third = try await world.notify(["--as-of", "2026-01-25"])
        #expect(third.status == 0, "\(third.stderr)")

        let ids = try await Self.webhookIDs(world)
        #expect(ids.count == 3)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) }, "\(ids)")
        #expect(ids[0] == ids[1], "\(ids)")
        #expect(ids[2] != ids[0], "\(ids)")
        try await Self.expectWebhookSchema(world)

        let mail = try Self.messageIDs(world)
        #expect(mail.count == 3)
        #expect(mail.allSatisfy { $0.hasPrefix("<") && $0.hasSuffix("@bikecheck>") && $0.count == 32 + 12 }, "\(mail)")
        #expect(mail[0] == mail[1], "\(mail)")
        #expect(mail[2] != mail[0], "\(mail)")
    }

    /// The id's hash is SHA-256 (FIPS 180-4's examples: one block, two blocks, none).
    @Test func theMessageIDHashIsSHA256() {
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}
