/// An RFC 4180 CSV reader: quoted fields may hold commas, doubled quotes and line breaks;
/// CRLF or LF line ends; a UTF-8 byte-order mark is dropped.
package enum CSVReader {
    /// Records with the 1-based line each starts on.
    package static func records(_ bytes: [UInt8]) -> [(line: Int, fields: [String])] {
        var out: [(Int, [String])] = []
        var i = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        var line = 1
        var fields: [String] = []
        var field: [UInt8] = []
        var recordLine = 1
        var inQuotes = false
        var fieldStarted = false
        func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            fieldStarted = false
        }
        func endRecord() {
            endField()
            // A blank line is no record.
            if !(fields.count == 1 && fields[0].isEmpty) { out.append((recordLine, fields)) }
            fields.removeAll(keepingCapacity: true)
        }
        while i < bytes.count {
            let b = bytes[i]
            if inQuotes {
                if b == 0x22 {
                    if i + 1 < bytes.count && bytes[i + 1] == 0x22 { field.append(0x22); i += 2; continue }
                    inQuotes = false
                } else {
                    if b == 0x0A { line += 1 }
                    field.append(b)
                }
                i += 1
                continue
            }
            switch b {
            case 0x22 where !fieldStarted && field.isEmpty:
                inQuotes = true
                fieldStarted = true
            case 0x2C:
                endField()
            case 0x0D where i + 1 < bytes.count && bytes[i + 1] == 0x0A:
                break
            case 0x0A:
                endRecord()
                line += 1
                recordLine = line
            default:
                field.append(b)
                fieldStarted = true
            }
            i += 1
        }
        if !field.isEmpty || !fields.isEmpty || fieldStarted { endRecord() }
        return out
    }
}
