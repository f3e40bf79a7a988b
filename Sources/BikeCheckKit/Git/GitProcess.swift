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

    /// Starts `git ARGUMENTS` with `hardening` in `process`, whose streams and environment the
    /// caller set: the one launch of every git bikecheck runs. git dies with bikecheck (run under
    /// `setpriv --pdeathsig TERM`; on SIGTERM git removes its lock files and a clone its folder),
    /// so a killed run leaves no git running on, nor what it would finish; and it starts with no
    /// signal blocked, whatever bikecheck inherited (a test runner or a CI job may block
    /// SIGTERM), so the parent-death signal reaches it.
    static func start(_ process: Process, _ arguments: [String]) throws(GitCommitter.Failure) {
        if FileManager.default.isExecutableFile(atPath: setpriv) {
            process.executableURL = URL(fileURLWithPath: setpriv)
            process.arguments = ["--pdeathsig", "TERM", "--", "git"] + hardening + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["git"] + hardening + arguments
        }
        var none = sigset_t(), inherited = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &inherited)
        defer { pthread_sigmask(SIG_SETMASK, &inherited, nil) }
        do {
            try process.run()
        } catch {
            throw GitCommitter.Failure(description: "cannot run git: \(error.localizedDescription)")
        }
    }

    /// Runs `git ARGUMENTS` (with `hardening`); with `timeout` (seconds), git is terminated when
    /// it runs longer. Revisions in `arguments` come after `--end-of-options`, so a value that
    /// starts with `-` is never an option.
    static func run(_ arguments: [String], environment: [String: String]?, timeout: Double? = nil) throws(GitCommitter.Failure) -> Output {
        let process = Process()
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
        try start(process, arguments)
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

/// One `git cat-file --batch` process: objects asked for by name (an id, `REV^{commit}`,
/// `TREE:path`) and read back over pipes, as many rounds as the caller needs, so reading a
/// commit's garage costs one git however many files it has.
final class GitObjectReader {
    /// One object as git answered for it.
    enum Object {
        /// Its id, type (`blob`, `tree`, `commit`), size, and its bytes (nil when larger than
        /// the limit the caller gave: then they were read past, not kept).
        case found(id: String, type: String, size: Int, bytes: [UInt8]?)
        /// No such object (or a name git cannot resolve).
        case missing
    }

    private let process = Process()
    private let requests: FileHandle
    private let answersHandle: FileHandle
    private var answers: Int32 { answersHandle.fileDescriptor }
    private let errors: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var done = false

    /// Starts `git -C root cat-file --batch` (hardened as `GitProcess.run`), with `environment`.
    init(root: String, environment: [String: String]?) throws(GitCommitter.Failure) {
        if let environment { process.environment = environment }
        guard let errors = GitProcess.anonymousFile() else {
            throw GitCommitter.Failure(description: "cannot create a temporary file in \(FileManager.default.temporaryDirectory.path) for git's output")
        }
        self.errors = errors
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        requests = input.fileHandleForWriting
        answersHandle = output.fileHandleForReading
        do {
            try GitProcess.start(process, ["-C", root, "cat-file", "--batch"])
        } catch {
            done = true
            try? errors.close()
            try? requests.close()
            try? answersHandle.close()
            throw error
        }
        // Only git holds these ends now.
        try? input.fileHandleForReading.close()
        try? output.fileHandleForWriting.close()
    }

    deinit {
        _ = finish()
        closeRequests()
    }

    /// The objects `names` name, in order; bytes of objects larger than `limit` are not kept. A
    /// name holding a line break is never sent (it is missing).
    func read(_ names: [String], limit: Int) throws(GitCommitter.Failure) -> [Object] {
        guard !done else { throw GitCommitter.Failure(description: "git cat-file has ended") }
        let sent = names.map { $0.contains("\n") || $0.isEmpty ? "-\u{1}missing" : $0 }
        // Written from another thread: git answers while it reads, and neither pipe may fill up
        // with the other side waiting.
        let fd = requests.fileDescriptor
        let text = Array(sent.map { $0 + "\n" }.joined().utf8)
        let writing = DispatchGroup()
        DispatchQueue.global().async(group: writing) { Self.write(text, to: fd) }
        defer { writing.wait() }
        var objects: [Object] = []
        objects.reserveCapacity(sent.count)
        for _ in sent {
            guard let header = try line() else { throw failure("git cat-file ended early") }
            let fields = header.split(separator: " ")
            guard fields.count == 3, let size = Int(fields[2]), size >= 0 else {
                if header.hasSuffix(" missing") || header.hasSuffix(" ambiguous") {
                    objects.append(.missing)
                    continue
                }
                throw failure("git cat-file answered '\(header)'")
            }
            let bytes = try take(size + 1, keeping: size <= limit)
            objects.append(.found(id: String(fields[0]), type: String(fields[1]), size: size, bytes: bytes.map { Array($0.dropLast()) }))
        }
        return objects
    }

    /// Writes all of `bytes` to `fd`, or as much as git reads before it ends: a git that ended
    /// early (EPIPE) must not end bikecheck with SIGPIPE, so the signal is blocked on this
    /// thread while it writes, and one it raised is taken before it is unblocked.
    private static func write(_ bytes: [UInt8], to fd: Int32) {
        var pipe = sigset_t(), previous = sigset_t()
        sigemptyset(&pipe)
        sigaddset(&pipe, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipe, &previous)
        defer {
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGPIPE) == 1 {
                var none = timespec()
                _ = sigtimedwait(&pipe, nil, &none)
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        var at = 0
        while at < bytes.count {
            let n = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress! + at, bytes.count - at) }
            if n > 0 {
                at += n
            } else if n < 0, errno == EINTR {
                continue
            } else {
                return
            }
        }
    }

    /// Ends git (its input closed) and returns what it wrote on standard error.
    func finish() -> String {
        guard !done else { return "" }
        closeRequests()
        return end()
    }

    /// Waits for git, closes its output and returns what it wrote on standard error.
    private func end() -> String {
        done = true
        process.waitUntilExit()
        try? answersHandle.close()
        let text = String(decoding: GitProcess.readAll(errors), as: UTF8.self)
        try? errors.close()
        return text
    }

    private var requestsOpen = true

    private func closeRequests() {
        guard requestsOpen else { return }
        requestsOpen = false
        try? requests.close()
    }

    /// A read gone wrong: git is stopped (it may be writing what is no longer read, and the
    /// requests may still be being written: they are closed once the writer is done, by
    /// `finish` or when this reader goes).
    private func failure(_ what: String) -> GitCommitter.Failure {
        guard !done else { return GitCommitter.Failure(description: what) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        let said = end().trimmingCharacters(in: .whitespacesAndNewlines)
        return GitCommitter.Failure(description: said.isEmpty ? what : "\(what): \(said)")
    }

    /// Reads more from git; false at its end.
    private func fill() -> Bool {
        if start > 65536, start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Foundation.read(answers, $0.baseAddress, $0.count) }
            if n > 0 {
                buffer.append(contentsOf: chunk[0..<n])
                return true
            }
            if n < 0, errno == EINTR { continue }
            return false
        }
    }

    /// The next line (without its line break), or nil at the end.
    private func line() throws(GitCommitter.Failure) -> String? {
        // How far past `start` was searched (`fill` may move what is kept to the front).
        var searched = 0
        while true {
            if let newline = buffer[(start + searched)...].firstIndex(of: UInt8(ascii: "\n")) {
                let text = String(decoding: buffer[start..<newline], as: UTF8.self)
                start = newline + 1
                return text
            }
            searched = buffer.count - start
            guard fill() else { return nil }
        }
    }

    /// The next `count` bytes (nil when not `keeping`: read past).
    private func take(_ count: Int, keeping: Bool) throws(GitCommitter.Failure) -> ArraySlice<UInt8>? {
        var left = count
        var kept: ArraySlice<UInt8>? = nil
        if keeping {
            while buffer.count - start < count {
                guard fill() else { throw failure("git cat-file ended early") }
            }
            kept = buffer[start..<(start + count)]
            start += count
            return kept
        }
        while left > 0 {
            if start == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                start = 0
                guard fill() else { throw failure("git cat-file ended early") }
            }
            let n = min(left, buffer.count - start)
            start += n
            left -= n
        }
        return nil
    }
}
