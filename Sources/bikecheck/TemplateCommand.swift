import ArgumentParser
import BikeCheckKit
import Diagnostics
import Foundation

struct TemplateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "template",
        abstract: "List, show, apply, import, follow and export service templates.",
        subcommands: [List.self, Show.self, Apply.self, Import.self, Outdated.self, Update.self, Export.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the garage's templates.")

        @OptionGroup var global: GlobalOptions

        func run() throws {
            let loaded = GarageLoader.load(at: try global.garageRoot(), options: GarageLoader.Options(activities: .skip))
            global.report(loaded.diagnostics, sources: loaded.sources)
            let templates = loaded.garage.templates
            switch format {
            case .json:
                struct Row: Encodable { var id: String, name: String, source: String?, intervals: [String], bikes: [String] }
                Terminal.standardOutput.write(
                    json: try JSONOutput.encode(
                        templates.map { t in
                            Row(
                                id: t.id.rawValue, name: t.name, source: t.source, intervals: t.intervals.map(\.id.rawValue),
                                bikes: loaded.garage.bikes(using: t.id))
                        }))
            case .text:
                let width = templates.map { TerminalText(escaping: $0.id).string.count }.max() ?? 0
                for t in templates {
                    let id = TerminalText(escaping: t.id)
                    var line: TerminalText =
                        "\(id)" + .spaces(width - id.string.count) + "  \(t.name)  (\(t.intervals.count) interval\(t.intervals.count == 1 ? "" : "s"))"
                    let bikes = loaded.garage.bikes(using: t.id)
                    if !bikes.isEmpty { line += "  used by \(bikes.joined(separator: ", "))" }
                    Terminal.standardOutput.write(line + "\n")
                }
            }
            if loaded.hasErrors { throw ExitCode(1) }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a template's intervals.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The template.", completion: Completions.templates)
        var template: String

        func run() throws {
            let context = WriteContext(root: try global.garageRoot(), today: today())
            let loaded = context.loaded
            let t: Template
            do {
                t = try context.template(template)
            } catch {
                // A template file with errors does not load: say why, then what there is.
                global.report(loaded.diagnostics.filter { $0.location.file.hasPrefix("templates/\(template).") }, sources: loaded.sources)
                throw UsageError(error.message, help: error.help)
            }
            var out: TerminalText = "\(t.id) · \(t.name)\n"
            if let d = t.description { out += "\(lines: d.trimmingCharacters(in: .whitespacesAndNewlines))\n" }
            if let s = t.source { out += "source: \(s)\n" }
            let width = t.intervals.map { TerminalText(escaping: $0.id).string.count }.max() ?? 0
            for i in t.intervals {
                let id = TerminalText(escaping: i.id)
                var line: TerminalText = "  \(id)" + .spaces(width - id.string.count)
                // In the garage's units, as status shows the limit: `1864 mi (3000 km)`.
                let units = loaded.garage.settings.units
                line += "  every \(i.every?.value.map(units.quantityText).joined(separator: " or ") ?? "?")"
                if let task = i.task { line += "  \(task)" }
                if let c = i.replaces { line += "  (replaces \(c.value))" }
                out += line + "\n"
            }
            let bikes = loaded.garage.bikes(using: t.id)
            if !bikes.isEmpty { out += "used by: \(bikes.joined(separator: ", "))\n" }
            Terminal.standardOutput.write(out)
        }
    }

    struct Apply: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "apply",
            abstract: "Add a template to a bike's 'templates:' list.",
            discussion: "Example:\n  bikecheck template apply tubeless grail"
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var write: WriteOptions

        @Argument(help: "The template.", completion: Completions.templates)
        var template: String

        @Argument(help: "The bike.", completion: Completions.bikes)
        var bike: String

        func run() throws {
            let root = try global.garageRoot()
            try write.perform(
                { () throws(WriteFailure) in
                    try TemplateImporter.apply(template, to: bike, in: WriteContext(root: root, today: today()))
                }, root: root, global: global)
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Copy templates from a git repository, a file or another garage, noting their source.",
            discussion: """
                SOURCE is a git repository (any URL git clone takes: https, ssh, git, file://, or a \
                local folder in git), a template file, or a garage (or templates folder). From a \
                repository, bikecheck makes a shallow clone at --ref (default: its default branch) and \
                reads templates/*.yaml (or *.yaml at its top): the named templates, or all of them. \
                Each copy gets 'source:': {url, path, ref, commit} from git (credentials left out, a \
                local repository as a path relative to the garage), else the file's path relative to \
                the garage. 'template outdated' and 'template update' follow that source. A different \
                template of the same name is never overwritten. Symbolic links, submodules and files \
                that are not regular are refused, unread; only https, ssh, git and local transports \
                are used, without this machine's git configuration, hooks or credential helpers. \
                BIKECHECK_GIT_TIMEOUT bounds a fetch (seconds, default 120).

                Examples:
                  bikecheck template import https://github.com/club/templates fox-36 --ref v2
                  bikecheck template import git@github.com:club/templates.git --commit
                  bikecheck template import ../club-templates road-basics --as club-road
                  bikecheck template import ~/Downloads/fox-36.yaml
                """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var write: WriteOptions

        @Argument(help: ArgumentHelp("A git repository URL or folder, a template file, or a garage folder.", valueName: "source"))
        var path: String

        @Argument(help: "Templates to import from a repository or garage folder (default: all).")
        var templates: [String] = []

        @Option(help: ArgumentHelp("The tag or branch of the repository to import from (default: its default branch).", valueName: "tag-or-branch"))
        var ref: String?

        @Option(name: .customLong("as"), help: ArgumentHelp("Import a single template under this name.", valueName: "name"))
        var newName: String?

        func run() throws {
            let root = try global.garageRoot()
            let cwd = FileManager.default.currentDirectoryPath
            try write.perform(
                { () throws(WriteFailure) in
                    try TemplateImporter.importTemplates(
                        from: path, names: templates, ref: ref, as: newName,
                        in: WriteContext(root: root, today: today()), workingDirectory: cwd,
                        timeout: try TemplateCommand.gitTimeout())
                }, root: root, global: global)
        }
    }

    struct Outdated: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "outdated",
            abstract: "Show which imported templates' git sources have moved on, and what changed.",
            discussion: """
                Fetches the tag or branch each template imported from git follows (its 'source:') \
                and compares it with the commit the garage's copy came from: intervals added and \
                removed upstream, limits changed; for a template pinned to a tag, the newer tags of its \
                source (by their numbers: v1.10 after v1.9). Writes nothing. Exits 1 when a template is \
                outdated (for cron, like 'status --check'), 0 when every one is up to date.

                Examples:
                  bikecheck template outdated
                  bikecheck template outdated fox-36 --format json
                """
        )

        @OptionGroup var global: GlobalOptions

        @Argument(help: "Templates to look at (default: every template imported from git).", completion: Completions.templates)
        var templates: [String] = []

        func run() throws {
            let context = WriteContext(root: try global.garageRoot(), today: today())
            let statuses: [TemplateUpdater.Status]
            do {
                statuses = try TemplateUpdater.outdated(templates, in: context, timeout: try TemplateCommand.gitTimeout())
            } catch {
                throw WriteOptions().failure(error, global: global)
            }
            switch format {
            case .json:
                Terminal.standardOutput.write(json: try JSONOutput.encode(statuses))
            case .text:
                if statuses.isEmpty { Terminal.standardError.write("no templates were imported from git\n") }
                let width = statuses.map { TerminalText(escaping: $0.template).string.count }.max() ?? 0
                for s in statuses {
                    let id = TerminalText(escaping: s.template)
                    var line: TerminalText = "\(id)" + .spaces(width - id.string.count)
                    if s.upstream != s.commit {
                        line += "  outdated: \(s.commit.prefix(12)) → \(s.upstream.prefix(12))"
                    } else if !s.newerTags.isEmpty {
                        line += "  outdated: a newer tag than \(s.commit.prefix(12))"
                    } else {
                        line += "  up to date at \(s.commit.prefix(12))"
                    }
                    line += "  \(s.url)" + (s.ref.map { " \($0)" } ?? "")
                    if !s.changes.isEmpty { line += "\n    " + TerminalText(escaping: s.changes.joined(separator: "; ")) }
                    if let newest = s.newerTags.last {
                        line +=
                            "\n    newer tags: " + TerminalText(escaping: s.newerTags.joined(separator: ", "))
                            + " ('bikecheck template update \(id) --ref " + TerminalText(escaping: newest) + "' moves to the newest)"
                    }
                    Terminal.standardOutput.write(line + "\n")
                }
            }
            // Something to update is a problem found, for scripts and cron.
            if statuses.contains(where: \.isOutdated) { throw ExitCode(1) }
        }
    }

    struct Update: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update",
            abstract: "Bring upstream changes into imported templates, keeping your own edits.",
            discussion: """
                A three-way merge, key by key, of the version the garage's copy was imported from \
                (its 'source: commit:'), your file and the new upstream version: a change made on \
                one side only is taken, your comments and layout stay. When you and upstream changed \
                the same key differently, the update is refused showing each place with both values, \
                and nothing is written; --keep-mine keeps yours there and takes the rest. \
                'source: commit:' moves to the new commit; --commit's message names the old and \
                new commit ids.

                Examples:
                  bikecheck template update --dry-run
                  bikecheck template update fox-36 --commit
                  bikecheck template update fox-36 --ref v3
                  bikecheck template update fox-36 --keep-mine
                """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var write: WriteOptions

        @Argument(help: "Templates to update (default: every template imported from git).", completion: Completions.templates)
        var templates: [String] = []

        @Option(help: ArgumentHelp("Move to this tag or branch of the source (noted in 'source: ref:').", valueName: "tag-or-branch"))
        var ref: String?

        @Flag(help: "Where you and upstream changed the same value, keep yours (upstream's other changes are taken).")
        var keepMine = false

        func run() throws {
            let root = try global.garageRoot()
            try write.perform(
                { () throws(WriteFailure) in
                    try TemplateUpdater.update(
                        templates, ref: ref, keepingMine: keepMine, in: WriteContext(root: root, today: today()), timeout: try TemplateCommand.gitTimeout())
                }, root: root, global: global)
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write templates to a folder other riders can import from (a templates repository).",
            discussion: """
                DIR becomes (or stays) a small garage of its own: garage.yaml, templates/, the \
                schemas, a .gitignore. Each template is copied as it is, without a 'source:' that \
                only means something in this garage. Run it again to publish changes; --commit \
                commits in DIR's git repository. 'bikecheck validate --garage DIR' checks it, in CI too.

                Examples:
                  bikecheck template export fox-36 road ../club-templates
                  bikecheck template export fox-36 ../club-templates --commit
                """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var write: WriteOptions

        @Argument(
            help: ArgumentHelp("The templates to export, then the folder to write them to.", valueName: "template… dir"),
            completion: Completions.templates)
        var arguments: [String] = []

        func run() throws {
            guard arguments.count >= 2, let directory = arguments.last else {
                throw ValidationError("name one or more templates and then the folder: bikecheck template export T… DIR")
            }
            let garage = try global.garageRoot()
            let cwd = FileManager.default.currentDirectoryPath
            let target = URL(fileURLWithPath: directory.hasPrefix("/") ? directory : cwd + "/" + directory).standardizedFileURL.path
            let context = WriteContext(root: garage, today: today())
            try write.perform(
                { () throws(WriteFailure) in
                    try TemplateExporter.export(Array(arguments.dropLast()), to: target, from: context)
                }, root: target, global: global)
        }
    }

    /// How long one fetch of a templates repository may take: `BIKECHECK_GIT_TIMEOUT` seconds, else 120.
    static func gitTimeout() throws(WriteFailure) -> Double {
        guard let text = ProcessInfo.processInfo.environment["BIKECHECK_GIT_TIMEOUT"], !text.isEmpty else { return 120 }
        guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 86_400 else {
            throw WriteFailure(.usage, "BIKECHECK_GIT_TIMEOUT '\(text)' is not a number of seconds", help: "write e.g. 120")
        }
        return seconds
    }
}
