import BikeCheckKit
import Foundation
import Testing

/// The benchmark garage generator (scripts/generate-garage.py) must write exactly what the
/// encoder would, or the benchmark would measure a cache bikecheck never writes.
@Test func generatedCacheFilesAreByteIdenticalToTheEncoder() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("bikecheck-generated-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: out) }

    let python = Process()
    python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    python.arguments = [
        "python3", root.appendingPathComponent("scripts/generate-garage.py").path, out.path,
        "--bikes", "6", "--activities", "3000", "--years", "2",
    ]
    python.standardError = FileHandle.nullDevice
    try python.run()
    python.waitUntilExit()
    try #require(python.terminationStatus == 0)

    let folder = out.appendingPathComponent("activities")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    #expect(names.count == 25)
    var total = 0
    for name in names {
        let bytes = Array(try Data(contentsOf: folder.appendingPathComponent(name)))
        let decoded = ActivityCacheFormat.decode(bytes, path: name)
        #expect(decoded.diagnostics.isEmpty, "\(name)")
        #expect(try ActivityCacheFormat.encode(decoded.activities) == bytes, "\(name) differs from the encoder's bytes")
        total += decoded.activities.count
    }
    #expect(total == 3000)

    let loaded = GarageLoader.load(at: out.path)
    #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics.map(\.message))")
    #expect(loaded.garage.bikes.count == 6)
    // Wheelsets moved between the bikes, valid: mounts one bike at a time, on bikes that exist.
    #expect(loaded.garage.parts.count == 200)
    #expect(loaded.garage.parts.contains { $0.part.mounts.count > 2 })
}

/// The benchmark's peer garage (`--peer`: the strava-gear cross-check's garage at scale) is
/// valid, in the encoder's bytes, and gives strava-gear the same rides as its CSV.
@Test func generatedPeerGarageIsValidInTheEncodersBytesWithStravaGearsInputBeside() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("bikecheck-generated-peer-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: out) }

    let python = Process()
    python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    python.arguments = [
        "python3", root.appendingPathComponent("scripts/generate-garage.py").path, out.path,
        "--peer", "--bikes", "5", "--activities", "3000", "--years", "2", "--parts", "6",
    ]
    python.standardError = FileHandle.nullDevice
    try python.run()
    python.waitUntilExit()
    try #require(python.terminationStatus == 0)

    let folder = out.appendingPathComponent("activities")
    var ids: [Int64] = []
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
        let bytes = Array(try Data(contentsOf: folder.appendingPathComponent(name)))
        let decoded = ActivityCacheFormat.decode(bytes, path: name)
        #expect(decoded.diagnostics.isEmpty, "\(name)")
        #expect(try ActivityCacheFormat.encode(decoded.activities) == bytes, "\(name) differs from the encoder's bytes")
        ids += decoded.activities.map(\.id)
    }
    #expect(ids == Array(1...3000))
    let csv = try String(contentsOf: out.appendingPathComponent("strava-gear/activities.csv"), encoding: .utf8)
    #expect(csv.split(separator: "\n").count == 3001)

    let loaded = GarageLoader.load(at: out.path)
    #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics.map(\.message))")
    #expect(loaded.garage.bikes.count == 5 && loaded.garage.parts.count == 6)
    #expect(loaded.garage.parts.allSatisfy { $0.part.mounts.count > 2 })
}

@Test func daysParseFromBytesExactlyAsFromText() {
    for text in ["2026-02-28", "2024-02-29", "2025-02-29", "2026-13-01", "2026-1-01", "20260101xx", "2026-02-2x", ""] {
        var copy = text
        let fromBytes = copy.withUTF8 { Day(utf8: $0) }
        #expect(fromBytes == Day(text), "\(text)")
    }
}

@Test func anActivityKnowsItsLocalDayAndStartMonthFromItsDates() {
    let evening = Activity(
        id: 1, name: "Late ride", sportType: "Ride", startDate: "2026-01-31T23:30:00Z",
        startDateLocal: "2026-02-01T00:30:00Z", movingTime: 3600, elapsedTime: 3600, distance: 20000)
    #expect(evening.localDay == Day("2026-02-01"))
    #expect(evening.starts(inMonth: "2026-01"))
    #expect(!evening.starts(inMonth: "2026-02"))
    var utcOnly = evening
    utcOnly.startDateLocal = nil
    #expect(utcOnly.localDay == Day("2026-01-31"))
    utcOnly.startDate = "2026-01"
    #expect(utcOnly.localDay == nil)
    #expect(utcOnly.starts(inMonth: "2026-01"))
}
