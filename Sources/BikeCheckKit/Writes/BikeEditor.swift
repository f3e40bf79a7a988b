import Foundation
import LocatedYAML

/// A new bike: `bikecheck bike add ID --name … [--strava GEARID] [--template T…]`.
package struct NewBike: Sendable {
    package var id: String
    package var name: String
    package var strava: String?
    package var bought: Day?
    package var templates: [String]

    package init(id: String, name: String, strava: String? = nil, bought: Day? = nil, templates: [String] = []) {
        self.id = id
        self.name = name
        self.strava = strava
        self.bought = bought
        self.templates = templates
    }
}

/// Adds and retires bikes.
package enum BikeEditor {
    /// Plans `bikes/ID.yaml` for a new bike, with the components its templates track.
    package static func add(_ new: NewBike, in context: WriteContext) throws(WriteFailure) -> GarageChange {
        guard isIdentifier(new.id) else {
            throw .usage("'\(new.id)' is not a valid bike id", help: "use letters, digits, '-', '_' and '.', e.g. grail (it becomes bikes/grail.yaml)")
        }
        if let existing = context.bikeFile(new.id) { throw .refused("there is already a bike '\(new.id)' (\(existing))") }
        let name = new.name.trimmingSpaces()
        guard !name.isEmpty else { throw .usage("the bike's name is empty", help: "give it a name: --name \"Canyon Grail\"") }
        var pairs = [YAMLPair("name", .text(name))]
        if let gear = new.strava {
            guard isStravaBikeGearID(gear) else {
                throw .usage("'\(gear)' is not a Strava bike gear id", help: "bike gear ids look like b12345678 (see bikecheck sync)")
            }
            if let other = context.garage.bikes.first(where: { $0.bike.strava?.value == gear }) {
                throw .refused("bike '\(other.bike.id)' already has Strava gear '\(gear)'", help: "a gear id belongs to one bike")
            }
            pairs.append(YAMLPair("strava", .plain(gear)))
        }
        if let bought = new.bought {
            try context.checkDate(bought, "the purchase date")
            pairs.append(YAMLPair("bought", .plain(bought.description)))
        }
        var templates: [String] = []
        var components: [String] = []
        for t in new.templates where !templates.contains(t) {
            let template = try context.template(t)
            templates.append(t)
            for part in template.intervals.flatMap({ [$0.component?.value, $0.replaces?.value] }).compactMap({ $0?.rawValue }) where !components.contains(part)
            {
                components.append(part)
            }
        }
        if !templates.isEmpty { pairs.append(YAMLPair("templates", .flowList(templates.map { .plain($0) }))) }
        // The parts the templates track, so their lives can be counted (and fitted dates added).
        if !components.isEmpty { pairs.append(YAMLPair("components", .mapping(components.map { YAMLPair($0, .null) }))) }
        let bytes: [UInt8]
        do {
            bytes = try YAMLEditor.render(pairs, header: modeline("bike", depth: 1))
        } catch {
            throw .usage("cannot write this bike's name as YAML")
        }
        let path = "bikes/\(new.id).yaml"
        return context.change(
            files: [FileChange(path: path, before: nil, after: bytes)],
            message: "\(new.id): new bike \(name)",
            summary: ["added bike '\(new.id)' (\(name)) in \(path)"])
    }

    /// Sets `retired:` (kept out of status), added after `bought:` when the file has one.
    package static func retire(_ id: String, on date: Day?, in context: WriteContext) throws(WriteFailure) -> GarageChange {
        let bike = try context.bike(id).bike
        let day = date ?? context.today
        try context.checkDate(day, "the retirement date")
        if let bought = bike.bought, day < bought {
            throw .usage("bike '\(id)' was bought on \(bought), after \(day)")
        }
        let file = bike.location.file
        guard let bytes = context.read(file) else { throw .refused("cannot read '\(file)'") }
        let doc = YAMLDocument(path: file, bytes: bytes, limits: .garage)
        guard case .mapping(let root)? = doc.root else { throw .refused("'\(file)' is not a mapping") }
        let edit: YAMLEdit =
            root["retired"] != nil
            ? .set(["retired"], .plain(day.description))
            : .addKey("retired", .plain(day.description), in: [], after: ["bought", "strava", "name"])
        let after = try context.edit(file, doc, [edit])
        return context.change(
            files: [FileChange(path: file, before: bytes, after: after)],
            message: "\(id): retired \(day)",
            summary: [after == bytes ? "bike '\(id)' was already retired on \(day)" : "retired bike '\(id)' on \(day)"])
    }
}
