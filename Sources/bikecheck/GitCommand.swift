import ArgumentParser
import BikeCheckKit
import Diagnostics
import Foundation

struct GitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "git",
        abstract: "Keep the garage in git: merges that keep both sides' services, a check before each commit.",
        discussion: """
            'bikecheck git setup' once in each clone (init does it for a new garage in a git work tree): \
            .gitattributes routes garage.yaml, rides.yaml, bikes/, parts/ and templates/ to bikecheck's merge \
            driver (commit that file), git's local configuration names the driver, and a pre-commit hook \
            validates what is staged. merge-driver and check-staged are what git runs; see docs/git.md.
            """,
        subcommands: [Setup.self, MergeDriver.self, CheckStaged.self]
    )

    struct Setup: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "setup",
            abstract: "Route the garage's YAML files to bikecheck's merge driver and install the pre-commit check.",
            discussion: """
                Writes the missing lines of .gitattributes (commit it: every clone then routes the same \
                files), sets merge.bikecheck.driver and merge.bikecheck.name in the repository's local \
                configuration (bikecheck as you ran it: by name from PATH, or by the path you typed, links \
                kept; when it cannot be run, git's own line merge with conflict markers takes over), and \
                installs .git/hooks/pre-commit and .git/hooks/pre-merge-commit, which run 'bikecheck git \
                check-staged' on every garage of the repository. A hook already there is kept as \
                NAME.before-bikecheck and runs first. Hooks in a core.hooksPath outside .git, or run by a \
                hook manager (the pre-commit framework), are not written: it prints what to add. Running \
                it again changes nothing. Exit 1 when the garage is not in a git work tree.
                """)

        @OptionGroup var global: GlobalOptions

        func run() throws {
            let root = try global.garageRoot()
            do {
                let done = try GitSetup.run(root: root, executable: Self.executable())
                let lines = done.changes.isEmpty && done.advice.isEmpty ? ["git setup: everything was in place already"] : done.changes
                // One write per line: the advice spans lines, and each is escaped for the terminal.
                for line in (lines + done.advice).flatMap({ $0.split(separator: "\n", omittingEmptySubsequences: false) }) {
                    Terminal.standardOutput.write("\(line)\n")
                }
            } catch {
                Terminal.standardError.write(ErrorStyle.render(message: error.description))
                throw ExitCode(1)
            }
        }

        /// bikecheck as the rider runs it: a bare name (found on PATH when git runs it), or the
        /// path it was started by, made absolute with its links kept, so an upgrade that moves
        /// the link to a new version keeps working.
        static func executable() -> String {
            let started = CommandLine.arguments.first ?? "bikecheck"
            guard started.contains("/") else { return started.isEmpty ? "bikecheck" : started }
            let absolute = started.hasPrefix("/") ? started : FileManager.default.currentDirectoryPath + "/" + started
            var parts: [Substring] = []
            for part in absolute.split(separator: "/") {
                switch part {
                case ".": continue
                case "..": _ = parts.popLast()
                default: parts.append(part)
                }
            }
            return "/" + parts.joined(separator: "/")
        }
    }

    struct MergeDriver: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge-driver",
            abstract: "Git's merge driver for garage files: merge-driver %O %A %B %P.",
            discussion: """
                Merges the three versions of a garage file by their YAML keys: a key changed on one side \
                is taken; service log entries, to-dos and hand-entered rides are merged as sets (an entry \
                on both sides once, new entries in date order); the result is written through the \
                minimal-diff edit engine, so comments and layout stay, and must validate. The same key \
                changed differently on both sides, or a result that does not validate, is a conflict: \
                each place is reported as file:line:column, OURS is left with git's conflict markers, \
                and the exit status is 1.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The common ancestor's version (%O).") var base: String
        @Argument(help: "Our version, where the result goes (%A).") var ours: String
        @Argument(help: "Their version (%B).") var theirs: String
        @Argument(help: "The file's path in the repository (%P).") var path: String

        @Option(help: "Length of conflict markers (%L).") var markerSize = 7

        func run() throws {
            guard let b = readBytes(base), let o = readBytes(ours), let t = readBytes(theirs) else {
                Terminal.standardError.write(ErrorStyle.render(message: "cannot read the three versions of '\(path)' git gave"))
                throw ExitCode(1)
            }
            let outcome = GarageMerge.merge(base: b, ours: o, theirs: t, path: path)
            if let merged = outcome.merged, outcome.diagnostics.isEmpty {
                try write(merged)
                return
            }
            global.report(outcome.diagnostics, sources: outcome.sources)
            if let merged = outcome.merged {
                // Merged, but not valid: the merge to fix by hand.
                try write(merged)
            } else {
                // Git's own line merge, with its conflict markers, for the rider to resolve.
                let markers = try? GitCommitter.mergeFile(ours: ours, base: base, theirs: theirs, markerSize: markerSize)
                if markers == nil { Terminal.standardError.write(ErrorStyle.render(message: "cannot write conflict markers into '\(path)'")) }
            }
            throw ExitCode(1)
        }

        func write(_ bytes: [UInt8]) throws {
            do {
                try AtomicFile.write(bytes, to: ours)
            } catch {
                Terminal.standardError.write(ErrorStyle.render(message: error.description))
                throw ExitCode(1)
            }
        }
    }

    struct CheckStaged: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check-staged",
            abstract: "Validate the garage as staged for the next commit (the pre-commit hook runs this).",
            discussion: """
                Reads the garage's files from git's index (not the work tree) and \
                validates them as 'validate' does, without the activity cache. Without --garage (as the \
                hooks run it), every garage the index holds is checked (every folder with a staged \
                garage.yaml), and a repository without one passes. Exit 1 when they have errors: the \
                commit stops. Skip it once with 'git commit --no-verify'.
                """)

        @OptionGroup var global: GlobalOptions

        func run() throws {
            // Without --garage (as the hooks run it): every garage the index holds, so one hook
            // serves every garage of the repository, and a repository without one passes.
            // BIKECHECK_GARAGE is not asked: git commits in the repository of this folder.
            let roots: [(root: String, shown: String)]
            if global.garage == nil {
                do {
                    let found = try GitSnapshot.stagedGarages(in: FileManager.default.currentDirectoryPath)
                    roots = found.garages.map { ($0, $0 == found.top ? "" : String($0.dropFirst(found.top.count + 1)) + "/") }
                } catch {
                    Terminal.standardError.write(ErrorStyle.render(message: error.description))
                    throw ExitCode(1)
                }
            } else {
                roots = [(try global.garageRoot(), "")]
            }
            var failed = false
            for (root, shown) in roots {
                let snapshot: GitSnapshot
                do {
                    snapshot = try GitSnapshot.take(.index, of: root)
                } catch {
                    Terminal.standardError.write(ErrorStyle.render(message: error.description))
                    throw ExitCode(1)
                }
                var options = GarageLoader.Options(activities: .skip, today: today())
                options.snapshot = snapshot
                let loaded = GarageLoader.load(at: root, options: options)
                // Errors only: warnings are for 'validate', not for every commit. Paths from the
                // top of the work tree when the garage is below it.
                let errors = loaded.diagnostics.filter { $0.severity == .error }.map { $0.moved(under: shown) }
                global.report(
                    errors,
                    sources: Dictionary(uniqueKeysWithValues: loaded.sources.map { (shown + $0.key, SourceText(path: shown + $0.key, bytes: $0.value.bytes)) }))
                if loaded.hasErrors { failed = true }
            }
            if failed {
                Terminal.standardError.write(
                    ErrorStyle.render(
                        message: "the garage as staged has errors, so the commit was stopped",
                        help: "fix them, 'git add' the files, and commit again ('--no-verify' skips this check)"))
                throw ExitCode(1)
            }
        }
    }
}
