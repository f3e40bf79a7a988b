@testable import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// `LedgerExport.clean` takes ASCII text in one pass over its bytes; it must give exactly what
/// the String path gives (kept here as it was: character by character, Foundation's replacing,
/// runs of spaces made one), or an export's bytes would change.
@Suite struct LedgerCleanTests {
    static func reference(_ text: String, for dialect: LedgerExport.Dialect) -> String {
        var s = text.map { $0.isNewline || $0 == "\t" ? " " : String($0) }.joined()
        switch dialect {
        case .beancount: s = s.replacingOccurrences(of: "\"", with: "'").replacingOccurrences(of: "\\", with: "/")
        case .ledger: s = s.replacingOccurrences(of: ";", with: ",").replacingOccurrences(of: "|", with: "/")
        }
        while s.contains("  ") { s = s.replacingOccurrences(of: "  ", with: " ") }
        return s
    }

    @Test func asciiTextIsCleanedExactlyAsTheStringPathCleansIt() {
        // Every character clean treats specially, CR LF among them, and some that it does not.
        let alphabet: [String] = [" ", " ", "\t", "\n", "\r", "\r\n", "\u{0B}", "\u{0C}", ";", "|", "\"", "\\", "a", "Z", "0", "'", "/", ",", "#", "~"]
        var rng = SeededGenerator(seed: 21)
        var cases = ["", " ", "  ", "\r\n", " \r\n ", "Chain; tyres | \"new\"", "a\\b", "\t\tx\t\t"]
        for _ in 0..<3000 { cases.append((0..<rng.next(14)).map { _ in alphabet[rng.next(alphabet.count)] }.joined()) }
        for text in cases {
            for dialect in LedgerExport.Dialect.allCases {
                #expect(LedgerExport.clean(text, for: dialect) == Self.reference(text, for: dialect), "\(dialect): \(text.debugDescription)")
            }
        }
    }

    @Test func otherTextStillTakesTheStringPath() {
        for text in ["Kette ölen;  Schaltzug", "line\u{2028}separated", "next\u{85}line", "café |  naïve", "e\u{301}  x"] {
            for dialect in LedgerExport.Dialect.allCases {
                #expect(LedgerExport.clean(text, for: dialect) == Self.reference(text, for: dialect), "\(dialect): \(text.debugDescription)")
            }
        }
    }
}
