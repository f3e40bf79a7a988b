import Foundation

/// Runs the real `git` as a subprocess, its output captured through temporary files.
enum GitProcess {
    struct Output {
        var status: Int32
        var output: String
        var error: String
        /// True when git was stopped because it ran past its time limit.
        var timedOut = false
    }

    /// Runs `git ARGUMENTS`; with `timeout` (seconds), git is terminated when it runs longer.
    static func run(_ arguments: [String], environment: [String: String]?, timeout: Double? = nil) throws(GitCommitter.Failure) -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git"] + arguments
        if let environment { process.environment = environment }
        // Both streams go to temp files, not pipes: a chatty hook can write more than a pipe
        // holds to either stream, and reading one pipe to its end would then block git forever.
        let temp = FileManager.default.temporaryDirectory
        let outURL = temp.appendingPathComponent("bikecheck-git-out-\(UUID().uuidString)")
        let errURL = temp.appendingPathComponent("bikecheck-git-err-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let outHandle: FileHandle, errHandle: FileHandle
        do {
            guard FileManager.default.createFile(atPath: outURL.path, contents: nil),
                FileManager.default.createFile(atPath: errURL.path, contents: nil)
            else {
                throw GitCommitter.Failure(description: "cannot create a temporary file in \(temp.path) for git's output")
            }
            outHandle = try FileHandle(forWritingTo: outURL)
            errHandle = try FileHandle(forWritingTo: errURL)
        } catch let failure as GitCommitter.Failure {
            throw failure
        } catch {
            throw GitCommitter.Failure(description: "cannot capture git's output: \(error.localizedDescription)")
        }
        defer {
            try? outHandle.close()
            try? errHandle.close()
        }
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw GitCommitter.Failure(description: "cannot run git: \(error.localizedDescription)")
        }
        // Foundation's waitUntilExit spins the run loop in 50 ms slices, which made each git call
        // cost that much; a short sleep between looks at the child's state costs ~1 ms.
        let deadline = timeout.map { Date().addingTimeInterval($0) }
        var timedOut = false
        while process.isRunning {
            if let deadline, !timedOut, Date() > deadline {
                timedOut = true
                // SIGKILL, not SIGTERM: an ignored SIGTERM is inherited through exec (a test
                // runner or a CI job may ignore it), and what git leaves is a temporary folder.
                kill(process.processIdentifier, SIGKILL)
            }
            usleep(500)
        }
        process.waitUntilExit()
        let outData = (try? Data(contentsOf: outURL)) ?? Data()
        let errData = (try? Data(contentsOf: errURL)) ?? Data()
        return Output(
            status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self),
            error: String(decoding: errData, as: UTF8.self), timedOut: timedOut)
    }
}
