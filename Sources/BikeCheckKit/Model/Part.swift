import Diagnostics

package enum PartKind {}
/// A part's id: the name of its file in `parts/`.
package typealias PartID = ID<PartKind>

/// A stretch of days a part spent on one bike: `from` through `to`, both inclusive local days;
/// an open mount (no `to`) is where the part is now.
package struct Mount: Sendable {
    package var bike: Located<BikeID>
    package var from: Day
    package var to: Day?
    package var fromLocation: SourceLocation
    package var toLocation: SourceLocation?
    /// The whole entry, for notes that point at it.
    package var location: SourceLocation
    /// Its place in the file's `mounts:` list (a write closes the entry there).
    package var entry = 0
    /// The parts it is on the bike through, nearest first: empty for a mount on the bike itself;
    /// for a part on a part, the stretch its parent (and theirs) spent on the bike (`Resolver`).
    package var via: [PartID] = []
    /// Only rides whose name has this hashtag (`tag: race`: the race wheels go on for `#race`
    /// rides); such a mount may share its days with the part's other mounts.
    package var tag: String?
    /// Not rides whose name has one of these hashtags (`unless_tag: race`: the everyday wheels
    /// come off for them).
    package var unlessTags: [String] = []

    /// Whether the part was on the bike on this day.
    package func covers(_ day: Day) -> Bool { from <= day && (to.map { day <= $0 } ?? true) }

    /// The rides of the bike that wear the part on this mount: `filter` (the part's over the
    /// bike's), narrowed by the mount's `tag:` and `unless_tag:`.
    package func narrowing(_ filter: RideFilter) -> RideFilter {
        guard tag != nil || !unlessTags.isEmpty else { return filter }
        var f = filter
        f.tag = tag
        f.unlessTags = unlessTags
        return f
    }
}

/// A stretch of days a part spent on another part (`{part: race-wheels, from: …}`): tyres on a
/// wheelset. On each day it wears with whatever bike its parent is on.
package struct PartMount: Sendable {
    package var parent: Located<PartID>
    package var from: Day
    package var to: Day?
    package var fromLocation: SourceLocation
    package var toLocation: SourceLocation?
    package var location: SourceLocation
    /// Its place in the file's `mounts:` list.
    package var entry: Int

    package func covers(_ day: Day) -> Bool { from <= day && (to.map { day <= $0 } ?? true) }
}

/// A part whose life is its own file (`parts/ID.yaml`): a wheelset, a fork, a spare chain. It
/// moves between bikes; its usage is what counted for each bike on the days it was there.
package struct Part: Sendable {
    package var id: PartID
    package var name: String
    /// The rider whose part it is (`rider: NAME`); nil when shared.
    package var rider: Located<String>?
    package var bought: Day?
    package var retired: Day?
    /// What it cost, exact, in its own currency or else the garage's: `costs` counts it on the
    /// day it was bought, on the part's own line.
    package var price: Located<Money>?
    /// A slot on a bike (`wheels`, `fork`): one part at a time fills it.
    package var slot: Located<String>?
    /// Serial numbers of the devices that record only this part's rides (a power meter in a
    /// wheelset): `import files` puts their rides on the bike the part was mounted on that day.
    package var devices: [Located<Int64>] = []
    /// Usage before tracking started.
    package var priorHours: Double = 0
    package var priorDistance: Double = 0
    package var priorRides: Double = 0
    /// Which rides wear it, where it differs from the bike it is on.
    package var rideFilter = RideFilterSpec()
    package var templates: [Located<TemplateID>] = []
    package var intervals: [IntervalSpec] = []
    /// The bikes it has been on: as written (`bike:`), then, once the garage is resolved, through
    /// the parts it was on (`via`), in order of `from`.
    package var mounts: [Mount] = []
    /// The parts it has been on (`part:`), in the order written.
    package var partMounts: [PartMount] = []
    package var log: [LogEntry] = []
    /// Intervals put off until a day.
    package var snoozes: [Snooze] = []
    /// One-off jobs, in the order written.
    package var todos: [Todo] = []
    package var location: SourceLocation
    package var fieldLocations: [String: SourceLocation] = [:]
    package var misspelledKeys: Set<String> = []

    /// A mount as the file has it: on a bike, or on a part.
    package struct WrittenMount: Sendable {
        /// What it is on, as a message names it: `'grail'`, `part 'race-wheels'`.
        package var on: String
        package var from: Day
        package var to: Day?
        package var fromLocation: SourceLocation
        package var location: SourceLocation
        /// Its place in the file's `mounts:` list.
        package var entry: Int
        /// The bike it names (nil for a mount on a part).
        package var bike: BikeID?
        /// Its `tag:`: a mount for tagged rides only, which may share days with the others.
        package var tag: String? = nil
    }

    /// The mounts as written, bikes' and parts' together, in the file's order.
    package var writtenMounts: [WrittenMount] {
        // A closure, not a key path: `\.via.isEmpty` went through the runtime for every mount.
        let bikes = mounts.filter { $0.via.isEmpty }.map {
            WrittenMount(
                on: "'\($0.bike.value)'", from: $0.from, to: $0.to, fromLocation: $0.fromLocation, location: $0.location, entry: $0.entry, bike: $0.bike.value,
                tag: $0.tag)
        }
        let parts = partMounts.map {
            WrittenMount(on: "part '\($0.parent.value)'", from: $0.from, to: $0.to, fromLocation: $0.fromLocation, location: $0.location, entry: $0.entry)
        }
        return (bikes + parts).sorted { $0.entry < $1.entry }
    }

    /// The mount that covers `day`, if the part was on a bike then.
    /// A mount for every ride (no `tag:`) comes before one for tagged rides.
    package func mount(on day: Day) -> Mount? { mounts.first { $0.covers(day) && $0.tag == nil } ?? mounts.first { $0.covers(day) } }
}

/// A part with its intervals resolved.
package struct ResolvedPart: Sendable {
    package var part: Part
    package var intervals: [ResolvedInterval]
}
