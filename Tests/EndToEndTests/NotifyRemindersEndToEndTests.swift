import Foundation
import TestSupport
import Testing

/// `bikecheck notify` with snoozes, to-dos and stale data, through the real binary and the
/// same receivers as `NotifyEndToEndTests`.
extension NotifyEndToEndTests {
    /// Every `key` the webhook was sent under `field` (`reminders` or `warnings`), request by request.
    static func webhookKeys(_ world: World, _ field: String = "reminders") async throws -> [[String]] {
        try await world.webhook().map { request in
            let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
            return (json[field] as? [[String: Any]] ?? []).map { $0["key"] as? String ?? "" }
        }
    }

    /// Holds the webhook's last body to `schemas/notify-webhook.schema.json`.
    static func expectWebhookSchema(_ world: World) async throws {
        let body = try #require(await world.webhook().last?.body)
        let folder = try TemporaryFolder()
        try folder.write("webhook.json", Array(body))
        let schema = repositoryRoot.appendingPathComponent("schemas/notify-webhook.schema.json").path
        let check = try #require(try checkJSONSchema(["--schemafile", schema, "webhook.json"], in: folder.url))
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }

    @Test func aSnoozedIntervalSendsNothingUntilItsDayThenOnceAndDoneClearsTheSnoozeAndTheReminder() async throws {
        let world = try await World()
        // gravel's wax is overdue from 2026-01-20; the rider puts it off (snooze takes only a
        // day after the real today, so a far one, and the runs go there with --as-of).
        let snooze = try await world.run(["snooze", "gravel", "wax", "--until", "2099-01-01"])
        #expect(snooze.status == 0, "\(snooze.stderr)")
        let first = try await world.notify(["--as-of", "2026-01-25"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try await world.webhookReminders(0) == ["grail/lube=overdue", "gravel/check=within:7d", "grail/sealant=within:7d"])
        // The day before, everything else is overdue, and still nothing for it.
        let before = try await world.notify(["--as-of", "2098-12-31"])
        #expect(before.status == 0, "\(before.stderr)")
        #expect(before.stdout.contains("webhook: sent "), "\(before.stdout)")
        let dry = try await world.notify(["--dry-run", "--as-of", "2098-12-31"])
        #expect(dry.stdout.hasPrefix("ntfy: nothing new\n") && !dry.stdout.contains("gravel: wax"), "\(dry.stdout)")
        #expect(try await Self.webhookKeys(world).joined().allSatisfy { !$0.contains("gravel/wax") })

        // On its day it is overdue again: sent once, on every channel, and alone.
        let onTheDay = try await world.notify(["--as-of", "2099-01-01"])
        #expect(onTheDay.status == 0, "\(onTheDay.stderr)")
        #expect(onTheDay.stdout == "ntfy: sent 1 reminder\nwebhook: sent 1 reminder\nemail: sent 1 reminder\n", "\(onTheDay.stdout)")
        #expect(try await Self.webhookKeys(world).last == ["bike/gravel/wax/overdue"])
        #expect((await world.ntfy().last?.text ?? "").contains("- gravel: wax: wax — overdue ("))
        let again = try await world.notify(["--as-of", "2099-01-01"])
        #expect(again.stdout.hasPrefix("nothing new to send"), "\(again.stdout)")
        #expect(try await Self.webhookKeys(world).joined().filter { $0.contains("gravel/wax") } == ["bike/gravel/wax/overdue"])

        // Waxing it clears the snooze line and resolves the reminder.
        let done = try await world.run(["done", "gravel", "wax", "--date", "2026-01-28"])
        #expect(done.status == 0, "\(done.stderr)")
        let gravel = try world.garage.read("bikes/gravel.yaml")
        #expect(!gravel.contains("snooze"), "\(gravel)")
        let after = try await world.notify(["--as-of", "2026-01-28"])
        #expect(after.status == 0, "\(after.stderr)")
        #expect(try await Self.webhookKeys(world).last == ["bike/gravel/wax/within:30d"], "the next wax, a cycle of its own: \(after.stdout)")
        let state = try world.garage.read(".bikecheck/notify-state.json")
        #expect(!state.contains("gravel/wax/overdue") && state.contains("\"bike/gravel/wax/within:30d\" : { \"since\" : \"2026-01-28\""), "\(state)")
        await world.stop()
    }

    @Test func aToDoWithADueDayIsSentByItsBandAndForgottenOnceDone() async throws {
        let world = try await World()
        let mudguards = try await world.run(["todo", "add", "gravel", "fit mudguards", "--due", "2026-01-27"])
        #expect(mudguards.status == 0, "\(mudguards.stderr)")
        let hanger = try await world.run(["todo", "add", "grail", "replace rear derailleur hanger", "--due", "2026-02-20", "--id", "hanger"])
        #expect(hanger.status == 0, "\(hanger.stderr)")
        let undated = try await world.run(["todo", "add", "grail", "check the tyre pressure gauge"])
        #expect(undated.status == 0, "\(undated.stderr)")

        let first = try await world.notify(["--as-of", "2026-01-25"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "ntfy: sent 6 reminders\nwebhook: sent 6 reminders\nemail: sent 6 reminders\n", "\(first.stdout)")
        // After the intervals, the to-dos by due day; one without a due day is never a reminder.
        #expect(
            try await Self.webhookKeys(world).first?.suffix(2) == ["bike/gravel/todo/fit%20mudguards/within:7d", "bike/grail/todo/hanger/within:30d"])
        try await Self.expectWebhookSchema(world)
        let sent = try #require(await world.webhook().first?.body)
        let body = try #require(try JSONSerialization.jsonObject(with: sent) as? [String: Any])
        let todo = try #require((body["reminders"] as? [[String: Any]])?.last)
        #expect(todo["kind"] as? String == "todo" && todo["todo"] as? String == "hanger" && todo["interval"] is NSNull, "\(todo)")
        #expect(todo["due"] as? String == "2026-02-20" && todo["task"] as? String == "replace rear derailleur hanger", "\(todo)")
        let text = await world.ntfy().first?.text ?? ""
        #expect(text.contains("- gravel: to-do: fit mudguards — due within 7 days (2026-01-27)\n"), "\(text)")
        #expect(text.contains("- grail: to-do: replace rear derailleur hanger — due within 30 days (2026-02-20)\n"), "\(text)")
        #expect(!text.contains("gauge"), "\(text)")
        let second = try await world.notify(["--as-of", "2026-01-25"])
        #expect(second.stdout == "nothing new to send (6 reminders due, all sent)\n", "\(second.stdout)")

        // Past its day the mudguards' to-do is overdue: news.
        let late = try await world.notify(["--as-of", "2026-01-28"])
        #expect(late.status == 0, "\(late.stderr)")
        #expect(try await Self.webhookKeys(world).last?.contains("bike/gravel/todo/fit%20mudguards/overdue") == true, "\(late.stdout)")
        #expect(try world.smtp.messages().last.map { ($0["body"] as? String ?? "").contains("fit mudguards — overdue (due 2026-01-27)") } == true)

        // Closing it with done --todo resolves it: its records go, the hanger's stay.
        let done = try await world.run(["done", "gravel", "--todo", "fit mudguards", "--date", "2026-01-28"])
        #expect(done.status == 0, "\(done.stderr)")
        let after = try await world.notify(["--as-of", "2026-01-28"])
        #expect(after.status == 0, "\(after.stderr)")
        let state = try world.garage.read(".bikecheck/notify-state.json")
        #expect(!state.contains("mudguards") && state.contains("\"bike/grail/todo/hanger/within:30d\" : { \"since\" : \"2026-02-20\""), "\(state)")
        await world.stop()
    }

    @Test func staleDataIsSentOnceLikeAReminderWarnedOnEveryRunAndForgottenWhenItGoes() async throws {
        let world = try await World()
        // The last sync was on 2026-01-02, and gravel, on Strava as b2, has no ride while grail has.
        try world.garage.write(".bikecheck/last-sync.json", "{\"finished\":\"2026-01-02T12:00:00Z\"}\n")
        try world.garage.write("garage.yaml", try world.garage.read("garage.yaml") + "quiet_after: 7 days\n")
        try world.garage.write(
            "bikes/gravel.yaml", try world.garage.read("bikes/gravel.yaml").replacingOccurrences(of: "name: Gravel\n", with: "name: Gravel\nstrava: b2\n"))
        let sync = "the last Strava sync was on 2026-01-02, 23 days before 2026-01-25: usage since then is missing"
        let quiet = "bike 'gravel' (Strava gear b2) has no cached ride at all, while 'grail' has rides in the last 7 days"

        let dry = try await world.notify(["--dry-run", "--as-of", "2026-01-25"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.hasPrefix("ntfy: would send 4 reminders and 2 stale-data warnings\n  warning  \(sync)  run 'bikecheck sync'"), "\(dry.stdout)")
        #expect(dry.stdout.contains("\n  warning  \(quiet)  check that its rides"), "\(dry.stdout)")
        #expect(dry.stderr.hasPrefix("warning: \(sync) [stale-sync]\n  help: run 'bikecheck sync'"), "\(dry.stderr)")

        let first = try await world.notify(["--as-of", "2026-01-25"])
        #expect(first.status == 0, "a warning is not a failure: \(first.stderr)")
        #expect(first.stdout.hasPrefix("ntfy: sent 4 reminders and 2 stale-data warnings\n"), "\(first.stdout)")
        #expect(first.stderr.contains("warning: \(quiet) [quiet-bike]\n"), "\(first.stderr)")
        #expect(try await Self.webhookKeys(world, "warnings") == [["stale/sync", "stale/bike/gravel"]])
        #expect(try await Self.webhookKeys(world).first?.count == 4)
        try await Self.expectWebhookSchema(world)
        let ntfy = try #require(await world.ntfy().first)
        #expect(ntfy.headers["title"] == "bikecheck: 4 reminders and 2 stale-data warnings")
        #expect(ntfy.text.hasPrefix("As of 2026-01-25 (Test garage):\n- warning: \(sync) — run 'bikecheck sync'"), "\(ntfy.text)")
        #expect(try world.smtp.messages().first?["subject"] as? String == "bikecheck: 4 reminders and 2 stale-data warnings")

        // Cron again: sent already, so nothing goes out, but standard error still says it.
        let second = try await world.notify(["--as-of", "2026-01-25"])
        #expect(second.stdout == "nothing new to send (4 reminders and 2 stale-data warnings due, all sent)\n", "\(second.stdout)")
        #expect(second.stderr.contains("[stale-sync]") && second.stderr.contains("[quiet-bike]"), "\(second.stderr)")
        #expect(await world.webhook().count == 1)

        // A sync runs: that warning goes, and its record with it; the quiet bike's stays.
        try world.garage.write(".bikecheck/last-sync.json", "{\"finished\":\"2026-01-24T12:00:00Z\"}\n")
        let synced = try await world.notify(["--as-of", "2026-01-25"])
        #expect(synced.stdout.hasPrefix("nothing new to send"), "\(synced.stdout)")
        #expect(!synced.stderr.contains("[stale-sync]"), "\(synced.stderr)")
        var state = try world.garage.read(".bikecheck/notify-state.json")
        #expect(!state.contains("stale/sync") && state.contains("\"stale/bike/gravel\" : { \"since\" : null"), "\(state)")

        // The sync job stops again: a new stale-sync warning, counted from the new last sync.
        let stopped = try await world.notify(["--as-of", "2026-02-09"])
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(try await Self.webhookKeys(world, "warnings").last == ["stale/sync"], "\(stopped.stdout)")
        state = try world.garage.read(".bikecheck/notify-state.json")
        #expect(state.contains("\"stale/sync\" : { \"since\" : \"2026-01-24\""), "\(state)")
        await world.stop()
    }
}
