import Foundation

/// Bytes written one after the other into room made ahead, through its pointer: what the HTML
/// page (`HTMLBytes`) and the tables' rows (`ReportCells`) are written into. `Array`'s
/// `append(contentsOf:)` of a buffer is a call of about a hundred instructions on this toolchain
/// (Foundation's copy of it, not inlined), and the HTML page of 500 bikes makes two million
/// pieces, `history`'s table a million: here a piece is a check of the room and a copy.
package struct ByteRoom {
    /// The bytes written, then room (what is past `count` means nothing).
    private var room: [UInt8] = []
    /// How many bytes are written.
    package private(set) var count = 0

    package init() {}

    /// What was written (the room's first `count` bytes, not copied).
    package var written: ArraySlice<UInt8> { room[..<count] }

    /// Byte `k` of those written.
    package subscript(k: Int) -> UInt8 { room[k] }

    /// Room for `count` bytes in all: a new array, the bytes written copied into it and the
    /// rest zeroed (with memset: appended a zero at a time, a million-row table's growth cost
    /// 47 M instructions).
    package mutating func reserveCapacity(_ count: Int) {
        guard room.count < count else { return }
        let written = self.count
        room = room.withUnsafeBufferPointer { old in
            [UInt8](unsafeUninitializedCapacity: count) { new, initialized in
                guard let target = new.baseAddress else { return }
                if let source = old.baseAddress { target.initialize(from: source, count: written) }
                (target + written).initialize(repeating: 0, count: count - written)
                initialized = count
            }
        }
    }

    /// Nothing written, the room kept.
    package mutating func removeAll() { count = 0 }

    /// The last `n` bytes written taken back.
    package mutating func removeLast(_ n: Int) { count -= min(n, count) }

    /// Writes what `write` writes at the end: at most `atMost` bytes, at the pointer it is
    /// given; it returns how many.
    @inline(__always)
    package mutating func put(atMost: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        if room.count - count < atMost { grow(atMost) }
        let at = count
        count += room.withUnsafeMutableBufferPointer { write($0.baseAddress.unsafelyUnwrapped + at) }
    }

    /// Room for `more` bytes past `count`, at least doubled (an append stays a copy).
    private mutating func grow(_ more: Int) { reserveCapacity(Swift.max(count + more, 2 * room.count, 4096)) }

    /// `bytes`, copied at the end.
    package mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        put(atMost: bytes.count) { p in
            p.update(from: source, count: bytes.count)
            return bytes.count
        }
    }

    /// The program's own text, as written.
    package mutating func put(_ literal: StaticString) { literal.withUTF8Buffer { put($0) } }

    /// A String's UTF-8 bytes, read where they are (a String copied to a variable of its own to
    /// read them was retained and released).
    package mutating func put(utf8Of string: String) {
        if string.utf8.withContiguousStorageIfAvailable({ put($0) }) == nil {
            var copy = string
            copy.withUTF8 { put($0) }
        }
    }

    /// `YYYY-MM-DD` (`Day.description`).
    package mutating func day(_ day: Day) {
        let (y, m, d) = day.components
        guard (0...9999).contains(y) else { return put(utf8Of: day.description) }
        put(atMost: 10) { Day.writeISO(y, m, d, to: UnsafeMutableBufferPointer(start: $0, count: 10)) }
    }

    /// A whole number in decimal.
    package mutating func integer(_ n: Int64) { put(atMost: 20) { ReportNumber.writeInteger(n, to: $0) } }

    /// `ReportNumber.fixed(value, decimals)`.
    package mutating func fixed(_ value: Double, _ decimals: Int) {
        guard let scaled = ReportNumber.plainScaled(value, decimals) else { return put(utf8Of: ReportNumber.formattedFixed(value, decimals)) }
        put(atMost: ReportNumber.fixedBytes) { ReportNumber.writeFixed(scaled: scaled, decimals, to: $0) }
    }

    /// `amount` as `ReportAmount` writes it, when it is a whole number of ten-thousandths
    /// (`ReportNumber.amountDigits`); false, writing nothing, for another.
    package mutating func amount(_ amount: Decimal) -> Bool {
        guard let (units, decimals) = ReportNumber.amountDigits(amount) else { return false }
        put(atMost: ReportNumber.amountBytes) { ReportNumber.writeAmount(units, decimals, to: $0) }
        return true
    }
}
