import Foundation
#if canImport(Glibc)
    import Glibc
    /// The socket type, an enum case on Glibc.
    private let streamSocket = Int32(SOCK_STREAM.rawValue)
    /// A client that went away must not raise SIGPIPE: Linux says so per send.
    private let sendFlags = Int32(MSG_NOSIGNAL)
#elseif canImport(Darwin)
    import Darwin
    private let streamSocket = SOCK_STREAM
    /// Darwin has no MSG_NOSIGNAL: SO_NOSIGPIPE is set on each accepted socket instead.
    private let sendFlags: Int32 = 0
#endif

/// A one-shot HTTP listener on 127.0.0.1 that waits for Strava's redirect after the rider
/// authorises bikecheck in the browser.
package final class LoopbackRedirect {
    private let fd: Int32
    /// The port it listens on (chosen by the system when 0 was asked for).
    package let port: UInt16

    package init(port: UInt16 = 0) throws {
        let fd = socket(AF_INET, streamSocket, 0)
        self.fd = fd
        guard fd >= 0 else { throw StravaError.network("cannot open a socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw StravaError.network("cannot listen on 127.0.0.1:\(port): \(why)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = UInt16(bigEndian: actual.sin_port)
    }

    deinit { close(fd) }

    package var redirectURI: String { "http://127.0.0.1:\(port)/callback" }

    /// Waits for a request to `/callback` and returns its query parameters; answers it with
    /// `page(parameters)`. Other requests (a browser's favicon) get a 404.
    package func waitForCallback(timeout: TimeInterval, page: ([String: String]) -> String) throws -> [String: String] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw StravaError.loginTimedOut(Int(timeout)) }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, Int32(min(remaining, 1) * 1000))
            if ready <= 0 { continue }
            let client = accept(fd, nil, nil)
            if client < 0 { continue }
            defer { close(client) }
            #if canImport(Darwin)
                var on: Int32 = 1
                setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
            #endif
            guard let target = readRequestTarget(client) else { continue }
            guard let components = URLComponents(string: "http://127.0.0.1" + target), components.path == "/callback" else {
                respond(client, status: "404 Not Found", body: "not found")
                continue
            }
            var parameters: [String: String] = [:]
            for item in components.queryItems ?? [] { parameters[item.name] = item.value ?? "" }
            respond(client, status: "200 OK", body: page(parameters))
            return parameters
        }
    }

    private func readRequestTarget(_ client: Int32) -> String? {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while data.count < 65536 {
            let n = recv(client, &buffer, buffer.count, 0)
            if n <= 0 { break }
            data += buffer[0..<n]
            if data.contains(0x0A) { break }
        }
        let text = String(decoding: data, as: UTF8.self)
        guard let line = text.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" }).first, line.hasPrefix("GET ") else { return nil }
        let parts = line.split(separator: " ")
        return parts.count >= 2 ? String(parts[1]) : nil
    }

    private func respond(_ client: Int32, status: String, body: String) {
        let bytes = Array(body.utf8)
        let head = "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(bytes.count)\r\nConnection: close\r\n\r\n"
        let all = Array(head.utf8) + bytes
        _ = all.withUnsafeBytes { send(client, $0.baseAddress, $0.count, sendFlags) }
    }
}

/// What the rider granted, compared with what bikecheck asked for.
package struct GrantedScopes: Sendable {
    package var granted: Set<String>

    package init(_ scope: String?) {
        granted = Set((scope ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }

    /// One line per missing scope, saying what bikecheck cannot do without it.
    package var missing: [String] {
        var out: [String] = []
        if !granted.contains("profile:read_all") {
            out.append("profile:read_all (\"View data about your profile\"): without it Strava hides your bikes")
        }
        if !granted.contains("activity:read_all") {
            if granted.contains("activity:read") {
                out.append("activity:read_all (\"View data about your private activities\"): rides visible only to you will be missing")
            } else {
                out.append("activity:read_all (\"View data about your activities\"): bikecheck cannot list any rides")
            }
        }
        return out
    }

    /// Without any activity scope, sync cannot work at all.
    package var canListActivities: Bool { granted.contains("activity:read") || granted.contains("activity:read_all") }
}
