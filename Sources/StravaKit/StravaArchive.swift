import BikeCheckKit
import Foundation
import ZIPFoundation

/// Reads Strava's bulk export ("Download your archive"): `activities.csv` in the current
/// (2019–today, English or localised headers) or the legacy (before mid-2019) layout, and
/// `bikes.csv`. Columns with duplicated names are told apart by position.
public struct StravaArchive: Sendable {
    /// A bike named in `bikes.csv`, with its Strava id when an activity row linked the two.
    public struct Bike: Sendable, Equatable {
        public var name: String
        public var brand: String?
        public var model: String?
        public var gearID: String?
    }

    /// A row that could not be read, and why.
    public struct Skipped: Sendable, Equatable {
        public var line: Int
        public var reason: String
    }

    public var activities: [Activity] = []
    public var bikes: [Bike] = []
    public var skipped: [Skipped] = []
    /// Gear names on activities that no id could be found for, with their counts.
    public var unlinkedGear: [String: Int] = [:]
    /// "current", "current (localised, read by column position)", "legacy".
    public var layout = ""

    /// Reads a zip file or an unpacked folder. `gearByName` resolves gear names to Strava ids
    /// where the rows carry none (legacy exports name gear only).
    public static func read(path: String, gearByName: [String: String] = [:]) throws -> StravaArchive {
        let files = try loadFiles(path: path)
        guard let activities = files.activities else {
            throw ArchiveError("no activities.csv in '\(path)'; give the zip Strava emailed, or the folder it unpacks to")
        }
        var archive = StravaArchive()
        archive.readActivities(activities, gearByName: gearByName.reduce(into: [:]) { $0[$1.key.lowercased()] = $1.value })
        if let bikes = files.bikes { archive.readBikes(bikes) }
        return archive
    }

    static func loadFiles(path: String) throws -> (activities: [UInt8]?, bikes: [UInt8]?) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ArchiveError("no such file or folder '\(path)'")
        }
        if isDirectory.boolValue {
            func read(_ name: String) -> [UInt8]? { FileManager.default.contents(atPath: path + "/" + name).map(Array.init) }
            return (read("activities.csv"), read("bikes.csv"))
        }
        let archive: Archive
        do { archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read) } catch {
            throw ArchiveError("'\(path)' is not a zip file or a folder")
        }
        // The export has them at the top; a re-zipped folder may nest them one level down.
        func entry(_ name: String) -> [UInt8]? {
            let candidates = archive.filter { $0.type == .file && ($0.path == name || $0.path.hasSuffix("/" + name)) }
            guard let best = candidates.min(by: { $0.path.count < $1.path.count }) else { return nil }
            var bytes: [UInt8] = []
            do { _ = try archive.extract(best, skipCRC32: false) { bytes += $0 } } catch { return nil }
            return bytes
        }
        return (entry("activities.csv"), entry("bikes.csv"))
    }

    // MARK: - activities.csv

    /// Column positions of the current layout (stable since 2019; later columns drift), for
    /// exports whose headers are in another language.
    static let currentPositions: [String: Int] = [
        "Activity ID": 0, "Activity Date": 1, "Activity Name": 2, "Activity Type": 3, "Elapsed Time": 5,
        "Distance": 6, "Commute": 9, "Activity Gear": 11, "Filename": 12,
        "Elapsed Time#2": 15, "Moving Time": 16, "Distance#2": 17, "Elevation Gain": 20,
    ]

    mutating func readActivities(_ bytes: [UInt8], gearByName: [String: String]) {
        let records = CSVReader.records(bytes)
        guard let header = records.first?.fields else { return }
        let names = header.map { $0.trimmingCharacters(in: .whitespaces) }
        // Columns by (name, occurrence): "Distance" is km for display, "Distance#2" metres.
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
            column = ["Activity ID": 0, "Activity Date": 1, "Activity Name": 2, "Activity Type": 3, "Elapsed Time": 5,
                      "Distance": 6, "Commute": 7, "Activity Gear": 8, "Filename": 9]
        } else {
            skipped.append(Skipped(line: 1, reason: "unknown activities.csv layout (\(names.count) columns starting '\(names.first ?? "")')"))
            return
        }

        // Gear name → Strava id, learnt from rows that have both (the "Bike" column).
        var gearIDs = gearByName
        var rows: [(line: Int, fields: [String])] = Array(records.dropFirst())
        if let bike = column["Bike"], let gear = column["Activity Gear"] {
            for r in rows where r.fields.count > max(bike, gear) {
                if let id = Self.bikeID(r.fields[bike]), !r.fields[gear].isEmpty { gearIDs[r.fields[gear].lowercased()] = id }
            }
        }
        gearIDsByName = gearIDs

        rows.sort { $0.line < $1.line }
        for (line, f) in rows {
            func value(_ key: String) -> String? {
                guard let i = column[key], i < f.count else { return nil }
                let v = f[i].trimmingCharacters(in: .whitespaces)
                return v.isEmpty ? nil : v
            }
            let idKey = legacy ? "id" : "Activity ID"
            guard let idText = value(idKey), let id = Int64(idText), id > 0 else {
                skipped.append(Skipped(line: line, reason: "no activity id"))
                continue
            }
            guard let dateText = value(legacy ? "date" : "Activity Date"), let start = Self.parseDate(dateText) else {
                skipped.append(Skipped(line: line, reason: "activity \(id): unreadable date '\(value(legacy ? "date" : "Activity Date") ?? "")'"))
                continue
            }
            let typeText = value(legacy ? "type" : "Activity Type") ?? "Workout"
            let elapsedValue = Self.number(value(legacy ? "elapsed_time" : "Elapsed Time#2")) ?? Self.number(value(legacy ? "elapsed_time" : "Elapsed Time")) ?? 0
            guard let elapsed = ActivityLimits.duration(elapsedValue) else {
                skipped.append(Skipped(line: line, reason: "activity \(id): elapsed time \(elapsedValue) s is more than 30 days"))
                continue
            }
            let movingValue = Self.number(value("Moving Time")) ?? Double(elapsed)
            guard let moving = ActivityLimits.duration(movingValue) else {
                skipped.append(Skipped(line: line, reason: "activity \(id): moving time \(movingValue) s is more than 30 days"))
                continue
            }
            var distance: Double
            if legacy {
                distance = Self.number(value("distance")) ?? 0
            } else if let metres = Self.number(value("Distance#2")) {
                distance = metres
            } else {
                distance = (Self.number(value("Distance")) ?? 0) * 1000
            }
            distance = max(0, distance)
            let commuteText = (value(legacy ? "commute" : "Commute") ?? "").lowercased()
            let gearName = value(legacy ? "gear" : "Activity Gear")
            var gear = value("Bike").flatMap(Self.bikeID)
            if gear == nil, let gearName {
                gear = gearIDs[gearName.lowercased()]
                if gear == nil { unlinkedGear[gearName, default: 0] += 1 }
            }
            let filename = value(legacy ? "filename" : "Filename")
            activities.append(Activity(
                id: id, name: value(legacy ? "name" : "Activity Name") ?? "", sportType: Self.sportType(typeText),
                startDate: start, movingTime: moving, elapsedTime: elapsed,
                distance: distance, totalElevationGain: Self.number(value("Elevation Gain")) ?? 0, gearID: gear,
                commute: commuteText == "true" || commuteText == "1" || commuteText == "1.0", manual: filename == nil))
        }
    }

    /// Gear names linked to ids (from the "Bike" column, plus what the caller knew).
    public private(set) var gearIDsByName: [String: String] = [:]

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
            bikes.append(Bike(name: n, brand: at(brand), model: at(model), gearID: gearIDsByName[n.lowercased()]))
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
    static func number(_ s: String?) -> Double? {
        guard var s = s?.trimmingCharacters(in: .whitespaces), !s.isEmpty else { return nil }
        if s.contains(",") { s = s.contains(".") ? s.replacingOccurrences(of: ",", with: "") : s.replacingOccurrences(of: ",", with: ".") }
        return Double(s).flatMap(ActivityLimits.finite)
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
public struct ArchiveError: Error, CustomStringConvertible {
    public var description: String
    init(_ message: String) { description = message }
}
