import BikeCheckKit
import CCurlShim
import Foundation
import StravaKit

/// Sends one list of reminders on one channel; throws `ChannelFailure` when the channel did not
/// take them (they stay pending, and the next run tries again).
package struct ChannelFailure: Error, Sendable, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// What the channels need from outside the garage: secrets and bounds, read once from the
/// environment and passed in.
package struct ChannelEnvironment: Sendable {
    /// The bound on one channel's whole send (`BIKECHECK_NOTIFY_TIMEOUT_MS`, default 30,000).
    package var timeoutMilliseconds: Int
    package var ntfyToken: String?
    package var webhookToken: String?
    package var smtpUser: String?
    package var smtpPassword: String?
    /// Certificates to trust for SMTP's TLS instead of the system's (`BIKECHECK_SMTP_CA_FILE`).
    package var smtpCAFile: String?

    /// Why `BIKECHECK_NOTIFY_TIMEOUT_MS` cannot be used, or nil when it is unset or a number of
    /// milliseconds from 1 to 600,000: a typo must not silently become the default.
    package static func timeoutProblem(environment env: [String: String]) -> String? {
        guard let text = env["BIKECHECK_NOTIFY_TIMEOUT_MS"], !text.isEmpty else { return nil }
        if let n = Int(text), (1...600_000).contains(n) { return nil }
        let shown = text.count <= 20 && text.unicodeScalars.allSatisfy { (0x20..<0x7F).contains($0.value) } ? "'\(text)'" : "(an unusual value)"
        return "BIKECHECK_NOTIFY_TIMEOUT_MS \(shown) is not a number of milliseconds from 1 to 600000"
    }

    package init(environment env: [String: String]) {
        func value(_ name: String) -> String? { env[name].flatMap { $0.isEmpty ? nil : $0 } }
        timeoutMilliseconds = max(1, value("BIKECHECK_NOTIFY_TIMEOUT_MS").flatMap(Int.init) ?? 30_000)
        ntfyToken = value("BIKECHECK_NTFY_TOKEN")
        webhookToken = value("BIKECHECK_WEBHOOK_TOKEN")
        smtpUser = value("BIKECHECK_SMTP_USER")
        smtpPassword = value("BIKECHECK_SMTP_PASSWORD")
        smtpCAFile = value("BIKECHECK_SMTP_CA_FILE")
    }
}

/// The channels of a garage's `notify:` settings, each sent on a thread of its own.
package struct Channels: Sendable {
    package var settings: NotifySettings
    package var environment: ChannelEnvironment
    package var garageName: String?
    /// Each rider's own `notify:`: their channels are named `RIDER/ntfy`, `RIDER/webhook`, `RIDER/email`.
    package var riders: [String: NotifySettings] = [:]

    package init(settings: NotifySettings, environment: ChannelEnvironment, garageName: String?, riders: [String: NotifySettings] = [:]) {
        self.settings = settings
        self.environment = environment
        self.garageName = garageName
        self.riders = riders
    }

    /// The settings a channel's name points at, and its kind: `ntfy` is the garage's, `alex/ntfy` alex's.
    func route(_ channel: String) -> (settings: NotifySettings?, kind: String) {
        guard let slash = channel.lastIndex(of: "/") else { return (settings, channel) }
        return (riders[String(channel[..<slash])], String(channel[channel.index(after: slash)...]))
    }

    /// Sends each channel's reminders at once, on threads of their own, each bounded by the
    /// timeout: a slow channel never holds up another. Channels with nothing to send are not
    /// contacted. `answered` is called on the channel's thread as soon as it answers (so what it
    /// took can be saved before another answers). Returns each contacted channel's failure, or
    /// nil for success.
    package func send(
        _ pending: [String: [Reminder]], asOf: Day, answered: @escaping @Sendable (String, ChannelFailure?) -> Void = { _, _ in }
    ) -> [String: ChannelFailure?] {
        let work = pending.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }
        // A slot per channel, each written by its own thread only; `group.wait()` orders every
        // write before the read (concurrentMap's pattern, without a pool).
        let slots = UnsafeMutableBufferPointer<ChannelFailure??>.allocate(capacity: work.count)
        slots.initialize(repeating: nil)
        defer {
            slots.deinitialize()
            slots.deallocate()
        }
        nonisolated(unsafe) let results = slots
        let group = DispatchGroup()
        for (slot, (channel, reminders)) in work.enumerated() {
            group.enter()
            // Threads, not a dispatch queue: each send blocks for up to the timeout, and a pool
            // sized to the cores could leave a channel waiting behind a hanging one.
            let thread = Thread { [self] in
                let outcome: ChannelFailure?
                do {
                    try self.send(channel, reminders, asOf: asOf)
                    outcome = nil
                } catch let failure as ChannelFailure {
                    outcome = failure
                } catch {
                    outcome = ChannelFailure("\(error)")
                }
                answered(channel, outcome)
                results[slot] = .some(outcome)
                group.leave()
            }
            thread.start()
        }
        group.wait()
        var outcomes: [String: ChannelFailure?] = [:]
        for (slot, (channel, _)) in work.enumerated() {
            if let outcome = results[slot] { outcomes[channel] = .some(outcome) }
        }
        return outcomes
    }

    func send(_ channel: String, _ reminders: [Reminder], asOf: Day) throws {
        let (found, kind) = route(channel)
        guard let settings = found else { throw ChannelFailure("not set") }
        switch kind {
        case "ntfy":
            guard let ntfy = settings.ntfy, let url = URL(string: ntfy.topicURL) else { throw ChannelFailure("not set") }
            var headers = [
                "Content-Type": "text/plain; charset=utf-8", "Title": NotifyMessages.title(reminders),
                "Priority": NotifyMessages.ntfyPriority(reminders), "Tags": NotifyMessages.ntfyTags(reminders),
            ]
            if let token = environment.ntfyToken { headers["Authorization"] = "Bearer \(try Self.headerSafe(token, "BIKECHECK_NTFY_TOKEN", to: url))" }
            try post(url, headers: headers, body: Data(NotifyMessages.text(reminders, asOf: asOf, garage: garageName).utf8))
        case "webhook":
            guard let webhook = settings.webhook, let url = URL(string: webhook.url) else { throw ChannelFailure("not set") }
            var headers = ["Content-Type": "application/json"]
            if let token = environment.webhookToken { headers["Authorization"] = "Bearer \(try Self.headerSafe(token, "BIKECHECK_WEBHOOK_TOKEN", to: url))" }
            try post(url, headers: headers, body: NotifyMessages.webhookJSON(reminders, asOf: asOf, garage: garageName))
        case "email":
            guard let email = settings.email else { throw ChannelFailure("not set") }
            try mail(email, reminders, asOf: asOf)
        default:
            throw ChannelFailure("unknown channel")
        }
    }

    /// A token as it goes in a header: printable ASCII only, so a line break in the variable (a
    /// file's CRLF, a paste) cannot add headers of its own. The message names the variable,
    /// never the value.
    /// It goes over https only (or to this machine), as mail goes over TLS only: a token on
    /// plain http crosses the network in the clear.
    static func headerSafe(_ token: String, _ variable: String, to url: URL) throws -> String {
        guard token.unicodeScalars.allSatisfy({ (0x21..<0x7F).contains($0.value) }) else {
            throw ChannelFailure("\(variable) holds a space, a line break or another character a token cannot have; set it to the token alone")
        }
        let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(url.host?.lowercased() ?? "")
        guard url.scheme?.lowercased() == "https" || loopback else {
            throw ChannelFailure("\(variable) would cross the network in the clear to '\(place(url))' (an http:// address); write its https:// address")
        }
        return token
    }

    /// A POST that must be answered 2xx; a redirect is not followed (the address should be the final one).
    func post(_ url: URL, headers: [String: String], body: Data) throws {
        let transport = CurlTransport(limits: .init(totalMilliseconds: environment.timeoutMilliseconds, maxBodyBytes: 64 << 10))
        let reply: HTTPReply
        do {
            reply = try transport.send(HTTPRequestSpec(method: "POST", url: url, headers: headers, body: body))
        } catch let error as HTTPTransportError {
            throw ChannelFailure(error.description)
        }
        switch reply.status {
        case 200..<300: return
        case 300..<400:
            throw ChannelFailure("'\(Self.place(url))' answered \(reply.status), a redirect, which bikecheck does not follow; set the final address")
        default:
            throw ChannelFailure("'\(Self.place(url))' answered HTTP \(reply.status)")
        }
    }

    static func seconds(_ ms: Int) -> String {
        ms % 1000 == 0 ? "\(ms / 1000) s" : String(format: "%.1f s", Double(ms) / 1000)
    }

    static func place(_ url: URL) -> String {
        let host = url.host ?? "?"
        return url.port.map { "\(host):\($0)" } ?? host
    }

    /// One message to every recipient, over TLS (STARTTLS, or at once on port 465).
    func mail(_ email: NotifySettings.Email, _ reminders: [Reminder], asOf: Day) throws {
        let message = NotifyMessages.email(reminders, asOf: asOf, garage: garageName, from: email.from, to: email.to, date: Date())
        let scheme = email.port == 465 ? "smtps" : "smtp"
        let url = "\(scheme)://\(email.host):\(email.port)"
        let session = bc_http_session_new(nil)
        defer { bc_http_session_free(session) }
        var reply = bc_http_reply()
        defer { bc_http_reply_free(&reply) }
        let recipients = email.to.map { strdup($0) }
        defer { for r in recipients { free(r) } }
        let timeout = environment.timeoutMilliseconds
        func optional(_ text: String?, _ body: (UnsafePointer<CChar>?) -> Void) {
            if let text { text.withCString { body($0) } } else { body(nil) }
        }
        url.withCString { url in
            email.from.withCString { from in
                recipients.map { UnsafePointer($0) }.withUnsafeBufferPointer { rcpt in
                    message.withUnsafeBufferPointer { bytes in
                        optional(environment.smtpUser) { user in
                            optional(environment.smtpPassword) { password in
                                optional(environment.smtpCAFile) { ca in
                                    var request = bc_smtp_request(
                                        url: url, mail_from: from, recipients: rcpt.baseAddress, recipient_count: rcpt.count,
                                        message: bytes.baseAddress, message_length: bytes.count, username: user, password: password, ca_file: ca,
                                        total_timeout_ms: timeout, connect_timeout_ms: min(10_000, timeout))
                                    bc_smtp_send(session, &request, &reply)
                                }
                            }
                        }
                    }
                }
            }
        }
        guard reply.failure != Int32(BC_HTTP_OK.rawValue) else { return }
        let words: String = withUnsafeBytes(of: reply.message) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        let place = "\(email.host):\(email.port)"
        switch bc_http_failure(rawValue: UInt32(reply.failure)) {
        case BC_HTTP_UNRESOLVED: throw ChannelFailure("no network, or the name '\(email.host)' cannot be resolved")
        case BC_HTTP_UNREACHABLE: throw ChannelFailure("no connection to '\(place)'")
        case BC_HTTP_TIMED_OUT, BC_HTTP_STALLED: throw ChannelFailure("no complete answer from '\(place)' within \(Self.seconds(timeout))")
        case BC_HTTP_TLS: throw ChannelFailure("no secure connection to '\(place)' (\(words)); bikecheck sends mail over TLS only")
        case BC_HTTP_NO_LIBRARY: throw ChannelFailure("bikecheck needs libcurl to send mail and cannot load it (\(words))")
        default:
            // 67 is libcurl's "login denied"; 530 is SMTP's "authentication required".
            if reply.curl_code == 67 {
                throw ChannelFailure("'\(place)' refused the login; check BIKECHECK_SMTP_USER and BIKECHECK_SMTP_PASSWORD")
            }
            if reply.status == 530, environment.smtpUser == nil {
                throw ChannelFailure("'\(place)' wants a login; set BIKECHECK_SMTP_USER and BIKECHECK_SMTP_PASSWORD")
            }
            let code = reply.status > 0 ? " (the server's last reply: \(reply.status))" : ""
            throw ChannelFailure("'\(place)' did not take the message: \(words)\(code)")
        }
    }
}
