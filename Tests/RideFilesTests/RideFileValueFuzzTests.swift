import BikeCheckKit
import Foundation
import RideFiles
import TestSupport
import Testing

/// A value fuzz of the numbers in TCX, GPX and FIT files: well-formed files whose numbers and
/// times are drawn from the edges (±1e19, ±1e308, 2^63, NaN, years 0001 and 9999, every FIT base
/// type). Each file is refused with its place, or gives a ride the cache can hold: never a trap.
/// A few hundred files of each format here; thousands under `BIKECHECK_SOAK`.
@Suite struct RideFileValueFuzzTests {
    static let numbers = [
        "0", "-0", "1", "-1", "12.5", "3600", "25000", "1e19", "-1e19", "1e308", "-1e308", "1.7976931348623157e308", "9223372036854775807",
        "9223372036854775808", "-9223372036854775809", "18446744073709551616", "4294967295", "4294967296", "1e-320", "2592000", "2592001",
        "100000000", "100000001", "NaN", "inf", "-inf", "0x10", "1e19.5", "",
    ]
    static let times = [
        "2026-05-01T08:00:00Z", "2026-05-01T09:00:00+02:00", "0001-01-01T00:00:00Z", "1899-12-31T23:59:59Z", "9999-12-31T23:59:59Z",
        "2026-05-01T08:00:00.999999999999Z", "2026-13-01T00:00:00Z", "1970-01-01T00:00:00-23:59",
    ]

    /// Values a ride has, drawn most of the time, so that files with only a few edge values (or
    /// none) are made too: the fuzz reaches rides as well as refusals.
    static let plain = ["0", "12.5", "100", "3600", "25000"]
    static let plainTimes = ["2026-05-01T08:00:00Z", "2026-05-01T09:00:00Z", "2026-05-01T09:30:00+02:00"]

    static func pick(_ list: [String], _ random: inout SeededGenerator) -> String {
        let usual = list == numbers ? plain : plainTimes
        return random.next(10) < 8 ? usual[random.next(usual.count)] : list[random.next(list.count)]
    }

    static func tcx(_ random: inout SeededGenerator) -> [UInt8] {
        func n() -> String { pick(numbers, &random) }
        func t() -> String { pick(times, &random) }
        var laps = ""
        for _ in 0...random.next(3) {
            var points = ""
            for _ in 0...random.next(3) {
                points += """
                    <Trackpoint><Time>\(t())</Time><Position><LatitudeDegrees>\(n())</LatitudeDegrees><LongitudeDegrees>\(n())</LongitudeDegrees></Position>
                    <AltitudeMeters>\(n())</AltitudeMeters><DistanceMeters>\(n())</DistanceMeters></Trackpoint>

                    """
            }
            laps +=
                "<Lap StartTime=\"\(t())\"><TotalTimeSeconds>\(n())</TotalTimeSeconds><DistanceMeters>\(n())</DistanceMeters>\n<Track>\n\(points)</Track></Lap>\n"
        }
        return Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase><Activities><Activity Sport="Biking"><Id>\(t())</Id>
            \(laps)<Creator><UnitId>\(n())</UnitId></Creator></Activity></Activities></TrainingCenterDatabase>

            """.utf8)
    }

    static func gpx(_ random: inout SeededGenerator) -> [UInt8] {
        func n() -> String { pick(numbers, &random) }
        var points = ""
        for _ in 0...random.next(5) {
            points += "<trkpt lat=\"\(n())\" lon=\"\(n())\"><ele>\(n())</ele><time>\(pick(times, &random))</time></trkpt>\n"
        }
        return Array("<?xml version=\"1.0\"?>\n<gpx><trk><type>cycling</type><trkseg>\n\(points)</trkseg></trk></gpx>\n".utf8)
    }

    /// A FIT file of file_id, session, record and activity messages whose every field has a base
    /// type and a value drawn at random (the CRC left 0: none).
    static func fit(_ random: inout SeededGenerator) -> [UInt8] {
        let values: [Double] = [
            0, 1, -1, 12.5, 3_600_000, 1e9, 1_100_000_000, 4_294_967_295, 4_294_967_296, 1e19, -1e19, 1e308, -1e308, 9.3e18, -9.3e18, 255, 256, 1e-300,
            .nan, .infinity,
        ]
        let types: [(type: UInt8, size: Int)] = [(0x00, 1), (0x01, 1), (0x02, 1), (0x83, 2), (0x84, 2), (0x85, 4), (0x86, 4), (0x88, 4), (0x89, 8), (0x8C, 4)]
        func encode(_ v: Double, _ type: UInt8, _ size: Int) -> [UInt8] {
            let bits: UInt64
            switch type {
            case 0x88: bits = UInt64(Float(v).bitPattern)
            case 0x89: bits = v.bitPattern
            default:
                bits = v.isFinite ? UInt64(bitPattern: Int64(clamping: Int64(exactly: v.rounded(.towardZero)) ?? (v < 0 ? .min : .max))) : 0xFFFF_FFFF_FFFF_FFFF
            }
            return (0..<size).map { UInt8(truncatingIfNeeded: bits >> (8 * $0)) }
        }
        var data: [UInt8] = []
        let messages: [(global: UInt16, fields: [UInt8])] = [
            (0, [3]), (20, [253, 0, 1, 2, 5, 78]), (20, [253, 5]), (18, [253, 2, 5, 6, 7, 8, 9, 22]), (34, [253, 5]), (23, [3]),
        ]
        for (local, message) in messages.enumerated() {
            // Mostly each field's own type and a value it could hold; now and then any type and
            // an edge value.
            var chosen: [(UInt8, (type: UInt8, size: Int))] = []
            for number in message.fields {
                let own: (type: UInt8, size: Int) = number == 253 || number == 2 || number == 3 ? (0x86, 4) : (0x84, 2)
                chosen.append((number, random.next(10) < 8 ? own : types[random.next(types.count)]))
            }
            data += [0x40 | UInt8(local), 0, 0, UInt8(message.global & 0xFF), UInt8(message.global >> 8), UInt8(chosen.count)]
            for (number, t) in chosen { data += [number, UInt8(t.size), t.type] }
            for _ in 0...random.next(2) {
                data.append(UInt8(local))
                for (number, t) in chosen {
                    let usual: Double = number == 253 || number == 2 ? 1_100_000_000 : number == 3 ? 3_980_001_234 : 1000
                    data += encode(random.next(10) < 8 ? usual : values[random.next(values.count)], t.type, t.size)
                }
            }
        }
        let size = UInt32(data.count)
        let header: [UInt8] = [14, 0x20, 0x54, 0x08] + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) } + Array(".FIT".utf8) + [0, 0]
        return header + data + [0, 0]
    }

    /// Decodes as `import files` does, then makes the cache's activity of every ride read.
    static func importOne(_ bytes: [UInt8], name: String) throws -> Bool {
        let ride: RecordedRide
        do { ride = try RideFileReader.decode(bytes, name: name) } catch { return false }
        let activity = try FileImport.activity(ride, id: 1 << 62, file: name)
        #expect(ActivityLimits.check(activity) == nil, "\(name): \(activity)")
        return true
    }

    @Test func outOfRangeNumbersInTCXGPXAndFITAreBadFilesNeverATrap() throws {
        var random = SeededGenerator(seed: Soak.seed)
        let rounds = Soak.rounds(quick: 300, long: 5_000)
        var read = ["tcx": 0, "gpx": 0, "fit": 0]
        for _ in 0..<rounds {
            if try Self.importOne(Self.tcx(&random), name: "a.tcx") { read["tcx"]! += 1 }
            if try Self.importOne(Self.gpx(&random), name: "a.gpx") { read["gpx"]! += 1 }
            if try Self.importOne(Self.fit(&random), name: "a.fit") { read["fit"]! += 1 }
        }
        // Both outcomes happen: the fuzz reaches rides as well as refusals.
        for (format, n) in read.sorted(by: { $0.key < $1.key }) { #expect(n > 0 && n < rounds, "\(format): \(n) of \(rounds) read") }
        Soak.report("ride-file value fuzz: \(rounds) files of each format, 0 crashes, read \(read.sorted { $0.key < $1.key })")
    }

    @Test func aLapTimeOf1e19IsRefusedAtItsLine() throws {
        for value in ["1e19", "-1e19"] {
            let tcx = """
                <?xml version="1.0"?>
                <TrainingCenterDatabase><Activities><Activity Sport="Biking"><Id>2026-05-01T08:00:00Z</Id>
                <Lap StartTime="2026-05-01T08:00:00Z">
                <TotalTimeSeconds>\(value)</TotalTimeSeconds></Lap></Activity></Activities></TrainingCenterDatabase>

                """
            let error = try #require(throws: RideFileError.self) { try RideFileReader.decode(Array(tcx.utf8), name: "a.tcx") }
            #expect(error.line == 4 && error.message.contains("out of range"), "\(error)")
        }
    }

    @Test func aFITTimestampOrSerialStoredAsAHugeFloatIsRefusedAtItsByte() throws {
        // A session whose timestamp field is a float64 holding 1e19.
        var data: [UInt8] = [0x40, 0, 0, 18, 0, 1, 253, 8, 0x89, 0x00]
        data += (0..<8).map { UInt8(truncatingIfNeeded: (1e19 as Double).bitPattern >> (8 * $0)) }
        let size = UInt32(data.count)
        let file: [UInt8] =
            [14, 0x20, 0x54, 0x08] + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) } + Array(".FIT".utf8) + [0, 0] + data + [0, 0]
        let error = try #require(throws: RideFileError.self) { try FITDecoder.decode(file) }
        #expect(error.offset == 14 + 9 && error.message.contains("out of range"), "\(error)")
    }
}
