import Diagnostics

/// Resolves references between files: templates applied to bikes, components and intervals named
/// by intervals and log entries, Strava gear ids, bikes named by hand-entered rides.
struct Resolver {
    let settings: GarageSettings
    let templates: [TemplateID: Template]
    var diagnostics: [Diagnostic] = []

    /// A component a template's interval tracks that a bike using the template does not list.
    struct TemplateGap: Hashable {
        var template: TemplateID
        var interval: IntervalID
        var component: ComponentID
    }
    /// Each gap with the bikes it was found on: where they use the template, their nearest
    /// component id, and where the template names the component.
    typealias TemplateGaps = [TemplateGap: [(bike: BikeID, at: SourceLocation, near: String?, named: SourceLocation)]]
    /// The gaps found so far (`FileChecks` takes those of a bike, and gives them back when reused).
    var templateGaps: TemplateGaps = [:]
    /// What `mergeTemplates` gave for a list of templates that are all known, by the list: the
    /// bikes of a garage share a few lists, and each merge hashed and copied every interval's spec
    /// (11 M instructions at 500 bikes).
    private var mergedByTemplates: [[TemplateID]: (order: [IntervalID], merged: [IntervalID: (spec: IntervalSpec, template: TemplateID?)])] = [:]

    init(settings: GarageSettings, templates: [Template]) {
        self.settings = settings
        self.templates = Dictionary(templates.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The intervals of `refs`' templates, in order (a later template's interval of the same id
    /// wins), and whether any template was unknown (each reported here, once, with did-you-mean).
    mutating func mergeTemplates(_ refs: [Located<TemplateID>]) -> (
        order: [IntervalID], merged: [IntervalID: (spec: IntervalSpec, template: TemplateID?)], missingTemplate: Bool
    ) {
        let ids = refs.map(\.value)
        if let known = mergedByTemplates[ids] { return (known.order, known.merged, false) }
        var order: [IntervalID] = []
        var merged: [IntervalID: (spec: IntervalSpec, template: TemplateID?)] = [:]
        var missingTemplate = false
        defer { if !missingTemplate { mergedByTemplates[ids] = (order, merged) } }
        for ref in refs {
            guard let template = templates[ref.value] else {
                missingTemplate = true
                let meant = Suggestion(ref.value.rawValue, among: templates.keys.map(\.rawValue))
                diagnostics.append(
                    Diagnostic.error(
                        .unknownTemplate, "unknown template '\(shown(ref.value))'\(meant.hint)", at: ref.location,
                        help: templates.isEmpty
                            ? "add templates/\(ref.value).yaml"
                            : "templates: \(templates.keys.map(\.rawValue).sorted().joined(separator: ", "))"
                    ).fixed(by: meant.name))
                continue
            }
            for spec in template.intervals {
                if merged[spec.id] == nil { order.append(spec.id) }
                merged[spec.id] = (spec, template.id)
            }
        }
        return (order, merged, missingTemplate)
    }

    mutating func resolve(_ bike: Bike) -> ResolvedBike {
        // Template intervals in the order the bike lists its templates; the bike overrides by id.
        // An unknown template is the one root cause: the intervals it would have brought are not
        // reported again as unknown overrides or unknown log entries.
        var (order, merged, missingTemplate) = mergeTemplates(bike.templates)
        missingTemplate = missingTemplate || bike.misspelledKeys.contains("templates")
        let templateIntervals = order
        var misspelled: Set<IntervalID> = []
        for spec in bike.intervals {
            if let base = merged[spec.id] {
                merged[spec.id] = (override(base.spec, with: spec), base.template)
                continue
            }
            if !missingTemplate, let problem = unmatchedOverride(spec, bike: bike, templateIntervals: templateIntervals) {
                diagnostics.append(problem)
                if problem.severity == .error {
                    // Its id stays known, so log entries naming it are not blamed a second time.
                    misspelled.insert(spec.id)
                    continue
                }
            }
            order.append(spec.id)
            merged[spec.id] = (spec, nil)
        }

        var intervals: [ResolvedInterval] = []
        // Where each interval's id is in `order` (`adopting`).
        var positions: [Int] = []
        let componentIDs = bike.components.map(\.id.rawValue)
        for (position, id) in order.enumerated() {
            guard let (spec, template) = merged[id] else { continue }
            // One report per missing component and interval (`component:` and `replaces:` often name
            // the same one), and none when `components:` itself was misspelled.
            var reported: Set<ComponentID> = []
            for ref in [spec.component, spec.replaces].compactMap({ $0 })
            where bike.component(ref.value) == nil && !bike.misspelledKeys.contains("components") && reported.insert(ref.value).inserted {
                let meant = Suggestion(ref.value.rawValue, among: componentIDs)
                if let template {
                    // Decided once every bike is resolved: a typo in the template is the
                    // template's to fix, not every bike's.
                    let at = bike.templates.first { $0.value == template }?.location ?? bike.location
                    templateGaps[TemplateGap(template: template, interval: id, component: ref.value), default: []]
                        .append((bike.id, at, meant.name, ref.location))
                } else {
                    diagnostics.append(
                        Diagnostic.error(
                            .unknownComponent, "unknown component '\(shown(ref.value))' in interval '\(shown(id))'\(meant.hint)", at: ref.location,
                            help: componentIDs.isEmpty ? "add it under components:" : "components: \(componentIDs.joined(separator: ", "))"
                        ).fixed(by: meant.name))
                }
            }
            guard let every = spec.every else {
                // Templates report their own intervals once, at the template.
                if template == nil && !spec.everyIsInvalid { diagnostics.append(FileDecoders.missingLimit(spec)) }
                continue
            }
            // The interval's own ride filter over its component's.
            let component = (spec.component ?? spec.replaces).flatMap { bike.component($0.value) }
            positions.append(position)
            intervals.append(
                ResolvedInterval(
                    id: id, task: spec.task ?? id.rawValue, component: spec.component?.value, replaces: spec.replaces?.value,
                    limits: every.value, dueSoon: spec.dueSoon ?? settings.dueSoon, template: template,
                    rideFilter: spec.rideFilter.over(component?.rideFilter ?? RideFilterSpec()), repeatRule: spec.repeatRule ?? .fromDone,
                    wearLimit: spec.wearLimit?.value))
        }

        if !missingTemplate && !bike.misspelledKeys.contains("intervals") {
            let known = Set(order).union(misspelled)
            var ids = order + misspelled
            let unknownDone = Self.unknownDone(in: bike.log, known: &ids)
            Self.adopting(ids, positions: positions, in: &intervals)
            for done in unknownDone {
                let meant = Suggestion(done.value.rawValue, among: order.map(\.rawValue))
                diagnostics.append(
                    Diagnostic.error(
                        .unknownInterval, "unknown interval '\(shown(done.value))' for \(bike.noun) '\(shown(bike.id))'\(meant.hint)",
                        at: done.location,
                        help: order.isEmpty
                            ? "the bike has no intervals; add a template or intervals:"
                            : "intervals: \(order.map(\.rawValue).joined(separator: ", "))"
                    ).fixed(by: meant.name))
            }
            diagnostics += Self.unknownSnoozes(bike.snoozes, owner: "\(bike.noun) '\(shown(bike.id))'", known: known, intervals: order)
            diagnostics += Self.readingProblems(bike.log, owner: "\(bike.noun) '\(shown(bike.id))'", known: known, intervals: order, merged: merged)
        }
        return ResolvedBike(
            bike: bike, intervals: intervals, counts: Set(bike.counts ?? bike.kind?.defaultCounts(garage: settings.counts) ?? settings.counts),
            trainer: bike.trainer ?? bike.kind?.defaultTrainer(garage: settings.trainer, hasDevices: !bike.devices.isEmpty) ?? settings.trainer)
    }

    /// The gear whose ids no bike has: bikes and gear share one namespace (`status grail`, a
    /// part's `bike:` and a ride's `bike:` name either), so gear of a bike's id is an error at
    /// the gear file, with a note at the bike's, and is left out.
    static func gearWithOwnIDs(_ gear: [Bike], bikes: [Bike], files: [String], _ diagnostics: inout [Diagnostic]) -> [Bike] {
        let bikeAt = Dictionary(bikes.map { ($0.id, $0.location) }, uniquingKeysWith: { a, _ in a })
        // A bike file that did not load still holds its id.
        let bikeFiles = Dictionary(files.map { (BikeID(GarageLoader.stem($0)), "bikes/" + $0) }, uniquingKeysWith: { a, _ in a })
        return gear.filter { g in
            guard let at = bikeAt[g.id] ?? bikeFiles[g.id].map({ SourceLocation(file: $0) }) else { return true }
            diagnostics.append(
                .error(
                    .duplicateId, "\(g.location.file) and \(at.file) both define '\(shown(g.id))': bikes and gear share their ids",
                    at: g.location, notes: [.init("the bike is defined here", at: at)],
                    help: "rename one of the two files: a name on the command line, a part's 'bike:' and a ride's 'bike:' must mean one of them"))
            return false
        }
    }

    /// Gives the gear worn on every bike's rides (`Bike.wearsOnEveryBike`) the bikes whose rides
    /// are its: every bike of the garage (gear is not ridden on gear), or, for gear of one rider,
    /// that rider's bikes and the shared ones.
    static func shareRides(_ resolved: [ResolvedBike]) -> [ResolvedBike] {
        guard resolved.contains(where: \.bike.wearsOnEveryBike) else { return resolved }
        let bikes = resolved.map(\.bike).filter { !$0.isGear }
        return resolved.map { r in
            guard r.bike.wearsOnEveryBike else { return r }
            var r = r
            let rider = r.bike.rider?.value
            let worn = bikes.filter { b in rider == nil || b.rider == nil || b.rider?.value == rider }
            r.ridesOf = Set(worn.map(\.id))
            r.ridesOfGearIDs = worn.flatMap(\.gearIDs)
            return r
        }
    }

    /// Reports the components templates track that their bikes do not list. When a bike lists a
    /// near spelling, the template most likely has a typo: that is said once, at the template,
    /// not blamed on every bike (whose help would tell it to copy the typo). Otherwise each bike
    /// that lacks the part is told to add it.
    mutating func reportTemplateGaps() {
        for (gap, bikes) in templateGaps.sorted(by: {
            ($0.key.template, $0.key.interval, $0.key.component) < ($1.key.template, $1.key.interval, $1.key.component)
        }) {
            if let near = bikes.compactMap(\.near).first {
                let users = bikes.map(\.bike.rawValue).joined(separator: ", ")
                diagnostics.append(
                    Diagnostic.warning(
                        .unknownComponent,
                        "interval '\(shown(gap.interval))' of template '\(shown(gap.template))' tracks component '\(shown(gap.component))', which its bikes do not list (\(users)); did you mean '\(near)'?",
                        at: bikes[0].named, notes: bikes.map { .init("bike '\($0.bike)' uses the template here", at: $0.at) },
                        help: "correct the component's name in the template"
                    ).fixed(by: near))
                continue
            }
            for b in bikes {
                diagnostics.append(
                    .warning(
                        .unknownComponent,
                        "interval '\(shown(gap.interval))' of template '\(shown(gap.template))' tracks component '\(shown(gap.component))', which bike '\(shown(b.bike))' does not list",
                        at: b.at, notes: [.init("the template names it here", at: b.named)],
                        help: "add '\(gap.component):' under components with its install date, so its life is counted from then"))
            }
        }
        templateGaps = [:]
    }

    /// A bike interval that no template of the bike has, but whose id is a likely typo of one of
    /// theirs. Without a task it can only have been meant as an override (a task-less interval
    /// would otherwise be a new one named after the typo, and the override silently lost), so it
    /// is an error; with a task it is the bike's own, and only a single slip is worth a warning.
    private func unmatchedOverride(_ spec: IntervalSpec, bike: Bike, templateIntervals: [IntervalID]) -> Diagnostic? {
        guard let near = likelyMeant(spec.id.rawValue, among: templateIntervals.map(\.rawValue)) else { return nil }
        if spec.task == nil {
            return .error(
                .unknownOverride, "interval '\(shown(spec.id))' overrides nothing: no template of bike '\(shown(bike.id))' has it; did you mean '\(near)'?",
                at: spec.location,
                help: "write '\(near):' to override the template's interval, or add 'task:' to make '\(spec.id)' the bike's own")
        }
        // With a task it may well be a second interval of its own ("brake-pads-rear"): only a
        // single slip (a letter added, dropped, changed or two swapped) reads as a typo.
        guard editDistance(Array(spec.id.rawValue.lowercased()), Array(near.lowercased())) <= 1 else { return nil }
        return .warning(
            .likelyOverride, "interval '\(shown(spec.id))' is the bike's own, not an override of the template's '\(near)'",
            at: spec.location,
            help: "if it was meant to change the template's interval, write '\(near):'; else rename it so the two are not confused")
    }

    /// A template's interval with what the bike's (or part's) interval of the same id sets.
    func override(_ base: IntervalSpec, with bike: IntervalSpec) -> IntervalSpec {
        var merged = base
        merged.task = bike.task ?? base.task
        merged.component = bike.component ?? base.component
        merged.replaces = bike.replaces ?? base.replaces
        merged.every = bike.every ?? base.every
        merged.dueSoon = bike.dueSoon ?? base.dueSoon
        merged.repeatRule = bike.repeatRule ?? base.repeatRule
        merged.wearLimit = bike.wearLimit ?? base.wearLimit
        merged.rideFilter = bike.rideFilter.over(base.rideFilter)
        merged.location = bike.location
        return merged
    }

    /// The done ids of a log that are not `known`, in log order. The entries are read in place and
    /// each id found among the few known by comparing: no entry copied, no id hashed (a long log
    /// names thousands, on every load).
    static func unknownDone(in log: [LogEntry], known: FewIDs<IntervalKind>) -> [Located<IntervalID>] {
        var unknown: [Located<IntervalID>] = []
        log.withUnsafeBufferPointer { log in
            for n in log.indices {
                log[n].done.withUnsafeBufferPointer { done in
                    for k in done.indices where !known.contains(done[k].value) { unknown.append(done[k]) }
                }
            }
        }
        return unknown
    }

    /// Readings of an interval the bike or part does not have, of one without a `wear_limit:`, or
    /// in a unit other than its limit's.
    static func readingProblems(
        _ log: [LogEntry], owner: String, known: Set<IntervalID>, intervals order: [IntervalID],
        merged: [IntervalID: (spec: IntervalSpec, template: TemplateID?)]
    ) -> [Diagnostic] {
        var found: [Diagnostic] = []
        for entry in log {
            for reading in entry.readings {
                let id = reading.interval.value
                guard known.contains(id) else {
                    let meant = Suggestion(id.rawValue, among: order.map(\.rawValue))
                    found.append(
                        Diagnostic.error(
                            .unknownInterval, "reading of unknown interval '\(shown(id))' for \(owner)\(meant.hint)", at: reading.interval.location,
                            help: order.isEmpty ? "it has no intervals to measure" : "intervals: \(order.map(\.rawValue).joined(separator: ", "))"
                        ).fixed(by: meant.name))
                    continue
                }
                guard let spec = merged[id]?.spec else { continue }
                guard let limit = spec.wearLimit else {
                    found.append(
                        .error(
                            .readingWithoutLimit, "reading of interval '\(shown(id))', which has no wear_limit", at: reading.valueLocation,
                            notes: [.init("the interval is defined here", at: spec.location)],
                            help: "give the interval the measurement at which it is due, e.g. wear_limit: \(reading.value.unit == "%" ? "0.75 %" : "1 mm")"))
                    continue
                }
                if limit.value.unit != reading.value.unit {
                    found.append(
                        .error(
                            .readingUnitMismatch,
                            "reading '\(shown(reading.value.description))' of interval '\(shown(id))' is in \(reading.value.unit), but its wear_limit is in \(limit.value.unit)",
                            at: reading.valueLocation, notes: [.init("the limit is given here", at: limit.location)],
                            help: "write the reading in \(limit.value.unit), as the limit is"))
                }
            }
        }
        return found
    }

    /// A snooze of an interval the bike or part does not have: a typo, or a leftover.
    static func unknownSnoozes(_ snoozes: [Snooze], owner: String, known: Set<IntervalID>, intervals order: [IntervalID]) -> [Diagnostic] {
        snoozes.filter { !known.contains($0.interval.value) }.map { s in
            let meant = Suggestion(s.interval.value.rawValue, among: order.map(\.rawValue))
            return Diagnostic.error(
                .unknownInterval, "snooze of unknown interval '\(shown(s.interval.value))' for \(owner)\(meant.hint)", at: s.interval.location,
                help: order.isEmpty ? "it has no intervals to snooze" : "intervals: \(order.map(\.rawValue).joined(separator: ", "))"
            ).fixed(by: meant.name)
        }
    }

    /// What belongs to one bike only: its Strava gear id, and the devices that record its rides.
    /// A part's device belongs to it alone too (its rides go on the bike it was mounted on), so
    /// a serial number two owners list, bikes or parts, is one error whichever they are.
    mutating func checkOwnership(_ bikes: [Bike], parts: [Part]) {
        checkClaims(
            bikes.map { (Claimant(kind: "bike", id: $0.id.rawValue), $0.strava.map { [$0] } ?? []) }, id: .duplicateGearId,
            what: { "Strava gear '\(shown($0))'" }, help: "a Strava gear id belongs to one bike; remove it from one of them")
        checkClaims(
            bikes.map { (Claimant(kind: "bike", id: $0.id.rawValue), $0.devices) }
                + parts.map { (Claimant(kind: "part", id: $0.id.rawValue), $0.devices) }, id: .duplicateDevice, what: { "device \($0)" },
            help: "a device's rides go on one bike; remove it from one of them, and import a ride of the other with --bike")
    }

    /// A bike or a part, as a claim's message names it.
    private struct Claimant {
        var kind: String
        var id: String
    }

    /// Reports each value that a second claimant claims too, at the second claim, with a note at
    /// the first. Two bikes read "bikes 'a' and 'b'"; a bike and a part "bike 'a' and part 'w'".
    private mutating func checkClaims<Value: Hashable>(
        _ claims: [(Claimant, [Located<Value>])], id: DiagnosticID, what: (Value) -> String, help: String
    ) {
        var first: [Value: (Claimant, SourceLocation)] = [:]
        for (claimant, values) in claims {
            for claim in values {
                if let (other, at) = first[claim.value] {
                    let same = other.kind == claimant.kind
                    let owners =
                        same
                        ? "\(other.kind)s '\(shown(other.id))' and '\(shown(claimant.id))'"
                        : "\(other.kind) '\(shown(other.id))' and \(claimant.kind) '\(shown(claimant.id))'"
                    diagnostics.append(
                        .error(
                            id, "\(owners) both claim \(what(claim.value))", at: claim.location,
                            notes: [.init("\(same ? "" : other.kind + " ")'\(shown(other.id))' claims it here", at: at)], help: help))
                } else {
                    first[claim.value] = (claimant, claim.location)
                }
            }
        }
    }

    mutating func checkRides(_ rides: [Ride], bikes: [Bike]) {
        let ids = bikes.map(\.id.rawValue)
        for ride in rides where !ids.contains(ride.bike.value.rawValue) {
            diagnostics.append(Self.unknown(.unknownBike, "bike", ride.bike.value.rawValue, at: ride.bike.location, among: ids, folder: "bikes"))
        }
    }

    /// An id that names no bike (or part) of the garage: located, with the nearest one as "did
    /// you mean" (and its fix), and the ones there are as help.
    static func unknown(_ id: DiagnosticID, _ what: String, _ name: String, at location: SourceLocation, among ids: [String], folder: String) -> Diagnostic {
        let meant = Suggestion(name, among: ids)
        return Diagnostic.error(
            id, "unknown \(what) '\(shown(name))'\(meant.hint)", at: location,
            help: ids.isEmpty ? "add a \(what) file under \(folder)/" : "\(what)s: \(ids.joined(separator: ", "))"
        ).fixed(by: meant.name)
    }

    /// `rider: NAME` on bikes and parts: each must name one of garage.yaml's `riders:`.
    mutating func checkRiders(_ names: [Located<String>?]) {
        let known = settings.riders.map(\.name)
        for name in names.compactMap({ $0 }) where !known.contains(name.value) {
            let hint = didYouMean(name.value, among: known)
            diagnostics.append(
                .error(
                    .unknownRider, "unknown rider '\(shown(name.value))'\(hint)", at: name.location,
                    help: known.isEmpty
                        ? "list the household in garage.yaml: riders: {\(name.value): {}}"
                        : "riders in garage.yaml: \(known.joined(separator: ", "))"))
        }
    }
}
