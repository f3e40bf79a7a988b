import Foundation
import TestSupport
import Testing

/// Deflate bombs: a Strava export whose original ride file inflates to 2 GiB (its header
/// claiming 100 bytes), and a `.gpx.gz` of 1 GiB. Every decompression counts the bytes it
/// produces, so each stops at its limit: nothing of the file is imported, the real binary stays
/// under 300 MB and finishes in seconds. The bombs are made here, a repeated deflate block at a
/// time (a few MB on disk), never committed.
@Suite struct DecompressionBombEndToEndTests {
    /// Writes `zip` (a Strava export: activities.csv and a ride file of `gibibytes` GiB of zeros
    /// whose headers claim 100 bytes) or `gz` (a gzip of that many GiB), as asked.
    static let script = """
        import struct, sys, zlib
        kind, path, gib = sys.argv[1], sys.argv[2], float(sys.argv[3])
        c = zlib.compressobj(9, zlib.DEFLATED, -15)
        chunk = bytes(1 << 20)
        block = c.compress(chunk) + c.flush(zlib.Z_FULL_FLUSH)
        again = c.compress(chunk) + c.flush(zlib.Z_FULL_FLUSH)
        assert block == again
        count = int(gib * 1024)
        def stream(out):
            for _ in range(count): out.write(block)
            out.write(c.flush())
        if kind == "gz":
            with open(path, "wb") as out:
                out.write(bytes([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255]))
                stream(out)
                out.write(struct.pack("<II", 0, 100))
            sys.exit(0)
        csv = open(sys.argv[4], "rb").read()
        entries = []
        with open(path, "wb") as out:
            def local(name, method, crc, csize, usize):
                entries.append((name, method, crc, csize, usize, out.tell()))
                out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, csize, usize, len(name), 0) + name)
            local(b"export/activities.csv", 0, zlib.crc32(csv), len(csv), len(csv))
            out.write(csv)
            start = out.tell()
            local(b"export/activities/17000000009.gpx", 8, 0, 0, 100)
            data_start = out.tell()
            stream(out)
            size = out.tell() - data_start
            # The compressed size goes back into the local header.
            out.seek(start + 18)
            out.write(struct.pack("<I", size))
            out.seek(0, 2)
            entries[-1] = entries[-1][:3] + (size,) + entries[-1][4:]
            cd = out.tell()
            for name, method, crc, csize, usize, offset in entries:
                out.write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0x21, crc, csize, usize, len(name), 0, 0, 0, 0, 0, offset) + name)
            end = out.tell()
            out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), end - cd, cd, 0))
        """

    static func make(_ kind: String, _ path: String, gibibytes: Double, csv: String? = nil) throws {
        let r = try runProcess(
            toolsPython, ["-c", script, kind, path, String(gibibytes)] + (csv.map { [$0] } ?? []), in: FileManager.default.temporaryDirectory)
        #expect(r.status == 0, "\(r.stderr)")
    }

    static let grail = "name: Grail\ndevices: [3980001234]\nbought: 2026-01-01\n"

    @Test func aStravaExportWhoseRideFileInflatesTo2GiBImportsNothingOfItInLittleMemory() throws {
        let csv =
            ImportEndToEndTests.header + "\n"
            + #"17000000009,"May 1, 2026, 6:30:00 AM",Dawn,Ride,,3600,25.18,,,false,,,activities/17000000009.gpx,,,3600.0,3600.0,25180.0,,,123.0"#
            + "\n"
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/grail.yaml": Self.grail])
        let zip = garage.path + "/export.zip"
        try garage.write("activities.csv.in", csv)
        try Self.make("zip", zip, gibibytes: 2, csv: garage.path + "/activities.csv.in")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: zip)[.size] as? Int)
        #expect(size < 4 << 20, "the bomb is \(size) bytes")
        let started = Date()
        let run = try peakMemory(["import", "strava-archive", zip, "--garage", garage.path])
        let seconds = Date().timeIntervalSince(started)
        #expect(run.status == 0, "the export's rows import; the bomb is a warning")
        #expect(run.peak < 300_000_000, "peak \(run.peak / 1_000_000) MB")
        #expect(seconds < 20, "\(seconds) s")
        print("deflate bomb (2 GiB in a \(size / 1000) KB zip): \(run.peak / 1_000_000) MB, \(String(format: "%.1f", seconds)) s")
        let warned = try garage.run(["import", "strava-archive", zip])
        #expect(warned.stderr.contains("activities/17000000009.gpx in the archive: inflates to more than 128 MiB"), "\(warned.stderr)")
        let month = try garage.read("activities/2026-05.json")
        #expect(month.contains("17000000009") && !month.contains("bike:grail"), "the row imports, the bomb gives it no bike: \(month)")
    }

    @Test func aGzippedRideFileOf1GiBIsABadFileInLittleMemory() throws {
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/grail.yaml": Self.grail])
        try FileManager.default.createDirectory(atPath: garage.path + "/rides", withIntermediateDirectories: true)
        try Self.make("gz", garage.path + "/rides/bomb.gpx.gz", gibibytes: 1)
        let started = Date()
        let run = try peakMemory(["import", "files", garage.path + "/rides", "--garage", garage.path])
        let seconds = Date().timeIntervalSince(started)
        #expect(run.status == 1)
        #expect(run.peak < 300_000_000, "peak \(run.peak / 1_000_000) MB")
        #expect(seconds < 20, "\(seconds) s")
        print("gzip bomb (1 GiB .gpx.gz): \(run.peak / 1_000_000) MB, \(String(format: "%.1f", seconds)) s")
        #expect(!FileManager.default.fileExists(atPath: garage.path + "/activities/2026-05.json"))
    }
}
