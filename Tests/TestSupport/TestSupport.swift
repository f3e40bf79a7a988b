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

/// A temporary folder, removed when the value is released.
public final class TemporaryFolder {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("bikecheck-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    public func write(_ relative: String, _ bytes: [UInt8]) throws {
        let file = url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: file)
    }

    public func write(_ relative: String, _ text: String) throws { try write(relative, Array(text.utf8)) }
}

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
