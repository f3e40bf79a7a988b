/// Where `bikecheck notify` sends reminders, and when (garage.yaml's `notify:`). Secrets are
/// never here: they come from the environment when a reminder is sent.
public struct NotifySettings: Sendable, Equatable {
    /// A generic webhook: a JSON POST (schemas/notify-webhook.schema.json).
    public struct Webhook: Sendable, Equatable {
        public var url: String
        public init(url: String) { self.url = url }
    }

    /// An ntfy topic: a plain-text POST to `url/topic`.
    public struct Ntfy: Sendable, Equatable {
        public var url: String
        public var topic: String
        public init(url: String, topic: String) {
            self.url = url
            self.topic = topic
        }

        /// The address posted to: the server's URL and the topic.
        public var topicURL: String { (url.hasSuffix("/") ? String(url.dropLast()) : url) + "/" + topic }
    }

    /// Email over SMTP: STARTTLS on any port but 465, where TLS starts at once.
    public struct Email: Sendable, Equatable {
        public var to: [String]
        public var from: String
        public var host: String
        public var port: Int
        public init(to: [String], from: String, host: String, port: Int) {
            self.to = to
            self.from = from
            self.host = host
            self.port = port
        }
    }

    public var webhook: Webhook?
    public var ntfy: Ntfy?
    public var email: Email?
    /// Days after which a reminder still unresolved is sent again; nil: never again.
    public var repeatDays: Int? = 7
    /// The bands a reminder is sent for: overdue, due soon, and forecast windows.
    public var bands: [UrgencyBand] = NotifySettings.defaultBands

    public static let defaultBands: [UrgencyBand] = [.overdue, .dueSoon] + UrgencyBand.defaultWindows.map { .within(days: $0) }

    public init() {}

    /// The forecast windows among `bands`, in days.
    public var windows: [Int] { bands.compactMap { if case .within(let d) = $0 { d } else { nil } } }

    /// The channels set, by name, in a fixed order.
    public var channelNames: [String] { [ntfy.map { _ in "ntfy" }, webhook.map { _ in "webhook" }, email.map { _ in "email" }].compactMap { $0 } }
}
