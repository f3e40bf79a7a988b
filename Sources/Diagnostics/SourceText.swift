/// The text of one file with a line index, for showing excerpts under diagnostics.
package struct SourceText: Sendable {
    package let path: String
    package let bytes: [UInt8]
    /// Byte offset where each line starts (line 1 at index 0).
    package let lineStarts: [Int]
    /// For files that are not ASCII: how many bytes before each multiple of `checkpoint` start a
    /// Unicode scalar, so a column is found without walking the whole line (nil: bytes are scalars).
    private let scalarCheckpoints: [Int]?
    private static let checkpoint = 1024
    /// Whether every byte is below 0x80 (then a column counts bytes).
    package let isASCII: Bool

    package init(path: String, bytes: [UInt8]) {
        self.path = path
        self.bytes = bytes
        var starts = [0]
        let ascii = Self.isASCII(bytes[...])
        isASCII = ascii
        var checkpoints: [Int] = []
        var scalars = 0
        bytes.withUnsafeBufferPointer { b in
            // An ASCII file (most are) needs only its line starts.
            if ascii {
                Self.forEach(UInt8(ascii: "\n"), in: b) { starts.append($0 + 1) }
                return
            }
            for i in 0..<b.count {
                if i & (Self.checkpoint - 1) == 0 { checkpoints.append(scalars) }
                let byte = b[i]
                if byte == UInt8(ascii: "\n") { starts.append(i + 1) }
                if byte & 0xC0 != 0x80 { scalars += 1 }
            }
        }
        self.lineStarts = starts
        self.scalarCheckpoints = ascii ? nil : checkpoints
    }

    /// Whether `byte` is in `bytes`: eight at a time (see `forEach`).
    package static func contains(_ byte: UInt8, in bytes: [UInt8]) -> Bool {
        var found = false
        bytes.withUnsafeBufferPointer { b in
            forEach(byte, in: b) { _ in found = true }
        }
        return found
    }

    /// Calls `body` with the offset of each `byte` in `b`, in order. Eight bytes are looked at
    /// at a time (a word with a zero byte where the byte is), one at a time only in a word that
    /// has it: every file read is split into lines.
    static func forEach(_ byte: UInt8, in b: UnsafeBufferPointer<UInt8>, _ body: (Int) -> Void) {
        let pattern = UInt64(byte) &* 0x0101_0101_0101_0101
        var at = 0
        if let base = b.baseAddress {
            let raw = UnsafeRawPointer(base)
            while b.count - at >= 8 {
                let x = raw.loadUnaligned(fromByteOffset: at, as: UInt64.self) ^ pattern
                // Nonzero exactly when a byte of `x` is zero.
                if (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080 != 0 {
                    for i in at..<at + 8 where b[i] == byte { body(i) }
                }
                at += 8
            }
        }
        while at < b.count {
            if b[at] == byte { body(at) }
            at += 1
        }
    }

    /// Whether every byte is below 0x80: eight at a time, as every file read is asked it.
    package static func isASCII(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBytes { isASCII($0) }
    }

    /// Whether every byte is below 0x80, eight at a time.
    package static func isASCII(_ raw: UnsafeRawBufferPointer) -> Bool {
        var seen: UInt64 = 0
        var at = 0
        while raw.count - at >= 8 {
            seen |= raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)
            at += 8
        }
        while at < raw.count {
            seen |= UInt64(raw[at])
            at += 1
        }
        return seen & 0x8080_8080_8080_8080 == 0
    }

    /// The text of a 1-based line without its line break, or nil past the end.
    package func line(_ number: Int) -> String? {
        guard let r = lineRange(number) else { return nil }
        return String(decoding: bytes[r], as: UTF8.self)
    }

    /// The bytes of a 1-based line without its line break, or nil past the end.
    package func lineRange(_ number: Int) -> Range<Int>? {
        guard number >= 1, number <= lineStarts.count else { return nil }
        let start = lineStarts[number - 1]
        var end = number < lineStarts.count ? lineStarts[number] : bytes.count
        if end > start, bytes[end - 1] == UInt8(ascii: "\n") { end -= 1 }
        if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return start..<end
    }

    /// How many Unicode scalars start in `bytes[0..<offset]`, from the checkpoints: at most one
    /// checkpoint's worth of bytes is walked.
    private func scalars(before offset: Int) -> Int {
        guard let table = scalarCheckpoints else { return offset }
        let k = offset / Self.checkpoint
        var count = table[min(k, table.count - 1)]
        var i = min(k, table.count - 1) * Self.checkpoint
        while i < offset {
            if bytes[i] & 0xC0 != 0x80 { count += 1 }
            i += 1
        }
        return count
    }

    /// The position of a byte offset, with the column counted in Unicode scalars. Costs a binary
    /// search of the line index and at most a few kilobytes of walking, however long the line.
    package func position(ofOffset offset: Int) -> SourcePosition {
        let clamped = max(0, min(offset, bytes.count))
        var lo = 0, hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= clamped { lo = mid } else { hi = mid - 1 }
        }
        var from = lineStarts[lo]
        // A byte-order mark is not a column anyone sees.
        if lo == 0, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { from = min(3, clamped) }
        let column = scalars(before: clamped) - scalars(before: from) + 1
        return SourcePosition(offset: clamped, line: lo + 1, column: column)
    }
}
