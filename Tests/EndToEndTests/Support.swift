import Foundation
import Testing

/// A garage in a fresh temporary folder, removed when the test ends.
final class TempGarage {
    let root: URL

    init(_ files: [String: String] = [:], copying example: Bool = false) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("bikecheck-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        if example {
            for item in try FileManager.default.contentsOfDirectory(atPath: exampleGarage.path) {
                try FileManager.default.copyItem(at: exampleGarage.appendingPathComponent(item), to: root.appendingPathComponent(item))
            }
        }
        for (path, text) in files { try write(path, text) }
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    var path: String { root.path }

    func write(_ relative: String, _ text: String) throws {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func writeBytes(_ relative: String, _ bytes: [UInt8]) throws {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    func read(_ relative: String) throws -> String {
        try String(decoding: Data(contentsOf: root.appendingPathComponent(relative)), as: UTF8.self)
    }

    /// Runs the built `bikecheck` with `--garage` pointing here unless the arguments say otherwise.
    func run(_ arguments: [String], environment: [String: String] = [:], input: String? = nil) throws -> CommandResult {
        try runBikecheck(arguments, in: root, environment: environment)
    }
}

/// What a run of the binary printed and how it exited.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// The repository's root, found from this source file.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let exampleGarage = repositoryRoot.appendingPathComponent("example-garage")

/// The `bikecheck` executable SwiftPM built beside the test bundle.
let bikecheckBinary: URL = {
    if let explicit = ProcessInfo.processInfo.environment["BIKECHECK_BIN"] { return URL(fileURLWithPath: explicit) }
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = dir.appendingPathComponent("bikecheck")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        dir = dir.deletingLastPathComponent()
    }
    return repositoryRoot.appendingPathComponent(".build/debug/bikecheck")
}()

/// Runs the real binary in `directory`, with a clean environment (no colour, no inherited garage).
func runBikecheck(_ arguments: [String], in directory: URL, environment: [String: String] = [:], timeout: TimeInterval = 60) throws -> CommandResult {
    let process = Process()
    process.executableURL = bikecheckBinary
    process.arguments = arguments
    process.currentDirectoryURL = directory
    var env = ProcessInfo.processInfo.environment
    env.removeValue(forKey: "BIKECHECK_GARAGE")
    env["NO_COLOR"] = "1"
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
            Issue.record("bikecheck \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
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

/// Runs `git` in a folder and returns its standard output; records a test issue when it fails.
@discardableResult
func git(_ arguments: [String], in directory: URL) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["git"] + arguments
    process.currentDirectoryURL = directory
    var env = ProcessInfo.processInfo.environment
    env["GIT_AUTHOR_NAME"] = "Test Rider"
    env["GIT_AUTHOR_EMAIL"] = "rider@example.com"
    env["GIT_COMMITTER_NAME"] = "Test Rider"
    env["GIT_COMMITTER_EMAIL"] = "rider@example.com"
    process.environment = env
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    if process.terminationStatus != 0 { Issue.record("git \(arguments.joined(separator: " ")) failed") }
    return String(decoding: data, as: UTF8.self)
}
