/// Cuts the byte stream of a language client into JSON-RPC message bodies: `Content-Length`
/// headers, then exactly that many bytes. Bytes arrive however the pipe delivers them (a message
/// split over reads, several in one read); garbage is reported once and skipped up to the next
/// header, so one bad message never wedges the server.
package struct MessageFramer: Sendable {
    /// What the next bytes held.
    package enum Event: Sendable, Equatable {
        /// A whole body (not yet checked to be JSON).
        case message([UInt8])
        /// Bytes that were not a well-formed message, and why; they are dropped.
        case garbage(String)
        /// A header no stream could follow (a `Content-Length` larger than any message): where
        /// the next message starts cannot be known, so the server stops, saying why. Nothing is
        /// framed after it.
        case unrecoverable(String)
    }

    /// The longest header block read (a client sends about 60 bytes of headers).
    package static let headerLimit = 8 << 10
    /// The longest body accepted: 96 MiB, so a garage file at its limit (64 MiB) escaped as JSON
    /// fits, and a larger one (which validate refuses anyway) is skipped as it arrives, never held
    /// (the server's memory is a few times a body's size).
    package static let bodyLimit = 96 << 20
    /// The longest body skipped to stay in step with the stream: 4 GiB. A `Content-Length` above
    /// it (12 digits: 100 GB) is no message a client sends; skipping it would lose every later
    /// message without a word, so it is `unrecoverable`.
    package static let skipLimit = 4 << 30

    /// This framer's limit on a body (`bodyLimit` but in tests).
    private let limit: Int

    private var buffer: [UInt8] = []
    /// Where unread bytes start in `buffer` (dropped lazily, so reading is not quadratic).
    private var start = 0
    /// Bytes of a too-large body still to skip.
    private var skipping = 0
    /// After `unrecoverable`: nothing more is framed.
    private var broken = false

    package init(bodyLimit: Int = MessageFramer.bodyLimit) {
        limit = bodyLimit
    }

    /// Bytes read and not yet returned as a message.
    package var pending: Int { buffer.count - start }

    package mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next message or garbage, or nil until more bytes arrive.
    package mutating func next() -> Event? {
        guard !broken else { return nil }
        if skipping > 0 {
            let n = min(skipping, pending)
            start += n
            skipping -= n
            if skipping > 0 { return nil }
        }
        guard pending > 0 else { return nil }
        // Headers end within the limit or are garbage, even when an end comes later: a header cut
        // short must not swallow the bytes up to the next message's end of headers.
        guard let end = find(Self.separator, from: start, before: start + Self.headerLimit + Self.separator.count) else {
            guard pending > Self.headerLimit else { return nil }
            return resynchronise(after: start, "no end of headers within \(Self.headerLimit) bytes")
        }
        let headers = String(decoding: buffer[start..<end], as: UTF8.self)
        let bodyStart = end + Self.separator.count
        var length: Int?
        for line in headers.split(separator: "\r\n", omittingEmptySubsequences: false) {
            guard let colon = line.firstIndex(of: ":") else {
                return resynchronise(after: start, "a header line without ':'")
            }
            let name = line[..<colon].trimmingSpaces.lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces
            if name == "content-length" {
                guard !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                    return resynchronise(after: start, "Content-Length '\(value.prefix(40))' is not a number")
                }
                guard value.count <= 12, let n = Int(value), n <= Self.skipLimit else {
                    broken = true
                    buffer = []
                    start = 0
                    return .unrecoverable(
                        "Content-Length \(value.prefix(40)) is more than any message (\(Self.skipLimit) bytes): the stream cannot be followed past it")
                }
                length = n
            }
        }
        guard let length else { return resynchronise(after: start, "no Content-Length header") }
        guard length <= limit else {
            // Skipped as it arrives, never held.
            let here = min(length, buffer.count - bodyStart)
            start = bodyStart + here
            skipping = length - here
            return .garbage("a body of \(length) bytes, more than \(limit)")
        }
        guard buffer.count - bodyStart >= length else { return nil }
        let body = Array(buffer[bodyStart..<bodyStart + length])
        start = bodyStart + length
        return .message(body)
    }

    private static let separator: [UInt8] = Array("\r\n\r\n".utf8)
    private static let header: [UInt8] = Array("content-length".utf8)

    /// Drops bytes up to the next `Content-Length` after `from` (or all but a possible start of
    /// one at the very end), and says why.
    private mutating func resynchronise(after from: Int, _ reason: String) -> Event {
        var i = from + 1
        while i + Self.header.count <= buffer.count {
            if zip(buffer[i..<i + Self.header.count], Self.header).allSatisfy({ $0 | 0x20 == $1 }) {
                start = i
                return .garbage(reason)
            }
            i += 1
        }
        // None: keep only a tail that may begin one (`Cont` of a header still arriving), so the
        // rest of the garbage is not reported again a byte at a time.
        var keep = min(Self.header.count - 1, buffer.count - (from + 1))
        while keep > 0, !zip(buffer[(buffer.count - keep)...], Self.header).allSatisfy({ $0 | 0x20 == $1 }) { keep -= 1 }
        start = buffer.count - keep
        return .garbage(reason)
    }

    /// Where `needle` starts, if it lies wholly in `buffer[from..<before]`.
    private func find(_ needle: [UInt8], from: Int, before: Int) -> Int? {
        let upper = min(before, buffer.count)
        guard upper - from >= needle.count else { return nil }
        var i = from
        let last = upper - needle.count
        while i <= last {
            if buffer[i] == needle[0], buffer[i + 1] == needle[1], buffer[i + 2] == needle[2], buffer[i + 3] == needle[3] { return i }
            i += 1
        }
        return nil
    }

    /// A body with its header, as a client or this server sends it.
    package static func frame(_ body: [UInt8]) -> [UInt8] {
        Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return s
    }
}
