import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// The real `bikecheck` run to its end, with its exit status and peak resident memory in bytes.
/// Measured by a small Python that forks it and reads `wait4`'s usage: not by the test process
/// itself, as a child spawned from a large process starts with that process's peak (Linux
/// keeps the larger of the two across `exec`), and tests in parallel would mix theirs in.
func peakMemory(_ arguments: [String]) throws -> (status: Int32, peak: Int) {
    let script = """
        import os, sys
        pid = os.fork()
        if pid == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2): os.dup2(null, fd)
            os.execv(sys.argv[1], sys.argv[1:])
        _, status, usage = os.wait4(pid, 0)
        print(os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024)
        """
    let r = try runProcess(
        toolsPython, ["-c", script, bikecheckBinary.path] + arguments, in: FileManager.default.temporaryDirectory,
        environment: ["NO_COLOR": "1", "BIKECHECK_GARAGE": ""], timeout: 300)
    let fields = r.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    guard r.status == 0, fields.count == 2 else { throw CocoaError(.executableLoad) }
    return (Int32(fields[0]), fields[1])
}

@Suite struct WriteMemoryEndToEndTests {
    /// A copy of the example garage whose grail has a log of about `megabytes` MB (after its
    /// bought day, in date order).
    static func garage(logOf megabytes: Double) throws -> (garage: TemporaryFolder, size: Int) {
        let garage = try TemporaryFolder(copying: true)
        let text = try garage.read("bikes/grail.yaml")
        var out = String(text[..<text.range(of: "\nlog:\n")!.upperBound])
        let start = Day("2023-05-01")!.ordinal, days = Day("2026-10-31")!.ordinal - start
        let count = Int(megabytes * 1_000_000) / 52
        out.reserveCapacity(count * 56)
        for n in 0..<count {
            out += "  - date: \(Day(ordinal: start + n * days / count))\n    done: [chain-lube]\n    note: n\(n)\n"
        }
        try garage.write("bikes/grail.yaml", out)
        return (garage, out.utf8.count)
    }

    /// Issue 20 item 11: `done` on a 56 MB bike file took 2.7 GB (validate: 1.3 GB): the file was
    /// parsed three times over, the meaning of its whole tree built twice beside the trees to
    /// check the edit, and a diff of every line made though nothing showed it. The memory a write
    /// adds for a large file is now a bounded multiple of its size.
    @Test func aWriteOnALargeBikeFileTakesMemoryInProportionToIt() throws {
        let small = try TemporaryFolder(copying: true)
        let base = try peakMemory(["done", "grail", "chain-lube", "--garage", small.path])
        #expect(base.status == 0)
        let (large, size) = try Self.garage(logOf: 4)
        let write = try peakMemory(["done", "grail", "chain-lube", "--garage", large.path])
        #expect(write.status == 0)
        let written = try large.read("bikes/grail.yaml")
        #expect(written.utf8.count > size && written.hasSuffix("\n    done: [chain-lube]\n"), "\(written.suffix(200))")
        let factor = Double(write.peak - base.peak) / Double(size)
        #expect(factor < 60, "a \(size >> 20) MiB bike file took \((write.peak - base.peak) >> 20) MiB more than a small one: \(factor) times its size")
    }
}
