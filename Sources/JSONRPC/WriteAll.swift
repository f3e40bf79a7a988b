import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes every byte to `descriptor`, retrying after signals and short writes: how both servers
/// send a message. False when the other end is gone (or the write failed).
package func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
    var written = 0
    while written < bytes.count {
        let n = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + written, bytes.count - written) }
        if n < 0, errno == EINTR { continue }
        guard n > 0 else { return false }
        written += n
    }
    return true
}
