import ArgumentParser
import BikeCheckKit
import Diagnostics
import Foundation

/// What bikecheck does with its arguments before ArgumentParser reads them.
///
/// `status` is the default command, so ArgumentParser alone would read any unknown first word as
/// a bike for `status` (`bikecheck stauts` → "no bike 'stauts'"). Here a word where a command is
/// expected must be a command: otherwise it is a usage error that names the nearest command.
/// Bikes go after `status` (`bikecheck status grail`); `bikecheck` with options only still runs
/// `status`. Global options written before the command (`bikecheck --garage . status`) are moved
/// after it, where ArgumentParser reads them; whether one takes a value, so the word after it is
/// no command, comes from the options' declarations (`DeclaredOptions`), not from a list here.
enum CommandRouting {
    /// Arguments ArgumentParser handles itself, left exactly as they are.
    static let builtIns: Set<String> = ["-h", "--help", "--version", "--generate-completion-script", "--experimental-dump-help", "help"]

    /// A command's name and its subcommands, read once from the commands' configurations.
    struct Node {
        var name: String
        var children: [Node]
        var type: ParsableCommand.Type

        init(_ type: ParsableCommand.Type) {
            name = type._commandName
            children = type.configuration.subcommands.map(Node.init)
            self.type = type
        }
    }

    /// The arguments to parse: commands first, then the options and arguments that follow them.
    static func route(_ arguments: [String], root: ParsableCommand.Type) throws -> [String] {
        try route(arguments, tree: Node(root))
    }

    static func route(_ arguments: [String], tree root: Node) throws -> [String] {
        // ArgumentParser's completion protocol (`---completion …`) is not for people: untouched.
        if arguments.first?.hasPrefix("---") == true { return arguments }
        var path: [String] = []
        var options: [String] = []
        var rest = arguments[...]
        var command = root
        var isRoot = true
        // Read only when an option comes before the command words (`bikecheck --garage DIR …`),
        // the shared options first: describing every command costs more than the run.
        var declared = DeclaredOptions.Lookup(root: root.type)
        while let word = rest.first {
            // `help COMMAND…` names commands too: a mistyped one gets the same answer.
            if word == "help", isRoot {
                _ = try route(rest.dropFirst().filter { !$0.hasPrefix("-") }, tree: root)
                break
            }
            if word == "--" || builtIns.contains(word) { break }
            if word.hasPrefix("-") {
                let name = String(word.split(separator: "=", maxSplits: 1).first ?? "")
                if builtIns.contains(name) { break }
                // `--check` takes a level when one follows (`bikecheck --check due-soon`).
                let levelFollows = name == UrgencyOptions.checkFlag && rest.dropFirst().first.map(UrgencyOptions.looksLikeLevel) == true
                // Options of the leaf command, or a global one: both fine after the command words.
                guard !command.children.isEmpty else { break }
                let takesValue = declared.takesValue(name, before: command, later: rest.dropFirst()) || (isRoot && levelFollows)
                options.append(word)
                rest = rest.dropFirst()
                if takesValue, !word.contains("="), let value = rest.first {
                    options.append(value)
                    rest = rest.dropFirst()
                }
                continue
            }
            let subcommands = command.children
            if subcommands.isEmpty { break }
            if let next = subcommands.first(where: { $0.name == word }) {
                path.append(word)
                command = next
                isRoot = false
                rest = rest.dropFirst()
                continue
            }
            let names = subcommands.map(\.name)
            let parent = ([root.name] + path).joined(separator: " ")
            let hint = didYouMean(word, among: names)
            var help = "commands of '\(parent)': \(names.joined(separator: ", "))"
            if isRoot, hint.isEmpty { help += "; a bike's status: '\(parent) status \(word)'" }
            throw UsageError("'\(parent)' has no command '\(word)'\(hint)", help: help)
        }
        // `status --check LEVEL` (status is also what runs with no command).
        if path.isEmpty || path == [StatusCommand._commandName] { return path + UrgencyOptions.rewritingCheckLevels(options + rest) }
        return path + options + rest
    }
}

/// The options the commands declare, as ArgumentParser describes them (`_dumpHelp()`, what
/// `--experimental-dump-help` prints): the names of those that take a value, in any command, so
/// `bikecheck --since 2026-01-01 costs` reads `2026-01-01` as `--since`'s value. An option
/// added to any command is known here without a second list.
struct DeclaredOptions {
    /// `--since`, `-h`: every name of an option (not a flag) of any command in the tree.
    var valueTaking: Set<String> = []

    init() {}

    /// The options of `type` and, for a command, of its subcommands.
    init(_ type: ParsableArguments.Type) {
        guard let tool = try? JSONDecoder().decode(Tool.self, from: Data(type._dumpHelp().utf8)) else { return }
        var pending = [tool.command]
        while let command = pending.popLast() {
            pending += command.subcommands ?? []
            for argument in command.arguments ?? [] where argument.kind == "option" {
                for name in argument.names ?? [] { valueTaking.insert((name.kind == "long" ? "--" : "-") + name.name) }
            }
        }
    }

    /// Asks the cheapest declarations first, each read once when needed: the options every
    /// command shares; the default command's (`bikecheck --as-of DAY`); those of the commands
    /// named later on the line (`bikecheck --since DAY costs`); then every command's.
    struct Lookup {
        var root: ParsableCommand.Type
        private var shared: DeclaredOptions?
        private var defaultCommand: DeclaredOptions?
        private var named: [String: DeclaredOptions] = [:]
        private var everything: DeclaredOptions?

        init(root: ParsableCommand.Type) { self.root = root }

        /// Whether `name`, written before the words of `command`'s subcommands, takes a value;
        /// `later` are the words after it.
        mutating func takesValue(_ name: String, before command: CommandRouting.Node, later: ArraySlice<String>) -> Bool {
            if shared == nil { shared = DeclaredOptions(GlobalOptions.self) }
            if shared!.valueTaking.contains(name) { return true }
            if command.type == root {
                if defaultCommand == nil { defaultCommand = root.configuration.defaultSubcommand.map { DeclaredOptions($0) } ?? DeclaredOptions() }
                if defaultCommand!.valueTaking.contains(name) { return true }
            }
            var found = false
            for child in command.children where later.contains(child.name) {
                if named[child.name] == nil { named[child.name] = DeclaredOptions(child.type) }
                if named[child.name]!.valueTaking.contains(name) { return true }
                found = true
            }
            // A command is named later and does not declare it: a flag, or ArgumentParser's error.
            if found { return false }
            if everything == nil { everything = DeclaredOptions(root) }
            return everything!.valueTaking.contains(name)
        }
    }

    // The part of ArgumentParser's tool description (ToolInfoV0) read here.
    private struct Tool: Decodable { var command: Command }
    private struct Command: Decodable {
        var subcommands: [Command]?
        var arguments: [Argument]?
    }
    private struct Argument: Decodable {
        var kind: String
        var names: [Name]?
    }
    private struct Name: Decodable {
        var kind: String
        var name: String
    }
}

extension CommandRouting {
    /// Arguments that ask ArgumentParser itself for something (help, the version, a completion
    /// script or its completion protocol, the tool's description): the full parse answers them.
    static func asksArgumentParser(_ argument: String) -> Bool {
        builtIns.contains(argument) || argument.hasPrefix("---") || argument.hasPrefix("--generate-completion-script")
            || argument.hasPrefix("--experimental-dump-help")
    }

    /// The command that routed `arguments` name (its words first; none: the default command),
    /// parsed on its own: without ArgumentParser's passes for the whole tree (the request for a
    /// completion script, the check of every named subcommand for pass-through arguments),
    /// which cost a plain `status` a sixth of its run. Nil when the arguments ask
    /// ArgumentParser itself for something, name a command with subcommands, or do not parse:
    /// then the full parse answers, with its own messages.
    static func parseDirectly(_ arguments: [String], tree root: Node) -> ParsableCommand? {
        guard !arguments.contains(where: asksArgumentParser) else { return nil }
        var command = root
        var rest = arguments[...]
        while let word = rest.first, let next = command.children.first(where: { $0.name == word }) {
            command = next
            rest = rest.dropFirst()
        }
        var type = command.type
        if command.type == root.type {
            guard let status = root.type.configuration.defaultSubcommand else { return nil }
            type = status
        } else if !command.children.isEmpty {
            return nil
        }
        func parse<C: ParsableCommand>(_: C.Type) -> ParsableCommand? {
            (try? DirectCommand<C>.parseAsRoot(Array(rest)) as? DirectCommand<C>)?.command
        }
        return parse(type)
    }
}

/// A command parsed on its own by `CommandRouting.parseDirectly`: a pseudo-command of
/// bikecheck's (`_superCommandName`), for which ArgumentParser does not look for a request for
/// a completion script (`parseDirectly` takes no arguments that could hold one).
struct DirectCommand<C: ParsableCommand>: ParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(commandName: C._commandName, _superCommandName: "bikecheck") }

    @OptionGroup var command: C

    func run() throws { var command = command; try command.run() }
}
