import BikeCheckKit
import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// Local sync state in `<garage>/.bikecheck/` (git-ignored): a listing in progress, so an
/// interrupted sync resumes where it stopped, and the gear already looked up. It is checked when
/// loaded, never trusted: a state that is not what this bikecheck writes, or names implausible
/// times, is discarded with a warning and the listing starts over. Nothing in it can make a sync
/// delete an activity: deletions rest on the run's own listing and Strava's 404s alone.
package struct SyncState: Codable, Equatable, Sendable {
    /// A listing that has not finished yet.
    package struct Pending: Codable, Equatable, Sendable {
        package enum Mode: String, Codable, Sendable { case full, incremental }
        package var mode: Mode
        /// Epoch seconds of the `after` filter (incremental only).
        package var after: Int64?
        /// The time cursor: epoch seconds of the `before` filter of the next page; nil before the
        /// first page. Every activity starting at or after it has been written to the cache.
        package var before: Int64?

        package init(mode: Mode, after: Int64? = nil, before: Int64? = nil) {
            self.mode = mode
            self.after = after
            self.before = before
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case mode, after, before }

        package init(from decoder: Decoder) throws {
            try SyncState.rejectUnknownKeys(decoder, CodingKeys.self, in: "pending")
            let c = try decoder.container(keyedBy: CodingKeys.self)
            mode = try c.decode(Mode.self, forKey: .mode)
            after = try c.decodeIfPresent(Int64.self, forKey: .after)
            before = try c.decodeIfPresent(Int64.self, forKey: .before)
        }
    }

    package var pending: Pending?
    /// Gear fetched with `/gear/{id}` (retired bikes missing from `/athlete`); `null` when Strava did not know it.
    package var gear: [String: StravaGear?]

    package init(pending: Pending? = nil, gear: [String: StravaGear?] = [:]) {
        self.pending = pending
        self.gear = gear
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case pending, gear }

    package init(from decoder: Decoder) throws {
        try Self.rejectUnknownKeys(decoder, CodingKeys.self, in: nil)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        pending = try c.decodeIfPresent(Pending.self, forKey: .pending)
        gear = try c.decodeIfPresent([String: StravaGear?].self, forKey: .gear) ?? [:]
    }

    package func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(pending, forKey: .pending)
        try c.encode(gear, forKey: .gear)
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// A key this bikecheck does not write means another program (or an older bikecheck) wrote the file.
    static func rejectUnknownKeys<K: CodingKey & CaseIterable>(_ decoder: Decoder, _: K.Type, in object: String?) throws {
        let known = Set(K.allCases.map(\.stringValue))
        for key in try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue).sorted() where !known.contains(key) {
            throw Problem(reason: "unknown field \(shown((object.map { $0 + "." } ?? "") + key))")
        }
    }

    /// Why a state file was discarded.
    struct Problem: Error { var reason: String }

    package static func directory(garage root: String) -> String { LocalState.directory(garage: root) }
    /// `strava-sync.json`, or a household rider's own `strava-sync.RIDER.json`.
    static func path(garage root: String, rider: String? = nil) -> String { directory(garage: root) + "/" + fileName(rider: rider) }
    static func fileName(rider: String?) -> String { "strava-sync" + (rider.map { "." + $0 } ?? "") + ".json" }
    /// The state file, as messages name it.
    package static func displayPath(rider: String? = nil) -> String { ".bikecheck/" + fileName(rider: rider) }

    /// The saved state, and a warning when there was one that could not be used (then the
    /// state is empty: no listing to resume, no gear remembered).
    package static func load(garage root: String, rider: String? = nil, now: Date = Date()) -> (state: SyncState, warning: Warning?) {
        let data: Data
        func discarded(_ reason: String) -> Warning { Self.discarded(reason, rider: rider) }
        switch readFile(path(garage: root, rider: rider), limit: FileSizeLimit.localState) {
        case .bytes(let bytes): data = Data(bytes)
        case .tooLarge(let size):
            return (SyncState(), discarded("it is \(FileSizeLimit.describe(size)), more than \(FileSizeLimit.describe(FileSizeLimit.localState))"))
        case .unreadable: return (SyncState(), nil)
        }
        let state: SyncState
        do {
            state = try JSONDecoder().decode(SyncState.self, from: data)
            try state.check(now: now)
        } catch let problem as Problem {
            return (SyncState(), discarded(problem.reason))
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            return (SyncState(), discarded("not valid JSON"))
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context),
            let DecodingError.dataCorrupted(context)
        {
            return (SyncState(), discarded("unexpected value at \(context.codingPath.isEmpty ? "the top level" : shown(dotted(context.codingPath)))"))
        } catch let DecodingError.keyNotFound(key, context) {
            return (SyncState(), discarded("missing field \(shown(dotted(context.codingPath + [key])))"))
        } catch {
            return (SyncState(), discarded("it could not be read"))
        }
        return (state, nil)
    }

    /// The gear every sync of the garage looked up: the garage's own login's and, in a
    /// household, each rider's (`strava-sync.RIDER.json`), by id.
    package static func knownGear(garage root: String) -> [StravaGear] {
        var riders: [String?] = [nil]
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: directory(garage: root))) ?? []).sorted()
        where name.hasPrefix("strava-sync.") && name.hasSuffix(".json") {
            riders.append(String(name.dropFirst("strava-sync.".count).dropLast(".json".count)))
        }
        var gear: [String: StravaGear] = [:]
        for rider in riders {
            for case let g? in load(garage: root, rider: rider).state.gear.values where gear[g.id] == nil { gear[g.id] = g }
        }
        return gear.values.sorted { $0.id < $1.id }
    }

    static func discarded(_ reason: String, rider: String?) -> Warning {
        Warning("ignored the sync state in \(displayPath(rider: rider)) (\(reason)); the listing starts over and the activity cache is kept")
    }

    /// A value from the file for a message: quoted when short printable ASCII, else described,
    /// so a hostile file cannot put control sequences on the terminal.
    static func shown(_ text: String) -> String {
        let plain = text.utf8.count <= 40 && text.unicodeScalars.allSatisfy { (0x20..<0x7F).contains($0.value) && $0 != "'" }
        return plain ? "'\(text)'" : "(a value of \(text.utf8.count) bytes with unusual characters)"
    }

    static func dotted(_ path: [CodingKey]) -> String { path.map(\.stringValue).joined(separator: ".") }

    /// Times a listing can plausibly have reached: from 1970 to two years from now (Strava has
    /// activities with clocks set ahead; a cursor past that would list nothing, or be refused).
    static func plausibleEpochs(now: Date) -> ClosedRange<Int64> { 0...(Int64(now.timeIntervalSince1970) + 2 * 366 * 86_400) }

    /// Throws a Problem when the state could not have come from a sync of this bikecheck.
    func check(now: Date) throws {
        if let p = pending {
            let range = Self.plausibleEpochs(now: now)
            let today = Int64(now.timeIntervalSince1970)
            switch p.mode {
            case .full:
                if let after = p.after { throw Problem(reason: "a full listing with 'after' \(after)") }
            case .incremental:
                guard let after = p.after else { throw Problem(reason: "an incremental listing without 'after'") }
                // Strava refuses an `after` in the future.
                guard (0...today).contains(after) else { throw Problem(reason: "'after' \(after) is not between 1970 and now") }
            }
            if let before = p.before {
                guard range.contains(before) else { throw Problem(reason: "'before' \(before) is not between 1970 and two years from now") }
                if let after = p.after, before <= after { throw Problem(reason: "'before' \(before) is not after 'after' \(after)") }
            }
        }
        for (id, g) in gear {
            guard isStravaBikeGearID(id) else { throw Problem(reason: "gear id \(Self.shown(id)) is not a Strava bike id") }
            if let g, g.id != id { throw Problem(reason: "gear \(Self.shown(id)) holds gear \(Self.shown(g.id))") }
        }
    }

    package func save(garage root: String, rider: String? = nil) throws {
        try Self.prepareDirectory(garage: root)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try AtomicFile.write(Array(try encoder.encode(self)) + [0x0A], to: Self.path(garage: root, rider: rider))
    }

    /// Creates `.bikecheck/` with a `.gitignore` of `*`, so local state never shows in git status.
    static func prepareDirectory(garage root: String) throws {
        try LocalState.prepare(garage: root)
    }
}
