/// True when `text` is a Strava bike gear id: "b" followed by 1 to 18 ASCII digits.
///
/// The one rule for every check of a gear id (reading a bike file, `bike add --strava`), so a
/// write can never make a file the loader then refuses. 18 digits keep it inside Int64.
package func isStravaBikeGearID(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    guard bytes.first == UInt8(ascii: "b") else { return false }
    let digits = bytes.dropFirst()
    return (1...18).contains(digits.count) && digits.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
}

/// True when `text` is a Strava gear id of any kind: a bike's (`b…`) or a pair of shoes' (`g…`),
/// followed by 1 to 18 ASCII digits. Gear files (`gear/`) take either.
package func isStravaGearID(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    guard bytes.first == UInt8(ascii: "b") || bytes.first == UInt8(ascii: "g") else { return false }
    let digits = bytes.dropFirst()
    return (1...18).contains(digits.count) && digits.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
}
