import Diagnostics

/// Which bikes a status can be trusted for when the garage has errors.
///
/// An error in a bike's file leaves that bike out; an error in a template leaves out every bike
/// that uses it. An error anywhere else (garage.yaml's units, rides.yaml, the activity cache, a
/// file bikecheck cannot place) could change any bike's numbers, so no status is shown at all:
/// a wrong number said without a word is worse than none.
package struct StatusScope: Sendable {
    /// The garage with only the bikes whose status can be trusted.
    package var garage: Garage
    /// Bikes left out because of errors, by id, sorted.
    package var leftOut: [String]

    /// The scope of `loaded`; nil when its errors could touch every bike.
    package init?(_ loaded: LoadedGarage) {
        var blocked = Set<String>()
        var templates = Set<String>()
        for d in loaded.diagnostics where d.severity == .error {
            let parts = d.location.file.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let stem = Self.yamlStem(parts[1]) else { return nil }
            switch parts[0] {
            case "bikes", "gear": blocked.insert(stem)
            case "templates": templates.insert(stem)
            default: return nil
            }
        }
        var garage = loaded.garage
        // A part's intervals show under whichever bike carries it: a broken template of a part's
        // could change any bike's numbers.
        if garage.parts.contains(where: { $0.part.templates.contains { templates.contains($0.value.rawValue) } }) { return nil }
        for resolved in garage.bikes where resolved.bike.templates.contains(where: { templates.contains($0.value.rawValue) }) {
            blocked.insert(resolved.bike.id.rawValue)
        }
        garage.bikes.removeAll { blocked.contains($0.bike.id.rawValue) }
        self.garage = garage
        leftOut = blocked.sorted()
    }

    static func yamlStem(_ name: Substring) -> String? {
        for ext in [".yaml", ".yml"] where name.hasSuffix(ext) && name.count > ext.count { return String(name.dropLast(ext.count)) }
        return nil
    }
}
