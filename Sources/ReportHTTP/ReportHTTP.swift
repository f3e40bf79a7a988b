import Dispatch
import FlyingFox
import FlyingSocks
import Foundation
import Synchronization

// `report --serve`'s HTTP layer, built as its own shared library (libBikeCheckReportHTTP) that
// bikecheck loads with dlopen only when it serves: FlyingFox imports FoundationNetworking, and
// linking it into bikecheck would load libcurl and its ~30 libraries on every command. This
// library knows nothing of the garage: it listens, and hands each request to bikecheck's C
// function pointer, which answers it (Sources/bikecheck/ReportServer.swift has the pages).
//
// The C interface (bikecheck declares the same types in ReportServer.swift; they must match):
//
//   typedef void (*respond_t)(void *responder, int32_t status, const char *headers,
//                             const uint8_t *body, intptr_t body_count);
//   typedef void (*handler_t)(void *context, const char *method, const char *path,
//                             const char *query, const char *host /* NULL: none */,
//                             respond_t respond, void *responder);
//   typedef void (*listening_t)(void *context, uint16_t port);
//   int32_t bikecheck_report_http_serve(const char *address, uint16_t port, handler_t handler,
//                                       listening_t listening, void *context,
//                                       char *error, intptr_t error_capacity);
//
// Memory: nothing changes owner. Every pointer is borrowed for the length of the call it is
// passed to: the handler must call `respond` exactly once before it returns (a handler that does
// not gets a 500), and the library copies what `respond` is given. `headers` are "Name: value"
// lines separated by "\n"; `path` is decoded with its dot segments removed, `query` is
// "name=value" pairs joined by "&", each name and value percent-encoded but for letters,
// digits and -._~/ ("" when there is none). The handler runs on the library's own threads, several
// at a time; the server's event loop never waits for it.
//
// `bikecheck_report_http_serve` blocks, serving, until the server fails: it calls `listening`
// once with the port it bound, and returns 2 with the reason in `error` (NUL-terminated,
// truncated to fit) when it can no longer serve, or 1 when `address` is not an IP address.

public typealias Respond = @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<UInt8>?, Int) -> Void
public typealias Handler =
    @convention(c) (
        UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Respond?,
        UnsafeMutableRawPointer?
    ) -> Void
public typealias Listening = @convention(c) (UnsafeMutableRawPointer?, UInt16) -> Void

@_cdecl("bikecheck_report_http_serve")
public func bikecheckReportHTTPServe(
    _ address: UnsafePointer<CChar>, _ port: UInt16, _ handler: Handler, _ listening: Listening, _ context: UnsafeMutableRawPointer?,
    _ errorBuffer: UnsafeMutablePointer<CChar>?, _ errorCapacity: Int
) -> Int32 {
    let host = String(cString: address)
    let forwarder = Forwarder(handler: handler, context: Borrowed(pointer: context))
    let server: HTTPServer
    do {
        server =
            host.contains(":")
            ? HTTPServer(address: try .inet6(ip6: host, port: port), timeout: 30, logger: .disabled, handler: forwarder)
            : HTTPServer(address: try .inet(ip4: host, port: port), timeout: 30, logger: .disabled, handler: forwarder)
    } catch {
        write("\(host) is not an IP address", to: errorBuffer, capacity: errorCapacity)
        return 1
    }
    let callback = Callback(listening: listening, context: Borrowed(pointer: context))
    let ended = Ended()
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            try await serve(server, then: callback)
        } catch {
            ended.error.withLock { $0 = error }
        }
        done.signal()
    }
    done.wait()
    let why: String =
        switch ended.error.withLock({ $0 }) {
        case SocketError.failed(_, _, let message)?: message.prefix(1).lowercased() + message.dropFirst()
        case let error?: "\(error)"
        case nil: "the server stopped"
        }
    write(why, to: errorBuffer, capacity: errorCapacity)
    return 2
}

/// Runs `server`, telling `callback` the port once it listens; returns only when it fails.
private func serve(_ server: HTTPServer, then callback: Callback) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.run() }
        group.addTask {
            try await server.waitUntilListening(timeout: 60)
            let port: UInt16 =
                switch await server.listeningAddress {
                case .ip4(_, let port), .ip6(_, let port): port
                default: 0
                }
            callback.listening(callback.context.pointer, port)
        }
        while try await group.next() != nil {}
    }
}

private func write(_ message: String, to buffer: UnsafeMutablePointer<CChar>?, capacity: Int) {
    guard let buffer, capacity > 0 else { return }
    let bytes = Array(message.utf8.prefix(capacity - 1))
    for (index, byte) in bytes.enumerated() { buffer[index] = CChar(bitPattern: byte) }
    buffer[bytes.count] = 0
}

/// How the serving task hands its error to the blocked caller.
private final class Ended: Sendable {
    let error = Mutex<(any Error)?>(nil)
}

/// The caller's context pointer, which the library only passes back to the caller's functions:
/// the caller keeps what it points to alive, and safe to use from several threads, while it serves.
private struct Borrowed: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer?
}

/// The caller's callback and context.
private struct Callback: Sendable {
    let listening: Listening
    let context: Borrowed
}

/// Hands each request to the C handler on a thread of Dispatch's, and its answer back.
private struct Forwarder: HTTPHandler, Sendable {
    let handler: Handler
    let context: Borrowed

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: answer(request)) }
        }
    }

    private func answer(_ request: HTTPRequest) -> HTTPResponse {
        // Each name and value percent-encoded but for letters, digits and -._~/ (so & and = only
        // ever separate), as FlyingFox decoded them.
        let query = request.query.map { item in
            [item.name, item.value].map { $0.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "" }.joined(separator: "=")
        }.joined(separator: "&")
        let host = request.headers[.host]
        var response = HTTPResponse(statusCode: .internalServerError)
        withUnsafeMutablePointer(to: &response) { pointer in
            request.method.rawValue.withCString { method in
                request.path.withCString { path in
                    query.withCString { query in
                        if let host {
                            host.withCString { host in handler(context.pointer, method, path, query, host, respond, pointer) }
                        } else {
                            handler(context.pointer, method, path, query, nil, respond, pointer)
                        }
                    }
                }
            }
        }
        return response
    }
}

private let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/")

/// `respond`: copies the handler's answer into the HTTPResponse `responder` points to.
private let respond: Respond = { responder, status, headers, body, count in
    guard let responder else { return }
    var fields = HTTPHeaders()
    for line in headers.map({ String(cString: $0) })?.split(separator: "\n") ?? [] {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let value = line[line.index(after: colon)...].drop(while: { $0 == " " })
        fields[HTTPHeader(String(line[..<colon]))] = String(value)
    }
    let data = body.map { Data(bytes: $0, count: count) } ?? Data()
    let phrases = [200: "OK", 404: "Not Found", 405: "Method Not Allowed", 421: "Misdirected Request", 500: "Internal Server Error"]
    let code = HTTPStatusCode(Int(status), phrase: phrases[Int(status)] ?? "Status \(status)")
    responder.assumingMemoryBound(to: HTTPResponse.self).pointee = HTTPResponse(statusCode: code, headers: fields, body: data)
}
