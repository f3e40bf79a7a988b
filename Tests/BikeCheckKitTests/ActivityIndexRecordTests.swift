@testable import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// The warm load copies an index file's records as they are (`ActivityIndex.placeAsInMemory`)
/// where their form is an `ActivitySummary`'s in memory: it must accept and refuse exactly what
/// making them field by field (`placeByField`) does, and give the same records.
@Suite struct ActivityIndexRecordTests {
    /// Records in the index's form: seven little-endian words each.
    static func bytes(_ words: [[UInt64]]) -> [UInt8] {
        var out: [UInt8] = []
        for record in words { for w in record { withUnsafeBytes(of: w.littleEndian) { out += $0 } } }
        return out
    }

    /// A record the reader could have made, with `strings` strings.
    static func valid(_ random: inout SeededGenerator, strings: Int) -> [UInt64] {
        let gear = UInt64(UInt32(bitPattern: Int32(random.next(strings + 1) - 1)))
        let tags = UInt64(UInt32(bitPattern: Int32(random.next(strings + 1) - 1)))
        return [
            UInt64(random.next(1_000_000) + 1), UInt64(UInt32(random.next(30_000))) | gear << 32, UInt64(random.next(strings)) | UInt64(random.next(2)) << 32,
            Double(random.next(20_000)).bitPattern, (Double(random.next(100_000)) / 10).bitPattern, Double(random.next(3_000)).bitPattern, tags,
        ]
    }

    /// `record` with one field made something at or past the edge of what is valid.
    static func damaged(_ record: [UInt64], _ random: inout SeededGenerator, strings: Int) -> [UInt64] {
        var r = record
        let edges: [Int64] = [-2, -1, 0, Int64(strings) - 1, Int64(strings), Int64(Int32.max), Int64(Int32.min)]
        let edge = UInt64(UInt32(truncatingIfNeeded: edges[random.next(edges.count)]))
        let doubles: [Double] = [.nan, .infinity, -.infinity, .greatestFiniteMagnitude, -0.0, .leastNonzeroMagnitude]
        switch random.next(9) {
        case 0: r[0] = [0, UInt64.max, 1 << 63, 1][random.next(4)]
        case 1: r[1] = r[1] & 0xFFFF_FFFF | edge << 32
        case 2: r[2] = r[2] & ~0xFFFF_FFFF | edge
        case 3: r[2] = r[2] & 0xFFFF_FFFF | UInt64(random.next(4)) << 32
        case 4: r[6] = edge
        case 5: r[6] = r[6] & 0xFFFF_FFFF | UInt64(random.next(3)) << 32
        default: r[3 + random.next(3)] = doubles[random.next(doubles.count)].bitPattern
        }
        return r
    }

    func place(_ bytes: [UInt8], count: Int, strings: Int, asInMemory: Bool) -> [ActivitySummary]? {
        bytes.withUnsafeBytes { raw in
            var placed = false
            let records = [ActivitySummary](unsafeUninitializedCapacity: count) { buffer, initialized in
                // Plain numbers: a buffer left partly unwritten is never read.
                placed =
                    asInMemory
                    ? ActivityIndex.placeAsInMemory(raw, into: buffer, strings: strings)
                    : ActivityIndex.placeByField(raw, into: buffer, strings: strings)
                initialized = placed ? count : 0
            }
            return placed ? records : nil
        }
    }

    @Test func theRecordsFormIsTheSummarysInMemoryOnThisPlatform() {
        #expect(ActivityIndex.recordsAreInMemoryForm == (1.littleEndian == 1))
    }

    @Test func copyingTheRecordsAcceptsAndRefusesWhatMakingThemFieldByFieldDoes() {
        var random = SeededGenerator(seed: 32)
        var refused = 0
        for round in 0..<2_000 {
            let strings = random.next(5) + (round % 2)
            let count = random.next(6)
            var words = (0..<count).map { _ in Self.valid(&random, strings: strings) }
            if count > 0, round % 3 != 0 {
                let k = random.next(count)
                words[k] = Self.damaged(words[k], &random, strings: strings)
            }
            let bytes = Self.bytes(words)
            let copied = place(bytes, count: count, strings: strings, asInMemory: true)
            let made = place(bytes, count: count, strings: strings, asInMemory: false)
            #expect(copied == made, "round \(round)")
            if made == nil { refused += 1 }
        }
        // Both kinds of case were met.
        #expect(refused > 300 && refused < 1_800)
    }

    @Test func recordsOfAnotherLengthAreRefused() {
        var random = SeededGenerator(seed: 7)
        let bytes = Self.bytes([Self.valid(&random, strings: 2), Self.valid(&random, strings: 2)])
        #expect(place(bytes, count: 2, strings: 2, asInMemory: true) != nil)
        #expect(place(Array(bytes.dropLast()), count: 2, strings: 2, asInMemory: true) == nil)
        #expect(place(bytes, count: 3, strings: 2, asInMemory: true) == nil)
        #expect(place(bytes, count: 3, strings: 2, asInMemory: false) == nil)
    }
}
