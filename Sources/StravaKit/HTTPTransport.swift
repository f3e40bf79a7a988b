import CCurlShim
import Foundation

/// One HTTP request, as the client builds it.
package struct HTTPRequestSpec: Sendable {
    package var method: String
    package var url: URL
    package var headers: [String: String]
    package var body: Data?

    package init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// One HTTP response; header names are lower-cased, since casing varies on the wire.
package struct HTTPReply: Sendable {
    package var status: Int
    package var headers: [String: String]
    package var body: Data

    package init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.body = body
    }
}

/// Sends HTTP requests. Throws only for network failures (`HTTPTransportError`); any HTTP
/// status, redirects included, is a reply.
package protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequestSpec) throws -> HTTPReply
}

/// Why no whole reply arrived, in words for the rider, and whether the server may have the request.
package struct HTTPTransportError: Error, CustomStringConvertible, Equatable {
    package enum Kind: Sendable, Equatable {
        /// The host name could not be resolved: no network, or no DNS. Retrying at once is pointless.
        case unresolved
        /// No connection: refused, no route, or the connection timed out.
        case unreachable
        /// The total time bound was reached.
        case timedOut
        /// Nothing arrived for the low-speed window.
        case stalled
        /// The body or the headers exceeded their bound.
        case tooLarge
        /// Sent, then the connection broke or the reply was cut short.
        case connectionLost
        case tls
        /// Not an http or https address: nothing was sent, and nothing will be.
        case unsupported
        case other
    }
    package var kind: Kind
    /// True when the server may have received (and acted on) the request: its outcome is unknown.
    package var requestSent: Bool
    package var description: String

    package init(kind: Kind, requestSent: Bool, description: String) {
        self.kind = kind
        self.requestSent = requestSent
        self.description = description
    }
}

/// The real transport: libcurl's easy API, through CCurlShim. Redirects are replies, never
/// followed (a bearer token must not travel to another origin); only http and https; the
/// decoded body is bounded (a gzip bomb or an endless body is cut there); each request has a
/// total time bound and a low-speed bound, and waiting polls in libcurl, burning no CPU.
///
/// Sendable checked by hand, not by the compiler: the libcurl session is a C pointer; every use
/// of it is under `lock`, and `Mutex` (which would make this checked) needs macOS 15.
package final class CurlTransport: HTTPTransport, @unchecked Sendable {
    package struct Limits: Sendable {
        /// The whole request, connection included.
        package var totalMilliseconds: Int
        /// Seconds with less than 1 byte/s before a transfer counts as stalled.
        package var stallSeconds: Int
        package var connectMilliseconds: Int
        /// Decoded body bytes.
        package var maxBodyBytes: Int
        package var maxHeaderBytes: Int

        /// 60 s in all; a stall ends after 15 s (or a quarter of a shorter total, at least 2 s:
        /// libcurl samples the speed once a second); 16 MiB of body, 256 KiB of headers.
        package init(totalMilliseconds: Int = 60_000, maxBodyBytes: Int = 16 << 20, maxHeaderBytes: Int = 256 << 10) {
            self.totalMilliseconds = max(1, totalMilliseconds)
            stallSeconds = max(2, min(15, totalMilliseconds / 4000))
            connectMilliseconds = min(10_000, self.totalMilliseconds)
            self.maxBodyBytes = maxBodyBytes
            self.maxHeaderBytes = maxHeaderBytes
        }
    }

    package let limits: Limits
    private let session: UnsafeMutableRawPointer?
    private let lock = NSLock()

    /// `library` names the libcurl to load (tests name a missing one); nil is the system's.
    package init(limits: Limits = Limits(), library: String? = nil) {
        self.limits = limits
        session = library.map { bc_http_session_new($0) } ?? bc_http_session_new(nil)
    }

    deinit { bc_http_session_free(session) }

    package func send(_ spec: HTTPRequestSpec) throws -> HTTPReply {
        lock.lock()
        defer { lock.unlock() }
        let lines = spec.headers.sorted { $0.key < $1.key }.map { strdup("\($0.key): \($0.value)") }
        defer { for line in lines { free(line) } }
        var reply = bc_http_reply()
        defer { bc_http_reply_free(&reply) }
        let body = spec.body.map { Array($0) }
        spec.url.absoluteString.withCString { url in
            spec.method.withCString { method in
                lines.map { UnsafePointer($0) }.withUnsafeBufferPointer { headers in
                    func perform(_ bytes: UnsafePointer<UInt8>?, _ count: Int) {
                        var request = bc_http_request(
                            method: method, url: url, headers: headers.baseAddress, header_count: headers.count,
                            body: bytes, body_length: count,
                            total_timeout_ms: limits.totalMilliseconds, connect_timeout_ms: limits.connectMilliseconds,
                            low_speed_seconds: limits.stallSeconds, max_body_bytes: limits.maxBodyBytes,
                            max_header_bytes: limits.maxHeaderBytes)
                        bc_http_perform(session, &request, &reply)
                    }
                    if let body {
                        body.withUnsafeBufferPointer { perform($0.baseAddress ?? UnsafePointer(bitPattern: 1), $0.count) }
                    } else {
                        perform(nil, 0)
                    }
                }
            }
        }
        if reply.failure != Int32(BC_HTTP_OK.rawValue) { throw error(from: reply, url: spec.url) }
        let headerText = reply.headers.map { String(decoding: UnsafeBufferPointer(start: $0, count: reply.headers_length), as: UTF8.self) } ?? ""
        let bodyData = reply.body.map { Data(bytes: $0, count: reply.body_length) } ?? Data()
        return HTTPReply(status: reply.status, headers: Self.parseHeaders(headerText), body: bodyData)
    }

    /// `Name: value` lines after the status line; a repeated name keeps its first value.
    static func parseHeaders(_ text: String) -> [String: String] {
        var out: [String: String] = [:]
        for line in text.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" }).dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if out[name] == nil { out[name] = value }
        }
        return out
    }

    private func error(from reply: bc_http_reply, url: URL) -> HTTPTransportError {
        let host = url.host ?? "?"
        let place = url.port.map { "\(host):\($0)" } ?? host
        let sent = reply.request_sent != 0
        let words: String = withUnsafeBytes(of: reply.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let system = reply.os_errno != 0 ? String(cString: strerror(reply.os_errno)).lowercased() : nil
        switch bc_http_failure(rawValue: UInt32(reply.failure)) {
        case BC_HTTP_UNRESOLVED:
            return .init(kind: .unresolved, requestSent: false, description: "no network, or the name '\(host)' cannot be resolved")
        case BC_HTTP_UNREACHABLE:
            return .init(
                kind: .unreachable, requestSent: false,
                description: "no connection to '\(place)' (\(system ?? "no answer within \(limits.connectMilliseconds / 1000) s"))")
        case BC_HTTP_TIMED_OUT:
            return .init(
                kind: .timedOut, requestSent: sent,
                description: "no complete answer from '\(place)' within \(Self.seconds(limits.totalMilliseconds))")
        case BC_HTTP_STALLED:
            return .init(
                kind: .stalled, requestSent: sent,
                description: "the answer from '\(place)' stalled (nothing for \(limits.stallSeconds) s)")
        case BC_HTTP_BODY_TOO_LARGE:
            return .init(
                kind: .tooLarge, requestSent: sent,
                description: "the answer from '\(place)' is larger than \(Self.size(limits.maxBodyBytes)); bikecheck stops reading there")
        case BC_HTTP_HEADERS_TOO_LARGE:
            return .init(
                kind: .tooLarge, requestSent: sent,
                description: "the answer from '\(place)' has more than \(Self.size(limits.maxHeaderBytes)) of headers")
        case BC_HTTP_CONNECTION_LOST:
            return .init(kind: .connectionLost, requestSent: sent, description: "the connection to '\(place)' broke (\(words))")
        case BC_HTTP_BAD_ENCODING:
            return .init(kind: .other, requestSent: sent, description: "the answer from '\(place)' could not be decoded (\(words))")
        case BC_HTTP_TLS:
            return .init(kind: .tls, requestSent: false, description: "no secure connection to '\(place)' (\(words))")
        case BC_HTTP_NO_LIBRARY:
            return .init(
                kind: .other, requestSent: false,
                description: "bikecheck needs libcurl to talk to Strava and cannot load it (\(words)); install libcurl 4 (Debian: 'apt-get install libcurl4')")
        case BC_HTTP_BAD_URL:
            return .init(kind: .unsupported, requestSent: false, description: "'\(url.absoluteString)' is not an http or https address")
        default:
            return .init(kind: .other, requestSent: sent, description: words.isEmpty ? "libcurl error \(reply.curl_code)" : words)
        }
    }

    static func seconds(_ ms: Int) -> String {
        ms % 1000 == 0 ? "\(ms / 1000) s" : String(format: "%.1f s", Double(ms) / 1000)
    }

    static func size(_ bytes: Int) -> String {
        bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : bytes % 1024 == 0 ? "\(bytes >> 10) KiB" : "\(bytes) bytes"
    }
}
