import BikeCheckKit
import Foundation

/// The words and bytes each channel sends for a list of reminders.
public enum NotifyMessages {
    /// `bikecheck: 2 reminders`; ASCII only, as it travels in headers.
    public static func title(_ reminders: [Reminder]) -> String {
        "bikecheck: \(reminders.count) reminder\(reminders.count == 1 ? "" : "s")"
    }

    /// One line per reminder: `grail: chain-lube: Clean and lube the chain — overdue (112%)`.
    public static func text(_ reminders: [Reminder], asOf: Day, garage: String?) -> String {
        var lines = ["As of \(asOf)\(garage.map { " (\(clean($0)))" } ?? ""):"]
        for r in reminders { lines.append("- \(clean(r.label)): \(clean(r.status.task)) — \(r.urgencyText)") }
        lines.append("")
        lines.append("bikecheck status --by urgency tells more; bikecheck done BIKE INTERVAL records a service.")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Text from the garage with control characters (line breaks too) written as spaces, so a
    /// task cannot forge lines or headers.
    static func clean(_ text: String) -> String {
        String(
            String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}" ? " " : $0 }))
    }

    /// ntfy: `high` when something is overdue or forecast due within a day, else `default`.
    public static func ntfyPriority(_ reminders: [Reminder]) -> String {
        reminders.contains { $0.band <= .within(days: 1) } ? "high" : "default"
    }

    /// ntfy's tags (emoji short codes): a bicycle, and a warning sign when something is overdue.
    public static func ntfyTags(_ reminders: [Reminder]) -> String {
        reminders.contains { $0.band == .overdue } ? "bicycle,warning" : "bicycle"
    }

    /// The webhook's JSON (schemas/notify-webhook.schema.json).
    public static func webhookJSON(_ reminders: [Reminder], asOf: Day, garage: String?) -> Data {
        let payload = WebhookPayload(
            asOf: asOf, garage: garage,
            reminders: reminders.map { r in
                WebhookPayload.Item(
                    key: r.key, bike: r.bike, bikeName: r.bikeName, part: r.part, interval: r.status.id, task: r.status.task,
                    band: r.band, state: r.status.state, progress: r.status.progress, since: r.status.since, due: r.status.due,
                    text: "\(r.label): \(r.status.task) — \(r.urgencyText)")
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(payload)) ?? Data("{}".utf8)
    }

    struct WebhookPayload: Encodable {
        struct Item: Encodable {
            var key: String
            var bike: String?
            var bikeName: String?
            var part: String?
            var interval: String
            var task: String
            var band: UrgencyBand
            var state: IntervalState
            var progress: Double
            var since: Day?
            var due: Day?
            var text: String

            enum CodingKeys: String, CodingKey {
                case key, bike, part, interval, task, band, state, progress, since, due, text
                case bikeName = "bike_name"
            }

            func encode(to encoder: Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(key, forKey: .key)
                try c.encode(bike, forKey: .bike)
                try c.encode(bikeName, forKey: .bikeName)
                try c.encode(part, forKey: .part)
                try c.encode(interval, forKey: .interval)
                try c.encode(task, forKey: .task)
                try c.encode(band, forKey: .band)
                try c.encode(state, forKey: .state)
                try c.encode(progress, forKey: .progress)
                try c.encode(since, forKey: .since)
                try c.encode(due, forKey: .due)
                try c.encode(text, forKey: .text)
            }
        }
        var asOf: Day
        var garage: String?
        var reminders: [Item]

        enum CodingKeys: String, CodingKey {
            case asOf = "as_of"
            case garage, reminders
        }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(asOf, forKey: .asOf)
            try c.encode(garage, forKey: .garage)
            try c.encode(reminders, forKey: .reminders)
        }
    }

    /// An RFC 5322 message: plain text in UTF-8, base64 in lines of 76, so no line is too long
    /// and none starts with a dot; CRLF line ends throughout.
    public static func email(_ reminders: [Reminder], asOf: Day, garage: String?, from: String, to: [String], date: Date, messageID: String) -> [UInt8] {
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
