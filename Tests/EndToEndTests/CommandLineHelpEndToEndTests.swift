import Foundation
import TestSupport
import Testing

/// What the command line says about itself, through the built binary: help that shows what an
/// option takes, a bad date that says what is wrong with it, and a manual synopsis that lists
/// every command the binary has.
@Suite struct CommandLineHelpEndToEndTests {
    /// `--help` and `-h` alone print the root's help without parsing: the same bytes as `help`,
    /// which ArgumentParser answers after a parse.
    @Test func rootHelpIsTheSameBytesWithoutTheParseAsAfterIt() throws {
        let parsed = try runBikecheck(["help"], in: repositoryRoot)
        #expect(parsed.status == 0 && parsed.stderr.isEmpty && parsed.stdout.hasPrefix("OVERVIEW: Bike maintenance"), "\(parsed.stdout)")
        for flag in ["--help", "-h"] {
            let r = try runBikecheck([flag], in: repositoryRoot)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(flag): \(r.stderr)")
            #expect(r.stdout == parsed.stdout, "\(flag)")
        }
    }

    @Test func statusHelpShowsThatCheckTakesAnOptionalLevel() throws {
        let r = try runBikecheck(["status", "--help"], in: repositoryRoot)
        #expect(r.status == 0)
        let usage = try #require(r.stdout.split(separator: "\n").first { $0.hasPrefix("USAGE:") })
        #expect(usage.contains("[--check [<level>]]"), "\(usage)")
        let option = try #require(r.stdout.firstMatch(of: #/\n  --check \[<level>\] +(?<help>[^\n]*(?:\n {20,}[^\n]*)*)/#), "\(r.stdout)")
        let help = option.help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("'--check LEVEL' or '--check=LEVEL'") && help.contains("overdue, due-soon, or within:N"), "\(help)")
        #expect(help.contains("(default as flag: overdue)"), "\(help)")
        // The three ways still parse as before: alone, with a level, and before a bike.
        let garage = try TemporaryFolder(copying: true)
        for (arguments, status) in [
            (["--check"], 1), (["--check", "due-soon", "grail"], 1), (["--check=overdue", "grail"], 0), (["--check", "grail"], 0),
            (["--check=due-soon", "--as-of", "2026-11-15", "grail"], 1),
        ] {
            let r = try garage.run(["status", "--as-of", "2026-11-15"] + arguments)
            #expect(r.status == Int32(status), "\(arguments): \(r.stderr)")
        }
        let bad = try garage.run(["status", "--check=soon"])
        #expect(bad.status == 2 && bad.stderr.hasPrefix("error: 'soon' is not a level for --check\n"), "\(bad.stderr)")
    }

    /// Every date option reads a date as the files do, and says what is wrong with a bad one in
    /// the files' words.
    @Test(arguments: [
        ("2025-13-01", "'2025-13-01' is not a real date: there is no month 13"),
        ("2025-04-31", "'2025-04-31' is not a real date: April 2025 has 30 days"),
        ("2026-02-29", "'2026-02-29' is not a real date: February 2026 has 28 days"),
        ("2025-4-1", "'2025-4-1' is not a date"),
        ("yesterday", "'yesterday' is not a date"),
        ("0025-03-01", "'0025-03-01' is not a plausible date"),
    ])
    func aBadDateSaysWhatIsWrongWithItAsTheFilesDo(date: String, message: String) throws {
        let garage = try TemporaryFolder(copying: true)
        for arguments in [
            ["done", "grail", "chain-lube", "--date", date], ["status", "--as-of", date], ["history", "--since", date],
            ["rides", "grail", "--until", date], ["todo", "add", "grail", "x", "--due", date],
        ] {
            let option = try #require(arguments.first { $0.hasPrefix("--") })
            let r = try garage.run(arguments)
            #expect(r.status == 2, "\(arguments): \(r.stderr)")
            #expect(r.stderr.hasPrefix("error: \(option) \(message)\n  help: write a date as YYYY-MM-DD, e.g. 2025-03-01\n"), "\(arguments): \(r.stderr)")
        }
        // The file's diagnostic says the same.
        try garage.write("bikes/grail.yaml", try garage.read("bikes/grail.yaml").replacingOccurrences(of: "bought: 2023-04-02", with: "bought: \(date)"))
        let validate = try garage.run(["validate"])
        #expect(validate.stderr.contains("error: \(message) [bad-date]"), "\(validate.stderr)")
    }

    /// The manual's synopsis (README's, or docs/'s once the manual moves there) names every command
    /// and subcommand the binary has, and no other.
    @Test func theManualsSynopsisListsEveryCommandInTheTree() throws {
        let dump = try runBikecheck(["--experimental-dump-help"], in: repositoryRoot)
        #expect(dump.status == 0)
        struct Tree: Decodable {
            struct Command: Decodable {
                var commandName: String
                var subcommands: [Command]?
            }
            var command: Command
        }
        let tree = try JSONDecoder().decode(Tree.self, from: Data(dump.stdout.utf8)).command
        let commands = tree.subcommands ?? []
        #expect(commands.count >= 20)

        let (file, synopsis) = try Self.synopsis()
        // `bikecheck CMD SUB | SUB …  description`: the words before the description.
        var named: [String: Set<String>] = [:]
        for line in synopsis {
            let words = (line.components(separatedBy: "  ").first ?? line).split(separator: " ").map(String.init).dropFirst()
            guard let command = words.first else { continue }
            named[command, default: []].formUnion(words)
            // `login | logout | whoami`: top-level commands on one line.
            for (k, word) in words.enumerated() where word == "|" && k + 1 < words.count {
                let next = words[words.index(words.startIndex, offsetBy: k + 1)]
                if commands.contains(where: { $0.commandName == next }) { named[next, default: []].insert(next) }
            }
        }
        for command in commands {
            let words = named[command.commandName]
            #expect(words != nil, "\(file)'s synopsis has no 'bikecheck \(command.commandName)'")
            for sub in command.subcommands ?? [] {
                #expect(words?.contains(sub.commandName) == true, "\(file)'s synopsis has no 'bikecheck \(command.commandName) \(sub.commandName)'")
            }
        }
        let unknown = Set(named.keys).subtracting(commands.map(\.commandName))
        #expect(unknown.isEmpty, "\(file)'s synopsis names commands the binary does not have: \(unknown.sorted())")
    }

    /// The lines of the manual's command synopsis: the first fenced block that starts with
    /// `bikecheck status`, in docs/commands.md when the manual has moved there, else the README.
    static func synopsis() throws -> (String, [String]) {
        let candidates = ["docs/commands.md", "README.md"].filter { FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent($0).path) }
        for file in candidates {
            let text = try String(decoding: Data(contentsOf: repositoryRoot.appendingPathComponent(file)), as: UTF8.self)
            var block: [String]? = nil
            for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
                if line.hasPrefix("```") {
                    if let done = block, done.first?.hasPrefix("bikecheck status") == true { return (file, done.filter { $0.hasPrefix("bikecheck ") }) }
                    block = block == nil ? [] : nil
                } else {
                    block?.append(line)
                }
            }
        }
        Issue.record("no command synopsis (a fenced block starting with 'bikecheck status') in \(candidates)")
        return ("", [])
    }
}
