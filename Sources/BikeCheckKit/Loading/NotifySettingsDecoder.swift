import Diagnostics
import Foundation
import LocatedYAML

/// garage.yaml's `notify:`, checked at `validate` time so that a setting that cannot work is a
/// located error now, not a failed reminder at 3 a.m. in cron.
extension FileDecoders {
    static let notifyKeys = ["webhook", "ntfy", "email", "repeat", "bands"]
    static let webhookKeys = ["url"]
    static let ntfyKeys = ["url", "topic"]
    static let emailKeys = ["to", "from", "smtp"]
    /// Keys that would put a secret in a file meant for git.
    static let secretKeys = [
        "password", "passwd", "pass", "token", "secret", "api_key", "apikey", "access_token", "auth", "authorization", "user", "username",
    ]

    static func notify(_ node: YAMLNode, _ r: inout NodeReader) -> NotifySettings? {
        guard let m = withoutSecrets(node, "notify", &r) else { return nil }
        var settings = NotifySettings()
        let f = r.fields(m, of: "notify settings", allowed: notifyKeys)
        if let e = f["webhook"], let wm = withoutSecrets(e.value, "webhook", &r) {
            let wf = r.fields(wm, of: "the webhook settings", allowed: webhookKeys, required: ["url"], at: e.value)
            if let u = wf["url"], let url = webURL(u.value, "the webhook url", &r) { settings.webhook = .init(url: url) }
        }
        if let e = f["ntfy"], let nm = withoutSecrets(e.value, "ntfy", &r) { settings.ntfy = ntfy(nm, at: e.value, &r) }
        if let e = f["email"], let em = withoutSecrets(e.value, "email", &r) { settings.email = email(em, at: e.value, &r) }
        if let e = f["repeat"] {
            if case .scalar(let s) = e.value, s.style == .plain, s.value == "never" {
                settings.repeatDays = nil
            } else if let text = r.string(e.value, "repeat") {
                if let days = DayWindow.parse(text), days > 0 {
                    settings.repeatDays = days
                } else {
                    r.error(
                        .badValue, "repeat '\(shown(text))' should be a number of days or weeks, or never", e.value,
                        help: "write e.g. repeat: 7 days, repeat: 2w, or repeat: never")
                }
            }
        }
        if let e = f["bands"], let list = r.stringList(e.value, "a band") { settings.bands = bands(list, &r) }
        return settings
    }

    /// `ntfy: {url, topic}`: nil when either cannot work.
    static func ntfy(_ nm: YAMLMapping, at node: YAMLNode, _ r: inout NodeReader) -> NotifySettings.Ntfy? {
        let nf = r.fields(nm, of: "the ntfy settings", allowed: ntfyKeys, required: ["topic"], at: node)
        var url: String? = "https://ntfy.sh"
        if let u = nf["url"] { url = webURL(u.value, "the ntfy url", query: false, &r) }
        var topic: String?
        if let t = nf["topic"], let text = r.string(t.value, "the ntfy topic") {
            // ntfy's own rule for topic names; anything else would change the address posted to.
            let ok =
                !text.isEmpty && text.count <= 64
                && text.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }
            if ok {
                topic = text
            } else {
                r.error(
                    .badValue, "ntfy topic '\(shown(text))' should be letters, digits, '-' and '_', at most 64", t.value, help: "write e.g. topic: my-bikes"
                )
            }
        }
        guard let url, let topic else { return nil }
        return .init(url: url, topic: topic)
    }

    /// `email: {to, from, smtp}`: nil when any cannot work.
    static func email(_ em: YAMLMapping, at node: YAMLNode, _ r: inout NodeReader) -> NotifySettings.Email? {
        let ef = r.fields(em, of: "the email settings", allowed: emailKeys, required: ["to", "from", "smtp"], at: node)
        var to: [String]? = []
        if let t = ef["to"], let list = r.stringList(t.value, "an email address") {
            for item in list where !isEmailAddress(item.value) {
                r.diagnostics.append(.error(.badEmailAddress, "'\(shown(item.value))' is not an email address", at: item.location, help: Self.emailHelp))
                to = nil
            }
            if to != nil { to = list.map(\.value) }
        } else {
            to = nil
        }
        var from: String?
        if let v = ef["from"], let text = r.string(v.value, "the sender's address") {
            if isEmailAddress(text) {
                from = text
            } else {
                r.error(.badEmailAddress, "'\(shown(text))' is not an email address", v.value, help: Self.emailHelp)
            }
        }
        var server: (String, Int)?
        if let v = ef["smtp"], let text = r.string(v.value, "the SMTP server") { server = mailServer(text, v.value, &r) }
        guard let to, !to.isEmpty, let from, let server else { return nil }
        return .init(to: to, from: from, host: server.0, port: server.1)
    }

    /// `bands:`, each once; the unknown ones are errors.
    static func bands(_ list: [Located<String>], _ r: inout NodeReader) -> [UrgencyBand] {
        var bands: [UrgencyBand] = []
        for item in list {
            if let band = UrgencyBand(item.value), band != .ok {
                if !bands.contains(band) { bands.append(band) }
            } else {
                let number = Int(item.value).map { "; write '\($0)d' for \($0) day\($0 == 1 ? "" : "s") before the forecast due day" }
                let hint = number ?? didYouMean(item.value, among: ["overdue", "due-soon"])
                r.diagnostics.append(
                    .error(
                        .unknownBand, "unknown band '\(shown(item.value))'\(hint)", at: item.location,
                        help: "bands: overdue, due-soon, and forecast windows of days or weeks before the due day: 30d, 7d, 1d, 0d"))
            }
        }
        return bands
    }

    static let emailHelp = "write one address, e.g. me@example.org (no name, no angle brackets)"

    /// The mapping without keys that hold secrets, each of them reported.
    private static func withoutSecrets(_ node: YAMLNode, _ what: String, _ r: inout NodeReader) -> YAMLMapping? {
        guard var m = r.mapping(node, what) else { return nil }
        for entry in m.entries {
            guard let key = entry.keyText, secretKeys.contains(key.lowercased()) else { continue }
            r.secret(
                "'\(shown(key))' in \(what) would put a secret in garage.yaml, which is meant for git", entry.key, value: entry.value,
                help:
                    "remove it; bikecheck reads credentials from the environment only: BIKECHECK_SMTP_USER and BIKECHECK_SMTP_PASSWORD for email, BIKECHECK_NTFY_TOKEN for ntfy, BIKECHECK_WEBHOOK_TOKEN for the webhook"
            )
        }
        m.entries.removeAll { $0.keyText.map { secretKeys.contains($0.lowercased()) } ?? false }
        return m
    }

    /// An http or https URL with a host, and no user, password or token in it; with a query
    /// only when `query` (ntfy's topic goes after the address).
    private static func webURL(_ node: YAMLNode, _ what: String, query: Bool = true, _ r: inout NodeReader) -> String? {
        guard let text = r.string(node, what) else { return nil }
        let help = "write a full address, e.g. https://ntfy.sh or https://example.org/hooks/bikes"
        let tokenHelp = "remove it; set BIKECHECK_NTFY_TOKEN or BIKECHECK_WEBHOOK_TOKEN in the environment instead"
        // Before any message quotes the address: `https://user:password@host` is a secret.
        let authority = (text.range(of: "://").map { text[$0.upperBound...] } ?? text[...]).prefix { !"/?#".contains($0) }
        if authority.contains("@") {
            r.secret("\(what) has a user or password in it, which would put a secret in garage.yaml", node, help: tokenHelp)
            return nil
        }
        let names = URLComponents(string: text)?.queryItems?.map { $0.name.lowercased() } ?? []
        if let name = names.first(where: { secretKeys.contains($0) || $0 == "key" }) {
            r.secret(
                "\(what) has '\(shown(name))' in its query, which would put a secret in garage.yaml", node,
                help: tokenHelp + " (sent as 'Authorization: Bearer …')")
            return nil
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty, !text.contains(where: { $0 == " " || $0.isNewline })
        else {
            r.error(.badURL, "\(what) '\(shown(text))' is not an http or https address", node, help: help)
            return nil
        }
        if components.user != nil || components.password != nil {
            r.secret("\(what) has a user or password in it, which would put a secret in garage.yaml", node, help: tokenHelp)
            return nil
        }
        if !query, components.query != nil {
            r.error(
                .badURL, "\(what) '\(shown(text))' has a query ('?…'), which the topic would be added after", node,
                help: "write the server's address alone, e.g. url: https://ntfy.sh, and the topic under topic:")
            return nil
        }
        if components.fragment != nil {
            r.error(.badURL, "\(what) '\(shown(text))' has a fragment ('#…'), which is never sent", node, help: help)
            return nil
        }
        return text
    }

    /// `host:port` (the port defaults to 587, submission with STARTTLS).
    private static func mailServer(_ text: String, _ node: YAMLNode, _ r: inout NodeReader) -> (String, Int)? {
        let help = "write host:port, e.g. smtp: mail.example.org:587 (STARTTLS) or mail.example.org:465 (TLS)"
        // Before any message quotes it: `user:password@host` is a secret.
        if text.contains("@") {
            r.secret(
                "the SMTP server has a user or password in it, which would put a secret in garage.yaml", node,
                help: "remove it; set BIKECHECK_SMTP_USER and BIKECHECK_SMTP_PASSWORD in the environment instead")
            return nil
        }
        var host = Substring(text)
        var port = 587
        if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            let portText = text[text.index(after: colon)...]
            guard let n = Int(portText), portText.allSatisfy(\.isASCII), (1...65535).contains(n) else {
                r.error(.badMailServer, "the SMTP port '\(shown(String(portText)))' in '\(shown(text))' is not a port number", node, help: help)
                return nil
            }
            port = n
        }
        let hostOK = !host.isEmpty && host.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == ".") }
        guard hostOK else {
            r.error(.badMailServer, "'\(shown(String(host)))' is not a mail server's host name", node, help: help)
            return nil
        }
        return (String(host), port)
    }

    /// One plain address: no spaces, angle brackets, commas or line breaks, a single '@'
    /// between a local part and a domain with a dot.
    static func isEmailAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix(".") else { return false }
        return text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && !"<>,;\"()[]\\".unicodeScalars.contains($0) }
    }
}
