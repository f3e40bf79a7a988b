import Foundation

/// A report as rows and columns of plain text: what the text, CSV and Markdown renderers lay out.
/// Each report builds its table from its typed model; JSON is encoded from the model itself.
package struct ReportTable: Sendable, Equatable {
    package struct Column: Sendable, Equatable {
        /// The CSV header: lower case, fixed units in the name (`distance_km`).
        package var name: String
        /// The heading people read in text and Markdown.
        package var title: String
        /// Numbers are right-aligned; text is left-aligned and the first to shorten on a narrow terminal.
        package var numeric: Bool

        package init(_ name: String, _ title: String, numeric: Bool = false) {
            self.name = name
            self.title = title
            self.numeric = numeric
        }
    }

    package var columns: [Column]
    /// The rows, unless the table streams them.
    package var rows: [[String]]
    /// Lines after the table (totals per currency, notes), for text and Markdown.
    package var footer: [String] = []
    /// Rows written cell by cell into bytes when asked, for tables of a million rows (`rides`):
    /// the renderers read these instead of `rows`, without a String per cell.
    package var stream: RowStream?

    package init(columns: [Column], rows: [[String]], footer: [String] = []) {
        self.columns = columns
        self.rows = rows
        self.footer = footer
    }

    package init(columns: [Column], stream: RowStream, footer: [String] = []) {
        self.columns = columns
        self.rows = []
        self.footer = footer
        self.stream = stream
    }

    /// The first columns of a report by subject: `bike`, and `part` when some line is a part's.
    package static func subjectColumns(parts: Bool) -> [Column] { parts ? [.init("bike", "BIKE"), .init("part", "PART")] : [.init("bike", "BIKE")] }

    /// Those columns' cells: a bike's id; for a part, the bike it was on (when one is meant) and its id.
    package static func subjectCells(_ subject: ReportSubject, bike: String? = nil, parts: Bool) -> [String] {
        switch subject.kind {
        case .bike: return parts ? [subject.id, ""] : [subject.id]
        case .part: return [bike ?? "", subject.id]
        }
    }

    /// Every row as Strings, streamed or not.
    package var allRows: [[String]] {
        guard let stream else { return rows }
        var cells = ReportCells()
        return (0..<stream.count).map { k in
            cells.removeAll()
            stream.write(k, &cells)
            return cells.strings
        }
    }

    package static func == (a: ReportTable, b: ReportTable) -> Bool {
        a.columns == b.columns && a.allRows == b.allRows && a.footer == b.footer
    }

    /// `count` rows, each written by `write(k, &cells)` (the rows in order, one at a time).
    package struct RowStream: Sendable {
        package var count: Int
        package var write: @Sendable (Int, inout ReportCells) -> Void
        /// The text renderer keeps the rows it writes to measure the widths and lays the lines
        /// out from them, instead of writing every row twice: for tables small enough to hold
        /// (`history`'s), not a million rides.
        package var holdsRows = false

        package init(count: Int, write: @escaping @Sendable (Int, inout ReportCells) -> Void) {
            self.count = count
            self.write = write
        }
    }
}

/// The cells of one row as UTF-8 bytes, one after the other: numbers and dates are written
/// without a String or a formatter, into room made ahead (`ByteRoom`).
package struct ReportCells {
    private var room = ByteRoom()
    /// Where each cell ends in `bytes`.
    package private(set) var ends: [Int] = []

    package init() {}

    /// The cells' bytes.
    package var bytes: ArraySlice<UInt8> { room.written }

    package mutating func removeAll() {
        room.removeAll()
        ends.removeAll(keepingCapacity: true)
    }

    package var count: Int { ends.count }

    package func range(_ k: Int) -> Range<Int> { (k == 0 ? 0 : ends[k - 1])..<ends[k] }

    /// Where cell `k` starts in `bytes`.
    package func start(_ k: Int) -> Int { k == 0 ? 0 : ends[k - 1] }

    package var strings: [String] { strings(ends.indices) }

    /// Cells `cells` as Strings.
    package func strings(_ cells: Range<Int>) -> [String] { cells.map { String(decoding: bytes[range($0)], as: UTF8.self) } }

    package mutating func text(_ s: String) {
        room.put(utf8Of: s)
        ends.append(room.count)
    }

    package mutating func empty() { ends.append(room.count) }

    /// A cell of UTF-8 bytes.
    package mutating func bytes(_ utf8: UnsafeBufferPointer<UInt8>) {
        room.put(utf8)
        ends.append(room.count)
    }

    /// A whole number in decimal.
    package mutating func integer(_ n: Int64) {
        room.integer(n)
        ends.append(room.count)
    }

    /// `ReportNumber.fixed(value, decimals)`.
    package mutating func fixed(_ value: Double, _ decimals: Int) {
        room.fixed(value, decimals)
        ends.append(room.count)
    }

    /// `Day.description`: `YYYY-MM-DD`.
    package mutating func day(_ day: Day) {
        room.day(day)
        ends.append(room.count)
    }

    // A cell written in pieces: the `append…` functions add to the cell under way, `end()` ends it.

    /// Adds `s` to the cell under way.
    package mutating func append(_ s: String) { room.put(utf8Of: s) }

    /// Adds `ReportNumber.fixed(value, decimals)` to the cell under way.
    package mutating func appendFixed(_ value: Double, _ decimals: Int) { room.fixed(value, decimals) }

    /// Adds `Day.description` to the cell under way.
    package mutating func appendDay(_ day: Day) { room.day(day) }

    /// Writes `YYYY-MM-DD` (a year of 0 through 9999) at `p`: 10 bytes.
    package static func writeDay(_ y: Int, _ m: Int, _ d: Int, to p: UnsafeMutablePointer<UInt8>) -> Int {
        Day.writeISO(y, m, d, to: UnsafeMutableBufferPointer(start: p, count: 10))
    }

    /// Adds what `write` writes at the pointer it is given (at most `capacity` bytes; it
    /// returns how many) to the cell under way.
    package mutating func append(capacity: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        room.put(atMost: capacity) { Swift.min(write($0), capacity) }
    }

    /// Ends the cell under way.
    package mutating func end() { ends.append(room.count) }
}

/// Plain numbers in fixed units, the same on every machine (no locale, no grouping).
package enum ReportNumber {
    /// A progress (a fraction, as reports carry it: four decimals) as a whole percentage, the one
    /// rule every renderer prints by (status text, HTML, reminders, the calendar): rounded half
    /// up from the decimal value (`2.3` is 230, `0.285` is 29, not the floor of a binary float),
    /// except that a progress below 1 never shows as 100 (at 100 % an interval is overdue).
    package static func percent(_ progress: Double) -> Int {
        // The four decimals as a whole number of ten-thousandths: exact, whatever the binary float.
        guard progress.isFinite else { return 0 }
        let n = Int((min(max(progress, -1e12), 1e12) * 10_000).rounded())
        let p = n >= 0 ? (n + 50) / 100 : -((-n + 49) / 100)
        return progress < 1 && p >= 100 ? 99 : p
    }

    package static func fixed(_ value: Double, _ decimals: Int) -> String {
        var bytes: [UInt8] = []
        appendFixed(value, decimals, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `value` rounded to `decimals` places, as `String(format: "%.Nf")` prints the rounded value
    /// (no minus sign on zero), written as digits when it is plain (`writeFixed`).
    static func appendFixed(_ value: Double, _ decimals: Int, to bytes: inout [UInt8]) {
        guard let scaled = plainScaled(value, decimals) else { return bytes += Array(formattedFixed(value, decimals).utf8) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: fixedBytes) { room in
            guard let p = room.baseAddress else { return }
            bytes.append(contentsOf: UnsafeBufferPointer(start: p, count: writeFixed(scaled: scaled, decimals, to: p)))
        }
    }

    /// `fixed(value, decimals)` of a value `writeFixed` does not write: through `String(format:)`.
    static func formattedFixed(_ value: Double, _ decimals: Int) -> String {
        let scale = pow(10.0, Double(decimals))
        let rounded = (value * scale).rounded() / scale
        return String(format: "%.\(decimals)f", rounded == 0 ? 0 : rounded)
    }

    /// The most bytes `writeFixed` writes.
    static let fixedBytes = 24

    /// `value` times 10^`decimals`, rounded, when `writeFixed` writes it: 0 through 6 decimals,
    /// below 10^15 (not a NaN); nil for another.
    @inline(__always)
    static func plainScaled(_ value: Double, _ decimals: Int) -> Double? {
        guard decimals >= 0, decimals <= 6 else { return nil }
        let scaled = (value * tenTo(decimals)).rounded()
        return abs(scaled) < 1e15 ? scaled : nil
    }

    /// Writes `value` rounded to `decimals` places at `p`, given its `plainScaled` (at most
    /// `fixedBytes`), and returns how many bytes: the scaled, rounded value is a whole number,
    /// and below 2^50 printing it with the point moved is exact; no minus sign on zero.
    static func writeFixed(scaled: Double, _ decimals: Int, to p: UnsafeMutablePointer<UInt8>) -> Int {
        var n = Int64(scaled)
        var at = 0
        if n < 0 {
            p[0] = UInt8(ascii: "-")
            at = 1
            n = -n
        }
        return at + writePointed(n, decimals, to: p + at)
    }

    /// 10^n (n from 0 through 6), exact: `pow(10.0, Double(n))`.
    @inline(__always)
    private static func tenTo(_ n: Int) -> Double {
        var scale = 1.0
        for _ in 0..<n { scale *= 10 }
        return scale
    }

    /// Writes `n` (not negative) with its point moved `decimals` places left at `p`: `12345`, 2
    /// is `123.45`; no point when `decimals` is 0. Returns how many bytes.
    private static func writePointed(_ n: Int64, _ decimals: Int, to p: UnsafeMutablePointer<UInt8>) -> Int {
        var unit: Int64 = 1
        for _ in 0..<decimals { unit *= 10 }
        var at = writeDigits(n / unit, to: p)
        guard decimals > 0 else { return at }
        p[at] = UInt8(ascii: ".")
        var fraction = n % unit
        for k in stride(from: at + decimals, to: at, by: -1) {
            p[k] = UInt8(48 + fraction % 10)
            fraction /= 10
        }
        at += decimals + 1
        return at
    }

    /// `amount` in whole ten-thousandths (`Money.maximumFractionDigits`), when it is one below
    /// 10^10 (every amount a garage can hold, and their sums up to ten billion); nil for another.
    /// A whole number below 10^14 is exact in a Double, and the amount's own Double (its
    /// significand divided by ten at most four times) is within a thousandth of it: rounded, it
    /// is the number. `Decimal`'s own arithmetic and text cost thousands of instructions each.
    /// Read from the `Decimal`'s fields (`DecimalWords`), not through this Double, where they
    /// can be read.
    @inline(__always)
    static func tenThousandths(_ amount: Decimal) -> Int64? { DecimalWords.tenThousandths(amount) }

    /// `tenThousandths` through `NSDecimalNumber`'s Double: an object per amount.
    package static func tenThousandthsThroughDouble(_ amount: Decimal) -> Int64? {
        guard amount.exponent >= -4 else { return nil }
        let scaled = NSDecimalNumber(decimal: amount).doubleValue * 10_000
        guard scaled.magnitude < 1e14 else { return nil }
        return Int64(scaled.rounded())
    }

    /// `amount` as `Money.format` writes it with the amount's own decimals, at least two
    /// (`ReportAmount`'s text: `45.90`, `0.125`), written as digits when it is a whole number of
    /// ten-thousandths (`tenThousandths`); false, writing nothing, for another.
    static func appendAmount(_ amount: Decimal, to bytes: inout [UInt8]) -> Bool {
        guard let (units, decimals) = amountDigits(amount) else { return false }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: amountBytes) { room in
            guard let p = room.baseAddress else { return }
            bytes.append(contentsOf: UnsafeBufferPointer(start: p, count: writeAmount(units, decimals, to: p)))
        }
        return true
    }

    /// `amount` in ten-thousandths (`tenThousandths`) and the decimals it is written with (its
    /// own, at least two); nil for an amount that is not a whole number of them.
    @inline(__always)
    static func amountDigits(_ amount: Decimal) -> (units: Int64, decimals: Int)? {
        guard let units = tenThousandths(amount) else { return nil }
        return (units, max(2, -min(0, amount.exponent)))
    }

    /// The most bytes `writeAmount` writes: a sign, 10 digits, a point and 4 decimals.
    static let amountBytes = 24

    /// Writes `units` ten-thousandths (below 10^14 in magnitude) with `decimals` decimals (2
    /// through 4: the digits past them are zeros) at `p`; returns how many bytes.
    static func writeAmount(_ units: Int64, _ decimals: Int, to p: UnsafeMutablePointer<UInt8>) -> Int {
        var divisor: Int64 = 1
        for _ in decimals..<4 { divisor *= 10 }
        var at = 0
        if units < 0 {
            p[0] = UInt8(ascii: "-")
            at = 1
        }
        return at + writePointed(Int64(units.magnitude) / divisor, decimals, to: p + at)
    }

    /// Writes `n` (not negative) in decimal at `p`: at most 19 bytes; returns how many.
    package static func writeDigits(_ n: Int64, to p: UnsafeMutablePointer<UInt8>) -> Int { writeDigits(UInt64(n), to: p) }

    /// Writes `n` in decimal at `p`: at most 20 bytes; returns how many.
    static func writeDigits(_ n: UInt64, to p: UnsafeMutablePointer<UInt8>) -> Int {
        // The digits counted by comparing with powers of ten (10^19 is the last below 2^64).
        var count = 1
        var bound: UInt64 = 10
        while count < 20, n >= bound {
            count += 1
            bound &*= 10
        }
        var v = n
        for k in stride(from: count - 1, through: 0, by: -1) {
            p[k] = UInt8(48 + v % 10)
            v /= 10
        }
        return count
    }

    /// Writes `n` in decimal at `p`: at most 20 bytes; returns how many.
    static func writeInteger(_ n: Int64, to p: UnsafeMutablePointer<UInt8>) -> Int {
        guard n < 0 else { return writeDigits(n, to: p) }
        p[0] = UInt8(ascii: "-")
        // -Int64.min is not an Int64: its magnitude is.
        return 1 + writeDigits(n.magnitude, to: p + 1)
    }

    /// A sum of measured values to a tenth, so JSON shows `829078.3`, not `829078.2999999999`.
    package static func tenth(_ value: Double) -> Double { (value * 10).rounded() / 10 }

    package static func hours(_ seconds: Double) -> String { fixed(seconds / 3600, 1) }
}

/// Amounts written once each: a garage's costs repeat (the same chain, the same price), and
/// formatting a `Decimal` is slow. Keyed by the amount's stored bytes (its exponent, sign and
/// digits: 45.9 and 45.90 are equal, but print as `45.90` and `45.900` does not), read as three
/// whole numbers: hashing a `Decimal` by its value cost a thousand instructions. The same bytes
/// are the same amount, so a text is never another amount's.
package struct AmountTexts {
    private enum Written: Hashable {
        case stored(UInt64, UInt64, UInt64)
        case value(Decimal, exponent: Int)

        init(_ d: Decimal) {
            guard MemoryLayout<Decimal>.size <= 24 else {
                self = .value(d, exponent: d.exponent)
                return
            }
            var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
            withUnsafeMutableBytes(of: &words) { w in withUnsafeBytes(of: d) { w.copyMemory(from: $0) } }
            self = .stored(words.0, words.1, words.2)
        }
    }
    private var known: [Written: String] = [:]

    package init() {}

    /// `amount.description`.
    package mutating func text(_ amount: ReportAmount) -> String {
        let key = Written(amount.value)
        if let text = known[key] { return text }
        let text = amount.description
        known[key] = text
        return text
    }
}

/// An exact amount in JSON: a string with at least two decimals (`"0.30"`), so no reader turns it
/// into binary floating point on the way in.
package struct ReportAmount: Sendable, Hashable, Encodable, CustomStringConvertible {
    package var value: Decimal
    package init(_ value: Decimal) { self.value = value }
    package var description: String {
        var bytes: [UInt8] = []
        guard ReportNumber.appendAmount(value, to: &bytes) else { return Money.format(value, fractionDigits: Money.fractionDigits(of: value)) }
        return String(decoding: bytes, as: UTF8.self)
    }
    package func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
