import Foundation
import TestSupport
import Testing

/// One place decides formats: every command declares the ones it prints, and refuses any other
/// with a usage error that lists them, before it does anything.
@Suite struct FormatEndToEndTests {
    /// Every command, with arguments that would otherwise run it, and the formats it prints.
    static let commands: [([String], [String])] = [
        (["status"], ["text", "json"]), (["validate"], ["text", "json"]), (["init", "new-garage"], ["text", "json"]),
        (["done", "grail", "chain-lube"], ["text", "json"]),
        (["snooze", "grail", "chain-lube", "--until", "2099-01-01"], ["text", "json"]), (["todo", "add", "grail", "x"], ["text", "json"]),
        (["bike", "add", "x", "--name", "X"], ["text", "json"]),
        (["bike", "list"], ["text", "json"]), (["bike", "retire", "grail"], ["text", "json"]),
        (["template", "list"], ["text", "json"]), (["template", "show", "road-basics"], ["text"]),
        (["template", "apply", "road-basics", "grail"], ["text", "json"]),
        (["template", "import", "templates/road-basics.yaml", "--as", "copy"], ["text", "json"]),
        (["ride", "add", "grail", "--date", "2026-01-01", "--time", "1h"], ["text", "json"]),
        (["sync"], ["text", "json"]), (["import", "strava-archive", "export.zip"], ["text"]),
        (["import", "files", "ride.fit"], ["text"]), (["import", "tracker", "strava-gear", "rules.yaml"], ["text", "json"]),
        (["todo", "list"], ["text"]),
        (["login"], ["text"]), (["logout"], ["text"]), (["whoami"], ["text"]),
        (["costs"], ["text", "json", "csv", "markdown"]), (["usage"], ["text", "json", "csv", "markdown"]),
        (["history"], ["text", "json", "csv", "markdown"]), (["rides"], ["text", "json", "csv", "markdown"]),
        (["diff", "HEAD"], ["text", "json", "csv", "markdown"]),
        (["export", "ledger"], ["text"]), (["calendar"], ["text"]), (["report"], ["html"]), (["notify", "--dry-run"], ["text"]),
        (["part", "list"], ["text", "json"]), (["part", "show", "race-wheels"], ["text", "json"]),
        (["part", "add", "x", "--name", "X"], ["text", "json"]), (["part", "mount", "spare-chain", "grail"], ["text", "json"]),
        (["part", "unmount", "race-wheels"], ["text", "json"]), (["part", "retire", "spare-chain"], ["text", "json"]),
        (["template", "outdated"], ["text", "json"]), (["template", "update"], ["text", "json"]),
        (["template", "export", "road-basics", "out"], ["text", "json"]),
        (["git", "setup"], ["text"]), (["git", "check-staged"], ["text"]), (["git", "merge-driver", "o", "a", "b", "p"], ["text"]),
        (["lsp"], ["text"]), (["mcp"], ["text"]),
    ]

    @Test func templateShowRefusesJSONInsteadOfPrintingText() throws {
        let garage = try TemporaryFolder(copying: true)
        let r = try garage.run(["template", "show", "road-basics", "--format", "json"])
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr == "error: 'show' does not print format 'json'\n  help: it prints: text\n")
    }

    @Test func everyCommandRefusesAFormatItDoesNotPrintAndChangesNothing() throws {
        let garage = try TemporaryFolder(copying: true)
        let before = try FileManager.default.subpathsOfDirectory(atPath: garage.path).sorted()
        for (arguments, served) in Self.commands {
            guard let refused = ["csv", "markdown", "json"].first(where: { !served.contains($0) }) else {
                // A report prints every format (diff's need commits: GarageDiffEndToEndTests).
                for format in served where arguments[0] != "diff" {
                    let r = try garage.run(arguments + ["--format", format, "--as-of", "2026-11-15"])
                    #expect(r.status == 0 && !r.stdout.isEmpty, "\(arguments) --format \(format): \(r.stderr)")
                }
                continue
            }
            let r = try garage.run(arguments + ["--format", refused], environment: ["XDG_CONFIG_HOME": garage.path + "/.config-unused"])
            #expect(r.status == 2, "\(arguments) --format \(refused): \(r.status) \(r.stderr)")
            #expect(
                r.stderr.contains("does not print format '\(refused)'\n  help: it prints: \(served.joined(separator: ", "))\n"),
                "\(arguments): \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(arguments): \(r.stdout)")
        }
        // The reports that ran made the activity index, derived local state in `.bikecheck/`.
        let after = try FileManager.default.subpathsOfDirectory(atPath: garage.path).filter { !$0.hasPrefix(".bikecheck") }
        #expect(after.sorted() == before.filter { !$0.hasPrefix(".bikecheck") })
    }

    /// The command tree as `--help` shows it: every command that runs (a leaf), as the words
    /// that name it, found by reading each command's SUBCOMMANDS section in turn.
    static func leafCommands(below path: [String] = []) throws -> [[String]] {
        let help = try runBikecheck(path + ["--help"], in: exampleGarage).stdout
        guard let section = help.components(separatedBy: "SUBCOMMANDS:").dropFirst().first else { return [path] }
        let names = section.split(separator: "\n").compactMap { line -> String? in
            let word = line.split(separator: " ").first.map(String.init)
            return line.hasPrefix("  ") && !line.hasPrefix("   ") && word?.first?.isLowercase == true ? word : nil
        }
        return try names.flatMap { try leafCommands(below: path + [$0]) }
    }

    /// A command added anywhere in the tree (`import files` was once left out, and printed text
    /// for `--format json`) fails here until it declares its formats and is in the list above.
    @Test func everyCommandOfTheWholeTreeIsInTheList() throws {
        let leaves = try Self.leafCommands()
        #expect(leaves.count >= 40, "\(leaves)")
        #expect(leaves.contains(["import", "files"]) && leaves.contains(["todo", "list"]), "\(leaves)")
        let missing = leaves.filter { leaf in !Self.commands.contains { Array($0.0.prefix(leaf.count)) == leaf } }
        #expect(missing.isEmpty, "commands with no declared formats in this test: \(missing)")
    }
}
