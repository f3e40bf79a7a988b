import BikeCheckKit
import Foundation

/// What `bikecheck notify` has sent, in `<garage>/.bikecheck/notify-state.json` (git-ignored):
/// per reminder (one interval or to-do in one band, or a stale-data warning) the anchor it counted from and the day each channel
/// took it. Checked when loaded, never trusted: a file that is not what this bikecheck writes is
/// set aside with a warning and the state starts empty, so a reminder may be sent again once but
/// is never lost.
package struct NotifyState: Equatable, Sendable {
    /// One reminder's record.
    package struct Entry: Equatable, Sendable {
        /// What it counted from when sent (`Reminder.since`): a service, a new due day, a sync or a
        /// ride moves it, which resolves the reminder.
        package var since: Day?
        /// The day each channel took it, by channel name.
        package var sent: [String: Day]

        package init(since: Day?, sent: [String: Day] = [:]) {
            self.since = since
            self.sent = sent
        }
    }

    /// By reminder key (see `Key`): `bike/ID/INTERVAL/BAND`, `bike/ID/todo/TODO/BAND`, `stale/sync`…
    package var entries: [String: Entry]

    package init(entries: [String: Entry] = [:]) { self.entries = entries }

    package static let version = 1
    /// The state file, as messages name it.
    package static let displayPath = ".bikecheck/notify-state.json"
    static func path(garage root: String) -> String { LocalState.directory(garage: root) + "/notify-state.json" }
    /// Held while a run sends, so two runs (cron's and a hand's) never send the same reminder twice.
    package static func lockPath(garage root: String) -> String { LocalState.directory(garage: root) + "/notify.lock" }

    static let channelNames: Set<String> = ["ntfy", "webhook", "email"]

    /// A channel's name as the state keeps it: the garage's (`ntfy`), or a rider's (`alex/ntfy`,
    /// the rider's name an id), so two riders' channels of one kind never cover each other.
    static func isChannelName(_ name: String) -> Bool {
        guard let slash = name.lastIndex(of: "/") else { return channelNames.contains(name) }
        let rider = String(name[..<slash])
        return isIdentifier(rider) && channelNames.contains(String(name[name.index(after: slash)...]))
    }

    /// The saved state, and a warning when there was one that could not be used.
    package static func load(garage root: String) -> (state: NotifyState, warning: Warning?) {
        let path = path(garage: root)
        guard FileManager.default.fileExists(atPath: path) else { return (NotifyState(), nil) }
        // The size is checked before anything is read: a sparse 20 GB file costs nothing.
        let data: Data
        switch readFile(path, limit: FileSizeLimit.localState) {
        case .bytes(let bytes): data = Data(bytes)
        case .tooLarge(let size):
            return (NotifyState(), discarded("it is \(FileSizeLimit.describe(size)), more than \(FileSizeLimit.describe(FileSizeLimit.localState))"))
        case .unreadable: return (NotifyState(), discarded("it could not be read"))
        }
        do {
            return (try decode(data), nil)
        } catch let problem as Problem {
            return (NotifyState(), discarded(problem.reason))
        } catch {
            return (NotifyState(), discarded("it could not be read"))
        }
    }

    struct Problem: Error { var reason: String }

    static func discarded(_ reason: String) -> Warning {
        Warning("ignored the notify state in \(displayPath) (\(reason)); it starts over, so a reminder already sent may be sent once more")
    }

    /// Parses and checks every field: the version, each key's shape and band, days, channel names.
    static func decode(_ data: Data) throws -> NotifyState {
        guard let object = try? JSONSerialization.jsonObject(with: data), let top = object as? [String: Any] else {
            throw Problem(reason: "not a JSON object")
        }
        for key in top.keys.sorted() where key != "version" && key != "reminders" { throw Problem(reason: "unknown field \(shown(key))") }
        guard let version = top["version"] as? Int, version == Self.version else {
            throw Problem(reason: "not version \(Self.version)")
        }
        guard let reminders = top["reminders"] as? [String: Any] else { throw Problem(reason: "no 'reminders' object") }
        var state = NotifyState()
        for (key, value) in reminders {
            guard Self.isKey(key) else { throw Problem(reason: "\(shown(key)) is not a reminder key") }
            guard let record = value as? [String: Any] else { throw Problem(reason: "\(shown(key)) is not an object") }
            for field in record.keys.sorted() where field != "since" && field != "sent" {
                throw Problem(reason: "unknown field \(shown(key + "." + field))")
            }
            var since: Day?
            switch record["since"] {
            case nil, is NSNull: since = nil
            case let text as String:
                guard let day = Day(text) else { throw Problem(reason: "\(shown(key)).since is not a date") }
                since = day
            default: throw Problem(reason: "\(shown(key)).since is not a date")
            }
            guard let sent = record["sent"] as? [String: Any] else { throw Problem(reason: "\(shown(key)) has no 'sent' object") }
            var days: [String: Day] = [:]
            for (channel, value) in sent {
                guard isChannelName(channel) else { throw Problem(reason: "unknown channel \(shown(channel))") }
                guard let text = value as? String, let day = Day(text) else { throw Problem(reason: "\(shown(key)).sent.\(channel) is not a date") }
                days[channel] = day
            }
            state.entries[key] = Entry(since: since, sent: days)
        }
        return state
    }

    /// Whether `key` is one bikecheck writes (see `Key`).
    static func isKey(_ key: String) -> Bool { Key(key) != nil }

    /// A reminder's key, read: what it is about (`subject`), and the band it was sent for.
    ///
    /// - `bike|part / ID / INTERVAL / BAND`: an interval;
    /// - `bike|part / ID / todo / TODO / BAND`: a to-do, by its id, else its text with all but
    ///   letters, digits and `-._~` percent-encoded (so a `/` or a space cannot split the key);
    /// - `stale/sync`, `stale/bike/ID`: a stale-data warning, which has no band.
    ///
    /// Each ID a plain identifier; the band one bikecheck names, never `ok`.
    struct Key: Equatable {
        var subject: String
        var band: UrgencyBand?

        init?(_ text: String) {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            func plain(_ p: String) -> Bool {
                !p.isEmpty && p.count <= 200 && p.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F && $0 != "/" }
            }
            func encoded(_ p: String) -> Bool {
                !p.isEmpty && p.unicodeScalars.allSatisfy { $0.isASCII && (Key.unreserved.contains($0) || $0 == "%") }
            }
            if parts.first == "stale" {
                guard parts == ["stale", "sync"] || (parts.count == 3 && parts[1] == "bike" && plain(parts[2])) else { return nil }
                subject = text
                band = nil
                return
            }
            guard parts.first == "bike" || parts.first == "part", let last = parts.last, let band = UrgencyBand(last), band != .ok,
                band.description == last
            else { return nil }
            switch parts.count {
            case 4 where plain(parts[1]) && plain(parts[2]): break
            case 5 where plain(parts[1]) && parts[2] == "todo" && encoded(parts[3]): break
            default: return nil
            }
            subject = parts.dropLast().joined(separator: "/")
            self.band = band
        }

        static let unreserved = TodoStatus.keyCharacters

        /// `stale/sync`, or `stale/bike/ID` for a bike gone quiet.
        static func staleSubject(bike: String?) -> String { bike.map { "stale/bike/\($0)" } ?? "stale/sync" }

        /// `OWNER/todo/TODO` for `OWNER` `bike/ID` or `part/ID`, and a to-do's id or text.
        static func todoSubject(owner: String, todo: String) -> String { TodoStatus.key(owner: owner, todo: todo) }
    }

    /// The state as written: keys sorted, one line per field, so successive files diff well.
    package func encoded() -> [UInt8] {
        var out = "{\n  \"version\" : \(Self.version),\n  \"reminders\" : {"
        for (n, key) in entries.keys.sorted().enumerated() {
            let entry = entries[key]!
            let sent = entry.sent.keys.sorted().map { "\(json($0)) : \(json(entry.sent[$0]!.description))" }.joined(separator: ", ")
            out += n == 0 ? "\n" : ",\n"
            out += "    \(json(key)) : { \"since\" : \(entry.since.map { json($0.description) } ?? "null"), \"sent\" : { \(sent) } }"
        }
        out += entries.isEmpty ? "}\n}\n" : "\n  }\n}\n"
        return Array(out.utf8)
    }

    /// Writes the state atomically (a reader sees the old file or the new one, never half).
    package func save(garage root: String) throws(AtomicFile.Failure) {
        try LocalState.prepare(garage: root)
        try AtomicFile.write(encoded(), to: Self.path(garage: root))
    }

    private func json(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])) ?? Data("[\"\"]".utf8)
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }

    /// A value from the file for a message: quoted when short printable ASCII, else described.
    static func shown(_ text: String) -> String {
        let plain = text.utf8.count <= 60 && text.unicodeScalars.allSatisfy { (0x20..<0x7F).contains($0.value) && $0 != "'" }
        return plain ? "'\(text)'" : "(a value of \(text.utf8.count) bytes with unusual characters)"
    }
}
