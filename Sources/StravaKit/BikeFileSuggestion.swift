import Foundation

/// The command that adds a bike file for a Strava bike no file claims, as sync prints it.
extension StravaSync {
    /// A bike file id from a name: lower case letters, digits and dashes.
    package static func suggestedID(for name: String) -> String {
        var out = ""
        for ch in name.lowercased() {
            if ch.isASCII && (ch.isLetter || ch.isNumber) { out.append(ch) } else if !out.isEmpty && out.last != "-" { out.append("-") }
        }
        while out.hasSuffix("-") { out.removeLast() }
        return out.isEmpty ? "bike" : out
    }

    /// The command that creates a bike file for a Strava bike.
    package static func addCommand(for gear: StravaGear, taken: Set<String>) -> String {
        addCommand(name: gear.displayName, gearID: gear.id, taken: taken)
    }

    /// The command that creates a bike file named `name` (with `--strava gearID` when known),
    /// under an id not in `taken`, quoted so it can be pasted into a POSIX shell.
    package static func addCommand(name: String, gearID: String?, taken: Set<String>) -> String {
        let base = suggestedID(for: name)
        var id = base
        if taken.contains(id) {
            if let gearID, !taken.contains(base + "-" + gearID) {
                id = base + "-" + gearID
            } else {
                var n = 2
                while taken.contains("\(base)-\(n)") { n += 1 }
                id = "\(base)-\(n)"
            }
        }
        var command = "bikecheck bike add \(id) --name \(shellQuoted(name))"
        if let gearID { command += " --strava \(shellQuoted(gearID))" }
        return command
    }

    /// `text` as one POSIX shell word: bare when it is only safe characters, else in single
    /// quotes, with each `'` written `'\''`.
    package static func shellQuoted(_ text: String) -> String {
        let safe =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_./:@%+=,".unicodeScalars.contains($0))
            }
        if safe { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
