import Foundation

/// Runs the real `git` as a subprocess, its output captured through temporary files: the one
/// runner of every git bikecheck starts, hardened the same way each time.
enum GitProcess {
    struct Output {
        var status: Int32
        var output: String
        var error: String
        /// True when git was stopped because it ran past its time limit.
        var timedOut = false
    }

    /// What may run of its own accord, in a repository received from someone else (its
    /// `.git/config` is theirs): on every git bikecheck runs, no file-system monitor (a command
    /// `core.fsmonitor` names), no credential helper, and no transport at all (a partial clone's
    /// lazy fetch would reach a remote); the template fetch allows the protocols it needs after
    /// these. Content filters are turned off where they would run (`filterOverrides`). Hooks:
    /// the commands bikecheck runs in a garage run none, but for `git commit`, where the
    /// rider's pre-commit check is wanted (the template fetch turns them off).
    static let hardening = [
        "-c", "core.fsmonitor=false", "-c", "credential.helper=", "-c", "protocol.allow=never",
        "-c", "protocol.file.allow=never", "-c", "protocol.git.allow=never", "-c", "protocol.ssh.allow=never",
        "-c", "protocol.http.allow=never", "-c", "protocol.https.allow=never", "-c", "protocol.ext.allow=never",
    ]

    /// `-c filter.NAME.clean=` and the like for every content filter the repository at `root`
    /// configures (`.gitattributes` picks them; `.git/config` says what they run), so `status`
    /// and `checkout-index` run none of them.
    static func filterOverrides(in root: String) -> [String] {
        guard
            let out = try? run(
                ["-C", root, "config", "-z", "--name-only", "--get-regexp", #"^filter\..*\.(clean|smudge|process|required)$"#], environment: nil)
        else { return [] }
        return out.output.split(separator: "\0").flatMap { name in
            ["-c", name.hasSuffix(".required") ? "\(name)=false" : "\(name)="]
        }
    }

    /// Runs `git ARGUMENTS` (with `hardening`); with `timeout` (seconds), git is terminated when
    /// it runs longer. Revisions in `arguments` come after `--end-of-options`, so a value that
    /// starts with `-` is never an option.
    static func run(_ arguments: [String], environment: [String: String]?, timeout: Double? = nil) throws(GitCommitter.Failure) -> Output {
        let process = Process()
        // git dies with bikecheck (SIGTERM, on which git removes its lock files and a clone its
        // folder): a killed run leaves no git running on, nor what it would finish.
        if FileManager.default.isExecutableFile(atPath: setpriv) {
            process.executableURL = URL(fileURLWithPath: setpriv)
            process.arguments = ["--pdeathsig", "TERM", "--", "git"] + hardening + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["git"] + hardening + arguments
        }
        if let environment { process.environment = environment }
        // Both streams go to temporary files, not pipes: a chatty hook can write more than a pipe
        // holds to either stream, and reading one pipe to its end would then block git forever.
        // The files are unlinked as soon as they are made, so a killed run leaves none.
        let out = anonymousFile(), err = anonymousFile()
        guard let outHandle = out, let errHandle = err else {
            try? out?.close()
            try? err?.close()
            throw GitCommitter.Failure(
                description: "cannot create a temporary file in \(FileManager.default.temporaryDirectory.path) for git's output")
        }
        defer {
            try? outHandle.close()
            try? errHandle.close()
        }
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        // git starts with no signal blocked, whatever bikecheck inherited (a test runner or a CI
        // job may block SIGTERM): the parent-death signal must reach it.
        var none = sigset_t(), inherited = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &inherited)
        defer { pthread_sigmask(SIG_SETMASK, &inherited, nil) }
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
        let outData = readAll(outHandle)
        let errData = readAll(errHandle)
        return Output(
            status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self),
            error: String(decoding: errData, as: UTF8.self), timedOut: timedOut)
    }

    /// Runs children with a parent-death signal (util-linux's `setpriv`), where there is one.
    static let setpriv = "/usr/bin/setpriv"

    /// A temporary file with no name: made and unlinked at once.
    static func anonymousFile() -> FileHandle? {
        var template = Array((FileManager.default.temporaryDirectory.path + "/bikecheck-git-XXXXXX").utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { return nil }
        unlink(template)
        // Only git gets it (as its output), not other children started meanwhile.
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return FileHandle(fileDescriptor: fd, closeOnDealloc: false)
    }

    /// Everything written to `handle`'s file, from its start (git wrote through a copy of it).
    static func readAll(_ handle: FileHandle) -> Data {
        lseek(handle.fileDescriptor, 0, SEEK_SET)
        return (try? handle.readToEnd()) ?? Data()
    }
}
