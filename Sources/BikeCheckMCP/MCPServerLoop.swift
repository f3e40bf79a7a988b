import Foundation
import JSONRPC

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs an `MCPServer` over two file descriptors (standard input and output), one message a
/// line each way. Requests are answered in order, one at a time: every tool is a quick read of
/// the garage, and a client waits for its answer.
package enum MCPServerLoop {
    /// Serves until the input ends (the client's way to stop a stdio server); returns 0, or 1
    /// when the answers could not be written.
    package static func run(_ server: MCPServer, input: Int32 = 0, output: Int32 = 1, log: (String) -> Void = { _ in }) -> Int32 {
        var framer = LineFramer()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return 0 }
            framer.append(chunk[0..<n])
            while let event = framer.next() {
                let out: [Outgoing]
                switch event {
                case .message(let body): out = server.handle(body)
                case .garbage(let reason):
                    log("bikecheck mcp: dropped \(reason)")
                    out = [.error(nil, .parseError, "not a message: \(reason)")]
                }
                for message in out where !writeAll(LineFramer.frame(message.body), to: output) { return 1 }
            }
        }
    }
}
