import Foundation
import RideFiles
import TestSupport
import Testing

/// The ride-file decoders against files other programs wrote (fit-tool, gpsbabel) and what other
/// programs read from them (Garmin's FIT SDK, gpxpy): starts equal, times and distances within
/// 1 %. The tools live in `.build-tools/ride-files` (`scripts/bootstrap --test`).
@Suite struct RideFileTests {
    @discardableResult
    static func tool(_ arguments: [String], in folder: TemporaryFolder) throws -> String { try rideFilesTool(arguments, in: folder.url) }

    static func gpsbabel(_ arguments: [String], in folder: TemporaryFolder) throws {
        let path = "/usr/bin/gpsbabel"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            Issue.record("no gpsbabel: run scripts/bootstrap --test (it installs Debian's gpsbabel)")
            return
        }
        let r = try runProcess(URL(fileURLWithPath: path), arguments, in: folder.url)
        #expect(r.status == 0, "gpsbabel \(arguments.joined(separator: " ")): \(r.stderr)")
    }

    static func reference(_ file: String, in folder: TemporaryFolder) throws -> [String: Any] {
        let out = try tool(["reference", file], in: folder)
        return (try? JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]) ?? [:]
    }

    static func within1Percent(_ a: Double, _ b: Double?) -> Bool {
        guard let b else { return false }
        return abs(a - b) <= max(abs(b) * 0.01, 1)
    }

    static func read(_ path: String) throws -> RecordedRide { try RideFileReader.read(path).ride }

    @Test func aFitToolActivityReadsAsGarminsSDKReadsIt() throws {
        let folder = try TemporaryFolder()
        _ = try Self.tool(["fit", "a.fit", "--serial", "3980001234", "--device", "1234567", "--sub-sport", "7", "--stop-from", "1200"], in: folder)
        let expected = try Self.reference("a.fit", in: folder)
        let ride = try Self.read(folder.path + "/a.fit")
        #expect(ride.start == expected["start"] as? Int64 ?? (expected["start"] as? Int).map(Int64.init))
        #expect(Self.within1Percent(ride.distance, expected["distance"] as? Double), "\(ride.distance) vs \(expected)")
        #expect(Self.within1Percent(ride.movingTime, expected["moving"] as? Double), "\(ride.movingTime) vs \(expected)")
        #expect(Self.within1Percent(ride.elapsedTime, expected["elapsed"] as? Double), "\(ride.elapsedTime) vs \(expected)")
        #expect(ride.devices == [3_980_001_234, 1_234_567])
        #expect(ride.devices.map(Int.init) == (expected["serials"] as? [Int]))
        #expect(ride.sport == "Ride")
        #expect(!ride.indoor)
        #expect(ride.ascent == 123)
        #expect(ride.movingTime < ride.elapsedTime - 200, "the stop is not moving time")
    }

    @Test func anIndoorCyclingFITOrOneWithoutPositionsIsATrainerRide() throws {
        let folder = try TemporaryFolder()
        _ = try Self.tool(["fit", "indoor.fit", "--sub-sport", "6"], in: folder)
        _ = try Self.tool(["fit", "virtual.fit", "--sub-sport", "58"], in: folder)
        _ = try Self.tool(["fit", "nogps.fit", "--sub-sport", "0", "--no-positions"], in: folder)
        #expect(try Self.read(folder.path + "/indoor.fit").indoor)
        let virtual = try Self.read(folder.path + "/virtual.fit")
        #expect(virtual.indoor && virtual.sport == "VirtualRide")
        #expect(try Self.read(folder.path + "/nogps.fit").indoor)
    }

    @Test func gpsbabelsFITAndTCXOfAGPXTrackAgreeWithGpxpyAndTheSDK() throws {
        let folder = try TemporaryFolder()
        _ = try Self.tool(["gpx", "ride.gpx", "--stop-from", "1500"], in: folder)
        try Self.gpsbabel(["-i", "gpx", "-f", "ride.gpx", "-o", "garmin_fit", "-F", "ride.fit"], in: folder)
        try Self.gpsbabel(["-i", "gpx", "-f", "ride.gpx", "-o", "gtrnctr,course=0,sport=Biking", "-F", "ride.tcx"], in: folder)
        let gpxRef = try Self.reference("ride.gpx", in: folder)
        let fitRef = try Self.reference("ride.fit", in: folder)
        let gpx = try Self.read(folder.path + "/ride.gpx")
        let fit = try Self.read(folder.path + "/ride.fit")
        let tcx = try Self.read(folder.path + "/ride.tcx")
        let start = (gpxRef["start"] as? Int).map(Int64.init)
        for ride in [gpx, fit, tcx] {
            #expect(ride.start == start, "\(ride.format)")
            #expect(Self.within1Percent(ride.distance, gpxRef["distance"] as? Double), "\(ride.format): \(ride.distance) vs \(gpxRef)")
            #expect(Self.within1Percent(ride.elapsedTime, gpxRef["elapsed"] as? Double), "\(ride.format): \(ride.elapsedTime) vs \(gpxRef)")
            #expect(ride.sport == "Ride" && !ride.indoor, "\(ride.format)")
        }
        // gpsbabel's FIT is a course of records (no session): read as the SDK reads it.
        #expect(Self.within1Percent(fit.distance, fitRef["distance"] as? Double), "\(fit.distance) vs \(fitRef)")
        // Moving time: gpxpy's (1 km/h) for the track; TCX's own lap total, which gpsbabel makes
        // the elapsed time.
        #expect(Self.within1Percent(gpx.movingTime, gpxRef["moving"] as? Double), "\(gpx.movingTime) vs \(gpxRef)")
        #expect(Self.within1Percent(fit.movingTime, gpxRef["moving"] as? Double), "\(fit.movingTime) vs \(gpxRef)")
        #expect(Self.within1Percent(tcx.movingTime, gpxRef["elapsed"] as? Double), "\(tcx.movingTime) vs \(gpxRef)")
    }

    /// A file's name is taken without Foundation's bridging (asked several times a file), as
    /// `NSString` takes it.
    @Test func aPathsLastComponentIsFoundationsLastPathComponent() {
        for path in ["a.fit", "/tmp/r/0001.FIT.gz", "rides/", "rides//", "/", "", "./x/y.gpx", "a/b/.fit", "é/ü.tcx"] {
            #expect(String(RideFileReader.lastComponent(path)) == (path as NSString).lastPathComponent, "\(path)")
        }
    }

    /// A folder is walked as FileManager's enumerator walks it (without its cost per file):
    /// subfolders and hidden files in, links to folders not followed.
    @Test func aFolderIsWalkedAsFoundationEnumeratesIt() throws {
        let folder = try TemporaryFolder()
        for file in ["x.fit", ".h.fit", "a/y.fit", "a/b/z.fit.gz", "other/o.fit"] { try folder.write(file, "") }
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/link", withDestinationPath: folder.path + "/other")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/lx.fit", withDestinationPath: folder.path + "/x.fit")
        let enumerated = (FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []).sorted()
        #expect(RideFileReader.files(in: [folder.path]).files == enumerated.filter { RideFileReader.kind(of: $0) != nil }.map { folder.path + "/" + $0 })
        #expect(RideFileReader.files(in: [folder.path]).files.count == 6)
    }

    @Test func aGzippedFileReadsAsTheFileItself() throws {
        let folder = try TemporaryFolder()
        _ = try Self.tool(["fit", "a.fit", "--device", "42"], in: folder)
        _ = try Self.tool(["gpx", "b.gpx"], in: folder)
        for name in ["a.fit", "b.gpx"] {
            let r = try runProcess(URL(fileURLWithPath: "/bin/gzip"), ["-k", name], in: folder.url)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try Self.read(folder.path + "/" + name + ".gz") == (try Self.read(folder.path + "/" + name)))
        }
    }

    @Test func everyCutOfAFITFileIsAnErrorAndAFlippedByteFailsItsCRC() throws {
        let folder = try TemporaryFolder()
        _ = try Self.tool(["fit", "a.fit", "--seconds", "120"], in: folder)
        let bytes = try RideFileReader.contents(of: folder.path + "/a.fit")
        for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 97)) {
            #expect(throws: RideFileError.self, "cut at \(length)") { try FITDecoder.decode(Array(bytes[..<length])) }
        }
        var flipped = bytes
        flipped[bytes.count / 2] ^= 0x10
        let error = try #require(throws: RideFileError.self) { try FITDecoder.decode(flipped) }
        #expect(error.message.contains("CRC"), "\(error)")
    }

    /// A data message that runs past the data is an error at the first field it cuts off (or at
    /// its developer fields), as the message is read from where its definition puts each field.
    @Test func aCutDataMessageIsAnErrorAtTheFieldItCuts() throws {
        func file(_ data: [UInt8]) -> [UInt8] {
            let size = UInt32(data.count)
            return [12, 0x20, 0x54, 0x08] + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) } + Array(".FIT".utf8) + data + [0, 0]
        }
        // A record's definition (timestamp, distance), then a record with two of the distance's four bytes.
        let record: [UInt8] = [0x40, 0, 0, 20, 0, 2, 253, 4, 0x86, 5, 4, 0x86]
        let cut = try #require(throws: RideFileError.self) { try FITDecoder.decode(file(record + [0, 1, 0, 0, 0, 9, 9])) }
        #expect(cut.message == "truncated inside a data message" && cut.offset == 12 + record.count + 1 + 4, "\(cut)")
        // The same with one developer field of three bytes, of which one is there.
        let developer: [UInt8] = [0x60, 0, 0, 20, 0, 1, 253, 4, 0x86, 1, 0, 3, 0]
        let cutDeveloper = try #require(throws: RideFileError.self) { try FITDecoder.decode(file(developer + [0, 1, 0, 0, 0, 9])) }
        #expect(
            cutDeveloper.message == "truncated inside a data message's developer fields" && cutDeveloper.offset == 12 + developer.count + 1 + 4,
            "\(cutDeveloper)")
    }

    /// A record message is read whole from where its definition puts each field, little- or
    /// big-endian; a definition that names a field twice is read field by field (the last valid
    /// value kept): the same records give the same ride every way.
    @Test func aRecordReadsTheSameWholeBigEndianOrFieldByField() throws {
        func file(_ data: [UInt8]) -> [UInt8] {
            let size = UInt32(data.count)
            return [12, 0x20, 0x54, 0x08] + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) } + Array(".FIT".utf8) + data + [0, 0]
        }
        func bytes<T: FixedWidthInteger>(_ v: T, big: Bool) -> [UInt8] {
            withUnsafeBytes(of: big ? v.bigEndian : v.littleEndian) { Array($0) }
        }
        // Timestamp, latitude, longitude, altitude, distance; with `twice`, the distance again (invalid).
        func records(big: Bool, twice: Bool) -> [UInt8] {
            let global: [UInt8] = big ? [0, 20] : [20, 0]
            var data: [UInt8] = [0x40, 0, big ? 1 : 0] + global + [twice ? 6 : 5, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85, 2, 2, 0x84, 5, 4, 0x86]
            if twice { data += [5, 4, 0x86] }
            for k in 0..<5 {
                data += [0] + bytes(UInt32(1_000_000_000 + 2 * k), big: big) + bytes(Int32(565_000_000), big: big)
                data += bytes(Int32(101_000_000 + 2_000 * k), big: big) + bytes(UInt16(2_600 + 10 * k), big: big) + bytes(UInt32(1_400 * k), big: big)
                if twice { data += [0xFF, 0xFF, 0xFF, 0xFF] }
            }
            return data
        }
        let whole = try FITDecoder.decode(file(records(big: false, twice: false)))
        #expect(whole.start == 1_000_000_000 + 631_065_600 && whole.elapsedTime == 8 && whole.distance == 56 && whole.ascent == 8 && !whole.indoor, "\(whole)")
        #expect(try FITDecoder.decode(file(records(big: true, twice: false))) == whole)
        #expect(try FITDecoder.decode(file(records(big: false, twice: true))) == whole)
        #expect(try FITDecoder.decode(file(records(big: true, twice: true))) == whole)
    }

    @Test func aCutGzipIsAnErrorNotAHang() throws {
        let folder = try TemporaryFolder()
        _ = try Self.tool(["gpx", "b.gpx"], in: folder)
        _ = try runProcess(URL(fileURLWithPath: "/bin/gzip"), ["b.gpx"], in: folder.url)
        let whole = try #require(FileManager.default.contents(atPath: folder.path + "/b.gpx.gz"))
        try folder.write("cut.gpx.gz", Array(whole.prefix(whole.count / 2)))
        #expect(throws: RideFileError.self) { try Self.read(folder.path + "/cut.gpx.gz") }
    }

    @Test func brokenXMLNamesItsLine() throws {
        let folder = try TemporaryFolder()
        try folder.write("bad.gpx", "<?xml version=\"1.0\"?>\n<gpx>\n<trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"><time>2026-01-01T00:00:00Z</time>\n</trk>\n")
        try folder.write("nolat.gpx", "<gpx>\n<trk><trkseg>\n<trkpt lon=\"2\"></trkpt></trkseg></trk></gpx>\n")
        let bad = try #require(throws: RideFileError.self) { try Self.read(folder.path + "/bad.gpx") }
        #expect(bad.line != nil, "\(bad)")
        let nolat = try #require(throws: RideFileError.self) { try Self.read(folder.path + "/nolat.gpx") }
        #expect(nolat.line == 3, "\(nolat)")
    }

    /// Mutated FIT bytes and XML: every outcome is a ride or an error, never a crash or a hang.
    @Test func mutatedFilesNeverCrashOrHang() throws {
        let folder = try TemporaryFolder()
        _ = try Self.tool(["fit", "a.fit", "--seconds", "300", "--device", "7"], in: folder)
        _ = try Self.tool(["gpx", "b.gpx", "--seconds", "300"], in: folder)
        let fit = try RideFileReader.contents(of: folder.path + "/a.fit")
        let gpx = try RideFileReader.contents(of: folder.path + "/b.gpx")
        var random = SeededGenerator(seed: Soak.seed)
        let rounds = Soak.rounds(quick: 300, long: 20_000)
        let started = Date()
        for _ in 0..<rounds {
            var f = fit
            for _ in 0...random.next(8) { f[random.next(f.count)] = UInt8(truncatingIfNeeded: random.next()) }
            // With the CRC cleared, the mutations reach the message parser.
            if random.next(2) == 0 { (f[f.count - 2], f[f.count - 1]) = (0, 0) }
            _ = try? FITDecoder.decode(Array(f.prefix(f.count - random.next(4))))
            var x = gpx
            for _ in 0...random.next(8) { x[random.next(x.count)] = UInt8(truncatingIfNeeded: random.next()) }
            _ = try? XMLRideReader.decode(x, format: .gpx)
        }
        Soak.report("ride-file fuzz: \(rounds) rounds in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }
}
