import Diagnostics

/// Resolves references between files: templates applied to bikes, components and intervals named
/// by intervals and log entries, Strava gear ids, bikes named by hand-entered rides.
struct Resolver {
    let settings: GarageSettings
    let templates: [TemplateID: Template]
    var diagnostics: [Diagnostic] = []

    init(settings: GarageSettings, templates: [Template]) {
        self.settings = settings
        self.templates = Dictionary(templates.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    mutating func resolve(_ bike: Bike) -> ResolvedBike {
        // Template intervals in the order the bike lists its templates; the bike overrides by id.
        var order: [IntervalID] = []
        var merged: [IntervalID: (spec: IntervalSpec, template: TemplateID?)] = [:]
        for ref in bike.templates {
            guard let template = templates[ref.value] else {
                let hint = closest(to: ref.value.rawValue, in: templates.keys.map(\.rawValue)).map { "; did you mean '\($0)'?" } ?? ""
                diagnostics.append(.error("unknown-template", "unknown template '\(shown(ref.value))'\(hint)", at: ref.location,
                                          help: templates.isEmpty ? "add templates/\(ref.value).yaml"
                                              : "templates: \(templates.keys.map(\.rawValue).sorted().joined(separator: ", "))"))
                continue
            }
            for spec in template.intervals {
                if merged[spec.id] == nil { order.append(spec.id) }
                merged[spec.id] = (spec, template.id)
            }
        }
        for spec in bike.intervals {
            if let base = merged[spec.id] {
                merged[spec.id] = (override(base.spec, with: spec), base.template)
            } else {
                order.append(spec.id)
                merged[spec.id] = (spec, nil)
            }
        }

        var intervals: [ResolvedInterval] = []
        let componentIDs = bike.components.map(\.id.rawValue)
        for id in order {
            guard let (spec, template) = merged[id] else { continue }
            for ref in [spec.component, spec.replaces].compactMap({ $0 }) where bike.component(ref.value) == nil {
                let hint = closest(to: ref.value.rawValue, in: componentIDs).map { "; did you mean '\($0)'?" } ?? ""
                if let template {
                    let at = bike.templates.first { $0.value == template }?.location ?? bike.location
                    diagnostics.append(.warning(
                        "unknown-component",
                        "interval '\(shown(id))' of template '\(shown(template))' tracks component '\(shown(ref.value))', which bike '\(shown(bike.id))' does not list\(hint)",
                        at: at, notes: [.init("the template names it here", at: ref.location)],
                        help: "add '\(ref.value):' under components with its install date, so its life is counted from then"))
                } else {
                    diagnostics.append(.error(
                        "unknown-component", "unknown component '\(shown(ref.value))' in interval '\(shown(id))'\(hint)", at: ref.location,
                        help: componentIDs.isEmpty ? "add it under components:" : "components: \(componentIDs.joined(separator: ", "))"))
                }
            }
            guard let every = spec.every else {
                // Templates report their own intervals once, at the template.
                if template == nil && !spec.everyIsInvalid { diagnostics.append(FileDecoders.missingLimit(spec)) }
                continue
            }
            intervals.append(ResolvedInterval(
                id: id, task: spec.task ?? id.rawValue, component: spec.component?.value, replaces: spec.replaces?.value,
                limits: every.value, dueSoon: spec.dueSoon ?? settings.dueSoon, template: template))
        }

        let known = Set(order)
        for entry in bike.log {
            for done in entry.done where !known.contains(done.value) {
                let hint = closest(to: done.value.rawValue, in: order.map(\.rawValue)).map { "; did you mean '\($0)'?" } ?? ""
                diagnostics.append(.error("unknown-interval", "unknown interval '\(shown(done.value))' for bike '\(shown(bike.id))'\(hint)",
                                          at: done.location,
                                          help: order.isEmpty ? "the bike has no intervals; add a template or intervals:"
                                              : "intervals: \(order.map(\.rawValue).joined(separator: ", "))"))
            }
        }
        return ResolvedBike(bike: bike, intervals: intervals, counts: Set(bike.counts ?? settings.counts))
    }

    private func override(_ base: IntervalSpec, with bike: IntervalSpec) -> IntervalSpec {
        var merged = base
        merged.task = bike.task ?? base.task
        merged.component = bike.component ?? base.component
        merged.replaces = bike.replaces ?? base.replaces
        merged.every = bike.every ?? base.every
        merged.dueSoon = bike.dueSoon ?? base.dueSoon
        merged.location = bike.location
        return merged
    }

    mutating func checkGearIDs(_ bikes: [Bike]) {
        var first: [String: (BikeID, SourceLocation)] = [:]
        for bike in bikes {
            guard let gear = bike.strava else { continue }
            if let (other, at) = first[gear.value] {
                diagnostics.append(.error("duplicate-gear-id", "bikes '\(shown(other))' and '\(shown(bike.id))' both claim Strava gear '\(shown(gear.value))'",
                                          at: gear.location, notes: [.init("'\(shown(other))' claims it here", at: at)],
                                          help: "a Strava gear id belongs to one bike; remove it from one of them"))
            } else {
                first[gear.value] = (bike.id, gear.location)
            }
        }
    }

    mutating func checkRides(_ rides: [Ride], bikes: [Bike]) {
        let ids = bikes.map(\.id.rawValue)
        for ride in rides where !ids.contains(ride.bike.value.rawValue) {
            let hint = closest(to: ride.bike.value.rawValue, in: ids).map { "; did you mean '\($0)'?" } ?? ""
            diagnostics.append(.error("unknown-bike", "unknown bike '\(shown(ride.bike.value))'\(hint)", at: ride.bike.location,
                                      help: ids.isEmpty ? "add a bike file under bikes/" : "bikes: \(ids.joined(separator: ", "))"))
        }
    }
}
