import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// The command line itself: which words are commands, where options may go, how usage errors look.
@Suite struct CommandLineEndToEndTests {
    @Test(arguments: [
        (["stauts"], "stauts", "status"),
        (["valdiate"], "valdiate", "validate"),
        (["bikes", "list"], "bikes", "bike"),
        (["bike", "lst"], "lst", "list"),
        (["help", "stauts"], "stauts", "status"),
    ])
    func aMistypedCommandNamesTheNearestOneInsteadOfLookingForABike(arguments: [String], typed: String, meant: String) throws {
        let garage = try TemporaryFolder(copying: true)
        let r = try garage.run(arguments)
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.hasPrefix("error: "), "\(r.stderr)")
        #expect(r.stderr.contains("has no command '\(typed)'; did you mean '\(meant)'?"), "\(r.stderr)")
        #expect(r.stderr.contains("\n  help: commands of 'bikecheck"), "\(r.stderr)")
        #expect(!r.stderr.contains("no bike"), "\(r.stderr)")
    }

    @Test func aBikeWithoutACommandIsAUsageErrorThatShowsHowToAskForItsStatus() throws {
        let garage = try TemporaryFolder(copying: true)
        let r = try garage.run(["grail"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("'bikecheck' has no command 'grail'\n"), "\(r.stderr)")
        #expect(r.stderr.contains("a bike's status: 'bikecheck status grail'"), "\(r.stderr)")
        let status = try garage.run(["status", "grail", "--as-of", "2026-11-15"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("\ngrail · "))
    }

    @Test func globalOptionsMayComeBeforeTheCommand() throws {
        let before = try runBikecheck(["--garage", exampleGarage.path, "status", "--as-of", "2026-11-15"], in: repositoryRoot)
        let after = try runBikecheck(["status", "--garage", exampleGarage.path, "--as-of", "2026-11-15"], in: repositoryRoot)
        #expect(before.status == 0, "\(before.stderr)")
        #expect(before.stdout == after.stdout)
        #expect(before.stdout.contains("\ngrail · "))
        let json = try runBikecheck(["--format=json", "--garage", exampleGarage.path, "bike", "list"], in: repositoryRoot)
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdout.hasPrefix("["), "\(json.stdout)")
        // No command at all is still status, options included.
        let bare = try runBikecheck(["--garage", exampleGarage.path, "--as-of", "2026-11-15"], in: repositoryRoot)
        #expect(bare.status == 0, "\(bare.stderr)")
        #expect(bare.stdout == after.stdout)
    }

    /// Whether an option takes a value comes from its declaration, so any command's option may
    /// come first: `2026-01-01` was read as a command ("'bikecheck' has no command '2026-01-01'").
    @Test(arguments: [
        (["--since", "2026-01-01", "costs"], ["costs", "--since", "2026-01-01"]),
        (["--since=2026-01-01", "--by", "year", "costs", "grail"], ["costs", "grail", "--since", "2026-01-01", "--by", "year"]),
        (["--interval", "chain-lube", "history", "grail"], ["history", "grail", "--interval", "chain-lube"]),
        (["--by", "urgency"], ["status", "--by", "urgency"]),
    ])
    func anyCommandsOptionsMayComeBeforeIt(before: [String], after: [String]) throws {
        let common = ["--garage", exampleGarage.path, "--as-of", "2026-11-15"]
        let first = try runBikecheck(common + before, in: repositoryRoot)
        let last = try runBikecheck(after + common, in: repositoryRoot)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == last.stdout && !first.stdout.isEmpty)
    }

    @Test(arguments: [
        (["done"], "error: missing expected argument '<bike-or-part>'"),
        (["--format", "yaml", "status"], "error: the value 'yaml' is invalid for '--format <format>'"),
        (["status", "--bogus"], "error: unknown option '--bogus'"),
        (["done", "grail", "chain-lube", "--date", "2026-13-01"], "error: --date '2026-13-01' is not a real date: there is no month 13"),
    ])
    func usageErrorsFromTheParserSpeakInBikechecksStyleAndExitTwo(arguments: [String], first: String) throws {
        let garage = try TemporaryFolder(copying: true)
        let r = try garage.run(arguments)
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix(first), "\(r.stderr)")
        for capitalised in ["Error:", "Help:", "Usage:", "See '"] {
            #expect(!r.stderr.contains(capitalised), "\(r.stderr)")
        }
        #expect(r.stderr.contains("\n  usage: bikecheck "), "\(r.stderr)")
        #expect(r.stderr.contains("\n  help: see 'bikecheck "), "\(r.stderr)")
    }

    /// Without `commandName:`, ArgumentParser derives a command's name from its type's metadata
    /// on every run, which made `bikecheck --help` a fifth slower (debug build: 99.7 M
    /// instructions before, 78.8 M after).
    @Test func everyCommandNamesItselfInItsConfiguration() throws {
        let folder = repositoryRoot.appendingPathComponent("Sources/bikecheck")
        var unnamed: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for call in text.components(separatedBy: "CommandConfiguration(").dropFirst() {
                let opening = call.drop { $0 == " " || $0 == "\n" }
                if !opening.hasPrefix("commandName:") { unnamed.append("\(file): \(opening.prefix(40))") }
            }
        }
        #expect(unnamed.isEmpty, "\(unnamed)")
    }

    @Test func versionIsTheConstantAndTheChangelogsTopEntry() throws {
        let r = try runBikecheck(["--version"], in: repositoryRoot)
        #expect(r.status == 0)
        #expect(r.stdout == bikecheckVersion + "\n")
        let changelog = try String(contentsOf: repositoryRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let top = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## ") })
        #expect(top.contains("[\(bikecheckVersion)]"), "CHANGELOG's top entry is '\(top)'")
    }
}

/// Shell completion through the real binary, as the generated scripts call it.
@Suite struct CompletionEndToEndTests {
    /// What the shell scripts run for a custom completion: `bikecheck ---completion COMMAND… --
    /// ARGUMENT INDEX CURSOR WORDS…`.
    func complete(_ command: [String], _ argument: String, words: [String], in directory: URL, environment: [String: String] = [:]) throws -> CommandResult {
        let last = words.last ?? ""
        return try runBikecheck(
            ["---completion"] + command + ["--", argument, String(words.count - 1), String(last.count)] + words,
            in: directory, environment: environment)
    }

    @Test func theScriptsAskTheBinaryForTheGaragesNames() throws {
        let garage = try TemporaryFolder(copying: true)
        let intervals = try complete(["done"], "positional@1", words: ["bikecheck", "done", "stumpy", "fork"], in: garage.root)
        #expect(intervals.status == 0)
        #expect(intervals.stdout == "fork-full\nfork-lowers\n", "\(intervals.stdout)\(intervals.stderr)")
        // The options of done that take a value are read from its declarations: their values are no bike.
        for options in [["--category", "grail"], ["--cost", "45 EUR", "--note", "grail"], ["--date", "2026-01-01"]] {
            let r = try complete(["done"], "positional@1", words: ["bikecheck", "done"] + options + ["stumpy", "fork"], in: garage.root)
            #expect(r.stdout == "fork-full\nfork-lowers\n", "\(options): \(r.stdout)\(r.stderr)")
        }
        let bikes = try complete(["done"], "positional@0", words: ["bikecheck", "done", "g"], in: garage.root)
        #expect(bikes.stdout == "grail\n")
        // --garage on the command line, from a folder with no garage.
        let templates = try complete(
            ["template", "apply"], "positional@0",
            words: ["bikecheck", "template", "apply", "--garage", garage.path, "t"], in: repositoryRoot)
        #expect(templates.stdout == "tubeless\n", "\(templates.stdout)\(templates.stderr)")
        let option = try complete(["bike", "add"], "--template", words: ["bikecheck", "bike", "add", "x", "--template", "fox"], in: garage.root)
        #expect(option.stdout == "fox-36\nfox-float-x\n", "\(option.stdout)\(option.stderr)")
        // A broken file does not stop bike and part names; nothing is printed to the prompt.
        try garage.write("bikes/grail.yaml", "name: [\n")
        let broken = try complete(["status"], "positional@0", words: ["bikecheck", "status", ""], in: garage.root)
        #expect(broken.stdout == "charger\ngrail\nrace-tyres\nrace-wheels\nrunning-shoes\nspare-chain\nstumpy\ntarmac\n")
        #expect(broken.stderr.isEmpty)
        let nowhere = try TemporaryFolder()
        let none = try complete(["status"], "positional@0", words: ["bikecheck", "status", ""], in: nowhere.url)
        #expect(none.status == 0 && none.stdout.isEmpty && none.stderr.isEmpty)
    }

    /// Where a command takes a bike or a part, both are offered; where it takes a part, the parts;
    /// the intervals after a part are the part's.
    @Test func partsAreOfferedWhereACommandTakesThem() throws {
        let garage = try TemporaryFolder(copying: true)
        let everything = "charger\ngrail\nrace-tyres\nrace-wheels\nrunning-shoes\nspare-chain\nstumpy\ntarmac\n"
        for command in [["done"], ["snooze"], ["status"], ["history"], ["costs"], ["usage"], ["rides"], ["todo", "add"]] {
            let r = try complete(command, "positional@0", words: ["bikecheck"] + command + [""], in: garage.root)
            #expect(r.stdout == everything, "\(command): \(r.stdout)\(r.stderr)")
        }
        let export = try complete(["export"], "positional@1", words: ["bikecheck", "export", "ledger", "r"], in: garage.root)
        #expect(export.stdout == "race-tyres\nrace-wheels\nrunning-shoes\n", "\(export.stdout)\(export.stderr)")
        let done = try complete(["done"], "positional@0", words: ["bikecheck", "done", "r"], in: garage.root)
        #expect(done.stdout == "race-tyres\nrace-wheels\nrunning-shoes\n")
        let intervals = try complete(["done"], "positional@1", words: ["bikecheck", "done", "race-wheels", ""], in: garage.root)
        #expect(intervals.stdout == "hub-service\ntrue-wheels\n", "\(intervals.stdout)\(intervals.stderr)")
        for sub in ["show", "mount", "unmount", "retire"] {
            let r = try complete(["part", sub], "positional@0", words: ["bikecheck", "part", sub, ""], in: garage.root)
            #expect(r.stdout == "race-tyres\nrace-wheels\nspare-chain\n", "\(sub): \(r.stdout)\(r.stderr)")
        }
        let mountOn = try complete(["part", "mount"], "positional@1", words: ["bikecheck", "part", "mount", "race-wheels", "t"], in: garage.root)
        #expect(mountOn.stdout == "tarmac\n", "\(mountOn.stdout)\(mountOn.stderr)")
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func theGeneratedScriptsCallTheCustomCompletions(shell: String) throws {
        let r = try runBikecheck(["--generate-completion-script", shell], in: repositoryRoot)
        #expect(r.status == 0)
        #expect(r.stdout.contains("---completion done -- positional@1"), "\(shell)")
    }
}

/// scripts/install with a built binary and no man pages (the full run builds in release and runs
/// the generate-manual plugin: minutes, so not here).
@Suite struct InstallScriptTests {
    @Test func installPutsTheBinaryAndTheCompletionsUnderThePrefix() throws {
        let prefix = try TemporaryFolder()
        let r = try runProcess(
            repositoryRoot.appendingPathComponent("scripts/install"), ["--no-man", "--binary", bikecheckBinary.path],
            in: repositoryRoot, environment: ["PREFIX": prefix.url.path])
        #expect(r.status == 0, "\(r.stderr)")
        let installed = prefix.url.appendingPathComponent("bin/bikecheck")
        let version = try runProcess(installed, ["--version"], in: prefix.url)
        #expect(version.stdout == bikecheckVersion + "\n")
        // report --serve's server beside it: the installed binary loads it (a missing one exits
        // 1; with it, the address is the next thing checked, a usage error).
        #expect(FileManager.default.fileExists(atPath: prefix.url.appendingPathComponent("bin/libBikeCheckReportHTTP.so").path))
        let serve = try runProcess(
            installed, ["report", "--serve", "--address", "not-an-ip", "--port", "0", "--garage", repositoryRoot.path + "/example-garage"],
            in: prefix.url)
        #expect(serve.status == 2 && serve.stderr.hasPrefix("error: --address not-an-ip is not an IP address"), "\(serve.status) \(serve.stderr)")
        // The TCX and GPX parser beside it too, found through a link to the installed binary
        // (~/bin/bikecheck -> PREFIX/bin/bikecheck): a GPX file imports.
        #expect(FileManager.default.fileExists(atPath: prefix.url.appendingPathComponent("bin/libBikeCheckRideXML.so").path))
        let garage = try TemporaryFolder(["garage.yaml": "units: metric\n", "bikes/grail.yaml": "name: Grail\nbought: 2026-01-01\n"])
        try rideFilesTool(["gpx", "rides/c.gpx", "--start", "2026-05-05T17:00:00Z"], in: garage.url)
        let link = prefix.url.appendingPathComponent("elsewhere/bikecheck")
        try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: installed)
        let gpx = try runProcess(link, ["import", "files", "rides/c.gpx", "--bike", "grail", "--garage", garage.path], in: garage.url)
        #expect(gpx.status == 0 && gpx.stdout.contains("1 new"), "\(gpx.status) \(gpx.stdout)\(gpx.stderr)")
        for (shell, path) in [
            ("bash", "share/bash-completion/completions/bikecheck"), ("zsh", "share/zsh/site-functions/_bikecheck"),
            ("fish", "share/fish/vendor_completions.d/bikecheck.fish"),
        ] {
            let script = try String(contentsOf: prefix.url.appendingPathComponent(path), encoding: .utf8)
            #expect(script.contains("---completion done -- positional@1"), "\(shell)")
        }
        let bad = try runProcess(
            repositoryRoot.appendingPathComponent("scripts/install"), ["--bogus"], in: repositoryRoot,
            environment: ["PREFIX": prefix.url.path])
        #expect(bad.status == 2)
        #expect(bad.stderr.hasPrefix("error: unknown option '--bogus'\n  help: "))
    }
}
