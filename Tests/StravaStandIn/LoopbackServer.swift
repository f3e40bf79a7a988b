import FlyingFox
import Foundation

/// A FlyingFox server on 127.0.0.1 at a port the system chose, running until stopped: what every
/// stand-in in this target listens with.
struct LoopbackServer: Sendable {
    let server: HTTPServer
    let runTask: Task<Void, Error>
    let port: UInt16
    let thread: ServerThread

    /// Starts a server, lets `routes` add its routes, and waits until it listens.
    static func start(timeout: TimeInterval, routes: @Sendable (HTTPServer) async -> Void) async throws -> LoopbackServer {
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: timeout, logger: .disabled)
        await routes(server)
        let thread = ServerThread(name: "loopback server")
        let runTask = Task(executorPreference: thread) { try await server.run() }
        // Generous: a test process busy running binaries can take seconds to get the listener
        // going on a loaded machine; a server that never listens still fails the test.
        try await server.waitUntilListening(timeout: 60)
        guard case .ip4(_, let port) = await server.listeningAddress else {
            runTask.cancel()
            thread.stop()
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "the loopback server has no IPv4 address"])
        }
        return LoopbackServer(server: server, runTask: runTask, port: port, thread: thread)
    }

    func stop() async {
        await server.stop(timeout: 0.1)
        runTask.cancel()
        thread.stop()
    }
}

/// A thread of its own that runs a server's tasks. Swift Testing runs synchronous tests on the
/// cooperative pool, which has one thread per core; two tests each waiting for a `bikecheck`
/// process block both threads of a 2-core machine, and a server on that pool then answers
/// nothing until they finish (a notify test saw its webhook "stalled" for 7 s). A server whose
/// tasks prefer this executor answers whatever the pool is doing.
final class ServerThread: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false
    private var exited = false

    init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        defer { condition.unlock() }
        guard !exited else {
            // A stopped server's last steps (a cancelled connection winding down).
            let executor = asUnownedTaskExecutor()
            Thread { job.runSynchronously(on: executor) }.start()
            return
        }
        jobs.append(job)
        condition.signal()
    }

    /// Ends the thread once it has run what it holds; later jobs run on a thread started for them.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                exited = true
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
