import Foundation
import TestSupport
import Testing

/// Runs the real `bikecheck` from a real bash that first writes its process id to `pidFile`
/// (the shell `exec`s bikecheck, so the id is bikecheck's), ignores SIGXFSZ (so a write past
/// the file-size limit fails with EFBIG instead of killing the process, as a full disk fails
/// with ENOSPC) and, with `limitKB`, caps the size of any file it writes (`ulimit -f`).
/// A file-size limit makes writes fail for real without mounting anything or needing root.
func runLimited(
    _ arguments: [String], in garage: TemporaryFolder, limitKB: Int? = nil, pidFile: String? = nil,
    environment: [String: String] = [:]
) throws -> CommandResult {
    var env = environment
    env["NO_COLOR"] = "1"
    env["BIKECHECK_GARAGE"] = ""
    env["PIDFILE"] = pidFile ?? "/dev/null"
    let script = "echo $$ > \"$PIDFILE\"; trap '' XFSZ; " + (limitKB.map { "ulimit -f \($0); " } ?? "") + "exec \"$0\" \"$@\""
    return try runProcess(
        URL(fileURLWithPath: "/bin/bash"), ["-c", script, bikecheckBinary.path] + arguments,
        in: garage.root, environment: env)
}

/// Installs an executable git hook.
func installHook(_ name: String, _ script: String, in garage: TemporaryFolder) throws {
    try garage.write(".git/hooks/\(name)", script)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: garage.path + "/.git/hooks/\(name)")
}

/// Names of bikecheck's temporary files left anywhere in the garage (not .git).
func leftoverTemporaries(_ garage: TemporaryFolder) -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: garage.path)
    var found: [String] = []
    while let item = enumerator?.nextObject() as? String {
        if item == ".git" { enumerator?.skipDescendants(); continue }
        if item.contains(".bikecheck-") { found.append(item) }
    }
    return found
}

/// A bike file of exactly `size` bytes (padded with a comment), with a block-style log.
func bigBike(size: Int) -> String {
    let head = "name: Vélo\ntemplates: [road]\n", log = "log:\n  - date: 2024-01-01\n    done: [chain-lube]\n"
    var padding = ""
    while head.utf8.count + padding.utf8.count + log.utf8.count + 80 < size { padding += "# a note about this bike, kept in its file to make it big\n" }
    padding += "#" + String(repeating: "-", count: size - head.utf8.count - padding.utf8.count - log.utf8.count - 2) + "\n"
    return head + padding + log
}

@Suite struct WriteFaultEndToEndTests {
    // MARK: - Failed writes and truthful restores

    @Test func aWriteThatHitsTheFileSizeLimitChangesNothingAndSaysSo() throws {
        // 4,090 bytes fit under the limit of 4 KiB; with the new entry the file would not.
        let text = bigBike(size: 4090)
        #expect(text.utf8.count == 4090)
        let garage = try TemporaryFolder(["garage.yaml": "name: g\n", "templates/road.yaml": roadTemplate, "bikes/vélo.yaml": text])
        let r = try runLimited(["done", "vélo", "chain-lube", "--date", "2026-11-16"], in: garage, limitKB: 4)
        #expect(r.status == 1)
        #expect(r.stderr.contains("error: cannot write '\(garage.path)/bikes/vélo.yaml': File too large; nothing was written"), "\(r.stderr)")
        #expect(try garage.read("bikes/vélo.yaml") == text)
        #expect(leftoverTemporaries(garage).isEmpty)
    }

    @Test func whenTheSecondFileCannotBeWrittenTheFirstIsTakenBackAndTheMessageSaysSo() throws {
        let garage = try TemporaryFolder(["garage.yaml": "name: g\n"])
        try garage.write("club/templates/a-small.yaml", "name: Small\nintervals:\n  chain-lube:\n    every: 10 h\n")
        try garage.write(
            "club/templates/b-big.yaml",
            "name: Big\n" + String(repeating: "# padding for a big template file......\n", count: 150)
                + "intervals:\n  chain-lube:\n    every: 10 h\n")
        let r = try runLimited(["template", "import", "club"], in: garage, limitKB: 4)
        #expect(r.status == 1)
        #expect(r.stderr.contains("File too large; every file was put back"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: garage.path + "/templates/a-small.yaml"))
        #expect(leftoverTemporaries(garage).isEmpty)
    }

    @Test func aFailedCommitWhoseRestoreFailsTooSaysWhichFileKeptTheChange() throws {
        // The bike file is bigger than the limit the hook sets, so putting it back fails the way
        // it does on a disk that filled up between the write and the commit.
        let garage = try trackedGarage(bike: bigBike(size: 6000))
        let pidFile = garage.path + "/../\(UUID().uuidString).pid"
        defer { try? FileManager.default.removeItem(atPath: pidFile) }
        try installHook(
            "pre-commit",
            """
            #!/bin/sh
            prlimit --pid "$(cat "$PIDFILE")" --fsize=4096:
            echo 'no space left on the disk' >&2
            exit 1

            """, in: garage)
        let r = try runLimited(
            ["done", "vélo", "chain-lube", "--date", "2026-11-16", "--commit"], in: garage,
            pidFile: pidFile, environment: gitAuthor)
        #expect(r.status == 1)
        #expect(r.stderr.contains("no space left on the disk"), "\(r.stderr)")
        #expect(!r.stderr.contains("every file was put back"), "\(r.stderr)")
        #expect(
            r.stderr.contains("not every file could be put back: 'bikes/vélo.yaml' could not be put back (File too large) and still holds the change"),
            "\(r.stderr)")
        #expect(r.stderr.contains("help: free some space, then put those files back by hand"), "\(r.stderr)")
        // What the message says is what the disk holds.
        #expect(try garage.read("bikes/vélo.yaml").hasSuffix("  - date: 2026-11-16\n    done: [chain-lube]\n"))
        #expect(try git(["log", "--format=%s"], in: garage.root) == "start\n")
        #expect(leftoverTemporaries(garage).isEmpty)
    }

    @Test func aFailedCommitWhoseRestoreWorksSaysEveryFileWasPutBack() throws {
        let garage = try trackedGarage(bike: handEditedBikes[2].text)
        try installHook("pre-commit", "#!/bin/sh\necho 'not today' >&2\nexit 1\n", in: garage)
        let r = try garage.run(["done", "vélo", "chain-lube", "--date", "2026-11-16", "--commit"], environment: gitAuthor)
        #expect(r.status == 1)
        #expect(r.stderr.contains("not today; every file was put back"), "\(r.stderr)")
        #expect(try garage.read("bikes/vélo.yaml") == handEditedBikes[2].text)
    }

    // MARK: - Commits

    /// A tracked garage where `done vélo chain-lube --date 2026-11-16 --commit` was killed
    /// between writing the bike file and committing it.
    func garageWithAKilledCommit() throws -> TemporaryFolder {
        let garage = try trackedGarage(bike: handEditedBikes[2].text)
        let pidFile = garage.path + "/../\(UUID().uuidString).pid"
        defer { try? FileManager.default.removeItem(atPath: pidFile) }
        // The hook runs inside the commit: killing bikecheck there is a kill between its write
        // and its commit.
        try installHook("pre-commit", "#!/bin/sh\nkill -9 \"$(cat \"$PIDFILE\")\"\nsleep 0.2\nexit 1\n", in: garage)
        let killed = try runLimited(
            ["done", "vélo", "chain-lube", "--date", "2026-11-16", "--commit"], in: garage,
            pidFile: pidFile, environment: gitAuthor)
        #expect(killed.status != 0)
        // git, orphaned, finishes its refused commit on its own.
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try garage.read("bikes/vélo.yaml").contains("2026-11-16"))
        #expect(try git(["diff", "--cached", "--name-only"], in: garage.root).isEmpty, "nothing is left staged")
        #expect(try git(["log", "--format=%s"], in: garage.root) == "start\n")
        try FileManager.default.removeItem(atPath: garage.path + "/.git/hooks/pre-commit")
        return garage
    }

    @Test func aWriteKilledBeforeItsCommitLeavesNothingStagedAndTheNextRunCommitsIt() throws {
        let garage = try garageWithAKilledCommit()
        let again = try garage.run(["done", "vélo", "chain-lube", "--date", "2026-11-16", "--commit"], environment: gitAuthor)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            again.stdout.contains("vélo: chain-lube done 2026-11-16 (written by an earlier bikecheck that was stopped before it could commit)"),
            "\(again.stdout)")
        #expect(again.stdout.contains("already in the log"))
        #expect(try git(["log", "--format=%s"], in: garage.root) == "vélo: chain-lube done 2026-11-16\nstart\n")
        #expect(try git(["status", "--porcelain"], in: garage.root).isEmpty)
    }

    @Test func aNextWriteThatFailsStillSaysItCommittedWhatTheKilledOneLeft() throws {
        let garage = try garageWithAKilledCommit()
        let r = try garage.run(["done", "vélo", "chain-lub"], environment: gitAuthor)
        #expect(r.status == 2)
        #expect(r.stderr.contains("meanwhile committed "), "\(r.stderr)")
        #expect(try git(["log", "--format=%s"], in: garage.root) == "vélo: chain-lube done 2026-11-16\nstart\n")
        #expect(try git(["status", "--porcelain"], in: garage.root).isEmpty)
    }

    @Test func commitRefusesAFileWithTheRidersUncommittedEditsAndWritesNothing() throws {
        let garage = try trackedGarage(bike: handEditedBikes[2].text)
        let edited = handEditedBikes[2].text + "# my own note, not committed yet\n"
        try garage.write("bikes/vélo.yaml", edited)
        let r = try garage.run(["done", "vélo", "chain-lube", "--date", "2026-11-16", "--commit"], environment: gitAuthor)
        #expect(r.status == 1)
        #expect(
            r.stderr.contains("'bikes/vélo.yaml' has changes that are not committed, and --commit would commit them too; nothing was written"), "\(r.stderr)")
        #expect(try garage.read("bikes/vélo.yaml") == edited)
        #expect(try git(["log", "--format=%s"], in: garage.root) == "start\n")

        // Without --commit the entry is added and the rider's note stays.
        let plain = try garage.run(["done", "vélo", "chain-lube", "--date", "2026-11-16"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(try garage.read("bikes/vélo.yaml").contains("# my own note, not committed yet\n"))

        // Recording it again with --commit is no longer "nothing to do": the file is not committed.
        let again = try garage.run(["done", "vélo", "chain-lube", "--date", "2026-11-16", "--commit"], environment: gitAuthor)
        #expect(again.status == 1)
        #expect(again.stderr.contains("has changes that are not committed"), "\(again.stderr)")
    }

    // MARK: - Leftover temporary files

    @Test func aLeftoverTemporaryFileIsRemovedByTheNextWriteAndNeverCommitted() throws {
        let garage = try trackedGarage(bike: handEditedBikes[2].text)
        try garage.write("bikes/.vélo.yaml.bikecheck-Ab12Cd", "half a file")
        try garage.write("bikes/.notes.bikecheck-keep", "not ours: the name does not match")
        let r = try garage.run(["done", "vélo", "chain-lube", "--date", "2026-11-16", "--commit"], environment: gitAuthor)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: garage.path + "/bikes/.vélo.yaml.bikecheck-Ab12Cd"))
        #expect(FileManager.default.fileExists(atPath: garage.path + "/bikes/.notes.bikecheck-keep"))
        #expect(try git(["-c", "core.quotePath=false", "show", "--name-only", "--format=", "HEAD"], in: garage.root) == "bikes/vélo.yaml\n")
    }

    /// Every load writes the derived caches: a run killed while it stored an entry left its
    /// temporary in `.bikecheck/garage-cache/` (seen once in 48 random kills), and nothing
    /// removed it. The next write clears the caches' too.
    @Test func aKilledRunsCacheTemporariesAreRemovedByTheNextWrite() throws {
        let garage = try trackedGarage(bike: handEditedBikes[2].text)
        let stale = [".bikecheck/garage-cache/.rides.yaml.cache.bikecheck-Ab12Cd", ".bikecheck/activity-index/.2025-10.json.idx.bikecheck-Ab12Cd"]
        for path in stale { try garage.write(path, "half an entry") }
        let r = try garage.run(["done", "vélo", "chain-lube", "--date", "2026-11-16"])
        #expect(r.status == 0, "\(r.stderr)")
        for path in stale { #expect(!FileManager.default.fileExists(atPath: garage.path + "/" + path), "\(path)") }
        #expect(leftoverTemporaries(garage).isEmpty, "\(leftoverTemporaries(garage))")
    }

    @Test func initIgnoresTheTemporaryFilesOfAnInterruptedWrite() throws {
        let folder = try TemporaryFolder()
        #expect(try runBikecheck(["init", "."], in: folder.url).status == 0)
        try git(["init", "--quiet"], in: folder.url)
        try folder.write("bikes/.grail.yaml.bikecheck-x1Y2z3", "half a file")
        try folder.write("bikes/grail.yaml", "name: Grail\n")
        let status = try git(["status", "--porcelain", "--untracked-files=all"], in: folder.url)
        #expect(status.contains("bikes/grail.yaml"))
        #expect(!status.contains("bikecheck-x1Y2z3"), "\(status)")
    }

    // MARK: - Kills at random moments

    @Test func writesKilledAtRandomMomentsLeaveEachFileOldOrNewAndTheGarageValid() throws {
        let garage = try raceGarage()
        try garage.write("incoming/club.yaml", "name: Club\nintervals:\n  chain-lube:\n    every: 20 h\n")
        try git(["init", "--quiet"], in: garage.root)
        try git(["add", "."], in: garage.root)
        try git(["commit", "--quiet", "-m", "start"], in: garage.root)
        let env = gitAuthor

        // One write of each kind, not killed, shows what a finished write produces and how long
        // it takes, so the kills can be spread over a whole run.
        var longest = 0.0
        func timed(_ arguments: [String]) throws -> CommandResult {
            let start = Date()
            defer { longest = max(longest, Date().timeIntervalSince(start)) }
            return try garage.run(arguments + ["--commit"], environment: env)
        }
        func appended(_ arguments: [String], _ file: String, _ date: String) throws -> String {
            let before = try garage.read(file)
            let r = try timed(arguments)
            #expect(r.status == 0, "\(r.stderr)")
            let after = try garage.read(file)
            #expect(after.hasPrefix(before))
            return String(after.dropFirst(before.count)).replacingOccurrences(of: date, with: "{date}")
        }
        func created(_ arguments: [String], _ file: String) throws -> String {
            let r = try timed(arguments)
            #expect(r.status == 0, "\(r.stderr)")
            return try garage.read(file)
        }
        let entry = try appended(["done", "vélo", "chain-lube", "--date", trialDate(-2)], "bikes/vélo.yaml", trialDate(-2))
        let ride = try appended(["ride", "add", "vélo", "--date", trialDate(-1), "--time", "1h"], "rides.yaml", trialDate(-1))
        let bike = try created(["bike", "add", "ref", "--name", "Trial", "--template", "road"], "bikes/ref.yaml")
        let template = try created(["template", "import", "incoming/club.yaml", "--as", "ref"], "templates/ref.yaml")

        /// Waits until no git that a killed bikecheck left running holds the index.
        func waitForOrphanedGit() {
            let deadline = Date().addingTimeInterval(5)
            while FileManager.default.fileExists(atPath: garage.path + "/.git/index.lock") && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.01)
            }
        }

        // BIKECHECK_SOAK=1 makes this a soak of 2,000 kills.
        let trials = Soak.rounds(quick: 48, long: 2_000)
        var generator = SystemRandomNumberGenerator()
        var (old, new, refused) = (0, 0, 0)
        for i in 0..<trials {
            let date = trialDate(i)
            // The file the write touches, the command, and what the file may hold afterwards
            // (nil: absent).
            let file: String, arguments: [String], outcomes: [String?]
            switch i % 4 {
            case 0:
                file = "bikes/vélo.yaml"
                arguments = ["done", "vélo", "chain-lube", "--date", date]
                let before = try garage.read(file)
                outcomes = [before, before + entry.replacingOccurrences(of: "{date}", with: date)]
            case 1:
                file = "rides.yaml"
                arguments = ["ride", "add", "vélo", "--date", date, "--time", "1h"]
                let before = try garage.read(file)
                outcomes = [before, before + ride.replacingOccurrences(of: "{date}", with: date)]
            case 2:
                file = "bikes/b\(i).yaml"
                arguments = ["bike", "add", "b\(i)", "--name", "Trial", "--template", "road"]
                outcomes = [nil, bike]
            default:
                file = "templates/t\(i).yaml"
                arguments = ["template", "import", "incoming/club.yaml", "--as", "t\(i)"]
                outcomes = [nil, template]
            }
            let before = try? garage.read(file)
            let started = try StartedBikecheck(arguments + ["--commit"], in: garage.root, environment: env)
            Thread.sleep(forTimeInterval: Double.random(in: 0...longest, using: &generator))
            kill(started.process.processIdentifier, SIGKILL)
            let finished = try started.finish()
            if finished.status != 0 && finished.status != SIGKILL { refused += 1 }
            waitForOrphanedGit()
            let after = try? garage.read(file)
            #expect(outcomes.contains(after), "trial \(i): \(file) is neither its old nor its new bytes:\n\(after ?? "(absent)")")
            if after == before { old += 1 } else { new += 1 }
        }
        Soak.report("\(trials) writes killed at random: \(old) left the old bytes, \(new) the new, \(refused) refused")
        // Both outcomes happened, so the kills did land before and after the rename.
        #expect(old > 0 && new > 0, "old \(old), new \(new)")
        #expect(refused <= max(2, trials / 25), "\(refused) writes were refused")

        // The next writes, holding the lock, commit what killed ones wrote but did not commit and
        // clear what they left; then everything is committed and the garage is valid.
        for arguments in [
            ["done", "vélo", "chain-lube", "--date", trialDate(9_002)],
            ["ride", "add", "vélo", "--date", trialDate(9_003), "--time", "1h"],
            ["template", "import", "incoming/club.yaml", "--as", "last"],
        ] {
            let r = try garage.run(arguments + ["--commit"], environment: env)
            #expect(r.status == 0, "\(r.stderr)")
        }
        #expect(leftoverTemporaries(garage).isEmpty, "\(leftoverTemporaries(garage))")
        #expect(try git(["status", "--porcelain"], in: garage.root).isEmpty)
        let validate = try garage.run(["validate"])
        #expect(validate.status == 0, "\(validate.stdout)\(validate.stderr)")
    }
}

extension WriteFaultEndToEndTests {
    /// A `git commit` that outlived a `kill -9` of bikecheck holds `.git/index.lock` until it ends;
    /// the next `--commit` write failed at once, with advice about 'git config user.name'. It now
    /// waits for the lock, and names the file when it stays.
    @Test func aCommitWaitsForAnotherGitsIndexLockAndNamesItWhenItStays() throws {
        let garage = try TemporaryFolder(copying: true)
        try git(["init", "--quiet"], in: garage.root)
        try git(["add", "."], in: garage.root)
        try git(["commit", "--quiet", "-m", "start"], in: garage.root)
        let lock = garage.root.appendingPathComponent(".git/index.lock")
        /// Another git in the repository (one waiting `seconds` for its input) that holds the
        /// lock, and removes it when it ends. A lock no git holds is stale, and cleared at once
        /// (KilledRunEndToEndTests).
        func otherGit(for seconds: Int) throws -> Process {
            FileManager.default.createFile(atPath: lock.path, contents: nil)
            let holder = Process()
            holder.executableURL = URL(fileURLWithPath: "/bin/sh")
            holder.arguments = ["-c", "sleep \(seconds) | git -C \"$0\" hash-object --stdin >/dev/null; rm -f \"$1\"", garage.path, lock.path]
            try holder.run()
            Thread.sleep(forTimeInterval: 0.2)
            return holder
        }
        // The other git finishes a second later.
        let first = try otherGit(for: 1)
        let r = try garage.run(["done", "grail", "chain-lube", "--date", "2026-01-10", "--commit"], environment: gitAuthor)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try git(["status", "--porcelain"], in: garage.root).isEmpty, "committed")
        first.waitUntilExit()

        let holder = try otherGit(for: 12)
        defer { holder.terminate() }
        let before = try garage.read("bikes/grail.yaml")
        let held = try garage.run(["done", "grail", "chain-lube", "--date", "2026-01-11", "--commit"], environment: gitAuthor)
        #expect(held.status == 1 && held.stderr.contains(".git/index.lock' has been held for 10 s"), "\(held.stderr)")
        #expect(held.stderr.contains("if no git is running, remove that file"), "\(held.stderr)")
        #expect(try garage.read("bikes/grail.yaml") == before, "put back")
    }
}
