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

    /// Room for `count` bytes in all, reserved: not yet zeroed, nor resident.
    package mutating func reserveCapacity(_ count: Int) { room.reserveCapacity(count) }

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

    /// Room for `more` bytes past `count`: the room's bytes are zeroed 2 KiB at a time as
    /// they are needed (its capacity grows as an array's does), not a zero at a time (a
    /// million-row table's growth cost 47 M instructions) nor all at once (zeroed room not yet
    /// needed was resident: `history`'s held rows took 15 MiB more).
    private mutating func grow(_ more: Int) {
        Self.zeros.withUnsafeBufferPointer { zeros in
            while room.count - count < more { room.append(contentsOf: zeros) }
        }
    }

    /// The zeros the room grows by, a block at a time.
    private static let zeros = [UInt8](repeating: 0, count: 2048)

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
