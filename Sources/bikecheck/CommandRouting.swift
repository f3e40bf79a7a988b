import ArgumentParser
import BikeCheckKit
import Diagnostics

/// What bikecheck does with its arguments before ArgumentParser reads them.
///
/// `status` is the default command, so ArgumentParser alone would read any unknown first word as
/// a bike for `status` (`bikecheck stauts` → "no bike 'stauts'"). Here a word where a command is
/// expected must be a command: otherwise it is a usage error that names the nearest command.
/// Bikes go after `status` (`bikecheck status grail`); `bikecheck` with options only still runs
/// `status`. Global options written before the command (`bikecheck --garage . status`) are moved
/// after it, where ArgumentParser reads them.
enum CommandRouting {
    /// Options every command has that take a value (see `GlobalOptions`).
    static let globalValueOptions: Set<String> = ["--garage", "--format", "--color"]
    /// Options of the default command, `status`, that take a value.
    static let defaultCommandValueOptions: Set<String> = ["--as-of", "--by", "--within"]
    /// Arguments ArgumentParser handles itself, left exactly as they are.
    static let builtIns: Set<String> = ["-h", "--help", "--version", "--generate-completion-script", "--experimental-dump-help", "help"]

    /// A command's name and its subcommands, read once from the commands' configurations.
    struct Node {
        var name: String
        var children: [Node]

        init(_ type: ParsableCommand.Type) {
            name = type._commandName
            children = type.configuration.subcommands.map(Node.init)
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
                let takesValue = globalValueOptions.contains(name) || (isRoot && (defaultCommandValueOptions.contains(name) || levelFollows))
                // Options of the leaf command, or a global one: both fine after the command words.
                guard !command.children.isEmpty else { break }
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
