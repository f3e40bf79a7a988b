import Diagnostics
import Foundation

/// What an import from another tracker brings into the garage, whatever the format: each
/// format's reader makes one, and `ImportPlanWriter` applies it (the one writer).
package struct ImportPlan: Sendable {
    /// A bike the source names; written only when the garage has no bike of this id.
    package struct Bike: Sendable {
        package var id: String
        package var name: String
        /// Its Strava gear id, which its rides carry.
        package var strava: String?
    }

    /// A stretch a part spent on a bike, as `parts/ID.yaml`'s `mounts:` has it.
    package struct Mount: Sendable, Hashable {
        package var bike: String
        package var from: Day
        package var to: Day?
        package var tag: String?
        package var unlessTags: [String] = []
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
    }

    /// A service, repair or purchase for a bike's `log:`, naming no interval: a cost and a note.
    package struct LogEntry: Sendable {
        package var bike: String
        package var date: Day
        /// In the garage's currency, and as the source wrote it (`15.00`).
        package var cost: Decimal?
        package var costText: String?
        package var category: String?
        package var note: String
        /// What makes it the same record on a second import: an entry of that day and cost
        /// whose note starts with this (the source's own description).
        package var key: String
    }

    /// A record of the source that has no place in the garage, and why.
    package struct Unplaced: Sendable {
        package var location: SourceLocation
        package var record: String
        package var reason: String
    }

    /// The format's name, as the command line writes it (`strava-gear`).
    package var format: String
    /// The files read, as the rider named them.
    package var files: [String]
    package var bikes: [Bike] = []
    package var parts: [Part] = []
    package var log: [LogEntry] = []
    package var unplaced: [Unplaced] = []
    /// Records placed, but not exactly as the source has them.
    package var notes: [Unplaced] = []
}
