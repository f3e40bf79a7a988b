import Foundation
import JSONRPC

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs a `LanguageServer` over two file descriptors (standard input and output). A reader thread
/// frames what arrives; the loop takes everything framed so far as one batch, so a burst of
/// edits is checked once, and a request cancelled within its batch is answered as cancelled
/// rather than computed.
package enum ServerLoop {
    /// Serves until `exit` or the end of the input; returns the exit code (0 only after `shutdown`).
    package static func run(_ server: LanguageServer, input: Int32 = 0, output: Int32 = 1, log: (String) -> Void = { _ in }) -> Int32 {
        let inbox = Inbox()
        let reader = Thread {
            var framer = MessageFramer()
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { break }
                framer.append(chunk[0..<n])
                // What one read brought goes in at once: a request and its cancellation written
                // together are seen together.
                var events: [MessageFramer.Event] = []
                while let event = framer.next() { events.append(event) }
                if !events.isEmpty { inbox.put(events) }
            }
            inbox.close()
        }
        reader.stackSize = 1 << 20
        reader.start()

        while true {
            let (batch, closed) = inbox.takeAll()
            let cancelled = Self.cancelledIDs(in: batch)
            var out: [Outgoing] = []
            for event in batch {
                switch event {
                case .message(let body):
                    let id = cancelled.isEmpty ? nil : (try? JSONDecoder().decode(Envelope.self, from: Data(body)))?.id
                    out += server.handle(body, cancelled: id.map(cancelled.contains) ?? false)
                case .garbage(let reason):
                    log("bikecheck lsp: dropped bytes that are not a message: \(reason)")
                    out.append(.error(nil, .parseError, "not a message: \(reason)"))
                case .unrecoverable(let reason):
                    // Every later message would be lost: said, and the server stops.
                    log("bikecheck lsp: stopped: \(reason)")
                    out.append(.error(nil, .parseError, "stopped: \(reason)"))
                    for message in out { _ = writeAll(MessageFramer.frame(message.body), to: output) }
                    return 1
                }
                if server.exitCode != nil { break }
            }
            if server.exitCode == nil { out += server.checkIfNeeded() }
            for message in out where !writeAll(MessageFramer.frame(message.body), to: output) {
                return server.exitCode ?? 1
            }
            if let code = server.exitCode { return code }
            // The client went away without `exit`: as the protocol says for a missing shutdown.
            if closed { return 1 }
        }
    }

    /// Ids of the requests a `$/cancelRequest` of this batch names.
    private static func cancelledIDs(in batch: [MessageFramer.Event]) -> Set<RequestID> {
        var ids: Set<RequestID> = []
        for case .message(let body) in batch where body.count < 512 {
            let data = Data(body)
            guard let envelope = try? JSONDecoder().decode(Envelope.self, from: data), envelope.method == "$/cancelRequest",
                let p = try? JSONDecoder().decode(Parameters<CancelParams>.self, from: data)
            else { continue }
            ids.insert(p.params.id)
        }
        return ids
    }
}

/// What the reader thread framed and the loop has not yet taken.
private final class Inbox: @unchecked Sendable {
    private let condition = NSCondition()
    private var events: [MessageFramer.Event] = []
    private var closed = false

    /// The most messages held: a client that writes faster than the server answers waits (the
    /// pipe fills) rather than the server's memory growing.
    static let limit = 1000

    func put(_ new: [MessageFramer.Event]) {
        condition.lock()
        while events.count >= Self.limit { condition.wait() }
        events += new
        condition.broadcast()
        condition.unlock()
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for something, then takes all of it; `closed` once the input ended.
    func takeAll() -> (events: [MessageFramer.Event], closed: Bool) {
        condition.lock()
        defer { condition.unlock() }
        while events.isEmpty, !closed { condition.wait() }
        let taken = events
        events = []
        condition.broadcast()
        return (taken, closed)
    }
}
