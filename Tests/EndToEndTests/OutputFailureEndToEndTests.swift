import Foundation
import TestSupport
import Testing

/// Output that cannot be written: a full device, a reader that went away. bikecheck says so and
/// exits 1, or ends quietly on a broken pipe; it never crashes.
@Suite struct OutputFailureEndToEndTests {
    struct Ended {
        var status: Int32
        var reason: Process.TerminationReason
        var stderr: String
    }

    /// Runs the real binary under `sh` with SIGPIPE ignored (as some shells, CI runners and
    /// Python subprocesses leave it), standard output going to `output`, standard error to a file
    /// unless given.
    static func run(_ arguments: [String], in garage: TemporaryFolder, output: FileHandle, error: FileHandle? = nil) throws -> Ended {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", #"trap "" PIPE; exec "$0" "$@""#, bikecheckBinary.path] + arguments
        process.currentDirectoryURL = garage.root
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        env["BIKECHECK_GARAGE"] = garage.path
        process.environment = env
        let err = FileManager.default.temporaryDirectory.appendingPathComponent("err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: err) }
        process.standardOutput = output
        process.standardError = try error ?? FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return Ended(
            status: process.terminationStatus, reason: process.terminationReason,
            stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }

    @Test func aFullDeviceOnStandardOutputIsAnErrorNotACrash() throws {
        let garage = try TemporaryFolder(copying: true)
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        for arguments in [["status", "--as-of", "2026-11-20"], ["bike", "list"], ["validate", "--format", "json"]] {
            let r = try Self.run(arguments, in: garage, output: full)
            #expect(r.reason == .exit && r.status == 1, "\(arguments): \(r.reason) \(r.status)")
            #expect(r.stderr.hasPrefix("error: cannot write to standard output: "), "\(arguments): \(r.stderr)")
            #expect(r.stderr.contains("No space left on device"), "\(r.stderr)")
        }
    }

    @Test func aFullDeviceOnStandardErrorEndsWithStatusOne() throws {
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/x.yaml": "name: [\n"])
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let r = try Self.run(["validate"], in: garage, output: FileHandle.nullDevice, error: full)
        #expect(r.reason == .exit && r.status == 1, "\(r.reason) \(r.status)")
    }

    @Test func aReaderThatWentAwayEndsTheProgramQuietly() throws {
        let garage = try TemporaryFolder(copying: true)
        for arguments in [["status", "--as-of", "2026-11-20"], ["bike", "list", "--format", "json"], ["template", "show", "fox-36"]] {
            let pipe = Pipe()
            // The reader is gone before bikecheck writes: every write fails with EPIPE.
            try pipe.fileHandleForReading.close()
            let r = try Self.run(arguments, in: garage, output: pipe.fileHandleForWriting)
            try pipe.fileHandleForWriting.close()
            #expect(r.reason == .exit && r.status == 141, "\(arguments): \(r.reason) \(r.status)")
            #expect(r.stderr.isEmpty, "\(arguments): \(r.stderr)")
        }
    }
}
