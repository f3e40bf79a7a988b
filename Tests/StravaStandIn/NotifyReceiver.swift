import FlyingFox
import Foundation

/// A real HTTP server on 127.0.0.1 standing in for an ntfy server and a webhook receiver: it
/// records every request (method, path, headers, body) and answers 200, or the status a test
/// sets for a path, such as 500. (A channel that hangs is a listener that never accepts: see
/// NotifyEndToEndTests; it needs no scheduling of this server's.)
public actor NotifyReceiver {
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var headers: [String: String]
        public var body: Data
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public enum Answer: Sendable {
        case status(Int)
    }

    public private(set) var requests: [Request] = []
    private var answers: [String: Answer] = [:]
    private var loopback: LoopbackServer?
    public var port: UInt16 { loopback?.port ?? 0 }

    public init() {}

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// How requests to `path` are answered from now on; nil: 200.
    public func answer(_ path: String, with answer: Answer?) { answers[path] = answer }

    /// The requests to `path`, in order.
    public func requests(to path: String) -> [Request] { requests.filter { $0.path == path } }

    public func start() async throws {
        loopback = try await LoopbackServer.start(timeout: 60) { server in
            await server.appendRoute("*") { await self.handle($0) }
        }
    }

    public func stop() async {
        await loopback?.stop()
    }

    private func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let body = (try? await request.bodyData) ?? Data()
        var headers: [String: String] = [:]
        for (name, value) in request.headers { headers[name.rawValue.lowercased()] = value }
        requests.append(Request(method: request.method.rawValue, path: request.path, headers: headers, body: body))
        switch answers[request.path] {
        case .status(let code):
            return HTTPResponse(statusCode: HTTPStatusCode(code, phrase: "Test"), body: Data("failing on purpose\n".utf8))
        case nil:
            return HTTPResponse(statusCode: .ok, headers: [HTTPHeader("Content-Type"): "application/json"], body: Data("{}".utf8))
        }
    }
}
