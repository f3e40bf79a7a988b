import Diagnostics

/// The last stage of loading: checks over a resolved garage that are about plausibility rather
/// than shape. They warn; a rider may know better.
enum Checks {
    static func run(bikes: [Bike], rides: [Ride], today: Day) -> [Diagnostic] {
        var out: [Diagnostic] = []
        func future(_ day: Day, _ what: String, at location: SourceLocation) {
            guard day > today else { return }
            out.append(.warning("future-date", "\(what) \(day) is in the future (today is \(today))", at: location,
                                help: "check the year and month; services are recorded when they are done"))
        }
        for bike in bikes {
            for entry in bike.log { future(entry.date, "log entry", at: entry.dateLocation) }
            if let bought = bike.bought, let retired = bike.retired, retired < bought {
                out.append(.warning("retired-before-bought", "bike '\(shown(bike.id))' is retired (\(retired)) before it was bought (\(bought))",
                                    at: bike.fieldLocations["retired"] ?? bike.location, help: "check the dates of 'bought' and 'retired'"))
            }
        }
        for ride in rides { future(ride.date, "ride", at: ride.dateLocation) }
        return out
    }
}
