import Foundation

/// An amount in whole ten-thousandths read from the `Decimal`'s own fields: its exponent, sign
/// and the 16-bit words of its significand, where swift-foundation's `Decimal` keeps them (byte
/// 0 the exponent; byte 1 the length in words in its high four bits, the sign in bit 3 and
/// whether it is compact in bit 2; the words from byte 4, least significant first: NSDecimal's
/// fields, its bit fields packed the other way round). Foundation makes them public
/// on Apple's platforms only (`_mantissa`, `_exponent`); on Linux they are internal, and the
/// public way, `NSDecimalNumber(decimal:).doubleValue`, made an object per amount: 800
/// instructions, a tenth of the HTML report's costs and history. The layout is checked once, on
/// amounts against that public way (`readable`); if it ever differs, every amount goes the
/// public way.
package enum DecimalWords {
    /// Whether `Decimal` is laid out as read here: on every amount of `samples`, the words give
    /// what `NSDecimalNumber` gives.
    package static let readable: Bool = {
        guard MemoryLayout<Decimal>.size == 20 else { return false }
        return samples.allSatisfy { words($0) == ReportNumber.tenThousandthsThroughDouble($0) }
    }()

    /// Amounts of each length of significand, sign and exponent, and no number.
    package static var samples: [Decimal] {
        let exponents = [-5, -4, -3, -2, -1, 0, 1, 3, 9]
        let significands: [UInt64] = [0, 1, 7, 459, 4590, 65_535, 65_536, 99_999_999_999_999, 4_294_967_296, 1 << 48 + 12_345]
        var all: [Decimal] = [.nan, Decimal(string: "18446744073709551616")!, Decimal(string: "-0.0001")!]
        for e in exponents {
            for s in significands {
                all.append(Decimal(sign: .plus, exponent: e, significand: Decimal(s)))
                all.append(Decimal(sign: .minus, exponent: e, significand: Decimal(s)))
            }
        }
        return all
    }

    /// `ReportNumber.tenThousandths(amount)`: the amount times 10,000 when that is a whole
    /// number of magnitude below 10^14; nil for another (more than four decimals, too large, no
    /// number).
    @inline(__always)
    static func tenThousandths(_ amount: Decimal) -> Int64? {
        readable ? words(amount) : ReportNumber.tenThousandthsThroughDouble(amount)
    }

    /// The fields read, whatever `readable` says (`readable` checks this against Foundation).
    package static func words(_ amount: Decimal) -> Int64? {
        withUnsafeBytes(of: amount) { b -> Int64? in
            var exponent = Int(Int8(bitPattern: b[0]))
            let length = Int(b[1] >> 4), negative = b[1] & 0x08 != 0
            // No words: zero, or (negative) no number.
            guard length > 0 else { return negative ? nil : 0 }
            // Four words are 64 bits; more are at least 2^64, beyond any sum here.
            guard length <= 4, exponent <= 14 else { return nil }
            var significand: UInt64 = 0
            for k in stride(from: length - 1, through: 0, by: -1) {
                significand = significand << 16 | UInt64(b.loadUnaligned(fromByteOffset: 4 + 2 * k, as: UInt16.self))
            }
            // Foundation keeps amounts compact (no trailing zeros in the significand), but one
            // that is not, 1.50000 as 150000 × 10⁻⁵, is still whole ten-thousandths.
            while exponent < -4 {
                guard significand % 10 == 0 else { return nil }
                significand /= 10
                exponent += 1
            }
            var scale: UInt64 = 1
            for _ in 0..<(exponent + 4) { scale &*= 10 }
            let (units, overflow) = significand.multipliedReportingOverflow(by: scale)
            guard !overflow, units < 100_000_000_000_000 else { return nil }
            return negative ? -Int64(units) : Int64(units)
        }
    }
}
