import Foundation

/// Commits garage changes with the real `git`, run as a subprocess.
public struct GitCommitter: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The garage folder; git runs there.
    public var root: String
    public var environment: [String: String]?

    public init(root: String, environment: [String: String]? = nil) {
        self.root = root
        self.environment = environment
    }

    /// True when the garage is inside a git work tree.
    public func isRepository() -> Bool {
        (try? run(["rev-parse", "--is-inside-work-tree"]))?.output.hasPrefix("true") ?? false
    }

    /// Commits exactly `paths` (relative to the garage) with `message`, leaving anything else
    /// the rider has staged alone; returns the new commit's short hash.
    public func commit(_ paths: [String], message: String) throws(Failure) -> String {
        let add = try run(["add", "--"] + paths)
        guard add.status == 0 else { throw Failure(description: "git add failed: \(add.error)") }
        // The rider's hooks run (a pre-commit 'bikecheck validate' is a good one); if one refuses,
        // the caller puts the files back.
        let commit = try run(["commit", "--quiet", "-m", message, "--only", "--"] + paths)
        guard commit.status == 0 else {
            // Unstage what was added: `reset` needs a HEAD, a first commit has none.
            let hasHead = (try? run(["rev-parse", "--verify", "--quiet", "HEAD"]))?.status == 0
            _ = try? run(hasHead ? ["reset", "--quiet", "--"] + paths : ["rm", "--cached", "--quiet", "--ignore-unmatch", "--"] + paths)
            let why = (commit.error + commit.output).trimmingCharacters(in: .whitespacesAndNewlines)
            throw Failure(description: "git commit failed: \(why)")
        }
        let head = try run(["rev-parse", "--short", "HEAD"])
        return head.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct Output {
        var status: Int32
        var output: String
        var error: String
    }

    func run(_ arguments: [String]) throws(Failure) -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", root] + arguments
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
                  FileManager.default.createFile(atPath: errURL.path, contents: nil) else {
                throw Failure(description: "cannot create a temporary file in \(temp.path) for git's output")
            }
            outHandle = try FileHandle(forWritingTo: outURL)
            errHandle = try FileHandle(forWritingTo: errURL)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "cannot capture git's output: \(error.localizedDescription)")
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
            throw Failure(description: "cannot run git: \(error.localizedDescription)")
        }
        process.waitUntilExit()
        let outData = (try? Data(contentsOf: outURL)) ?? Data()
        let errData = (try? Data(contentsOf: errURL)) ?? Data()
        return Output(status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self),
                      error: String(decoding: errData, as: UTF8.self))
    }
}
