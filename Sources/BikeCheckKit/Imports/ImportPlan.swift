import Diagnostics
import Foundation

/// What an import from another tracker brings into the garage, whatever the format: each
/// format's reader makes one, and `ImportPlanWriter` applies it (the one writer).
///
/// Everything is keyed by the garage's own ids: a bike, gear or part is written as a new file
/// when the garage has none of its id, else given only the keys, mounts, intervals and log
/// entries it lacks. So a reader's whole job is to map the source's records to these values, and
/// to list in `unplaced` what has no place.
package struct ImportPlan: Sendable {
    /// A tracker's file as the rider named it, and its bytes.
    package struct Source: Sendable {
        package var path: String
        package var bytes: [UInt8]
        package init(path: String, bytes: [UInt8]) {
            self.path = path
            self.bytes = bytes
        }
    }

    /// A bike the source names, or gear that is not a bike (`kind:`: shoes, a trainer).
    package struct Bike: Sendable {
        package var id: String
        package var name: String
        /// Its Strava gear id (`b…`, or `g…` for shoes), which its rides carry.
        package var strava: String?
        /// nil for a bike (`bikes/ID.yaml`); `shoes`, `trainer`, `helmet` or `other` for gear
        /// (`gear/ID.yaml`).
        package var kind: String? = nil
        package var bought: Day? = nil
        package var retired: Day? = nil
        /// As the garage writes an amount: `1299`, `45.99`, `45.99 USD`.
        package var price: String? = nil

        package init(id: String, name: String, strava: String? = nil, kind: String? = nil, bought: Day? = nil, retired: Day? = nil, price: String? = nil) {
            self.id = id
            self.name = name
            self.strava = strava
            self.kind = kind
            self.bought = bought
            self.retired = retired
            self.price = price
        }
    }

    /// A stretch a part spent on a bike or on another part, as `parts/ID.yaml`'s `mounts:` has it.
    package struct Mount: Sendable, Hashable {
        /// What the part sat on.
        package enum Holder: Sendable, Hashable, CustomStringConvertible {
            /// `{bike: grail, …}`
            case bike(String)
            /// `{part: race-wheels, …}`: tyres on a wheelset, wherever it goes.
            case part(String)

            package var description: String {
                switch self {
                case .bike(let id): "bike '\(id)'"
                case .part(let id): "part '\(id)'"
                }
            }
        }

        package var on: Holder
        package var from: Day
        package var to: Day?
        /// Only rides with this hashtag in their name (a mount on a bike only).
        package var tag: String?
        /// Not rides with one of these hashtags (a mount on a bike only).
        package var unlessTags: [String] = []

        package init(bike: String, from: Day, to: Day? = nil, tag: String? = nil, unlessTags: [String] = []) {
            self.on = .bike(bike)
            self.from = from
            self.to = to
            self.tag = tag
            self.unlessTags = unlessTags
        }

        package init(part: String, from: Day, to: Day? = nil) {
            self.on = .part(part)
            self.from = from
            self.to = to
            self.tag = nil
        }

        /// The bike it names, nil for a mount on a part.
        package var bike: String? {
            if case .bike(let id) = on { return id }
            return nil
        }

        /// What makes it the same mount as one the part's file has: where, from when, which tag.
        var key: String {
            switch on {
            case .bike(let id): "bike|\(id)|\(from)|\(tag ?? "")"
            case .part(let id): "part|\(id)|\(from)|"
            }
        }
    }

    /// A part with its file's id, its usage before tracking and where it has been.
    package struct Part: Sendable {
        package var id: String
        package var name: String
        package var slot: String?
        /// Usage before tracking: hours and kilometres.
        package var hours: Double?
        package var kilometres: Double?
        package var mounts: [Mount] = []
        package var bought: Day? = nil
        package var retired: Day? = nil
        /// As the garage writes an amount: `1299`, `45.99`, `45.99 USD`.
        package var price: String? = nil

        package init(
            id: String, name: String, slot: String? = nil, hours: Double? = nil, kilometres: Double? = nil, mounts: [Mount] = [], bought: Day? = nil,
            retired: Day? = nil, price: String? = nil
        ) {
            self.id = id
            self.name = name
            self.slot = slot
            self.hours = hours
            self.kilometres = kilometres
            self.mounts = mounts
            self.bought = bought
            self.retired = retired
            self.price = price
        }
    }

    /// A component of a bike's file (`components: {chain: {name: …, installed: …}}`): what the
    /// source tracks as a part of its own but which never leaves its one bike. It is the same
    /// component on a second import when the bike has its role; one there is never changed.
    package struct Component: Sendable {
        package var bike: String
        /// Its role on the bike, the key under `components:` (`chain`).
        package var role: String
        package var name: String
        /// nil when it has been on the bike from the start.
        package var installed: Day?
        /// Usage before tracking: hours and kilometres.
        package var hours: Double?
        package var kilometres: Double?

        package init(bike: String, role: String, name: String, installed: Day?, hours: Double? = nil, kilometres: Double? = nil) {
            self.bike = bike
            self.role = role
            self.name = name
            self.installed = installed
            self.hours = hours
            self.kilometres = kilometres
        }
    }

    /// A reminder of the source as an interval of a bike's, gear's or part's file:
    /// `ID: {task: …, every: [3000 km, 12 months]}`. It is the same interval on a second import
    /// when the file's `intervals:` has its id; one there is never changed.
    package struct Interval: Sendable {
        /// The bike, gear or part whose file it goes in.
        package var owner: String
        package var id: String
        package var task: String?
        /// Whichever comes first, as the garage writes them: `500 km`, `10 h`, `6 months`.
        package var every: [String]

        package init(owner: String, id: String, task: String?, every: [String]) {
            self.owner = owner
            self.id = id
            self.task = task
            self.every = every
        }
    }

    /// A service, repair or purchase for the `log:` of a bike, gear or part: with a cost and a
    /// note, and the intervals it did where the source says (`done:`).
    package struct LogEntry: Sendable {
        /// The bike, gear or part whose file it goes in.
        package var owner: String
        package var date: Day
        /// Intervals it did (ids of the owner's intervals); empty for a record that names none.
        package var done: [String] = []
        /// In the garage's currency, and as the source wrote it (`15.00`).
        package var cost: Decimal?
        package var costText: String?
        package var category: String?
        package var note: String
        /// What makes it the same record on a second import: an entry of that day, `done:` and
        /// cost whose note starts with this (the source's own description, or its id).
        package var key: String

        package init(
            owner: String, date: Day, done: [String] = [], cost: Decimal? = nil, costText: String? = nil, category: String? = nil, note: String,
            key: String
        ) {
            self.owner = owner
            self.date = date
            self.done = done
            self.cost = cost
            self.costText = costText
            self.category = category
            self.note = note
            self.key = key
        }
    }

    /// A record of the source that has no place in the garage, and why.
    package struct Unplaced: Sendable {
        package var location: SourceLocation
        package var record: String
        package var reason: String

        package init(location: SourceLocation, record: String, reason: String) {
            self.location = location
            self.record = record
            self.reason = reason
        }
    }

    /// The format's name, as the command line writes it (`strava-gear`).
    package var format: String
    /// The files read, as the rider named them.
    package var files: [String]
    package var bikes: [Bike] = []
    package var parts: [Part] = []
    package var components: [Component] = []
    package var intervals: [Interval] = []
    package var log: [LogEntry] = []
    package var unplaced: [Unplaced] = []
    /// Records placed, but not exactly as the source has them.
    package var notes: [Unplaced] = []

    package init(format: String, files: [String]) {
        self.format = format
        self.files = files
    }

    /// `unplaced` and `notes` each in the order of the files and of their places in them, as a
    /// compiler lists its problems.
    package mutating func sortFindings() {
        let files = self.files
        func sorted(_ list: [Unplaced]) -> [Unplaced] {
            list.enumerated().map { (files.firstIndex(of: $0.element.location.file) ?? 0, $0.element.location.range?.start.offset ?? 0, $0.offset, $0.element) }
                .sorted { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }.map(\.3)
        }
        unplaced = sorted(unplaced)
        notes = sorted(notes)
    }
}
