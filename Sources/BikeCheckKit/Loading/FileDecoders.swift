import Diagnostics
import LocatedYAML

/// Turns each kind of garage file from a located tree into model values.
enum FileDecoders {
    static let settingsKeys = ["name", "units", "currency", "due_soon", "counts", "trainer", "strava", "stale_after", "quiet_after", "notify", "riders"]
    static let riderKeys = ["notify", "notes"]
    static let bikeKeys = [
        "name", "rider", "strava", "devices", "bought", "retired", "price", "templates", "counts", "trainer", "components", "intervals", "log", "snooze",
        "todo",
        "notes",
    ]
    /// A gear file's keys: a bike's and `kind:`.
    static let gearKeys = bikeKeys + ["kind"]
    static let componentKeys = ["name", "installed", "hours", "distance", "rides", "counts", "trainer", "notes"]
    static let intervalKeys = ["task", "component", "replaces", "every", "repeat", "wear_limit", "due_soon", "counts", "trainer", "notes"]
    static let templateKeys = ["name", "description", "source", "intervals"]
    static let logKeys = ["date", "done", "readings", "todo", "cost", "currency", "category", "note"]
    static let todoKeys = ["task", "due", "id", "note"]
    static let rideKeys = ["date", "bike", "time", "distance", "sport", "name"]

    static func settings(_ root: YAMLNode, _ r: inout NodeReader) -> GarageSettings {
        var settings = GarageSettings()
        guard let m = r.mapping(root, "garage.yaml") else { return settings }
        let f = r.fields(m, of: "garage.yaml", allowed: settingsKeys)
        if let e = f["name"] { settings.name = r.string(e.value, "the garage name") }
        if let e = f["units"], let text = r.string(e.value, "units") {
            if let units = UnitSystem(rawValue: text) {
                settings.units = units
            } else {
                r.error(.badValue, "units '\(shown(text))' should be 'metric' or 'imperial'", e.value, help: "write units: metric, or units: imperial")
            }
        }
        if let e = f["currency"], let code = r.string(e.value, "currency") {
            // Costs name their currency by code (`45 USD`); a symbol or a word would never match one.
            if Money.isCurrencyCode(code) {
                settings.currency = code
            } else {
                r.error(
                    .badValue, "currency '\(shown(code))' should be a currency code of three capital letters", e.value,
                    help: "write e.g. currency: EUR, USD, GBP")
            }
        }
        if let e = f["due_soon"], let v = r.fraction(e.value, "due_soon") { settings.dueSoon = v }
        if let e = f["counts"], let list = sportTypes(e.value, &r) { settings.counts = list }
        if let e = f["trainer"], let v = trainerRule(e.value, &r) { settings.trainer = v }
        if let e = f["stale_after"], let days = spanOfDays(e.value, "stale_after", &r) { settings.staleAfter = days }
        if let e = f["quiet_after"], let days = spanOfDays(e.value, "quiet_after", &r) { settings.quietAfter = days }
        if let e = f["strava"], let sm = r.mapping(e.value, "strava") {
            let sf = r.fields(sm, of: "strava settings", allowed: ["client_id"])
            if let c = sf["client_id"] { settings.stravaClientID = r.string(c.value, "client_id") }
        }
        if let e = f["notify"] { settings.notify = notify(e.value, &r) }
        if let e = f["riders"], !r.isNull(e.value) { settings.riders = riders(e.value, &r) }
        return settings
    }

    /// `riders:`: a mapping from each rider's name to their settings (empty for none of their own).
    static func riders(_ node: YAMLNode, _ r: inout NodeReader) -> [Rider] {
        guard let m = r.mapping(node, "riders") else { return [] }
        var riders: [Rider] = []
        for entry in m.entries {
            guard let name = entry.keyText else { continue }
            if !isIdentifier(name) {
                r.error(.badId, "'\(shown(name))' is not a valid rider name", entry.key, help: "use letters, digits, '-', '_' and '.', e.g. alex")
                continue
            }
            var rider = Rider(name: name, location: r.location(entry.key))
            if !r.isNull(entry.value), let rm = r.mapping(entry.value, "rider '\(shown(name))'") {
                let f = r.fields(rm, of: "rider '\(shown(name))'", allowed: riderKeys)
                if let e = f["notify"] { rider.notify = notify(e.value, &r) }
                if let e = f["notes"] { _ = r.string(e.value, "notes") }
            }
            riders.append(rider)
        }
        return riders
    }

    /// `rider: NAME` on a bike or a part; whether the rider exists is checked once all is read.
    static func riderName(_ node: YAMLNode, _ r: inout NodeReader) -> Located<String>? {
        guard let name = r.string(node, "the rider's name") else { return nil }
        return Located(name, at: r.location(node))
    }

    /// A span of whole days (`14 days`, `2 weeks`), for the staleness thresholds.
    static func spanOfDays(_ node: YAMLNode, _ what: String, _ r: inout NodeReader) -> Int? {
        // `14d`, `2w`: as `repeat:` and `bands:` take them.
        if case .scalar(let s) = node, let last = s.value.last, last == "d" || last == "w", !s.value.dropLast().isEmpty,
            s.value.dropLast().allSatisfy({ $0.isASCII && $0.isNumber })
        {
            guard let days = DayWindow.parse(s.value), days > 0 else {
                r.error(
                    .badQuantity, "\(what) '\(shown(s.value))' should be 1 to \(UrgencyBand.maximumWindow) days", node,
                    help: "write e.g. \(what): 14 days, 14d or 2w")
                return nil
            }
            return days
        }
        guard let q = r.quantity(node, what) else { return nil }
        guard q.measure == .days, q.amount == q.amount.rounded() else {
            r.error(.badQuantity, "\(what) '\(shown(q.text))' is not a number of days", node, help: "write e.g. \(what): 14 days, or 2 weeks")
            return nil
        }
        return Int(q.amount)
    }

    /// `devices:`: device serial numbers, whole numbers from 1 (a list, or one standing for a list).
    static func serialNumbers(_ node: YAMLNode, _ r: inout NodeReader) -> [Located<Int64>] {
        let items: [YAMLNode]
        if case .sequence(let q) = node { items = q.items } else { items = [node] }
        return items.compactMap { item in
            guard case .scalar(let s) = item, s.style == .plain, let serial = Int64(s.value), serial > 0, serial <= UInt32.max else {
                r.error(
                    .badValue, "a device serial number should be a whole number from 1 to 4294967295, found \(item.kindDescription)", item,
                    help: "the serial number the device shows (Garmin: Settings > About), e.g. devices: [3980001234]")
                return nil
            }
            return Located(serial, at: r.location(item))
        }
    }

    static func sportTypes(_ node: YAMLNode, _ r: inout NodeReader) -> [String]? {
        guard let list = r.stringList(node, "a sport type") else { return nil }
        for item in list where r.warnings && !knownSportTypes.contains(item.value) {
            let meant = Suggestion(item.value, among: knownSportTypes)
            r.diagnostics.append(
                Diagnostic.warning(
                    .unknownSportType, "'\(shown(item.value))' is not a Strava sport type\(meant.hint)",
                    at: item.location, help: "cycling types: \(cyclingSportTypes.joined(separator: ", "))"
                ).fixed(by: meant.name))
        }
        return list.map(\.value)
    }

    /// `trainer: true | false | only`.
    static func trainerRule(_ node: YAMLNode, _ r: inout NodeReader) -> TrainerRule? {
        if case .scalar(let s) = node, s.style == .plain, let rule = TrainerRule(rawValue: s.value) { return rule }
        r.error(
            .wrongType, "trainer should be true, false or only, found \(node.kindDescription)", node,
            help: "true: rides on a trainer count too; false: outdoor rides only; only: rides on a trainer only")
        return nil
    }

    static func repeatRule(_ node: YAMLNode, _ r: inout NodeReader) -> RepeatRule? {
        if case .scalar(let s) = node, s.style == .plain, let rule = RepeatRule(rawValue: s.value) { return rule }
        let scalar = if case .scalar(let s) = node, !s.isNull { s.value } else { String?.none }
        r.error(
            scalar == nil ? .wrongType : .badValue,
            "repeat should be from-done, fixed or catch-up, found \(scalar.map { "'\(shown($0))'" } ?? node.kindDescription)", node,
            help:
                "from-done: the next is one interval after the service; fixed: one interval after the previous due point; catch-up: the previous due point moved past the service by whole intervals"
        )
        return nil
    }

    /// `counts:` and `trainer:` of an interval, a component or a part.
    static func rideFilter(_ f: Fields, _ r: inout NodeReader) -> RideFilterSpec {
        var spec = RideFilterSpec()
        if let e = f["counts"] { spec.counts = sportTypes(e.value, &r) }
        if let e = f["trainer"] { spec.trainer = trainerRule(e.value, &r) }
        return spec
    }

    /// A bike file, or with `gear` a gear file (`gear/ID.yaml`): a bike's keys and `kind:`.
    static func bike(id: BikeID, _ root: YAMLNode, _ r: inout NodeReader, currency: String? = nil, gear: Bool = false) -> Bike? {
        guard let m = r.mapping(root, gear ? "a gear file" : "a bike file") else { return nil }
        let f = r.fields(
            m, of: "\(gear ? "gear" : "bike") '\(shown(id))'", allowed: gear ? gearKeys : bikeKeys, required: gear ? ["name", "kind"] : ["name"])
        var bike = Bike(
            id: id, name: id.rawValue, templates: [], components: [], intervals: [], log: [],
            location: r.location(root))
        bike.fieldLocations = Dictionary(f.entries.map { ($0.key, r.location($0.entry.value)) }) { _, last in last }
        bike.misspelledKeys = f.misspelled
        if gear {
            // A kind that cannot be read is still gear: its keys and rides are a gear file's.
            bike.kind = .other
            if let e = f["kind"] { bike.kind = gearKind(e.value, &r) ?? .other }
        }
        if let e = f["name"], let name = r.string(e.value, gear ? "the gear's name" : "the bike's name") { bike.name = name }
        if let e = f["rider"] { bike.rider = riderName(e.value, &r) }
        if let e = f["strava"], let id = r.string(e.value, "the Strava gear id") {
            bike.strava = Located(id, at: r.location(e.value))
            if gear, !isStravaGearID(id) {
                r.error(
                    .badGearId, "'\(shown(id))' is not a Strava gear id", e.value,
                    help: "Strava's shoe ids look like g12345678, its bike ids like b12345678 (see bikecheck sync)")
            } else if !gear, !isStravaBikeGearID(id) {
                r.error(
                    .badGearId, "'\(shown(id))' is not a Strava bike gear id", e.value,
                    help: isStravaGearID(id)
                        ? "g… is a Strava shoe id: shoes go in gear/ with kind: shoes; bike gear ids look like b12345678"
                        : "bike gear ids look like b12345678 (see bikecheck sync)")
            }
        }
        if let e = f["devices"], !r.isNull(e.value) { bike.devices = serialNumbers(e.value, &r) }
        if let e = f["bought"] { bike.bought = r.day(e.value, "bought") }
        if let e = f["retired"] { bike.retired = r.day(e.value, "retired") }
        if let e = f["price"], let price = r.money(e.value, "price", currency: currency) {
            bike.price = price
            checkCurrency(price, "price", garage: currency, &r)
        }
        if let e = f["notes"] { _ = r.string(e.value, "notes") }
        if let e = f["templates"], !r.isNull(e.value), let list = r.stringList(e.value, "a template name") {
            bike.templates = list.map { Located(TemplateID($0.value), at: $0.location) }
        }
        if let e = f["counts"] { bike.counts = sportTypes(e.value, &r) }
        if let e = f["trainer"] { bike.trainer = trainerRule(e.value, &r) }
        if let e = f["components"], !r.isNull(e.value), let cm = r.mapping(e.value, "components") {
            for entry in cm.entries {
                guard let key = entry.keyText else { continue }
                if !isIdentifier(key) {
                    r.error(.badId, "'\(shown(key))' is not a valid component id", entry.key, help: "use letters, digits, '-', '_' and '.', e.g. rear-tyre")
                    continue
                }
                if let c = component(id: ComponentID(key), entry.value, &r) { bike.components.append(c) }
            }
        }
        if let e = f["intervals"], !r.isNull(e.value) { bike.intervals = intervals(e.value, owner: "bike '\(shown(id))'", &r) }
        if let e = f["log"] { bike.log = log(e.value, &r, currency: currency) }
        if let e = f["snooze"] { bike.snoozes = snoozes(e.value, &r) }
        if let e = f["todo"] { bike.todos = todos(e.value, &r) }
        return bike
    }

    /// `kind: shoes | trainer | helmet | other`.
    static func gearKind(_ node: YAMLNode, _ r: inout NodeReader) -> GearKind? {
        if case .scalar(let s) = node, s.style == .plain, let kind = GearKind(rawValue: s.value) { return kind }
        let scalar = if case .scalar(let s) = node, !s.isNull { s.value } else { String?.none }
        let kinds = GearKind.allCases.map(\.rawValue)
        let meant = scalar.map { Suggestion($0, among: kinds) }
        r.diagnostics.append(
            Diagnostic.error(
                scalar == nil ? .wrongType : .badValue,
                "kind should be \(kinds.dropLast().joined(separator: ", ")) or \(kinds.last ?? ""), found \(scalar.map { "'\(shown($0))'" } ?? node.kindDescription)\(meant?.hint ?? "")",
                at: r.location(node),
                help: "shoes: runs, walks and hikes on their Strava gear; trainer: indoor rides; helmet and other: the rides of every bike"
            ).fixed(by: meant?.name))
        return nil
    }

    static func component(id: ComponentID, _ node: YAMLNode, _ r: inout NodeReader) -> Component? {
        var c = Component(id: id, location: r.location(node))
        if case .scalar(let s) = node, s.isNull { return c }
        guard let m = r.mapping(node, "component '\(shown(id))'") else { return nil }
        let f = r.fields(m, of: "component '\(shown(id))'", allowed: componentKeys)
        if let e = f["name"] { c.name = r.string(e.value, "the component's name") }
        if let e = f["installed"] {
            c.installed = r.day(e.value, "installed")
            c.installedLocation = r.location(e.value)
        }
        if let e = f["hours"], let v = r.number(e.value, "hours", maximum: 100_000) { c.priorHours = v }
        if let e = f["rides"], let v = r.number(e.value, "rides", maximum: 1_000_000) { c.priorRides = v }
        if let e = f["notes"] { _ = r.string(e.value, "notes") }
        c.rideFilter = rideFilter(f, &r)
        if let e = f["distance"], let q = r.quantity(e.value, "distance") {
            if q.measure == .distance {
                c.priorDistance = q.amount
            } else {
                r.error(.badQuantity, "distance '\(shown(q.text))' is not a distance", e.value, help: "write e.g. 2500 km or 1500 mi")
            }
        }
        return c
    }

    static func intervals(_ node: YAMLNode, owner: String, _ r: inout NodeReader) -> [IntervalSpec] {
        guard let m = r.mapping(node, "intervals") else { return [] }
        var result: [IntervalSpec] = []
        for entry in m.entries {
            guard let key = entry.keyText else { continue }
            if !isIdentifier(key) {
                r.error(.badId, "'\(shown(key))' is not a valid interval id", entry.key, help: "use letters, digits, '-', '_' and '.', e.g. chain-lube")
                continue
            }
            var spec = IntervalSpec(id: IntervalID(key), location: r.location(entry.key))
            if case .scalar(let s) = entry.value, s.isNull {
                r.error(.wrongType, "interval '\(shown(key))' is empty", entry.value, help: "give it at least 'every: …', e.g. every: 10 h")
                continue
            }
            guard let im = r.mapping(entry.value, "interval '\(shown(key))'") else { continue }
            let f = r.fields(im, of: "interval '\(shown(key))'", allowed: intervalKeys)
            if let e = f["task"] { spec.task = r.string(e.value, "task") }
            if let e = f["notes"] { _ = r.string(e.value, "notes") }
            if let e = f["component"], let id = r.identifier(e.value, "component id") {
                spec.component = Located(ComponentID(id), at: r.location(e.value))
            }
            if let e = f["replaces"], let id = r.identifier(e.value, "component id") {
                spec.replaces = Located(ComponentID(id), at: r.location(e.value))
            }
            if let e = f["every"] {
                if let qs = r.quantities(e.value, "every") {
                    spec.every = Located(qs, at: r.location(e.value))
                } else {
                    spec.everyIsInvalid = true
                }
            }
            if let e = f["repeat"] { spec.repeatRule = repeatRule(e.value, &r) }
            if let e = f["wear_limit"], let limit = wearAmount(e.value, "wear_limit", &r) {
                if limit.amount > 0 {
                    spec.wearLimit = Located(limit, at: r.location(e.value))
                } else {
                    r.error(.nonPositiveQuantity, "wear_limit '\(shown(limit.description))' must be more than zero", e.value, help: WearAmount.accepted)
                }
            }
            if let e = f["due_soon"] { spec.dueSoon = r.fraction(e.value, "due_soon") }
            spec.rideFilter = rideFilter(f, &r)
            result.append(spec)
        }
        return result
    }

    static func rides(_ root: YAMLNode, _ r: inout NodeReader) -> [Ride] {
        guard let m = r.mapping(root, "rides.yaml") else { return [] }
        let f = r.fields(m, of: "rides.yaml", allowed: ["rides"], required: ["rides"])
        guard let list = f["rides"]?.value else { return [] }
        if case .scalar(let s) = list, s.isNull { return [] }
        guard case .sequence(let q) = list else {
            r.error(.wrongType, "rides should be a list ('- date: …'), found \(list.kindDescription)", list)
            return []
        }
        var result: [Ride] = []
        for item in q.items {
            guard let rm = r.mapping(item, "a ride") else { continue }
            let rf = r.fields(rm, of: "a ride", allowed: rideKeys, required: ["date", "bike", "time"], at: item)
            var date: Day?, bike: Located<BikeID>?, time: Double?
            let dateLocation = rf["date"].map { r.location($0.value) } ?? r.location(item)
            var distance = 0.0
            var ok = true
            if let e = rf["date"] { date = r.day(e.value, "date") }
            if let e = rf["bike"], let id = r.identifier(e.value, "bike id") { bike = Located(BikeID(id), at: r.location(e.value)) }
            if let e = rf["time"], let text = r.string(e.value, "time") {
                time = Quantity.parseDuration(text)
                if time == nil {
                    r.error(.badDuration, "'\(shown(text))' is not a ride time", e.value, help: "write e.g. 1h30, 1:30, 90 min or 2 h")
                }
            }
            if let e = rf["distance"], let q = r.quantity(e.value, "distance") {
                if q.measure == .distance {
                    distance = q.amount
                } else {
                    r.error(.badQuantity, "distance '\(shown(q.text))' is not a distance", e.value, help: "write e.g. 35 km or 20 mi")
                    ok = false
                }
            }
            var sport: String?
            if let e = rf["sport"], r.string(e.value, "sport") != nil { sport = sportTypes(e.value, &r)?.first }
            let name = rf["name"].flatMap { r.string($0.value, "name") }
            if ok, let date, let bike, let time {
                result.append(
                    Ride(
                        date: date, bike: bike, movingTime: time, distance: distance, sport: sport, name: name,
                        location: r.location(item), dateLocation: dateLocation))
            }
        }
        return result
    }

    static let cyclingSportTypes = ["Ride", "GravelRide", "MountainBikeRide", "EBikeRide", "EMountainBikeRide", "VirtualRide", "Velomobile", "Handcycle"]
    static let knownSportTypes = [
        "AlpineSki", "BackcountrySki", "Badminton", "Basketball", "Canoeing", "Cricket", "Crossfit", "Dance",
        "EBikeRide", "Elliptical", "EMountainBikeRide", "Golf", "GravelRide", "Handcycle", "HighIntensityIntervalTraining", "Hike",
        "IceSkate", "InlineSkate", "Kayaking", "Kitesurf", "MountainBikeRide", "NordicSki", "Padel", "PhysicalTherapy", "Pickleball",
        "Pilates", "Racquetball", "Ride", "RockClimbing", "RollerSki", "Rowing", "Run", "Sail", "Skateboard", "Snowboard", "Snowshoe",
        "Soccer", "Squash", "StairStepper", "StandUpPaddling", "Surfing", "Swim", "TableTennis", "Tennis", "TrailRun", "Velomobile",
        "VirtualRide", "VirtualRow", "VirtualRun", "Volleyball", "Walk", "WeightTraining", "Wheelchair", "Windsurf", "Workout", "Yoga",
    ]
}
