import Foundation

/// A JSON document read with the byte offset of every value, so a reader can say where in a
/// tracker's file a record it cannot place is (Foundation's parser gives no positions). Strict
/// RFC 8259, nesting bounded; a byte-order mark is skipped.
package struct LocatedJSON: Sendable {
    package indirect enum Value: Sendable {
        /// Members in the file's order; a repeated key's last value wins on lookup.
        case object([(key: String, value: LocatedJSON)])
        case array([LocatedJSON])
        case string(String)
        case number(Double)
        case bool(Bool)
        case null
    }

    /// Where the value starts: the byte offset of its first character.
    package var offset: Int
    package var value: Value

    /// Why a file is not JSON, and at which byte.
    package struct Failure: Error, Sendable {
        package var offset: Int
        package var reason: String
    }

    package static let maxDepth = 64

    package static func parse(_ bytes: [UInt8]) throws(Failure) -> LocatedJSON {
        var parser = Parser(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.at = 3 }
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.at == bytes.count else { throw Failure(offset: parser.at, reason: "more after the end of the JSON value") }
        return value
    }

    package subscript(key: String) -> LocatedJSON? {
        guard case .object(let members) = value else { return nil }
        return members.last { $0.key == key }?.value
    }

    package var string: String? {
        if case .string(let s) = value { return s }
        return nil
    }

    package var number: Double? {
        if case .number(let n) = value { return n }
        return nil
    }

    package var bool: Bool? {
        if case .bool(let b) = value { return b }
        return nil
    }

    package var array: [LocatedJSON]? {
        if case .array(let a) = value { return a }
        return nil
    }

    package var isNull: Bool {
        if case .null = value { return true }
        return false
    }

    private struct Parser {
        let bytes: [UInt8]
        var at = 0

        mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        func fail(_ reason: String, _ offset: Int? = nil) -> Failure { Failure(offset: offset ?? at, reason: reason) }

        mutating func value(depth: Int) throws(Failure) -> LocatedJSON {
            skipSpace()
            guard at < bytes.count else { throw fail("the file ends where a value should be") }
            let start = at
            guard depth < LocatedJSON.maxDepth else { throw fail("nested deeper than \(LocatedJSON.maxDepth) levels") }
            switch bytes[at] {
            case UInt8(ascii: "{"):
                at += 1
                var members: [(key: String, value: LocatedJSON)] = []
                skipSpace()
                if at < bytes.count, bytes[at] == UInt8(ascii: "}") {
                    at += 1
                    return LocatedJSON(offset: start, value: .object(members))
                }
                while true {
                    skipSpace()
                    guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw fail("expected a member's name in quotes") }
                    let key = try string()
                    skipSpace()
                    guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw fail("expected ':' after a member's name") }
                    at += 1
                    members.append((key, try value(depth: depth + 1)))
                    skipSpace()
                    guard at < bytes.count else { throw fail("the file ends inside an object that starts at byte \(start)") }
                    if bytes[at] == UInt8(ascii: ",") {
                        at += 1
                        continue
                    }
                    guard bytes[at] == UInt8(ascii: "}") else { throw fail("expected ',' or '}' in an object") }
                    at += 1
                    return LocatedJSON(offset: start, value: .object(members))
                }
            case UInt8(ascii: "["):
                at += 1
                var items: [LocatedJSON] = []
                skipSpace()
                if at < bytes.count, bytes[at] == UInt8(ascii: "]") {
                    at += 1
                    return LocatedJSON(offset: start, value: .array(items))
                }
                while true {
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    guard at < bytes.count else { throw fail("the file ends inside a list that starts at byte \(start)") }
                    if bytes[at] == UInt8(ascii: ",") {
                        at += 1
                        continue
                    }
                    guard bytes[at] == UInt8(ascii: "]") else { throw fail("expected ',' or ']' in a list") }
                    at += 1
                    return LocatedJSON(offset: start, value: .array(items))
                }
            case UInt8(ascii: "\""):
                return LocatedJSON(offset: start, value: .string(try string()))
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default:
                return LocatedJSON(offset: start, value: .number(try number()))
            }
        }

        mutating func literal(_ word: String, _ value: Value) throws(Failure) -> LocatedJSON {
            let start = at
            guard bytes[at...].starts(with: Array(word.utf8)) else { throw fail("not a JSON value") }
            at += word.utf8.count
            return LocatedJSON(offset: start, value: value)
        }

        mutating func number() throws(Failure) -> Double {
            let start = at
            func digits() -> Int {
                let from = at
                while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) { at += 1 }
                return at - from
            }
            if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
            let whole = at
            guard digits() > 0 else { throw fail("not a JSON value", start) }
            if bytes[whole] == UInt8(ascii: "0"), at - whole > 1 { throw fail("a number with a leading zero", start) }
            if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
                at += 1
                guard digits() > 0 else { throw fail("a number with no digits after its '.'", start) }
            }
            if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
                at += 1
                if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
                guard digits() > 0 else { throw fail("a number with no digits in its exponent", start) }
            }
            guard let n = Double(String(decoding: bytes[start..<at], as: UTF8.self)), n.isFinite else { throw fail("a number out of range", start) }
            return n
        }

        /// A string at `at` (its opening quote), unescaped.
        mutating func string() throws(Failure) -> String {
            let start = at
            at += 1
            var out: [UInt8] = []
            while true {
                guard at < bytes.count else { throw fail("the file ends inside a string that starts at byte \(start)", start) }
                let b = bytes[at]
                if b == UInt8(ascii: "\"") {
                    at += 1
                    break
                }
                if b < 0x20 { throw fail("a control character inside a string") }
                if b != UInt8(ascii: "\\") {
                    out.append(b)
                    at += 1
                    continue
                }
                at += 1
                guard at < bytes.count else { throw fail("the file ends inside a string that starts at byte \(start)", start) }
                let e = bytes[at]
                at += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard at + 1 < bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") else {
                            throw fail("a lone surrogate in a \\u escape")
                        }
                        at += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("a lone surrogate in a \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw fail("a lone surrogate in a \\u escape")
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw fail("an invalid \\u escape") }
                    out += Array(String(Character(u)).utf8)
                default:
                    throw fail("an unknown escape '\\\(Character(Unicode.Scalar(e)))'", at - 2)
                }
            }
            guard let text = String(validating: out, as: UTF8.self) else { throw fail("a string that is not UTF-8", start) }
            return text
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard at + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16) else {
                throw fail("a \\u escape without four hex digits")
            }
            at += 4
            return v
        }
    }
}
