import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request, as the client builds it.
public struct HTTPRequestSpec: Sendable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?

    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// One HTTP response; header names are lower-cased, since casing varies on the wire.
public struct HTTPReply: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.body = body
    }
}

/// Sends HTTP requests. Throws only for network failures; any HTTP status is a reply.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequestSpec) throws -> HTTPReply
}

/// The real transport, over URLSession (libcurl on Linux).
public final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    private let session: URLSession

    public init(timeout: TimeInterval = 30) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout * 4
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    public func send(_ spec: HTTPRequestSpec) throws -> HTTPReply {
        var request = URLRequest(url: spec.url)
        request.httpMethod = spec.method
        for (k, v) in spec.headers { request.setValue(v, forHTTPHeaderField: k) }
        request.httpBody = spec.body
        final class Box: @unchecked Sendable { var result: Result<HTTPReply, Error>? }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: request) { data, response, error in
            if let error {
                box.result = .failure(error)
            } else if let http = response as? HTTPURLResponse {
                var headers: [String: String] = [:]
                for (k, v) in http.allHeaderFields {
                    if let k = k as? String, let v = v as? String { headers[k] = v }
                }
                box.result = .success(HTTPReply(status: http.statusCode, headers: headers, body: data ?? Data()))
            } else {
                box.result = .failure(StravaError.network("no HTTP response"))
            }
            done.signal()
        }
        task.resume()
        done.wait()
        switch box.result {
        case .success(let reply): return reply
        case .failure(let error as StravaError): throw error
        case .failure(let error): throw StravaError.network(error.localizedDescription)
        case nil: throw StravaError.network("no response")
        }
    }
}
