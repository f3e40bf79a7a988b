import Diagnostics

/// What resolving and checking found in each bike's and part's file in one load, and what that
/// depended on besides the file. It is kept with the parsed files (`ParsedFiles.checked`), so the
/// next load that reuses them (an editor's re-check after an edit, a write's re-check) takes a
/// file's findings as they were when neither the file nor what they depend on changed, and works
/// out the rest: an edit of one bike resolves and checks that bike, an edit of a template the
/// bikes and parts that use it. What spans files (template gaps, claims, rides, slots, riders) is
/// worked out over everything every time. The findings are replayed where the load would have
/// made them, so the diagnostics are exactly those of a load from scratch.
struct CheckedFiles: Sendable {
    /// What a bike depends on besides its file: garage.yaml unchanged, and these.
    var today: Day?
    /// The templates there were (a bike's unknown template is told which there are).
    var templates: [TemplateID] = []
    /// The bikes there were, in order (a part's unknown bike is told which there are).
    var bikes: [BikeID] = []
    /// Whether some part was mounted on another part (which changes the mounts of both).
    var partsOnParts = false
    var bikeFindings: [String: BikeFindings] = [:]
    var partFindings: [String: PartFindings] = [:]
    /// The files whose findings were the earlier load's (for tests).
    var reused: Set<String> = []

    struct BikeFindings: Sendable {
        var resolved: ResolvedBike
        /// The resolver's diagnostics and template gaps from resolving it, as found.
        var resolving: [Diagnostic]
        var gaps: Resolver.TemplateGaps
        /// `Checks.bike`'s, when checked as of `today`.
        var checks: [Diagnostic] = []
    }

    struct PartFindings: Sendable {
        var intervals: [ResolvedInterval]
        var resolving: [Diagnostic]
        /// `Resolver.checkMounts(of:)`'s.
        var mounts: [Diagnostic] = []
        /// `Checks.part`'s, when checked as of `today`.
        var checks: [Diagnostic] = []
    }
}

/// One load's resolving and checking of bikes and parts, with what an earlier load found
/// (`CheckedFiles`) taken where it still holds, and what it finds kept for the next. The bikes and
/// parts are resolved in order (`resolve`), then given in the same order to `checkMounts` and
/// `checks`, which find by position what was taken for each.
struct FileChecks {
    private let earlier: CheckedFiles?
    private let files: ParsedFiles?
    /// The templates whose files changed since the earlier load, and the bikes whose files
    /// changed in what a part's findings depend on.
    private var changedTemplates: Set<TemplateID> = []
    private var changedBikes: Set<BikeID> = []
    /// Whether parts' findings may be reused at all: no part on a part, now or before, and the
    /// same bikes (asked once, not per part).
    private var partsReusable = false
    /// Each bike's and part's earlier findings, when taken, in the order resolved (nil: found now).
    private var bikesTaken: [CheckedFiles.BikeFindings?] = []
    private var partsTaken: [CheckedFiles.PartFindings?] = []
    private(set) var made: CheckedFiles

    /// `files`: this load's parsed files (nil when it keeps none: nothing is reused, nor kept);
    /// `earlier`: the findings of the load they reuse.
    init(earlier: CheckedFiles?, files: ParsedFiles?, today: Day?, templates: [Template], bikes: [Bike], parts: [Part]) {
        made = CheckedFiles(
            today: today, templates: templates.map(\.id), bikes: bikes.map(\.id), partsOnParts: parts.contains { !$0.partMounts.isEmpty })
        self.files = files
        guard let files, let earlier, earlier.today == today, earlier.templates == made.templates,
            files.unchanged(files.settings, "garage.yaml")
        else {
            self.earlier = nil
            return
        }
        self.earlier = earlier
        made.bikeFindings.reserveCapacity(earlier.bikeFindings.count)
        made.partFindings.reserveCapacity(earlier.partFindings.count)
        bikesTaken.reserveCapacity(bikes.count)
        partsTaken.reserveCapacity(parts.count)
        partsReusable = !made.partsOnParts && !earlier.partsOnParts && earlier.bikes == made.bikes
        changedTemplates = Set(templates.filter { !files.unchanged(files.templates, $0.location.file) }.map(\.id))
        // A part's findings depend on the bikes it names only through their retirement.
        changedBikes = Set(
            bikes.filter { bike in
                guard !files.unchanged(files.bikes, bike.location.file) else { return false }
                guard let before = earlier.bikeFindings[bike.location.file]?.resolved.bike else { return true }
                return Retirement(before) != Retirement(bike)
            }.map(\.id))
    }

    /// What `Resolver.checkMounts(of:)` reads of a bike a part names (besides its id and file):
    /// when it was retired, and where that is written.
    private struct Retirement: Equatable {
        var day: Day?
        var at: SourceLocation?

        init(_ bike: Bike) {
            day = bike.retired
            at = bike.retired == nil ? nil : bike.fieldLocations["retired"] ?? bike.location
        }
    }

    /// A bike's earlier findings, when they hold: its file's parse was reused, or parsed again it
    /// gives the same bike, every location the same (an edit of a comment, or an edit undone).
    private func earlier(_ bike: Bike) -> CheckedFiles.BikeFindings? {
        guard let files, let found = earlier?.bikeFindings[bike.location.file],
            files.unchanged(files.bikes, bike.location.file) || found.resolved.bike == bike,
            changedTemplates.isEmpty || bike.templates.allSatisfy({ !changedTemplates.contains($0.value) })
        else { return nil }
        return found
    }

    private func earlier(_ part: Part) -> CheckedFiles.PartFindings? {
        guard partsReusable, let earlier, let files, let found = earlier.partFindings[part.location.file],
            files.unchanged(files.parts, part.location.file),
            changedTemplates.isEmpty || part.templates.allSatisfy({ !changedTemplates.contains($0.value) }),
            changedBikes.isEmpty
                || (!changedBikes.contains(BikeID(part.id.rawValue)) && part.mounts.allSatisfy({ !changedBikes.contains($0.bike.value) }))
        else { return nil }
        return found
    }

    /// `resolver.resolve(bike)`, or what it found before.
    mutating func resolve(_ bike: Bike, _ resolver: inout Resolver) -> ResolvedBike {
        guard files != nil else { return resolver.resolve(bike) }
        let found = earlier(bike)
        bikesTaken.append(found)
        if let found {
            resolver.diagnostics += found.resolving
            for (gap, uses) in found.gaps { resolver.templateGaps[gap, default: []] += uses }
            made.bikeFindings[bike.location.file] = found
            made.reused.insert(bike.location.file)
            var resolved = found.resolved
            resolved.bike = bike
            return resolved
        }
        let before = resolver.diagnostics.count
        let gaps = resolver.templateGaps
        resolver.templateGaps = [:]
        let resolved = resolver.resolve(bike)
        let new = resolver.templateGaps
        resolver.templateGaps = gaps
        for (gap, uses) in new { resolver.templateGaps[gap, default: []] += uses }
        made.bikeFindings[bike.location.file] = .init(resolved: resolved, resolving: Array(resolver.diagnostics[before...]), gaps: new)
        return resolved
    }

    /// `resolver.resolve(part)`, or what it found before.
    mutating func resolve(_ part: Part, _ resolver: inout Resolver) -> ResolvedPart {
        guard files != nil else { return resolver.resolve(part) }
        let found = earlier(part)
        partsTaken.append(found)
        if let found {
            resolver.diagnostics += found.resolving
            made.partFindings[part.location.file] = found
            made.reused.insert(part.location.file)
            return ResolvedPart(part: part, intervals: found.intervals)
        }
        let before = resolver.diagnostics.count
        let resolved = resolver.resolve(part)
        made.partFindings[part.location.file] = .init(intervals: resolved.intervals, resolving: Array(resolver.diagnostics[before...]))
        return resolved
    }

    /// Every part's `resolver.checkMounts(of:)` (after `resolve(part)`, in the same order), then
    /// the slots'.
    mutating func checkMounts(_ parts: [Part], bikes: [Bike], _ resolver: inout Resolver) {
        let byID = Dictionary(bikes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let ids = bikes.map(\.id.rawValue)
        for k in parts.indices {
            if let found = Self.taken(partsTaken, k) {
                resolver.diagnostics += found.mounts
                continue
            }
            let before = resolver.diagnostics.count
            resolver.checkMounts(of: parts[k], byID: byID, ids: ids)
            if files != nil { made.partFindings[parts[k].location.file]?.mounts = Array(resolver.diagnostics[before...]) }
        }
        resolver.checkSlots(parts)
    }

    /// `Checks.run` and `Checks.parts` (after resolving, in the same order), each bike's and
    /// part's checks taken from before where they were.
    mutating func checks(bikes: [Bike], rides: [Ride], parts: [Part], today: Day) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for k in bikes.indices {
            if let found = Self.taken(bikesTaken, k) {
                out += found.checks
                continue
            }
            let found = Checks.bike(bikes[k], today: today)
            if files != nil { made.bikeFindings[bikes[k].location.file]?.checks = found }
            out += found
        }
        out += Checks.rides(rides, bikes: bikes, today: today)
        for k in parts.indices {
            if let found = Self.taken(partsTaken, k) {
                out += found.checks
                continue
            }
            let found = Checks.part(parts[k], today: today)
            if files != nil { made.partFindings[parts[k].location.file]?.checks = found }
            out += found
        }
        return out
    }

    /// What was taken for the `k`th bike or part resolved (nil also when none was resolved here).
    private static func taken<Findings>(_ taken: [Findings?], _ k: Int) -> Findings? {
        k < taken.count ? taken[k] : nil
    }
}
