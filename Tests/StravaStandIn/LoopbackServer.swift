import FlyingFox
import Foundation

/// A FlyingFox server on 127.0.0.1 at a port the system chose, running until stopped: what every
/// stand-in in this target listens with.
struct LoopbackServer: Sendable {
    let server: HTTPServer
    let runTask: Task<Void, Error>
    let port: UInt16

    /// Starts a server, lets `routes` add its routes, and waits until it listens.
    static func start(timeout: TimeInterval, routes: @Sendable (HTTPServer) async -> Void) async throws -> LoopbackServer {
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: timeout, logger: .disabled)
        await routes(server)
        let runTask = Task { try await server.run() }
        // Generous: a test process busy running binaries can take seconds to get the listener
        // going on a loaded machine; a server that never listens still fails the test.
        try await server.waitUntilListening(timeout: 60)
        guard case .ip4(_, let port) = await server.listeningAddress else {
            runTask.cancel()
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "the loopback server has no IPv4 address"])
        }
        return LoopbackServer(server: server, runTask: runTask, port: port)
    }

    func stop() async {
        await server.stop(timeout: 0.1)
        runTask.cancel()
    }
}
