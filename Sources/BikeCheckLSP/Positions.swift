import Diagnostics

/// Between the loader's positions (UTF-8 byte offsets; 1-based lines, columns in Unicode
/// scalars) and the protocol's (0-based lines, columns in UTF-16 code units). Both directions go
/// through the byte offset, which the loader keeps exactly, rather than through the column.
extension SourceText {
    /// The protocol position of a byte offset.
    package func position(ofByte offset: Int) -> Position {
        let clamped = max(0, min(offset, bytes.count))
        let line = lineIndex(containing: clamped)
        var from = lineStarts[line]
        // A byte-order mark is not a character an editor shows.
        if line == 0, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { from = min(3, clamped) }
        return Position(line: line, character: utf16Count(from, clamped))
    }

    /// The byte offset of a protocol position. A character past the end of its line means the
    /// end of the line, a line past the end the end of the text (as the protocol says); a
    /// position inside a surrogate pair means the character it splits.
    package func offset(of position: Position) -> Int {
        guard position.line >= 0 else { return 0 }
        guard position.line < lineStarts.count, let line = lineRange(position.line + 1) else { return bytes.count }
        var i = line.lowerBound
        if position.line == 0, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = min(3, line.upperBound) }
        var units = 0
        while i < line.upperBound, units < position.character {
            let width = Self.sequenceLength(bytes[i])
            units += width == 4 ? 2 : 1
            i = min(i + width, line.upperBound)
        }
        return i
    }

    /// A loader's range as a protocol range (an empty one at the start of the file when unknown).
    package func range(of range: SourceRange?) -> TextRange {
        guard let range else { return TextRange(start: Position(line: 0, character: 0), end: Position(line: 0, character: 0)) }
        return TextRange(start: position(ofByte: range.start.offset), end: position(ofByte: max(range.start.offset, range.end.offset)))
    }

    /// A span of bytes as a protocol range.
    package func range(ofBytes span: Swift.Range<Int>) -> TextRange {
        TextRange(start: position(ofByte: span.lowerBound), end: position(ofByte: span.upperBound))
    }

    private func lineIndex(containing offset: Int) -> Int {
        var lo = 0, hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// UTF-16 code units of the characters that start in `bytes[from..<to]`.
    private func utf16Count(_ from: Int, _ to: Int) -> Int {
        var units = 0
        var i = from
        while i < to {
            let width = Self.sequenceLength(bytes[i])
            units += width == 4 ? 2 : 1
            i += width
        }
        return units
    }

    /// How many bytes the UTF-8 sequence led by `byte` takes (1 for a stray continuation byte,
    /// which the decoder shows as one replacement character).
    private static func sequenceLength(_ byte: UInt8) -> Int {
        switch byte {
        case 0xF0...0xF7: 4
        case 0xE0...0xEF: 3
        case 0xC0...0xDF: 2
        default: 1
        }
    }
}
