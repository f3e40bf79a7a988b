import Diagnostics
import Foundation

/// The costs `costs` counts, as plain-text accounting transactions a rider can `include` in a
/// hledger/Ledger or Beancount journal: one transaction per cost, dated, payee the bike, narration
/// the tasks and note, the expense account from the category, in the cost's own currency, balanced
/// against `Assets:Bikecheck`. The same garage and `--as-of` give the same bytes.
package struct LedgerExport: Sendable {
    package enum Dialect: String, Sendable, CaseIterable { case ledger, beancount }

    /// Where the money came from: one account to rename with an alias in the rider's journal.
    package static let fundingAccount = "Assets:Bikecheck"

    package var text: String
    /// Costs left out: without a date or a currency they cannot be a transaction.
    package var skipped: [LeftOut]

    /// A cost or price the journal does not have, where it is written and why.
    package struct LeftOut: Sendable, Equatable {
        package var location: SourceLocation?
        /// `grail: cost 45.00 has no currency (add 'currency:' to garage.yaml)`.
        package var message: String
    }

    /// The costs of the named bikes and parts (all of both when none is named), each once: a
    /// part's price and log are the part's own transactions, its name the payee.
    package static func build(_ garage: Garage, query: ReportQuery, dialect: Dialect) -> LedgerExport {
        let all = CostReport.items(garage, query: query)
        var skipped: [LeftOut] = []
        var items: [(day: Day, currency: String, item: CostReport.Item)] = []
        for item in all {
            guard let day = item.day, let currency = item.money.currency else {
                skipped.append(
                    LeftOut(
                        location: item.location,
                        message: "\(item.subject.id): \(item.isPurchase ? "price" : "cost") \(ReportAmount(item.money.amount))"
                            + (item.day == nil ? " has no date (add 'bought:')" : " has no currency (add 'currency:' to garage.yaml)")))
                continue
            }
            items.append((day, currency, item))
        }
        // Stable: by day, then bike, then the order in the file.
        let ordered = items.enumerated().sorted { ($0.element.day, $0.element.item.subject, $0.offset) < ($1.element.day, $1.element.item.subject, $1.offset) }
            .map(\.element)
        var out =
            dialect == .ledger
            ? "; bikecheck export ledger: service costs and purchase prices, one transaction each.\n"
            : "; bikecheck export beancount: service costs and purchase prices, one transaction each.\n"
        let accounts = Set(ordered.map { account(for: $0.item) }).union([fundingAccount]).sorted()
        let currencies = Set(ordered.map(\.currency)).sorted()
        switch dialect {
        case .ledger:
            for c in currencies { out += "commodity \(c)\n" }
            for a in accounts { out += "account \(a)\n" }
        case .beancount:
            let opened = ordered.first?.day ?? query.asOf
            for c in currencies { out += "\(opened) commodity \(c)\n" }
            for a in accounts { out += "\(opened) open \(a)\n" }
        }
        for (day, currency, item) in ordered {
            let narration = (item.tasks + [item.note].compactMap { $0 }).joined(separator: "; ")
            let amount = "\(ReportAmount(item.money.amount)) \(currency)"
            switch dialect {
            case .ledger:
                out += "\n\(day) \(clean(item.subject.name, for: .ledger)) | \(clean(narration, for: .ledger))\n"
            case .beancount:
                out += "\n\(day) * \"\(clean(item.subject.name, for: .beancount))\" \"\(clean(narration, for: .beancount))\"\n"
            }
            out += "    \(account(for: item))  \(amount)\n    \(fundingAccount)\n"
        }
        return LedgerExport(text: out, skipped: skipped)
    }

    /// `Expenses:Bikes:Parts` from the category `parts`: each word capitalised, anything but
    /// letters and digits a dash, as both tools accept in account names.
    static func account(for item: CostReport.Item) -> String {
        let category = item.category ?? CostReport.uncategorised
        var name = ""
        var upper = true
        for ch in category {
            if ch.isASCII && (ch.isLetter || ch.isNumber) {
                name += upper ? ch.uppercased() : String(ch)
                upper = false
            } else if !name.isEmpty && !name.hasSuffix("-") {
                name += "-"
                upper = true
            }
        }
        while name.hasSuffix("-") { name.removeLast() }
        if name.isEmpty || !(name.first!.isLetter) { name = "X" + name }
        return "Expenses:Bikes:" + name
    }

    /// Text safe in a payee or narration: one line; in Beancount no double quote or backslash; in
    /// Ledger no `;` (a comment), no `|` (payee from note) and no two spaces (a posting's amount separator).
    static func clean(_ text: String, for dialect: Dialect) -> String {
        var text = text
        if let ascii = text.withUTF8({ cleanASCII($0, for: dialect) }) { return ascii }
        var s = text.map { $0.isNewline || $0 == "\t" ? " " : String($0) }.joined()
        switch dialect {
        case .beancount: s = s.replacingOccurrences(of: "\"", with: "'").replacingOccurrences(of: "\\", with: "/")
        case .ledger: s = s.replacingOccurrences(of: ";", with: ",").replacingOccurrences(of: "|", with: "/")
        }
        while s.contains("  ") { s = s.replacingOccurrences(of: "  ", with: " ") }
        return s
    }

    /// `clean` in one pass over the bytes, for ASCII text (most names and notes), or nil for
    /// any other. In ASCII each byte is a character, but for CR LF, which `clean` makes one space
    /// and this two: the same, once runs of spaces are one.
    private static func cleanASCII(_ utf8: UnsafeBufferPointer<UInt8>, for dialect: Dialect) -> String? {
        guard utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        for byte in utf8 {
            var c = byte
            switch c {
            case 0x09...0x0D: c = UInt8(ascii: " ")  // a tab, or a newline (LF, VT, FF, CR)
            case UInt8(ascii: "\""): if dialect == .beancount { c = UInt8(ascii: "'") }
            case UInt8(ascii: "\\"): if dialect == .beancount { c = UInt8(ascii: "/") }
            case UInt8(ascii: ";"): if dialect == .ledger { c = UInt8(ascii: ",") }
            case UInt8(ascii: "|"): if dialect == .ledger { c = UInt8(ascii: "/") }
            default: break
            }
            if c == UInt8(ascii: " "), out.last == UInt8(ascii: " ") { continue }
            out.append(c)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
