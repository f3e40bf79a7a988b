import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a run killed with `kill -9` leaves, and the next run: the git it started dies with it,
/// a commit it left half-made never blocks the next `--commit` write, and its temporaries are
/// removed by the next run of any command.
@Suite struct KilledRunEndToEndTests {
    static let write = ["done", "vélo", "chain-lube", "--date", "2026-11-16", "--commit"]
    static let next = ["done", "vélo", "chain-lube", "--date", "2026-11-17", "--commit"]

    /// Kills the `--commit` write from inside its commit's pre-commit hook, once (the hook notes
    /// its git's pid, then sleeps a second and lets the commit go on). Returns git's pid.
    func killInsideTheCommit(_ garage: TemporaryFolder) throws -> Int32 {
        let pidFile = garage.path + "/../\(UUID().uuidString).pid"
        let gitPid = garage.path + "/../\(UUID().uuidString).gitpid"
        let mark = garage.path + "/../\(UUID().uuidString).mark"
        defer { for f in [pidFile, gitPid, mark] { try? FileManager.default.removeItem(atPath: f) } }
        FileManager.default.createFile(atPath: mark, contents: nil)
        try installHook(
            "pre-commit",
            "#!/bin/sh\nif [ -f '\(mark)' ]; then rm -f '\(mark)'; echo $PPID > '\(gitPid)'; kill -9 \"$(cat \"$PIDFILE\")\"; sleep 1; fi\nexit 0\n",
            in: garage)
        let killed = try runLimited(Self.write, in: garage, pidFile: pidFile, environment: gitAuthor)
        #expect(killed.status != 0)
        return Int32(try String(contentsOfFile: gitPid, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    @Test func theGitOfAKilledWriteDiesWithItAndTheNextWriteCommitsBoth() throws {
        let garage = try trackedGarage(bike: handEditedBikes[2].text)
        let gitPid = try killInsideTheCommit(garage)
        // Its git got SIGTERM when bikecheck died: it is gone (or going) at once, its lock removed.
        // (A dead child of a dead parent may wait a while to be reaped: a zombie is gone.)
        func running() -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(gitPid)/stat", encoding: .utf8) else { return false }
            return !(stat.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") ?? true)
        }
        let deadline = Date().addingTimeInterval(0.5)
        while running(), Date() < deadline { usleep(10_000) }
        #expect(!running(), "git \(gitPid) outlived the bikecheck that started it")
        let started = Date()
        let again = try garage.run(Self.next, environment: gitAuthor)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(Date().timeIntervalSince(started) < 5)
        let log = try git(["log", "--format=%s"], in: garage.root)
        #expect(log == "vélo: chain-lube done 2026-11-17\nvélo: chain-lube done 2026-11-16\nstart\n", "\(log)")
        #expect(try garage.read("bikes/vélo.yaml").contains("2026-11-17"))
    }

    /// A kill in the last moment of git's commit: the branch already holds the commit, but git,
    /// dying with bikecheck, rolled back its update of the index. The index then holds the file
    /// as it was before the write, so `git status` shows it changed both ways, and `git commit`
    /// of it finds nothing to commit. The next write sets those entries to the commit's and goes
    /// on; nothing is committed twice and the tree ends clean.
    @Test(arguments: [
        (["done", "vélo", "chain-lube", "--date", "2026-11-16"], "vélo: chain-lube done 2026-11-16"),
        (["bike", "add", "spare", "--name", "Spare"], "spare: new bike Spare"),
    ])
    func aCommitWhoseIndexUpdateWasRolledBackIsSettledByTheNextWrite(write: [String], message: String) throws {
        let garage = try trackedGarage(bike: handEditedBikes[2].text)
        let pidFile = garage.path + "/../\(UUID().uuidString).pid"
        defer { try? FileManager.default.removeItem(atPath: pidFile) }
        // git runs the reference-transaction hook with "committed" after moving the branch and
        // before it writes the index: bikecheck is killed there, and its git with it.
        try installHook(
            "reference-transaction",
            "#!/bin/sh\ncat >/dev/null\nif [ \"$1\" = committed ]; then kill -9 \"$(cat \"$PIDFILE\")\"; sleep 1; fi\nexit 0\n",
            in: garage)
        let killed = try runLimited(write + ["--commit"], in: garage, pidFile: pidFile, environment: gitAuthor)
        #expect(killed.status != 0)
        try FileManager.default.removeItem(atPath: garage.path + "/.git/hooks/reference-transaction")
        let log = try git(["log", "--format=%s"], in: garage.root)
        #expect(log.hasPrefix(message + "\n"), "the commit was made before the kill: \(log)")
        #expect(try !git(["status", "--porcelain"], in: garage.root).isEmpty, "the kill left the index behind the commit")

        let again = try garage.run(Self.next, environment: gitAuthor)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try git(["log", "--format=%s"], in: garage.root) == "vélo: chain-lube done 2026-11-17\n" + log)
        #expect(try git(["status", "--porcelain"], in: garage.root) == "")
    }

    @Test func aStaleIndexLockNoGitHoldsIsClearedAndTheWriteCommits() throws {
        let garage = try trackedGarage(bike: handEditedBikes[2].text)
        // What a git killed with kill -9 in the middle of a commit leaves.
        FileManager.default.createFile(atPath: garage.path + "/.git/index.lock", contents: nil)
        let started = Date()
        let r = try garage.run(Self.write, environment: gitAuthor)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Date().timeIntervalSince(started) < 5, "no wait for a lock no git holds")
        #expect(!FileManager.default.fileExists(atPath: garage.path + "/.git/index.lock"))
        #expect(try git(["log", "--format=%s"], in: garage.root) == "vélo: chain-lube done 2026-11-16\nstart\n")
    }

    @Test func everyRunRemovesTheTemporariesOfKilledRunsAndKeepsALiveRunsOwn() throws {
        let garage = try trackedGarage(bike: handEditedBikes[2].text)
        let tmp = garage.path + "/.bikecheck/tmp"
        try FileManager.default.createDirectory(atPath: tmp + "/snapshot-99999-0badf00d/bikes", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: tmp + "/snapshot-99999-0badf00d.lock", contents: nil)
        try FileManager.default.createDirectory(atPath: tmp + "/template-99998-deadbeef/repo", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: garage.path + "/.bikecheck/.last-sync.json.bikecheck-Ab12Cd", contents: Data("{".utf8))
        FileManager.default.createFile(atPath: garage.path + "/.bikecheck/sync.lock", contents: nil)
        // A live run's folder: its lock held (by flock(1), for the length of the run below).
        try FileManager.default.createDirectory(atPath: tmp + "/snapshot-1-livelive", withIntermediateDirectories: true)
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = [tmp + "/snapshot-1-livelive.lock", "sleep", "3"]
        try holder.run()
        defer { holder.terminate() }
        usleep(300_000)

        let r = try garage.run(["status", "--rev", "HEAD"])
        #expect(r.status == 0, "\(r.stderr)")
        let left = Set((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? [])
        #expect(left == ["snapshot-1-livelive", "snapshot-1-livelive.lock"], "\(left)")
        #expect(!FileManager.default.fileExists(atPath: garage.path + "/.bikecheck/.last-sync.json.bikecheck-Ab12Cd"))
    }
}
