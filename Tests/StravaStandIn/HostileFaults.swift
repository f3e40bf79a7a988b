import FlyingFox
import FlyingSocks
import Foundation

// Faults of the HTTP layer for the stand-in: answers no client should trust or wait for. Kept
// apart from the API's own behaviour (StravaStandIn.swift), which sees none of this: the
// stand-in routes every request through `HostileFaults.respond(to:)` first, and an armed fault
// either replaces the answer or (`delay`) holds it back before the usual handling.

/// One hostile answer, armed for one request to one path.
public enum HostileFault: Sendable {
    /// An HTTP redirect (302 unless said otherwise) to `location`.
    case redirect(to: String, status: Int = 302)
    /// Waits `seconds`, then handles the request as usual.
    case delay(seconds: Double)
    /// Handles the request at once (a refresh rotates the tokens), then holds the answer back
    /// for `seconds`: a slow endpoint, or a reply still in flight when the client dies.
    case delayReply(seconds: Double)
    /// Reads the request and sends nothing back for `seconds`.
    case stall(seconds: Double)
    /// Sends 200 headers and one byte of body, then nothing for `seconds`.
    case stallAfterHeaders(seconds: Double)
    /// 200, then one byte of body every `interval` seconds, for at most `seconds`.
    case trickle(interval: Double, seconds: Double)
    /// 200 with a chunked body that never ends (until the client hangs up).
    case endlessBody
    /// 200 with a body of `bytes` bytes (and that Content-Length).
    case hugeBody(bytes: Int)
    /// 200 with `Content-Encoding: gzip`: a small body that decodes to `decodedBytes` zero bytes.
    case gzipBomb(decodedBytes: Int)
    /// An error in Strava's shape whose message echoes the request: body, query and Authorization.
    case echo(status: Int)
}

/// The armed faults (each fires once, in the order armed) and a record of those that fired.
public final class HostileFaults: @unchecked Sendable {
    private let lock = NSLock()
    private var armed: [String: [HostileFault]] = [:]
    private var firedPaths: [String] = []

    public init() {}

    /// Arms `fault` for the next `times` requests to `path` (e.g. `/oauth/token`).
    public func arm(_ fault: HostileFault, on path: String, times: Int = 1) {
        lock.withLock { armed[path, default: []] += Array(repeating: fault, count: times) }
    }

    public func disarmAll() { lock.withLock { armed = [:] } }

    /// Paths whose fault fired, in order.
    public var fired: [String] { lock.withLock { firedPaths } }

    private func take(_ path: String) -> HostileFault? {
        lock.withLock {
            guard var list = armed[path], !list.isEmpty else { return nil }
            let fault = list.removeFirst()
            armed[path] = list
            firedPaths.append(path)
            return fault
        }
    }

    /// The hostile answer for `request`, or HTTPUnhandledError to let the stand-in answer;
    /// `usual` is the stand-in's own answer.
    public func respond(to request: HTTPRequest, usual: @Sendable (HTTPRequest) async -> HTTPResponse) async throws -> HTTPResponse {
        guard let fault = take(request.path) else { throw HTTPUnhandledError() }
        switch fault {
        case .redirect(let location, let status):
            return HTTPResponse(
                statusCode: HTTPStatusCode(status, phrase: "Found"),
                headers: [HTTPHeader("Location"): location, HTTPHeader("Content-Type"): "text/html"],
                body: Data("<a href=\"\(location)\">moved</a>".utf8))
        case .delay(let seconds):
            try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            throw HTTPUnhandledError()
        case .delayReply(let seconds):
            let response = await usual(request)
            try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            return response
        case .stall(let seconds):
            try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            return HTTPResponse(statusCode: HTTPStatusCode(504, phrase: "Gateway Timeout"), body: Data())
        case .stallAfterHeaders(let seconds):
            return Self.json(
                streaming: ScriptedBytes { i in
                    if i == 0 { return Array("[".utf8) }
                    try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
                    return nil
                }, count: 2)
        case .trickle(let interval, let seconds):
            let limit = Int(seconds / interval)
            return Self.json(
                streaming: ScriptedBytes { i in
                    guard i < limit else { return nil }
                    try await Task.sleep(nanoseconds: UInt64(interval * 1e9))
                    return i == 0 ? Array("[".utf8) : [0x20]
                }, count: nil)
        case .endlessBody:
            let spaces = [UInt8](repeating: 0x20, count: 65_536)
            return Self.json(
                streaming: ScriptedBytes { i in
                    // A bound for safety only: 64 GiB.
                    i == 0 ? Array("[".utf8) : i < 1 << 20 ? spaces : nil
                }, count: nil)
        case .hugeBody(let bytes):
            let chunk = [UInt8](repeating: 0x20, count: 65_536)
            let chunks = (bytes + chunk.count - 1) / chunk.count
            return Self.json(
                streaming: ScriptedBytes { i in
                    guard i < chunks else { return nil }
                    return i == chunks - 1 ? Array(chunk.prefix(bytes - i * chunk.count)) : chunk
                }, count: bytes)
        case .gzipBomb(let decodedBytes):
            let body = try Self.gzippedZeros(decodedBytes)
            return HTTPResponse(
                statusCode: .ok,
                headers: [HTTPHeader("Content-Type"): "application/json", HTTPHeader("Content-Encoding"): "gzip"],
                body: body)
        case .echo(let status):
            let body = String(decoding: (try? await request.bodyData) ?? Data(), as: UTF8.self)
            let query = request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            let auth = request.headers[HTTPHeader("Authorization")] ?? ""
            let object: [String: Any] = [
                "message": "cannot process request: body \(body) query \(query) authorization \(auth)",
                "errors": [["resource": "Application", "field": body, "code": "invalid"]],
            ]
            return HTTPResponse(
                statusCode: HTTPStatusCode(status, phrase: "Bad Request"),
                headers: [HTTPHeader("Content-Type"): "application/json"],
                body: (try? JSONSerialization.data(withJSONObject: object)) ?? Data())
        }
    }

    static func json(streaming bytes: ScriptedBytes, count: Int?) -> HTTPResponse {
        let body = count.map { HTTPBodySequence(from: bytes, count: $0) } ?? HTTPBodySequence(from: bytes)
        return HTTPResponse(statusCode: .ok, headers: [HTTPHeader("Content-Type"): "application/json"], body: body)
    }

    nonisolated(unsafe) private static var gzipped: [Int: Data] = [:]
    private static let gzipLock = NSLock()

    /// `decodedBytes` zero bytes through the real gzip (about 1,000:1).
    static func gzippedZeros(_ decodedBytes: Int) throws -> Data {
        try gzipLock.withLock {
            if let done = gzipped[decodedBytes] { return done }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "head -c \(decodedBytes) /dev/zero | gzip -c -9"]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            gzipped[decodedBytes] = data
            return data
        }
    }
}

/// A body produced chunk by chunk (`produce(i)` for the i-th chunk, nil at the end), so a fault
/// can pace, stall or never end.
struct ScriptedBytes: AsyncBufferedSequence {
    typealias Element = UInt8
    let produce: @Sendable (Int) async throws -> [UInt8]?

    init(_ produce: @escaping @Sendable (Int) async throws -> [UInt8]?) { self.produce = produce }

    func makeAsyncIterator() -> Iterator { Iterator(produce: produce) }

    struct Iterator: AsyncBufferedIteratorProtocol {
        let produce: @Sendable (Int) async throws -> [UInt8]?
        var index = 0
        var pending: [UInt8] = []
        var offset = 0

        mutating func next() async throws -> UInt8? { try await nextBuffer(suggested: 1)?.first }

        mutating func nextBuffer(suggested count: Int) async throws -> [UInt8]? {
            while offset >= pending.count {
                guard let chunk = try await produce(index) else { return nil }
                index += 1
                pending = chunk
                offset = 0
            }
            let end = Swift.min(pending.count, offset + Swift.max(1, count))
            defer { offset = end }
            return Array(pending[offset..<end])
        }
    }
}

/// A second server on 127.0.0.1 (another origin) that records what reaches it and answers
/// every request with 200 and `[]`: where a hostile redirect points.
public actor LoopbackRecorder {
    public struct Received: Sendable {
        public var method: String
        public var path: String
        public var authorization: String?
    }

    public private(set) var received: [Received] = []
    private var loopback: LoopbackServer?
    public var port: UInt16 { loopback?.port ?? 0 }

    public init() {}

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    public func start() async throws {
        loopback = try await LoopbackServer.start(timeout: 30) { server in
            await server.appendRoute("*") { await self.record($0) }
        }
    }

    public func stop() async {
        await loopback?.stop()
    }

    private func record(_ request: HTTPRequest) -> HTTPResponse {
        received.append(
            Received(
                method: request.method.rawValue, path: request.path,
                authorization: request.headers[HTTPHeader("Authorization")]))
        return HTTPResponse(statusCode: .ok, headers: [HTTPHeader("Content-Type"): "application/json"], body: Data("[]".utf8))
    }
}
