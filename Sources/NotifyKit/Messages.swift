import BikeCheckKit
import Foundation

/// The words and bytes each channel sends for a list of reminders.
package enum NotifyMessages {
    /// `4 reminders`, `4 reminders and 1 stale-data warning`, `1 stale-data warning`.
    package static func count(_ reminders: [Reminder]) -> String {
        let warnings = reminders.filter(\.isWarning).count
        let others = reminders.count - warnings
        let parts = [
            others > 0 || warnings == 0 ? "\(others) reminder\(others == 1 ? "" : "s")" : nil,
            warnings > 0 ? "\(warnings) stale-data warning\(warnings == 1 ? "" : "s")" : nil,
        ]
        return parts.compactMap { $0 }.joined(separator: " and ")
    }

    /// `bikecheck: 2 reminders`; ASCII only, as it travels in headers.
    package static func title(_ reminders: [Reminder]) -> String { "bikecheck: \(count(reminders))" }

    /// One line per reminder: `grail: chain-lube: Clean and lube the chain — overdue (112%)`,
    /// after a line per stale-data warning, which says that the list may be short.
    package static func text(_ reminders: [Reminder], asOf: Day, garage: String?) -> String {
        var lines = ["As of \(asOf)\(garage.map { " (\(clean($0)))" } ?? ""):"]
        for r in reminders { lines.append("- \(line(r))") }
        lines.append("")
        lines.append("bikecheck status --by urgency tells more; bikecheck done BIKE INTERVAL records a service.")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `grail: chain-lube: Clean and lube the chain — overdue (112%)`, `grail: to-do: fit
    /// mudguards — overdue (due 2026-03-10)`, `warning: the last Strava sync was … — run …`.
    static func line(_ r: Reminder) -> String {
        r.isWarning ? "\(r.label): \(clean(r.urgencyText)) — \(clean(r.task))" : "\(clean(r.label)): \(clean(r.task)) — \(r.urgencyText)"
    }

    /// Text from the garage with control characters (line breaks too) written as spaces, so a
    /// task cannot forge lines or headers.
    static func clean(_ text: String) -> String {
        String(
            String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}" ? " " : $0 }))
    }

    /// ntfy: `high` when something is overdue or forecast due within a day, else `default`.
    package static func ntfyPriority(_ reminders: [Reminder]) -> String {
        reminders.contains { $0.band.map { $0 <= .within(days: 1) } ?? false } ? "high" : "default"
    }

    /// ntfy's tags (emoji short codes): a bicycle, and a warning sign when something is overdue
    /// or the data is stale.
    package static func ntfyTags(_ reminders: [Reminder]) -> String {
        reminders.contains { $0.band == .overdue || $0.isWarning } ? "bicycle,warning" : "bicycle"
    }

    /// A message's stable id, 32 hex digits: SHA-256 over what it tells (the day, the garage's
    /// name, each reminder's key, anchor and line) and, for mail, whom it goes to; never the time
    /// or chance. A run killed after a channel took its message, and run again, sends the same
    /// id, so the receiver can drop the repeat; a repeat after `repeat` days is a new day, and new.
    package static func id(_ reminders: [Reminder], asOf: Day, garage: String?, to recipients: [String] = []) -> String {
        var fields = ["bikecheck notify 1", asOf.description, garage ?? ""]
        for r in reminders { fields += [r.key, r.since?.description ?? "", line(r)] }
        fields += recipients
        // Each field after its length, so no two lists of fields run together alike.
        let bytes = fields.flatMap { Array("\($0.utf8.count):".utf8) + Array($0.utf8) }
        return String(SHA256.hex(bytes).prefix(32))
    }

    /// The webhook's JSON (schemas/notify-webhook.schema.json): its `id`, intervals and to-dos
    /// under `reminders`, stale-data warnings under `warnings`.
    package static func webhookJSON(_ reminders: [Reminder], asOf: Day, garage: String?) -> Data {
        var items: [WebhookPayload.Item] = []
        var warnings: [WebhookPayload.Warning] = []
        for r in reminders {
            let text = line(r)
            switch r.subject {
            case .interval(let s):
                items.append(
                    .init(
                        kind: "interval", key: r.key, bike: r.bike, bikeName: r.bikeName, part: r.part, interval: s.id, todo: nil, task: s.task,
                        band: r.band ?? .ok, state: s.state, progress: s.progress, since: s.since, due: s.due, text: text))
            case .todo(let t):
                items.append(
                    .init(
                        kind: "todo", key: r.key, bike: r.bike, bikeName: r.bikeName, part: r.part, interval: nil, todo: t.id, task: t.task,
                        band: r.band ?? .ok, state: t.state, progress: nil, since: nil, due: t.due, text: text))
            case .stale(let w):
                warnings.append(.init(key: r.key, kind: w.kind.rawValue, bike: w.bike, since: w.since, message: w.message, help: w.help, text: text))
            }
        }
        let payload = WebhookPayload(
            id: id(reminders, asOf: asOf, garage: garage), asOf: asOf, garage: garage, reminders: items, warnings: warnings)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(payload)) ?? Data("{}".utf8)
    }

    struct WebhookPayload: Encodable {
        /// An interval's or a to-do's reminder; every key is written, null when it has no value.
        struct Item: Encodable {
            var kind: String
            var key: String
            var bike: String?
            var bikeName: String?
            var part: String?
            var interval: String?
            var todo: String?
            var task: String
            var band: UrgencyBand
            var state: IntervalState
            var progress: Double?
            var since: Day?
            var due: Day?
            var text: String

            enum CodingKeys: String, CodingKey {
                case kind, key, bike, part, interval, todo, task, band, state, progress, since, due, text
                case bikeName = "bike_name"
            }

            func encode(to encoder: Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(kind, forKey: .kind)
                try c.encode(key, forKey: .key)
                try c.encode(bike, forKey: .bike)
                try c.encode(bikeName, forKey: .bikeName)
                try c.encode(part, forKey: .part)
                try c.encode(interval, forKey: .interval)
                try c.encode(todo, forKey: .todo)
                try c.encode(task, forKey: .task)
                try c.encode(band, forKey: .band)
                try c.encode(state, forKey: .state)
                try c.encode(progress, forKey: .progress)
                try c.encode(since, forKey: .since)
                try c.encode(due, forKey: .due)
                try c.encode(text, forKey: .text)
            }
        }

        /// A stale-data warning, as `status` gives it, with its key.
        struct Warning: Encodable {
            var key: String
            var kind: String
            var bike: String?
            var since: Day?
            var message: String
            var help: String
            var text: String

            func encode(to encoder: Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(key, forKey: .key)
                try c.encode(kind, forKey: .kind)
                try c.encode(bike, forKey: .bike)
                try c.encode(since, forKey: .since)
                try c.encode(message, forKey: .message)
                try c.encode(help, forKey: .help)
                try c.encode(text, forKey: .text)
            }
            enum CodingKeys: String, CodingKey { case key, kind, bike, since, message, help, text }
        }
        var id: String
        var asOf: Day
        var garage: String?
        var reminders: [Item]
        var warnings: [Warning]

        enum CodingKeys: String, CodingKey {
            case asOf = "as_of"
            case id, garage, reminders, warnings
        }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(asOf, forKey: .asOf)
            try c.encode(garage, forKey: .garage)
            try c.encode(reminders, forKey: .reminders)
            try c.encode(warnings, forKey: .warnings)
        }
    }

    /// An RFC 5322 message: plain text in UTF-8, base64 in lines of 76, so no line is too long
    /// and none starts with a dot; CRLF line ends throughout. Its `Message-ID` is
    /// `<ID@bikecheck>`, ID the message's stable `id`, so a repeat can be told.
    package static func email(_ reminders: [Reminder], asOf: Day, garage: String?, from: String, to: [String], date: Date) -> [UInt8] {
        let messageID = id(reminders, asOf: asOf, garage: garage, to: to) + "@bikecheck"
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        let body = Data(text(reminders, asOf: asOf, garage: garage).replacingOccurrences(of: "\n", with: "\r\n").utf8).base64EncodedString(
            options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
        let headers = [
            "From: \(from)", "To: \(to.joined(separator: ", "))", "Subject: \(title(reminders))", "Date: \(formatter.string(from: date))",
            "Message-ID: <\(messageID)>", "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: base64",
            "X-Mailer: bikecheck",
        ]
        return Array((headers.joined(separator: "\r\n") + "\r\n\r\n" + body + "\r\n").utf8)
    }
}
