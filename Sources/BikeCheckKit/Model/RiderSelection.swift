import Diagnostics

/// `--rider NAME`: which bikes and parts a command shows for one rider of a household. Only the
/// choice of subjects: what is counted for them is the same as without it.
extension Garage {
    /// The rider of that name, or a usage error naming the nearest one.
    package func checkRider(_ name: String) throws(UsageError) {
        let known = settings.riders.map(\.name)
        guard !known.contains(name) else { return }
        if known.isEmpty {
            throw UsageError("this garage has no riders; --rider needs garage.yaml's riders:", help: "see docs/household.md")
        }
        throw UsageError("no rider '\(shown(name))'\(didYouMean(name, among: known))", help: "riders in garage.yaml: \(known.joined(separator: ", "))")
    }

    /// The rider of each gear id of a bike that names one (its Strava gear id and
    /// `importedGearID`): whose a cached ride is, for telling two riders' rides of one outing apart.
    package var riderByGearID: [String: String] {
        var out: [String: String] = [:]
        for resolved in bikes {
            guard let rider = resolved.bike.rider?.value else { continue }
            for gear in resolved.bike.gearIDs { out[gear] = rider }
        }
        return out
    }

    /// Of `named` (nothing named: every bike in use on `asOf`, and the parts on no bike that
    /// day), the rider's own: bikes and parts whose `rider:` names them. Parts mounted on a
    /// rider's bike show under it whoever they belong to. `allTime` (the reports over a span:
    /// costs, usage, history, rides, export): nothing named is every bike and part of theirs,
    /// retired ones too, and the parts mounted on their bikes on `asOf`.
    package func selection(of rider: String, from named: ReportSelection, asOf: Day, allTime: Bool = false) -> ReportSelection {
        func owns(_ r: Located<String>?) -> Bool { r?.value == rider }
        if !named.bikes.isEmpty || !named.parts.isEmpty {
            return ReportSelection(
                bikes: named.bikes.filter { owns(bike($0)?.bike.rider) },
                parts: named.parts.filter { owns(part($0)?.part.rider) })
        }
        if allTime {
            let bikes = self.bikes.filter { owns($0.bike.rider) }.map(\.bike.id)
            let parts = self.parts.filter { p in
                owns(p.part.rider) || (p.part.rider == nil && p.part.mount(on: asOf).map { bikes.contains($0.bike.value) } ?? false)
            }
            return ReportSelection(bikes: bikes, parts: parts.map(\.part.id))
        }
        let bikes = self.bikes.filter { owns($0.bike.rider) && ($0.bike.retired.map { $0 > asOf } ?? true) }.map(\.bike.id)
        let parts = self.parts.filter { p in
            owns(p.part.rider) && !(p.part.retired.map { $0 <= asOf } ?? false) && p.part.mount(on: asOf) == nil
        }
        return ReportSelection(bikes: bikes, parts: parts.map(\.part.id))
    }
}
