import Foundation
import TestSupport
import Testing

/// A garage in a temporary folder, for the binary to run in.
extension TemporaryFolder {
    var root: URL { url }

    /// A garage of `files` (relative path → text), on a copy of example-garage when `copying`.
    convenience init(_ files: [String: String], copying example: Bool = false) throws {
        try self.init()
        if example { try copyExampleGarage() }
        for (path, text) in files { try write(path, text) }
    }

    /// A copy of example-garage.
    convenience init(copying example: Bool) throws { try self.init([:], copying: example) }

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
