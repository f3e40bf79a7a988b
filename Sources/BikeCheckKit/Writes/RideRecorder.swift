import LocatedYAML

/// A ride entered by hand: `bikecheck ride add BIKE --date D --time 1h30 [--distance 35km]`.
package struct NewRide: Sendable {
    package var bike: String
    package var date: Day
    package var time: String
    package var distance: String?
    package var sport: String?
    package var name: String?

    package init(bike: String, date: Day, time: String, distance: String? = nil, sport: String? = nil, name: String? = nil) {
        self.bike = bike
        self.date = date
        self.time = time
        self.distance = distance
        self.sport = sport
        self.name = name
    }
}

/// Appends hand-entered rides to rides.yaml, creating it when missing.
package enum RideRecorder {
    package static let file = "rides.yaml"

    /// Plans the new ride, after checking the bike, the date, the time and the distance.
    package static func plan(_ ride: NewRide, in context: WriteContext) throws(WriteFailure) -> GarageChange {
        let bike = try context.bike(ride.bike).bike
        try context.checkDate(ride.date, "the ride's date")
        let (fields, described) = try fields(of: ride)
        let before = context.read(file)
        // Parsed once: for the style of its entries, and for the edit.
        let doc = before.map { YAMLDocument(path: file, bytes: $0, limits: .garage) }
        var existing: YAMLNode?
        if case .mapping(let root)? = doc?.root { existing = root["rides"] }
        let entry = EntryStyle(existing, defaultOrder: FileDecoders.rideKeys).entry(fields)
        let after: [UInt8]
        if let before, let doc {
            try context.requireClean(file)
            guard case .mapping(let root)? = doc.root else { throw .refused("'\(file)' is not a mapping") }
            // Rides kept in date order stay in date order: an older ride goes before the first
            // later one (as a backdated service does in a log). Any other list gets it at its end.
            let edit: YAMLEdit =
                ServiceRecorder.datedPosition(of: ride.date, in: root["rides"]).map { .insert(entry, into: ["rides"], at: $0) }
                ?? .appendOrCreate(entry, list: "rides", current: root["rides"])
            after = try context.edit(file, doc, [edit])
        } else {
            do {
                after = try YAMLEditor.render(
                    [YAMLPair("rides", .list([entry]))],
                    header: modeline("rides", depth: 0) + ["# Rides entered by hand, for bikes not on Strava."])
            } catch {
                throw .usage("cannot write this ride as YAML")
            }
        }
        // A ride outside the days the bike was the rider's does not count: said at once, as
        // `validate` says it (`ride-before-bought`, `ride-after-retired`).
        let warnings = Checks.outsideOwnership(
            "ride", ride.date, of: bike, at: bike.location, ids: (.rideBeforeBought, .rideAfterRetired), today: nil,
            consequence: "; it does not count", help: ("check the date, or the bike's 'bought' date", "check the date, or the bike's 'retired' date")
        ).map { Warning("\(ride.bike): \($0.message) [\($0.id)]", help: $0.help) }
        return context.change(
            files: [FileChange(path: file, before: before, after: after)],
            message: "\(ride.bike): ride \(described)",
            summary: ["\(ride.bike): added a ride on \(described) to \(file)"], warnings: warnings)
    }
    /// The ride's entry fields, checked, and how the summary describes it.
    static func fields(of ride: NewRide) throws(WriteFailure) -> ([String: YAMLValue], String) {
        let time = ride.time.trimmingSpaces()
        guard Quantity.parseDuration(time) != nil else {
            throw .usage("'\(ride.time)' is not a ride time", help: "write e.g. 1h30, 1:30, 90 min or 2 h")
        }
        var fields: [String: YAMLValue] = ["date": .plain(ride.date.description), "bike": .plain(ride.bike), "time": .text(time)]
        var described = "\(ride.date) \(time)"
        if let distance = ride.distance?.trimmingSpaces() {
            guard case .success(let q) = Quantity.parse(distance), q.measure == .distance else {
                throw .usage("'\(distance)' is not a distance", help: "write e.g. 35 km or 20 mi")
            }
            fields["distance"] = .text(q.text)
            described += " \(q.text)"
        }
        if let sport = ride.sport {
            guard FileDecoders.knownSportTypes.contains(sport) else {
                let hint = didYouMean(sport, among: FileDecoders.knownSportTypes)
                throw .usage("'\(sport)' is not a Strava sport type\(hint)", help: "cycling types: \(FileDecoders.cyclingSportTypes.joined(separator: ", "))")
            }
            fields["sport"] = .plain(sport)
        }
        if let name = ride.name { fields["name"] = .text(name) }
        return (fields, described)
    }
}
