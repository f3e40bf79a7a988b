import Diagnostics
import Foundation

extension StravaGearRules {
    /// A part the export leaves out, or a mount of it, and why.
    package struct LeftOut: Sendable {
        package var message: String
        package var location: SourceLocation
    }

    /// The garage's parts as strava-gear's rules.yaml, so a rider can check one tool with the
    /// other: each bike with Strava gear an alias (its id for the gear id), each part a component
    /// (`kms` and `hours` its usage before tracking), and a rule for each day a mount starts or
    /// ends: the part in the role of its `slot` (else its id) on the bike, or on a `#hashtag` for
    /// a mount with `tag:`. Components of bike files are not parts, and are not written.
    package static func export(_ garage: Garage) -> (text: String, leftOut: [LeftOut]) {
        let gearOf = Dictionary(garage.bikes.compactMap { b in b.bike.strava.map { (b.bike.id.rawValue, $0.value) } }, uniquingKeysWith: { a, _ in a })
        var text = "# strava-gear rules written by bikecheck export strava-gear\n"
        if !gearOf.isEmpty {
            text += "aliases:\n"
            for (bike, gear) in gearOf.sorted(by: { $0.key < $1.key }) { text += "  \(quoted(bike)): \(quoted(gear))\n" }
        }
        let parts = garage.parts.map(\.part).sorted { $0.id < $1.id }
        if !parts.isEmpty {
            text += "components:\n"
            for p in parts {
                var fields = ["name: \(quoted(p.name))"]
                if p.priorDistance > 0 { fields.append("kms: \(ImportPlanWriter.number(p.priorDistance / 1000))") }
                if p.priorHours > 0 { fields.append("hours: \(ImportPlanWriter.number(p.priorHours))") }
                text += "  \(quoted(p.id.rawValue)): {\(fields.joined(separator: ", "))}\n"
            }
        }
        let (spans, days, leftOut) = spans(parts, gearOf: gearOf)
        let rules = rules(spans, days: days)
        if !rules.isEmpty { text += "rules:\n" + rules }
        return (text, leftOut)
    }

    /// A mount as strava-gear sees it: who holds the part (a bike's alias, or `#tag`).
    typealias Span = (part: Part, mount: Mount, key: String)

    /// Every mount strava-gear can express, and the days on which one starts or ends.
    private static func spans(_ parts: [Part], gearOf: [String: String]) -> ([Span], Set<Int>, [LeftOut]) {
        var leftOut: [LeftOut] = []
        var days = Set<Int>()
        var spans: [Span] = []
        for p in parts {
            for m in p.mounts {
                let retiredEnd = p.retired.map { $0.ordinal }
                let end = [m.to?.ordinal, retiredEnd].compactMap { $0 }.min()
                if let tag = m.tag {
                    spans.append((p, m, "#" + tag))
                } else if gearOf[m.bike.value.rawValue] != nil {
                    if !m.unlessTags.isEmpty
                        && !m.unlessTags.allSatisfy({ t in
                            parts.contains { q in q.slot?.value == p.slot?.value && q.id != p.id && q.mounts.contains { $0.tag == t } }
                        })
                    {
                        leftOut.append(
                            .init(
                                message:
                                    "part '\(p.id)': unless_tag on \(m.bike.value) from \(m.from): strava-gear drops a role's component for a tag only when the tag's rule fills the same role",
                                location: m.location))
                    }
                    spans.append((p, m, m.bike.value.rawValue))
                } else {
                    leftOut.append(
                        .init(
                            message: "part '\(p.id)' on bike '\(m.bike.value)' from \(m.from): the bike has no Strava gear id (strava:)", location: m.location))
                    continue
                }
                days.insert(m.from.ordinal)
                if let end { days.insert(end + 1) }
            }
        }
        return (spans, days, leftOut)
    }

    /// The `rules:` list: for each day the holders change, who holds each role from then on.
    private static func rules(_ spans: [Span], days: Set<Int>) -> String {
        var rules = ""
        var previous: [String: [String: String]] = [:]
        for day in days.sorted() {
            var now: [String: [String: String]] = [:]
            for s in spans
            where s.mount.from.ordinal <= day && (s.mount.to.map { day <= $0.ordinal } ?? true) && (s.part.retired.map { day <= $0.ordinal } ?? true) {
                now[s.key, default: [:]][s.part.slot?.value ?? s.part.id.rawValue] = s.part.id.rawValue
            }
            var lines: [String] = []
            for key in Set(now.keys).union(previous.keys).sorted() {
                let was = previous[key] ?? [:], will = now[key] ?? [:]
                var changes: [String] = []
                for role in Set(was.keys).union(will.keys).sorted() where was[role] != will[role] {
                    changes.append("\(quoted(role)): \(will[role].map(quoted) ?? "null")")
                }
                if !changes.isEmpty { lines.append("    \(quoted(key)): {\(changes.joined(separator: ", "))}") }
            }
            previous = now
            guard !lines.isEmpty else { continue }
            rules += "  - since: \(Day(ordinal: day))\n" + lines.joined(separator: "\n") + "\n"
        }
        return rules
    }

    /// A YAML key or value: plain when it is a plain word, else a JSON string (which YAML reads).
    static func quoted(_ s: String) -> String {
        let plain =
            !s.isEmpty && s.first.map { $0.isLetter || $0.isNumber } == true
            && s.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." || $0 == " " } && s.last != " "
            && !["null", "true", "false", "yes", "no", "on", "off", "~"].contains(s.lowercased()) && Double(s) == nil && Day(s) == nil
        if plain { return s }
        var out = "\""
        for ch in s.unicodeScalars {
            switch ch {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if ch.value < 0x20 { out += String(format: "\\u%04x", ch.value) } else { out.unicodeScalars.append(ch) }
            }
        }
        return out + "\""
    }
}
