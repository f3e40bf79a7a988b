import Diagnostics
import Foundation

// The garage cache's form (`CacheCodable`) of bikes, parts, templates and rides, and of what
// they hold: components, logs, mounts, snoozes, to-dos and readings.

extension WearAmount: CacheCodable {
    func write(to w: inout CacheWriter) {
        w.double(amount)
        w.string(unit)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(amount: try r.double(), unit: try r.string())
    }
}

extension Reading: CacheCodable {
    func write(to w: inout CacheWriter) {
        interval.write(to: &w)
        value.write(to: &w)
        valueLocation.write(to: &w)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(interval: try r.read(), value: try r.read(), valueLocation: try r.read())
    }
}

extension TemplateOrigin: CacheCodable {
    func write(to w: inout CacheWriter) {
        w.string(url)
        w.string(path)
        w.string(commit)
        w.write(ref)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(url: try r.string(), path: try r.string(), commit: try r.string(), ref: try r.read())
    }
}

extension Template: CacheCodable {
    func write(to w: inout CacheWriter) {
        id.write(to: &w)
        w.string(name)
        w.write(description)
        w.write(source)
        w.write(origin)
        w.write(intervals)
        location.write(to: &w)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(
            id: try r.read(), name: try r.string(), description: try r.read(), source: try r.read(), origin: try r.read(),
            intervals: try r.read(), location: try r.read())
    }
}

extension Component: CacheCodable {
    func write(to w: inout CacheWriter) {
        id.write(to: &w)
        w.write(name)
        w.write(installed)
        w.double(priorHours)
        w.double(priorDistance)
        w.double(priorRides)
        rideFilter.write(to: &w)
        location.write(to: &w)
        w.write(installedLocation)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(
            id: try r.read(), name: try r.read(), installed: try r.read(), priorHours: try r.double(), priorDistance: try r.double(),
            priorRides: try r.double(), rideFilter: try r.read(), location: try r.read(), installedLocation: try r.read())
    }
}

extension CacheReader {
    /// Ids with their locations (a log entry's `done:`), as `Array`'s and `Located`'s
    /// `CacheCodable` write them, read in one loop (the generic decoders made a call per id).
    /// A list of one to three, nearly every one, is made as an array literal is: allocated at its
    /// size and filled (reserving room, then appending, went through the standard library's
    /// `_consumeAndCreateNew`, which copied the empty array, asked malloc for the size it gave
    /// and released the empty one: 368 instructions a list, of which the allocation is 228).
    @inline(__always)
    mutating func locatedIDs<Kind>() throws(CacheReader.Invalid) -> [Located<ID<Kind>>] {
        let n = try count()
        switch n {
        case 0: return []
        case 1: return [try locatedID()]
        case 2:
            let first: Located<ID<Kind>> = try locatedID()
            return [first, try locatedID()]
        case 3:
            let first: Located<ID<Kind>> = try locatedID(), second: Located<ID<Kind>> = try locatedID()
            return [first, second, try locatedID()]
        default:
            var ids: [Located<ID<Kind>>] = []
            ids.reserveCapacity(n)
            for _ in 0..<n { ids.append(try locatedID()) }
            return ids
        }
    }

    /// An id with its location, as `Located`'s `CacheCodable` writes it (a method, not a closure,
    /// so that it is inlined where `locatedIDs` reads one).
    @inline(__always)
    mutating func locatedID<Kind>() throws(CacheReader.Invalid) -> Located<ID<Kind>> { Located(ID<Kind>(try string()), at: try location()) }
}

/// An entry's own location first: each location is written relative to the one before
/// (`CacheWriter.location`), and the entry's, its date's and its ids' follow each other in the file.
extension LogEntry: CacheCodable {
    func write(to w: inout CacheWriter) {
        location.write(to: &w)
        date.write(to: &w)
        dateLocation.write(to: &w)
        w.uint(UInt64(done.count))
        for id in done { id.write(to: &w) }
        w.write(cost)
        w.write(category)
        w.write(note)
        w.write(todo)
        w.write(readings)
    }
    /// Read as the generic decoders would (`Day`, `Array`, `Optional`), with their parts inlined:
    /// a long log has a hundred thousand entries.
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        let location = try r.location(), date = Day(ordinal: try r.int()), dateLocation = try r.location()
        let done: [Located<IntervalID>] = try r.locatedIDs()
        let cost = try r.bool() ? Located(try Money(from: &r), at: try r.location()) : nil
        let category = try r.optionalString(), note = try r.optionalString(), todo = try r.optionalString()
        // Readings through `array` inlined: nearly every entry has none (the generic decoder's
        // call cost 61 instructions to read a count of 0).
        self.init(
            date: date, dateLocation: dateLocation, done: done, cost: cost, category: category, note: note, todo: todo, location: location,
            readings: try r.array { r throws(CacheReader.Invalid) in try Reading(from: &r) })
    }
}

extension Snooze: CacheCodable {
    func write(to w: inout CacheWriter) {
        interval.write(to: &w)
        until.write(to: &w)
        untilLocation.write(to: &w)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(interval: try r.read(), until: try r.read(), untilLocation: try r.read())
    }
}

extension Todo: CacheCodable {
    func write(to w: inout CacheWriter) {
        w.string(task)
        w.write(id)
        w.write(due)
        location.write(to: &w)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(task: try r.string(), id: try r.read(), due: try r.read(), location: try r.read())
    }
}

extension Bike: CacheCodable {
    func write(to w: inout CacheWriter) {
        id.write(to: &w)
        w.string(name)
        w.write(kind)
        w.write(rider)
        w.write(strava)
        w.write(devices)
        w.write(bought)
        w.write(retired)
        w.write(price)
        w.write(templates)
        w.write(counts)
        w.write(trainer)
        w.write(components)
        w.write(intervals)
        w.write(log)
        w.write(snoozes)
        w.write(todos)
        location.write(to: &w)
        fieldLocations.write(to: &w)
        misspelledKeys.write(to: &w)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(
            id: try r.read(), name: try r.string(), kind: try r.read(), rider: try r.read(), strava: try r.read(), devices: try r.read(),
            bought: try r.read(),
            retired: try r.read(),
            price: try r.read(),
            templates: try r.read(), counts: try r.read(), trainer: try r.read(), components: try r.read(), intervals: try r.read(),
            log: try r.read(), snoozes: try r.read(), todos: try r.read(), location: try r.read(), fieldLocations: try r.read(),
            misspelledKeys: try r.read())
    }
}

extension Mount: CacheCodable {
    func write(to w: inout CacheWriter) {
        bike.write(to: &w)
        from.write(to: &w)
        w.write(to)
        fromLocation.write(to: &w)
        w.write(toLocation)
        location.write(to: &w)
        w.int(entry)
        w.write(tag)
        w.write(unlessTags)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(
            bike: try r.read(), from: try r.read(), to: try r.read(), fromLocation: try r.read(), toLocation: try r.read(), location: try r.read(),
            entry: try r.int(), tag: try r.read(), unlessTags: try r.read())
    }
}

extension PartMount: CacheCodable {
    func write(to w: inout CacheWriter) {
        parent.write(to: &w)
        from.write(to: &w)
        w.write(to)
        fromLocation.write(to: &w)
        w.write(toLocation)
        location.write(to: &w)
        w.int(entry)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(
            parent: try r.read(), from: try r.read(), to: try r.read(), fromLocation: try r.read(), toLocation: try r.read(), location: try r.read(),
            entry: try r.int())
    }
}

extension Part: CacheCodable {
    func write(to w: inout CacheWriter) {
        id.write(to: &w)
        w.string(name)
        w.write(rider)
        w.write(bought)
        w.write(retired)
        w.write(price)
        w.write(slot)
        w.write(devices)
        w.double(priorHours)
        w.double(priorDistance)
        w.double(priorRides)
        rideFilter.write(to: &w)
        w.write(templates)
        w.write(intervals)
        w.write(mounts)
        w.write(partMounts)
        w.write(log)
        w.write(snoozes)
        w.write(todos)
        location.write(to: &w)
        fieldLocations.write(to: &w)
        misspelledKeys.write(to: &w)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(
            id: try r.read(), name: try r.string(), rider: try r.read(), bought: try r.read(), retired: try r.read(), price: try r.read(), slot: try r.read(),
            devices: try r.read(), priorHours: try r.double(), priorDistance: try r.double(), priorRides: try r.double(), rideFilter: try r.read(),
            templates: try r.read(), intervals: try r.read(), mounts: try r.read(), partMounts: try r.read(), log: try r.read(),
            snoozes: try r.read(),
            todos: try r.read(), location: try r.read(), fieldLocations: try r.read(), misspelledKeys: try r.read())
    }
}

extension Ride: CacheCodable {
    func write(to w: inout CacheWriter) {
        date.write(to: &w)
        bike.write(to: &w)
        w.double(movingTime)
        w.double(distance)
        w.write(sport)
        w.write(name)
        location.write(to: &w)
        dateLocation.write(to: &w)
    }
    init(from r: inout CacheReader) throws(CacheReader.Invalid) {
        self.init(
            date: try r.read(), bike: try r.read(), movingTime: try r.double(), distance: try r.double(), sport: try r.read(), name: try r.read(),
            location: try r.read(), dateLocation: try r.read())
    }
}
