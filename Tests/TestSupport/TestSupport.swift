import Foundation
import Testing

/// The repository's root, found from this source file.
public let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
public let exampleGarage = repositoryRoot.appendingPathComponent("example-garage")

/// The `bikecheck` executable SwiftPM built beside the test bundle (or `$BIKECHECK_BIN`).
public let bikecheckBinary: URL = {
    if let explicit = ProcessInfo.processInfo.environment["BIKECHECK_BIN"] { return URL(fileURLWithPath: explicit) }
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = dir.appendingPathComponent("bikecheck")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        dir = dir.deletingLastPathComponent()
    }
    return repositoryRoot.appendingPathComponent(".build/debug/bikecheck")
}()

/// What a run of a program printed and how it exited.
public struct CommandResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs a program to its end (killing it after `timeout`), capturing its output in files: a full
/// pipe would block the child while the test waits for it.
public func runProcess(
    _ executable: URL, _ arguments: [String], in directory: URL, environment: [String: String] = [:], timeout: TimeInterval = 60
) throws -> CommandResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.currentDirectoryURL = directory
    var env = ProcessInfo.processInfo.environment
    for (k, v) in environment { env[k] = v }
    process.environment = env
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("out-\(UUID().uuidString)")
    let err = FileManager.default.temporaryDirectory.appendingPathComponent("err-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    defer {
        try? FileManager.default.removeItem(at: out)
        try? FileManager.default.removeItem(at: err)
    }
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: err)
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning {
        if Date() > deadline {
            process.terminate()
            // Children of the test runner can inherit a mask that blocks SIGTERM; SIGKILL cannot be blocked.
            Thread.sleep(forTimeInterval: 0.5)
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            Issue.record("\(executable.lastPathComponent) \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
            break
        }
        Thread.sleep(forTimeInterval: 0.01)
    }
    process.waitUntilExit()
    return CommandResult(
        status: process.terminationStatus,
        stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
        stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
}

/// Copies an executable by running `cp`, so that this process never holds a descriptor open for
/// writing on the copy: a child forked meanwhile by another test would inherit it, and running the
/// copy would then fail with "Text file busy" (ETXTBSY) until that child has exec'd.
public func copyExecutable(_ source: URL, to destination: URL) throws {
    let r = try runProcess(URL(fileURLWithPath: "/bin/cp"), [source.path, destination.path], in: destination.deletingLastPathComponent())
    guard r.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cp: \(r.stderr)"]) }
}

/// Runs the real `bikecheck` in `directory`, with no colour and no inherited garage.
public func runBikecheck(_ arguments: [String], in directory: URL, environment: [String: String] = [:], timeout: TimeInterval = 60) throws -> CommandResult {
    var env = environment
    env["NO_COLOR"] = env["NO_COLOR"] ?? "1"
    env["BIKECHECK_GARAGE"] = env["BIKECHECK_GARAGE"] ?? ""
    return try runProcess(bikecheckBinary, arguments, in: directory, environment: env, timeout: timeout)
}

/// The Python of the project's tool environment (`scripts/bootstrap` makes it), where the PyPI
/// tools the tests run against are installed, apart from the system interpreter.
public let toolsPython = repositoryRoot.appendingPathComponent(".build-tools/venv/bin/python3")

/// Runs the real `check-jsonschema` (PyPI) from the project's tool environment. Records a
/// failure, never a skip, when it is not installed.
public func checkJSONSchema(_ arguments: [String], in directory: URL) throws -> CommandResult? {
    guard FileManager.default.isExecutableFile(atPath: toolsPython.path) else {
        Issue.record("no tool environment at \(toolsPython.path): run scripts/bootstrap (it installs check-jsonschema there)")
        return nil
    }
    let result = try runProcess(toolsPython, ["-m", "check_jsonschema"] + arguments, in: directory)
    if result.status != 0, result.stderr.contains("No module named") {
        Issue.record("check-jsonschema is not installed: run scripts/bootstrap (it installs it in .build-tools/venv)")
        return nil
    }
    return result
}

/// Runs `Tests/RideFilesTests/Tools/ridefiles.py` (it writes ride files with fit-tool and reads
/// them with Garmin's FIT SDK and gpxpy) in `folder`, from `.build-tools/ride-files`
/// (`scripts/bootstrap --test`), making the folder of the file it writes. Records a failure,
/// never a skip, when the tools are not installed. Returns its standard output.
@discardableResult
public func rideFilesTool(_ arguments: [String], in folder: URL) throws -> String {
    let python = repositoryRoot.appendingPathComponent(".build-tools/ride-files/bin/python3")
    guard FileManager.default.isExecutableFile(atPath: python.path) else {
        Issue.record("no ride-file tools at \(python.path): run scripts/bootstrap --test")
        return ""
    }
    if arguments.count > 1, arguments[0] != "reference" {
        let out = folder.appendingPathComponent(arguments[1]).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    }
    let tool = repositoryRoot.appendingPathComponent("Tests/RideFilesTests/Tools/ridefiles.py").path
    let r = try runProcess(python, [tool] + arguments, in: folder)
    #expect(r.status == 0, "ridefiles.py \(arguments.joined(separator: " ")): \(r.stderr)")
    return r.stdout
}

/// A temporary folder, removed when the value is released: the one temporary-folder helper of
/// the tests (each test target adds what it needs of it in an extension: a garage's write
/// context, running the binary in it).
public final class TemporaryFolder {
    public let url: URL

    /// A new folder holding `files` (relative path → bytes).
    public init(_ files: [String: [UInt8]] = [:]) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("bikecheck-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for (relative, bytes) in files { try write(relative, bytes) }
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Copies example-garage in, but not its local state: other tests' runs on the example
    /// garage write its activity index.
    public func copyExampleGarage() throws {
        for item in try FileManager.default.contentsOfDirectory(atPath: exampleGarage.path) where item != ".bikecheck" {
            try FileManager.default.copyItem(at: exampleGarage.appendingPathComponent(item), to: url.appendingPathComponent(item))
        }
    }

    public var path: String { url.path }

    public func write(_ relative: String, _ bytes: [UInt8]) throws {
        let file = url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: file)
    }

    public func write(_ relative: String, _ text: String) throws { try write(relative, Array(text.utf8)) }
}

/// The one golden-file check: `actual` must be exactly the bytes of `file`. With
/// `BIKECHECK_RECORD=1` the file is written instead, and the test fails all the same, so that a
/// recording run can never pass by accident: review the diff, then run again without it.
public func expectGolden(
    _ actual: [UInt8], file: URL, recording: Bool = isRecordingGoldenFiles, sourceLocation: SourceLocation = #_sourceLocation
) {
    let name = file.lastPathComponent
    if recording {
        do {
            if (try? [UInt8](Data(contentsOf: file))) != actual { try Data(actual).write(to: file) }
        } catch {
            Issue.record("cannot record \(file.path): \(error)", sourceLocation: sourceLocation)
        }
        Issue.record("recorded \(name) (BIKECHECK_RECORD=1): review the diff, then run the tests again without it", sourceLocation: sourceLocation)
        return
    }
    guard let expected = try? [UInt8](Data(contentsOf: file)) else {
        Issue.record("no golden file \(file.path): record it with BIKECHECK_RECORD=1 and review it", sourceLocation: sourceLocation)
        return
    }
    guard expected != actual else { return }
    let got = String(decoding: actual, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
    let want = String(decoding: expected, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
    let line = zip(got, want).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(got.count, want.count)
    Issue.record(
        """
        \(name) differs at line \(line + 1): re-record with BIKECHECK_RECORD=1 and review the diff
          golden: \(line < want.count ? String(want[line]).debugDescription : "(end)")
          got:    \(line < got.count ? String(got[line]).debugDescription : "(end)")
        got in full:
        \(String(decoding: actual, as: UTF8.self))
        """, sourceLocation: sourceLocation)
}

/// `expectGolden` for text.
public func expectGolden(
    _ actual: String, file: URL, recording: Bool = isRecordingGoldenFiles, sourceLocation: SourceLocation = #_sourceLocation
) {
    expectGolden(Array(actual.utf8), file: file, recording: recording, sourceLocation: sourceLocation)
}

/// `BIKECHECK_RECORD=1`: the one switch that re-records every golden file.
public let isRecordingGoldenFiles = ProcessInfo.processInfo.environment["BIKECHECK_RECORD"] == "1"

/// A small seeded generator (SplitMix64), so every run checks the same cases and a failing one
/// can be replayed from its seed.
public struct SeededGenerator: RandomNumberGenerator {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (0 when the bound is not positive).
    public mutating func next(_ bound: Int) -> Int { bound > 0 ? Int.random(in: 0..<bound, using: &self) : 0 }
}

/// How long a soak test runs. Every run of the suite does a few rounds with a fixed seed, so the
/// soak's code is always exercised and a failure replays; `BIKECHECK_SOAK=1` runs the test's long
/// default and `BIKECHECK_SOAK=N` (N > 1) runs N rounds, with `BIKECHECK_SOAK_SEED` or a seed
/// from the clock (printed, so a failure can be replayed).
public enum Soak {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// True when a long soak was asked for.
    public static var isLong: Bool { environment["BIKECHECK_SOAK"].map { !$0.isEmpty && $0 != "0" } ?? false }

    public static func rounds(quick: Int, long: Int) -> Int {
        guard isLong else { return quick }
        let asked = Int(environment["BIKECHECK_SOAK"] ?? "") ?? 1
        return asked > 1 ? asked : long
    }

    public static var seed: UInt64 {
        if let given = environment["BIKECHECK_SOAK_SEED"].flatMap(UInt64.init) { return given }
        return isLong ? UInt64(Date().timeIntervalSince1970) : 7
    }

    /// Prints a soak's figures when a long soak was asked for.
    public static func report(_ line: @autoclosure () -> String) {
        if isLong { print("SOAK " + line()) }
    }
}
