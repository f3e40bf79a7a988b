/// The text of one file with a line index, for showing excerpts under diagnostics.
public struct SourceText: Sendable {
    public let path: String
    public let bytes: [UInt8]
    /// Byte offset where each line starts (line 1 at index 0).
    public let lineStarts: [Int]

    public init(path: String, bytes: [UInt8]) {
        self.path = path
        self.bytes = bytes
        var starts = [0]
        for (i, b) in bytes.enumerated() where b == UInt8(ascii: "\n") {
            starts.append(i + 1)
        }
        self.lineStarts = starts
    }

    /// The text of a 1-based line without its line break, or nil past the end.
    public func line(_ number: Int) -> String? {
        guard number >= 1, number <= lineStarts.count else { return nil }
        let start = lineStarts[number - 1]
        var end = number < lineStarts.count ? lineStarts[number] : bytes.count
        if end > start, bytes[end - 1] == UInt8(ascii: "\n") { end -= 1 }
        if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// The position of a byte offset, with the column counted in Unicode scalars.
    public func position(ofOffset offset: Int) -> SourcePosition {
        let clamped = max(0, min(offset, bytes.count))
        var lo = 0, hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= clamped { lo = mid } else { hi = mid - 1 }
        }
        var column = 1
        var i = lineStarts[lo]
        // A byte-order mark is not a column anyone sees.
        if lo == 0, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = min(3, clamped) }
        while i < clamped {
            // Count only bytes that start a scalar (not UTF-8 continuation bytes).
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return SourcePosition(offset: clamped, line: lo + 1, column: column)
    }
}
