/// Secrets kept out of what bikecheck prints: the one helper for the spans a `secret-in-garage`
/// diagnostic redacts (`Diagnostic.redacting`) and for any other message that quotes a value of
/// the same file (the merge driver's conflicts), so both show `****` where the secret was.
extension Diagnostic {
    /// What a masked secret shows as, in excerpts and in messages.
    package static let mask = "****"

    /// The shortest start of a secret that a message cut short (`'https://hooks.exa…`) still
    /// counts as quoting it.
    static let shortestQuotedStart = 6

    /// The texts `diagnostics` redact in `bytes` (the file they are located in), without the
    /// quotes of a quoted scalar: the secrets of that file.
    package static func secrets(redactedBy diagnostics: [Diagnostic], in bytes: [UInt8]) -> [String] {
        var found: [String] = []
        for range in diagnostics.flatMap(\.redactions) where range.lowerBound >= 0 && range.upperBound <= bytes.count {
            var text = Substring(String(decoding: bytes[range], as: UTF8.self))
            if let first = text.first, first == "'" || first == "\"", text.last == first, text.count >= 2 { text = text.dropFirst().dropLast() }
            if !text.isEmpty, !found.contains(String(text)) { found.append(String(text)) }
        }
        return found.sorted { $0.count > $1.count }
    }

    /// This diagnostic with each of `secrets` shown as `mask` in its message, notes and help (a
    /// secret quoted whole, or its start quoted before a `…`), and every place `source` (the
    /// bytes of the file it is located in) holds one added to `redactions`, so excerpts mask it.
    package func masking(_ secrets: [String], source: [UInt8]? = nil) -> Diagnostic {
        let secrets = secrets.filter { !$0.isEmpty }
        guard !secrets.isEmpty else { return self }
        var d = self
        d.message = Self.masked(message, secrets)
        d.help = help.map { Self.masked($0, secrets) }
        d.notes = notes.map { Note(Self.masked($0.message, secrets), at: $0.location) }
        if let source {
            for secret in secrets {
                let needle = Array(secret.utf8)
                var i = 0
                while i + needle.count <= source.count {
                    if source[i] == needle[0], source[i..<(i + needle.count)].elementsEqual(needle) {
                        d.redactions.append(i..<(i + needle.count))
                        i += needle.count
                    } else {
                        i += 1
                    }
                }
            }
        }
        return d
    }

    static func masked(_ text: String, _ secrets: [String]) -> String {
        var text = text
        for secret in secrets { text = text.replacing(secret, with: mask) }
        // A value cut short for the message: the start of a secret just before the `…`.
        var out = ""
        var rest = Substring(text)
        while let cut = rest.firstIndex(of: "…") {
            var before = rest[..<cut]
            for secret in secrets {
                let longest = min(secret.count, before.count)
                guard longest >= shortestQuotedStart else { continue }
                if let k = (shortestQuotedStart...longest).reversed().first(where: { before.hasSuffix(secret.prefix($0)) }) {
                    before = before.dropLast(k)
                    out += before + mask
                    before = ""
                    break
                }
            }
            out += before + "…"
            rest = rest[rest.index(after: cut)...]
        }
        return out + rest
    }
}
