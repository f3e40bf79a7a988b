/// Cuts MCP's stdio stream into messages: one JSON-RPC message a line, ended by `\n` (a `\r`
/// before it is dropped), no headers (not the language server's framing, `MessageFramer`). Bytes
/// arrive however the pipe delivers them; an empty line is nothing, and a line longer than the
/// limit is skipped as it arrives, never held, and reported once.
package struct LineFramer: Sendable {
    package enum Event: Sendable, Equatable {
        /// A whole line (not yet checked to be JSON).
        case message([UInt8])
        /// A line that was too long, and why; it is dropped.
        case garbage(String)
    }

    /// The longest line accepted: 16 MiB, far more than any request of this server (a tool's
    /// arguments are a few ids and dates).
    package static let lineLimit = 16 << 20

    private let limit: Int
    private var buffer: [UInt8] = []
    /// Where unread bytes start in `buffer` (dropped lazily, so reading is not quadratic).
    private var start = 0
    /// Where the search for the next newline goes on from.
    private var scanned = 0
    /// Inside a line too long to keep: bytes are dropped up to its end.
    private var skipping = false

    package init(lineLimit: Int = LineFramer.lineLimit) {
        limit = lineLimit
    }

    package mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next line or garbage, or nil until more bytes arrive.
    package mutating func next() -> Event? {
        while true {
            guard let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) else {
                scanned = buffer.count
                guard !skipping, buffer.count - start > limit else {
                    if skipping { start = buffer.count }
                    return nil
                }
                // Too long: dropped as it arrives, reported once.
                skipping = true
                start = buffer.count
                return .garbage("a line longer than \(limit) bytes")
            }
            let line = buffer[start..<newline]
            start = newline + 1
            scanned = start
            if skipping {
                skipping = false
                continue
            }
            let body = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
            if body.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            guard body.count <= limit else { return .garbage("a line longer than \(limit) bytes") }
            return .message(Array(body))
        }
    }

    /// A message as the server sends it: its JSON (which has no raw newline) and `\n`.
    package static func frame(_ body: [UInt8]) -> [UInt8] { body + [UInt8(ascii: "\n")] }
}
