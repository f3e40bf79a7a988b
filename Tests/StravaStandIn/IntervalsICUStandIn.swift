import FlyingFox
import Foundation

/// A real HTTP server on 127.0.0.1 standing in for Intervals.icu's API: `GET
/// /api/v1/athlete/{id}/gear` answers the gear list a test gives, to a request whose
/// `Authorization` is HTTP Basic with user `API_KEY` and the test's key; anything else is 401, as
/// Intervals.icu answers a wrong key. It records every request (path and headers).
public actor IntervalsICUStandIn {
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var headers: [String: String]
    }

    public private(set) var requests: [Request] = []
    private let key: String
    private let gear: Data
    private let athletes: Set<String>
    private var loopback: LoopbackServer?

    /// Serves `gear` to `key`'s holder for the athletes named (`0` is the key's own).
    public init(key: String, gear: Data, athletes: Set<String> = ["0"]) {
        self.key = key
        self.gear = gear
        self.athletes = athletes
    }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(loopback?.port ?? 0)" }

    /// The header a request with the key carries: `Basic base64(API_KEY:key)`.
    public static func authorization(key: String) -> String { "Basic " + Data("API_KEY:\(key)".utf8).base64EncodedString() }

    public func start() async throws {
        loopback = try await LoopbackServer.start(timeout: 60) { server in
            await server.appendRoute("*") { await self.handle($0) }
        }
    }

    public func stop() async {
        await loopback?.stop()
    }

    private func handle(_ request: HTTPRequest) async -> HTTPResponse {
        var headers: [String: String] = [:]
        for (name, value) in request.headers { headers[name.rawValue.lowercased()] = value }
        requests.append(Request(method: request.method.rawValue, path: request.path, headers: headers))
        let json = [HTTPHeader("Content-Type"): "application/json;charset=UTF-8"]
        guard headers["authorization"] == Self.authorization(key: key) else {
            return HTTPResponse(statusCode: .unauthorized, headers: json, body: Data(#"{"status":401,"error":"Unauthorized"}"#.utf8))
        }
        let parts = request.path.split(separator: "/")
        guard request.method == .GET, parts.count == 5, parts[0] == "api", parts[1] == "v1", parts[2] == "athlete", parts[4] == "gear" else {
            return HTTPResponse(statusCode: .notFound, headers: json, body: Data(#"{"status":404,"error":"Not Found"}"#.utf8))
        }
        guard athletes.contains(String(parts[3])) else {
            return HTTPResponse(statusCode: .notFound, headers: json, body: Data(#"{"status":404,"error":"Athlete not found"}"#.utf8))
        }
        return HTTPResponse(statusCode: .ok, headers: json, body: gear)
    }
}
