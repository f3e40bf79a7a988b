import Foundation
import TestSupport
import Testing

/// What `status` shows when some files are broken, what it says about warnings, and how it fits
/// a terminal.
@Suite struct StatusScopeEndToEndTests {
    static let asOf = ["--as-of", "2026-11-15"]

    @Test func aBrokenBikeFileLeavesOutThatBikeAndShowsTheOthersWithExitOne() throws {
        let garage = try TemporaryFolder(copying: true)
        let grail = try garage.read("bikes/grail.yaml")
        try garage.write("bikes/grail.yaml", grail.replacingOccurrences(of: "\nname: Canyon", with: "\nnmae: Canyon"))
        let r = try garage.run(["status"] + Self.asOf)
        #expect(r.status == 1)
        #expect(r.stderr.contains("bikes/grail.yaml:"), "\(r.stderr)")
        #expect(r.stderr.contains("status leaves out grail: errors in their files or templates (above)\n"), "\(r.stderr)")
        for bike in ["charger", "stumpy", "tarmac"] { #expect(r.stdout.contains("\n\(bike) · "), "\(r.stdout)") }
        #expect(!r.stdout.contains("grail"))
        // Asking for the broken bike alone shows no status, only why.
        let alone = try garage.run(["status", "grail"] + Self.asOf)
        #expect(alone.status == 1)
        #expect(alone.stdout.isEmpty)
        #expect(alone.stderr.contains("status leaves out grail"))
        // Asking for a healthy one shows it, and still says the garage has errors.
        let other = try garage.run(["status", "stumpy"] + Self.asOf)
        #expect(other.status == 1)
        #expect(other.stdout.contains("\nstumpy · "))
        #expect(!other.stderr.contains("leaves out"))
    }

    @Test func aBrokenTemplateLeavesOutEveryBikeThatUsesIt() throws {
        let garage = try TemporaryFolder(copying: true)
        let road = try garage.read("templates/road-basics.yaml")
        try garage.write("templates/road-basics.yaml", road + "bogus-key: 1\n")
        let r = try garage.run(["status"] + Self.asOf)
        #expect(r.status == 1)
        #expect(r.stderr.contains("status leaves out grail, tarmac: "), "\(r.stderr)")
        #expect(r.stdout.contains("\ncharger · ") && r.stdout.contains("\nstumpy · "))
        #expect(!r.stdout.contains("grail ·") && !r.stdout.contains("tarmac ·"))
    }

    @Test func anErrorThatCouldTouchEveryBikeShowsNoStatus() throws {
        let garage = try TemporaryFolder(copying: true)
        try garage.write("garage.yaml", "units: imperial-ish\n")
        let r = try garage.run(["status"] + Self.asOf)
        #expect(r.status == 1)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("garage.yaml:1:"), "\(r.stderr)")
        #expect(r.stderr.hasSuffix("no status: these errors could change every bike's numbers\n"), "\(r.stderr)")
    }

    @Test func warningsAreCountedInOneLineThatPointsAtValidate() throws {
        let garage = try TemporaryFolder(copying: true)
        let clean = try garage.run(["status"] + Self.asOf)
        #expect(clean.status == 0)
        #expect(clean.stderr.isEmpty, "\(clean.stderr)")
        try garage.write(
            "bikes/grail.yaml",
            try garage.read("bikes/grail.yaml").replacingOccurrences(of: "\nintervals:\n", with: "\nintervals:\n  chain-lueb: {every: 5 h, task: Lube}\n"))
        let warned = try garage.run(["status"] + Self.asOf)
        #expect(warned.status == 0, "\(warned.stderr)")
        #expect(warned.stderr == "1 warning: run 'bikecheck validate'\n")
        #expect(try garage.run(["validate"]).stderr.contains("warning:"))
    }

    /// Runs `bikecheck` on a pseudo-terminal of `columns` columns (set on the terminal, not in the
    /// environment), returning what it printed.
    func onTerminal(columns: Int, _ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws -> CommandResult {
        let script = """
            import fcntl, os, pty, struct, sys, termios
            pid, fd = pty.fork()
            if pid == 0:
                fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack('HHHH', 24, int(sys.argv[1]), 0, 0))
                os.execv(sys.argv[2], sys.argv[2:])
            out = b''
            while True:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
            _, status = os.waitpid(pid, 0)
            sys.stdout.buffer.write(out.replace(b'\\r\\n', b'\\n'))
            sys.exit(os.waitstatus_to_exitcode(status))
            """
        return try runProcess(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, String(columns), bikecheckBinary.path] + arguments,
            in: directory, environment: ["NO_COLOR": "1", "BIKECHECK_GARAGE": "", "COLUMNS": ""].merging(environment) { $1 })
    }

    @Test func onATerminalLinesFitItsWidthAndPipedOutputKeepsWholeLines() throws {
        let arguments = ["status", "--garage", exampleGarage.path] + Self.asOf
        let piped = try runBikecheck(arguments, in: repositoryRoot, environment: ["COLUMNS": "80"])
        #expect(piped.status == 0)
        let longest = piped.stdout.split(separator: "\n").map(\.count).max() ?? 0
        #expect(longest > 100, "the example has long rows: \(longest)")

        let terminal = try onTerminal(columns: 80, arguments, in: repositoryRoot)
        #expect(terminal.status == 0, "\(terminal.stdout)")
        let lines = terminal.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(terminal.stdout)")
        // Nothing lost: the same words, only the line breaks differ.
        let words = { (text: String) in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) }
        #expect(words(terminal.stdout) == words(piped.stdout))
        // Continuation lines are indented under the task, never cut mid-word.
        #expect(
            terminal.stdout.contains(
                "\n  ok  chain-replace     78%   1164 / 1500 km  Replace the chain\n" + String(repeating: " ", count: 46)
                    + "since 2025-09-12, due ~2027-03-11\n"
            ), "\(terminal.stdout)")

        // COLUMNS, when set, wins over the terminal's own width.
        let narrow = try onTerminal(columns: 80, arguments, in: repositoryRoot, environment: ["COLUMNS": "50"])
        #expect(narrow.stdout.split(separator: "\n").allSatisfy { $0.count <= 50 }, "\(narrow.stdout)")
        #expect(words(narrow.stdout) == words(piped.stdout))
    }
}
