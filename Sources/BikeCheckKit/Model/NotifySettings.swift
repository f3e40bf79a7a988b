/// Where `bikecheck notify` sends reminders, and when (garage.yaml's `notify:`). Secrets are
/// never here: they come from the environment when a reminder is sent.
package struct NotifySettings: Sendable, Equatable {
    /// A generic webhook: a JSON POST (schemas/notify-webhook.schema.json).
    package struct Webhook: Sendable, Equatable {
        package var url: String
        package init(url: String) { self.url = url }
    }

    /// An ntfy topic: a plain-text POST to `url/topic`.
    package struct Ntfy: Sendable, Equatable {
        package var url: String
        package var topic: String
        package init(url: String, topic: String) {
            self.url = url
            self.topic = topic
        }

        /// The address posted to: the server's URL and the topic.
        package var topicURL: String { (url.hasSuffix("/") ? String(url.dropLast()) : url) + "/" + topic }
    }

    /// Email over SMTP: STARTTLS on any port but 465, where TLS starts at once.
    package struct Email: Sendable, Equatable {
        package var to: [String]
        package var from: String
        package var host: String
        package var port: Int
        package init(to: [String], from: String, host: String, port: Int) {
            self.to = to
            self.from = from
            self.host = host
            self.port = port
        }
    }

    package var webhook: Webhook?
    package var ntfy: Ntfy?
    package var email: Email?
    /// Days after which a reminder still unresolved is sent again; nil: never again.
    package var repeatDays: Int? = 7
    /// The bands a reminder is sent for: overdue, due soon, and forecast windows.
    package var bands: [UrgencyBand] = NotifySettings.defaultBands

    package static let defaultBands: [UrgencyBand] = [.overdue, .dueSoon] + UrgencyBand.defaultWindows.map { .within(days: $0) }

    package init() {}

    /// The forecast windows among `bands`, in days.
    package var windows: [Int] { bands.compactMap { if case .within(let d) = $0 { d } else { nil } } }

    /// The channels set, by name, in a fixed order.
    package var channelNames: [String] { [ntfy.map { _ in "ntfy" }, webhook.map { _ in "webhook" }, email.map { _ in "email" }].compactMap { $0 } }
}
