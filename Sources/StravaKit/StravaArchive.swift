import BikeCheckKit
import Foundation
import RideFiles
import ZIPFoundation

/// Reads Strava's bulk export ("Download your archive"): `activities.csv` in the current
/// (2019–today, English or localised headers) or the legacy (before mid-2019) layout, and
/// `bikes.csv`. Columns with duplicated names are told apart by position.
package struct StravaArchive: Sendable {
    /// A bike named in `bikes.csv`, with its Strava id when an activity row linked the two.
    package struct Bike: Sendable, Equatable {
        package var name: String
        package var brand: String?
        package var model: String?
        package var gearID: String?
    }

    /// A row that could not be read, and why.
    package struct Skipped: Sendable, Equatable {
        package var line: Int
        package var reason: String
    }

    /// An activity row as read: the activity, its line, and the gear name it gives.
    package struct Row: Sendable, Equatable {
        package var line: Int
        /// Its `gearID` is the row's own `Bike` id, else what `link(gearByName:)` found for its gear name.
        package var activity: Activity
        /// `Activity Gear` (legacy: `gear`), when the gear is a bike or may be one (not shoes: a
        /// row with a `Gear` id and no `Bike` id).
        package var gearName: String?
        /// Whether `Bike` gave the gear id (else it came from the gear name, or nowhere).
        package var hasBikeID: Bool
        /// The original file in the export (`Filename`: `activities/123.fit.gz`), when it has one.
        package var filename: String? = nil
    }

    package var rows: [Row] = []
    package var activities: [Activity] { rows.map(\.activity) }
    package var bikes: [Bike] = []
    package var skipped: [Skipped] = []
    /// Gear names on activities that no id could be found for, with their counts.
    package var unlinkedGear: [String: Int] {
        rows.reduce(into: [:]) { counts, row in
            if row.activity.gearID == nil, let name = row.gearName { counts[name, default: 0] += 1 }
        }
    }
    /// "current", "current (localised, read by column position)", "legacy".
    package var layout = ""
    /// Whether the archive had a `bikes.csv`.
    package var hasBikesFile = false

    /// Reads a zip file or an unpacked folder, and links gear names to Strava ids with
    /// `gearByName` where the rows carry none (legacy exports name gear only).
    package static func read(path: String, gearByName: [String: String] = [:]) throws -> StravaArchive {
        let files = try loadFiles(path: path)
        guard let activities = files.activities else {
            throw ArchiveError("no activities.csv in '\(path)'; give the zip Strava emailed, or the folder it unpacks to")
        }
        var archive = StravaArchive()
        archive.readActivities(activities)
        if let bikes = files.bikes {
            archive.hasBikesFile = true
            archive.readBikes(bikes)
        }
        archive.link(gearByName: gearByName)
        return archive
    }

    /// Gives each row without a `Bike` id the id of its gear name: first as the archive's own
    /// rows link them, then as `gearByName` (any case) does. A row keeps an id it has.
    package mutating func link(gearByName: [String: String]) {
        var ids = gearByName.reduce(into: [String: String]()) { $0[Self.key($1.key)] = $1.value }
        for (name, id) in gearIDsByName { ids[name] = id }
        for k in rows.indices where !rows[k].hasBikeID && rows[k].activity.gearID == nil {
            rows[k].activity.gearID = rows[k].gearName.flatMap { ids[Self.key($0)] }
        }
        for k in bikes.indices where bikes[k].gearID == nil { bikes[k].gearID = ids[Self.key(bikes[k].name)] }
    }

    /// A name as gear names are compared: trimmed, lower case, runs of spaces as one.
    package static func key(_ name: String) -> String {
        name.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    static func loadFiles(path: String) throws -> (activities: [UInt8]?, bikes: [UInt8]?) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ArchiveError("no such file or folder '\(path)'")
        }
        let limit = FileSizeLimit.stravaExportFile
        /// `size` nil: an entry that inflated past the limit.
        func tooLarge(_ name: String, _ size: Int?) -> ArchiveError {
            let what = size.map { "is \(FileSizeLimit.describe($0))" } ?? "inflates to more than \(FileSizeLimit.describe(min(limit, FileSizeLimit.unpacked)))"
            return ArchiveError(
                "'\(name)' in '\(path)' \(what), more than a Strava export's file may be (\(FileSizeLimit.describe(limit))); check that it is the export Strava emailed"
            )
        }
        if isDirectory.boolValue {
            func read(_ name: String) throws -> [UInt8]? {
                switch readFile(path + "/" + name, limit: limit) {
                case .bytes(let bytes): return bytes
                case .tooLarge(let size): throw tooLarge(name, size)
                case .unreadable: return nil
                }
            }
            return (try read("activities.csv"), try read("bikes.csv"))
        }
        let archive: Archive
        do { archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read) } catch {
            throw ArchiveError("'\(path)' is not a zip file or a folder")
        }
        // The export has them at the top; a re-zipped folder may nest them one level down.
        // An entry is bounded by the size its header gives and by the bytes it inflates to (a
        // header can lie: a zip bomb's does).
        func entry(_ name: String) throws -> [UInt8]? {
            let candidates = archive.filter { $0.type == .file && ($0.path == name || $0.path.hasSuffix("/" + name)) }
            guard let best = candidates.min(by: { $0.path.count < $1.path.count }) else { return nil }
            if best.uncompressedSize > UInt64(limit) { throw tooLarge(name, Int(clamping: best.uncompressedSize)) }
            switch Unzip.extract(best, of: archive, limit: min(limit, FileSizeLimit.unpacked)) {
            case .success(let bytes): return bytes
            case .failure(.tooLarge): throw tooLarge(name, nil)
            case .failure(.unreadable): return nil
            }
        }
        return (try entry("activities.csv"), try entry("bikes.csv"))
    }

    // MARK: - activities.csv

    /// Column positions of the current layout (stable since 2019; later columns drift), for
    /// exports whose headers are in another language.
    static let currentPositions: [String: Int] = [
        "Activity ID": 0, "Activity Date": 1, "Activity Name": 2, "Activity Type": 3, "Elapsed Time": 5,
        "Distance": 6, "Commute": 9, "Activity Gear": 11, "Filename": 12,
        "Elapsed Time#2": 15, "Moving Time": 16, "Distance#2": 17, "Elevation Gain": 20,
    ]

    mutating func readActivities(_ bytes: [UInt8]) {
        let records = CSVReader.records(bytes)
        guard let header = records.first?.fields, let (column, legacy) = columns(header) else { return }
        // Gear name → Strava id, learnt from rows that have both (the "Bike" column). A name two
        // rows link to different ids is no guide for rows that name it alone.
        var learnt: [String: Set<String>] = [:]
        let rows = Array(records.dropFirst())
        if let bike = column["Bike"], let gear = column["Activity Gear"] {
            for r in rows where r.fields.count > max(bike, gear) {
                if let id = Self.bikeID(r.fields[bike]), !Self.key(r.fields[gear]).isEmpty { learnt[Self.key(r.fields[gear]), default: []].insert(id) }
            }
        }
        gearIDsByName = learnt.compactMapValues { $0.count == 1 ? $0.first : nil }
        for (line, f) in rows.sorted(by: { $0.line < $1.line }) {
            switch Self.row(CSVRow(fields: f, column: column), line: line, legacy: legacy) {
            case .success(let row): self.rows.append(row)
            case .failure(let skip): skipped.append(skip)
            }
        }
    }

    /// The header's columns by (name, occurrence) — "Distance" is km for display, "Distance#2"
    /// metres — and whether it is the legacy layout; nil (and why, in `skipped`) for a layout
    /// this reader does not know.
    private mutating func columns(_ header: [String]) -> (column: [String: Int], legacy: Bool)? {
        let names = header.map { $0.trimmingCharacters(in: .whitespaces) }
        var column: [String: Int] = [:]
        var seenNames: [String: Int] = [:]
        for (i, name) in names.enumerated() {
            let n = (seenNames[name] ?? 0) + 1
            seenNames[name] = n
            column[n == 1 ? name : "\(name)#\(n)"] = i
        }
        let legacy = names.first == "id" && column["elapsed_time"] != nil
        if legacy {
            layout = "legacy"
        } else if column["Activity ID"] != nil {
            layout = "current"
        } else if names.count >= 21 {
            layout = "current (localised headers, read by column position)"
            column = Self.currentPositions
        } else if names.count == 10 {
            layout = "current, 10 columns (localised headers, read by column position)"
            column = [
                "Activity ID": 0, "Activity Date": 1, "Activity Name": 2, "Activity Type": 3, "Elapsed Time": 5,
                "Distance": 6, "Commute": 7, "Activity Gear": 8, "Filename": 9,
            ]
        } else {
            skipped.append(Skipped(line: 1, reason: "unknown activities.csv layout (\(names.count) columns starting '\(names.first ?? "")')"))
            return nil
        }
        return (column, legacy)
    }

    /// One row's fields by column name.
    struct CSVRow {
        var fields: [String]
        var column: [String: Int]
        /// Why a number that is there is not one (the first such), once `number` has met it.
        var unreadable: String?

        func value(_ key: String) -> String? {
            guard let i = column[key], i < fields.count else { return nil }
            let v = fields[i].trimmingCharacters(in: .whitespaces)
            return v.isEmpty ? nil : v
        }

        /// The first of `keys` that has a value, as a number. A number that is there must be
        /// read: a value that is not one is noted in `unreadable`, it never becomes 0. Only an
        /// empty field is missing (then the next column, or nil).
        mutating func number(_ keys: String...) -> Double? {
            for key in keys {
                guard let text = value(key) else { continue }
                if let v = StravaArchive.number(text) { return v }
                if unreadable == nil { unreadable = "\(key.split(separator: "#")[0].lowercased()) '\(text)' is not a number" }
                return nil
            }
            return nil
        }
    }

    /// A row read: an activity, or why it is skipped.
    enum Read {
        case success(Row)
        case failure(Skipped)
    }

    /// A row as an activity, or why it is skipped.
    private static func row(_ f: CSVRow, line: Int, legacy: Bool) -> Read {
        var f = f
        guard let idText = f.value(legacy ? "id" : "Activity ID"), let id = Int64(idText), id > 0 else {
            return .failure(Skipped(line: line, reason: "no activity id"))
        }
        guard let dateText = f.value(legacy ? "date" : "Activity Date"), let start = parseDate(dateText) else {
            return .failure(Skipped(line: line, reason: "activity \(id): unreadable date '\(f.value(legacy ? "date" : "Activity Date") ?? "")'"))
        }
        // Without a value, the other column, or 0, as Strava's API has it.
        let elapsed = legacy ? f.number("elapsed_time") : f.number("Elapsed Time#2", "Elapsed Time")
        let moving = legacy ? nil : f.number("Moving Time")
        let distance = legacy ? f.number("distance") : f.number("Distance#2") ?? f.number("Distance").map { $0 * 1000 }
        let elevation = f.number("Elevation Gain")
        if let unreadable = f.unreadable { return .failure(Skipped(line: line, reason: "activity \(id): \(unreadable)")) }
        let elapsedSeconds = elapsed ?? 0
        let movingSeconds = moving ?? elapsedSeconds
        // The cache's own limits: a row outside them is skipped here, never written. (Times
        // first: they become whole seconds, which a huge value must not reach.)
        if let (field, v) = [(ActivityLimits.Field.elapsedTime, elapsedSeconds), (.movingTime, movingSeconds)]
            .first(where: { !ActivityLimits.allows($0.1, $0.0) })
        {
            return .failure(Skipped(line: line, reason: "activity \(id): \(ActivityLimits.Violation(field: field, number: v))"))
        }
        let typeText = f.value(legacy ? "type" : "Activity Type") ?? "Workout"
        let commuteText = (f.value(legacy ? "commute" : "Commute") ?? "").lowercased()
        var gearName = f.value(legacy ? "gear" : "Activity Gear")
        let gear = f.value("Bike").flatMap(bikeID)
        // Shoes: another kind of gear (a `Gear` id without a `Bike` id) is no bike to match.
        if gear == nil, f.value("Gear") != nil { gearName = nil }
        // The export does not say whether an activity was entered by hand (an empty Filename
        // is not proof), so `manual` is Strava's default, false; a sync writes Strava's own value.
        let activity = Activity(
            id: id, name: f.value(legacy ? "name" : "Activity Name") ?? "", sportType: sportType(typeText),
            startDate: start, movingTime: Int(movingSeconds.rounded()), elapsedTime: Int(elapsedSeconds.rounded()),
            distance: distance ?? 0, totalElevationGain: elevation ?? 0, gearID: gear,
            commute: commuteText == "true" || commuteText == "1" || commuteText == "1.0", manual: false)
        if let violation = ActivityLimits.check(activity) { return .failure(Skipped(line: line, reason: "activity \(id): \(violation)")) }
        return .success(Row(line: line, activity: activity, gearName: gearName, hasBikeID: gear != nil, filename: f.value(legacy ? "filename" : "Filename")))
    }

    /// Gear names linked to ids by the archive's own rows (`Bike` column), by `key(_:)`.
    package private(set) var gearIDsByName: [String: String] = [:]

    mutating func readBikes(_ bytes: [UInt8]) {
        let records = CSVReader.records(bytes)
        guard let header = records.first?.fields.map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) else { return }
        let name = header.firstIndex(of: "bike name") ?? header.firstIndex(of: "name") ?? 0
        let brand = header.firstIndex(of: "bike brand") ?? header.firstIndex(of: "brand") ?? 1
        let model = header.firstIndex(of: "bike model") ?? header.firstIndex(of: "model") ?? 2
        for r in records.dropFirst() {
            func at(_ i: Int) -> String? {
                guard i < r.fields.count else { return nil }
                let v = r.fields[i].trimmingCharacters(in: .whitespaces)
                return v.isEmpty ? nil : v
            }
            let n = at(name) ?? [at(brand), at(model)].compactMap { $0 }.joined(separator: " ")
            guard !n.isEmpty else { continue }
            bikes.append(Bike(name: n, brand: at(brand), model: at(model), gearID: gearIDsByName[Self.key(n)]))
        }
    }

    // MARK: - Values

    /// `16540971.0` → `b16540971`.
    static func bikeID(_ s: String) -> String? {
        guard let v = Double(s.trimmingCharacters(in: .whitespaces)), v > 0, v == v.rounded(), v < 1e15 else { return nil }
        return "b" + String(Int64(v))
    }

    /// Numbers as the export writes them: `104132.0`, or with a decimal comma (`9,44`); nil for
    /// anything not finite (`Double` reads "nan" and "inf", which must never reach the cache).
    static func number(_ s: String) -> Double? {
        var s = s.trimmingCharacters(in: .whitespaces)
        guard !s.isEmpty else { return nil }
        if s.contains(",") { s = s.contains(".") ? s.replacingOccurrences(of: ",", with: "") : s.replacingOccurrences(of: ",", with: ".") }
        return Double(s).flatMap { $0.isFinite ? $0 : nil }
    }

    static let dateFormatters: [DateFormatter] = [
        "MMM d, yyyy, h:mm:ss a", "yyyy-MM-dd HH:mm:ss", "dd.MM.yyyy, HH:mm:ss", "d MMM yyyy, HH:mm:ss",
        "dd/MM/yyyy, HH:mm:ss", "d MMM yyyy HH:mm:ss", "yyyy-MM-dd'T'HH:mm:ss'Z'",
    ].map { format in
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = format
        return f
    }

    /// The export's dates are UTC, in the account language's format.
    static func parseDate(_ s: String) -> String? {
        for f in dateFormatters { if let d = f.date(from: s) { return Timestamps.format(d) } }
        return nil
    }

    /// Display names (and a few localised ones) to Strava's sport types; others lose their spaces.
    static func sportType(_ display: String) -> String {
        let known: [String: String] = [
            "radfahrt": "Ride", "virtuelle radfahrt": "VirtualRide", "mountainbikefahrt": "MountainBikeRide",
            "mountainbike-fahrt": "MountainBikeRide", "gravel-fahrt": "GravelRide", "e-bike-fahrt": "EBikeRide",
            "lauf": "Run", "spaziergang": "Walk", "wanderung": "Hike", "sortie à vélo": "Ride", "vélo": "Ride",
            "course à pied": "Run", "marche": "Walk", "ciclismo": "Ride", "carrera": "Run", "fietsrit": "Ride",
            "hardloopsessie": "Run", "ride": "Ride", "e-bike ride": "EBikeRide", "e-mountain bike ride": "EMountainBikeRide",
        ]
        if let k = known[display.lowercased()] { return k }
        return display.split(whereSeparator: { $0 == " " || $0 == "-" }).map { word in
            word.prefix(1).uppercased() + word.dropFirst()
        }.joined()
    }
}

/// An archive that could not be read at all.
package struct ArchiveError: Error, CustomStringConvertible {
    package var description: String
    init(_ message: String) { description = message }
}
