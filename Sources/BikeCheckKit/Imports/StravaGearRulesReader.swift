import Diagnostics
import LocatedYAML

extension StravaGearRules {
    /// A component as the rules file gives it: `{name, kms, hours}`, where it is named.
    struct Listed {
        var id: String
        var name: String
        var kms: Double?
        var hours: Double?
        var at: SourceLocation
    }

    /// What the rules files say, read one file after another, and what they say that has no place
    /// in a garage (in the plan's `unplaced` and `notes`).
    struct Reader {
        var plan: ImportPlan
        var aliases: [String: String] = [:]
        var components: [Listed] = []
        var rules: [(rule: Rule, order: Int)] = []
        /// Where a component (by id) or a bike (`bike GEAR`) is first named in a rule.
        var ruleLocations: [String: SourceLocation] = [:]
        private var file = ""

        init(plan: ImportPlan) { self.plan = plan }

        private func at(_ node: YAMLNode) -> SourceLocation { SourceLocation(file: file, range: node.range) }
        private mutating func skip(_ node: YAMLNode, _ record: String, _ reason: String) {
            plan.unplaced.append(.init(location: at(node), record: record, reason: reason))
        }

        mutating func read(_ source: Source) throws(WriteFailure) {
            file = source.path
            let doc = YAMLDocument(path: source.path, bytes: source.bytes, limits: .garage)
            guard doc.isUsable, let root = doc.root else {
                throw WriteFailure(.refused, "cannot read '\(source.path)' as YAML", diagnostics: doc.diagnostics, sources: [source.path: doc.source])
            }
            guard case .mapping(let top) = root else {
                throw .refused("'\(source.path)' is not a strava-gear rules file: it should be a mapping of aliases, components and rules")
            }
            for entry in top.entries {
                switch entry.keyText {
                case "aliases": readAliases(entry.value)
                case "components": readComponents(entry.value)
                case "rules": readRules(entry.value)
                default: skip(entry.key, "'\(entry.keyText ?? "")'", "strava-gear's rules have aliases, components and rules only")
                }
            }
        }

        private mutating func readAliases(_ value: YAMLNode) {
            guard case .mapping(let m) = value else {
                if case .scalar(let s) = value, s.isNull { return }
                return skip(value, "aliases", "should be a mapping of names to Strava gear ids")
            }
            for a in m.entries {
                guard let name = a.keyText, case .scalar(let gear) = a.value, !gear.isNull else {
                    skip(a.value, "alias", "should be a name and a Strava gear id")
                    continue
                }
                aliases[name] = gear.value
            }
        }

        private mutating func readComponents(_ value: YAMLNode) {
            guard case .mapping(let m) = value else {
                if case .scalar(let s) = value, s.isNull { return }
                return skip(value, "components", "should be a mapping of component ids")
            }
            for c in m.entries {
                guard let id = c.keyText else { continue }
                switch c.value {
                case .scalar(let s):
                    components.append(Listed(id: id, name: s.isNull ? id : s.value, at: at(c.key)))
                case .mapping(let fields):
                    if let listed = readComponent(id, fields, at: at(c.key)) { components.append(listed) }
                default:
                    skip(c.value, "component '\(id)'", "should be a name or {name, kms, hours}")
                }
            }
        }

        /// `{name, kms, hours}`; nil (and why, in `unplaced`) when a value is not one.
        private mutating func readComponent(_ id: String, _ fields: YAMLMapping, at location: SourceLocation) -> Listed? {
            var listed = Listed(id: id, name: id, at: location)
            var ok = true
            for f in fields.entries {
                guard case .scalar(let v) = f.value else {
                    ok = false
                    continue
                }
                switch f.keyText {
                case "name": listed.name = v.value
                case "kms": listed.kms = Double(v.value)
                case "hours": listed.hours = Double(v.value)
                default:
                    skip(f.key, "component '\(id)'", "unknown key '\(f.keyText ?? "")': strava-gear knows name, kms and hours")
                }
                if (f.keyText == "kms" && listed.kms.map({ !$0.isFinite || $0 < 0 || $0 > 1_000_000 }) ?? true)
                    || (f.keyText == "hours" && listed.hours.map({ !$0.isFinite || $0 < 0 || $0 > 100_000 }) ?? true)
                {
                    skip(f.value, "component '\(id)'", "'\(v.value)' is not a number of \(f.keyText ?? "") from 0 up")
                    ok = false
                }
            }
            return ok ? listed : nil
        }

        private mutating func readRules(_ value: YAMLNode) {
            guard case .sequence(let q) = value else {
                return skip(value, "rules", "should be a list of rules")
            }
            for item in q.items {
                guard case .mapping(let m) = item else {
                    skip(item, "rule", "should be a mapping of bikes and hashtags to roles")
                    continue
                }
                if let rule = readRule(m) { rules.append((rule, rules.count)) }
            }
        }

        /// One rule; nil when its `since` is not a date.
        private mutating func readRule(_ m: YAMLMapping) -> Rule? {
            var rule = Rule()
            var ok = true
            for e in m.entries {
                guard let key = e.keyText else { continue }
                if key == "since" {
                    guard case .scalar(let s) = e.value, !s.isNull else { continue }
                    if let day = readSince(s, e.value) { rule.since = day } else { ok = false }
                    continue
                }
                var roles: [String: String] = [:]
                switch e.value {
                case .mapping(let rm):
                    for r in rm.entries {
                        guard let role = r.keyText, case .scalar(let c) = r.value else { continue }
                        roles[role] = c.isNull ? "" : c.value
                        ruleLocations[c.value] = ruleLocations[c.value] ?? at(r.value)
                    }
                case .scalar(let s) where s.isNull: break
                default:
                    skip(e.value, "rule for '\(key)'", "should be a mapping of roles to components")
                    continue
                }
                if key.hasPrefix("#") {
                    let tag = String(key.dropFirst())
                    guard !tag.contains("="), !tag.isEmpty, !tag.contains(where: \.isWhitespace) else {
                        skip(
                            e.key, "rule for '\(key)'",
                            "strava-gear's implicit hashtags of an activity's fields (#field=value) have no place in a garage; only hashtags in ride names do"
                        )
                        continue
                    }
                    rule.hashtags[tag] = roles
                } else {
                    let gear = aliases[key] ?? key
                    rule.bikes[gear, default: [:]].merge(roles) { _, b in b }
                    ruleLocations["bike " + gear] = ruleLocations["bike " + gear] ?? at(e.key)
                }
            }
            return ok ? rule : nil
        }

        /// A rule's `since`: its day (a time of day is noted: mounts are whole days).
        private mutating func readSince(_ s: YAMLScalar, _ node: YAMLNode) -> Day? {
            let text = s.value.trimmingSpaces()
            guard let day = Day(String(text.prefix(10))) else {
                skip(node, "rule", "'since: \(text)' is not a date (YYYY-MM-DD)")
                return nil
            }
            let time = text.dropFirst(10).drop { $0 == "T" || $0 == " " }
            if !time.isEmpty && !time.hasPrefix("00:00") {
                plan.notes.append(.init(location: at(node), record: "rule since \(text)", reason: "bikecheck's mounts are whole days: taken from \(day)"))
            }
            return day
        }
    }
}
