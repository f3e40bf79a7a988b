import Foundation

/// Names for shell completion: bikes, parts, intervals, components and templates of the garage a command line
/// points at (`--garage DIR` in it, else `BIKECHECK_GARAGE`, else upward from the working
/// directory, as every command finds it). Fast and silent: bike and template names come from file
/// names; intervals and parts load the garage's YAML without the activity cache; any problem gives
/// no candidates rather than a message on the rider's prompt.
package struct CompletionCandidates: Sendable {
    /// The shell words of the command line being completed, the program's name first.
    package var words: [String]
    /// What the word being completed starts with.
    package var prefix: String
    package var environment: [String: String]
    package var workingDirectory: String
    /// The garage already loaded, when the caller holds one (the language server): intervals and
    /// parts come from it rather than from a new load.
    package var loaded: Garage?

    package init(
        words: [String], prefix: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        workingDirectory: String = FileManager.default.currentDirectoryPath
    ) {
        self.words = words
        self.prefix = prefix
        self.environment = environment
        self.workingDirectory = workingDirectory
    }

    /// Shell words are passed on verbatim: 'a b' and "a b" lose their quotes here.
    static func unquoted(_ word: String) -> String {
        guard word.count >= 2, let f = word.first, f == word.last, f == "'" || f == "\"" else { return word }
        return String(word.dropFirst().dropLast())
    }

    /// The garage the command line names, or nil.
    package var garageRoot: String? {
        var explicit: String?
        for (i, word) in words.enumerated() {
            if word == "--garage", i + 1 < words.count { explicit = Self.unquoted(words[i + 1]) }
            if word.hasPrefix("--garage=") { explicit = Self.unquoted(String(word.dropFirst("--garage=".count))) }
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        if let e = explicit, e == "~" || e.hasPrefix("~/") { explicit = home + e.dropFirst() }
        return try? GarageLocator.locate(explicit: explicit, environment: environment, workingDirectory: workingDirectory)
    }

    /// `bikes/*.yaml` (and `.yml`) and `gear/*.yaml` by id: gear is taken where a bike is.
    package var bikes: [String] { matching(fileStems(in: "bikes") + fileStems(in: "gear")) }

    /// `templates/*.yaml` by id.
    package var templates: [String] { matching(fileStems(in: "templates")) }

    /// `parts/*.yaml` by id: the parts that move between bikes.
    package var movableParts: [String] { matching(fileStems(in: "parts")) }

    /// Bikes and parts, for the arguments that take either (`done`, `status`, the reports).
    package var bikesAndParts: [String] { matching(fileStems(in: "bikes") + fileStems(in: "gear") + fileStems(in: "parts")) }

    /// The intervals of `bike` (templates' and its own), or of the part of that name (a bike's
    /// name wins, as the commands decide), or of every bike when it is nil or neither.
    package func intervals(of bike: String?) -> [String] {
        guard let garage = loadedGarage() else { return [] }
        let chosen = garage.bikes.filter { $0.bike.id.rawValue == bike }
        if chosen.isEmpty, let bike, let part = garage.part(PartID(bike)) { return matching(part.intervals.map(\.id.rawValue)) }
        return matching((chosen.isEmpty ? garage.bikes : chosen).flatMap { $0.intervals.map(\.id.rawValue) })
    }

    /// The parts (components) of `bike`, or of every bike when it is nil or unknown.
    package func parts(of bike: String?) -> [String] {
        guard let garage = loadedGarage() else { return [] }
        let chosen = garage.bikes.filter { $0.bike.id.rawValue == bike }
        return matching((chosen.isEmpty ? garage.bikes : chosen).flatMap { $0.bike.components.map(\.id.rawValue) })
    }

    /// The first word after `command` that is not an option or an option's value: for `done`,
    /// the bike. `valueOptions` are the options of that command that take a value.
    package func firstArgument(after command: String, valueOptions: Set<String>) -> String? {
        guard let start = words.firstIndex(of: command) else { return nil }
        var i = start + 1
        while i < words.count {
            let word = words[i]
            if word.hasPrefix("-") {
                i += valueOptions.contains(word) ? 2 : 1
                continue
            }
            return word.isEmpty ? nil : Self.unquoted(word)
        }
        return nil
    }

    func loadedGarage() -> Garage? {
        if let loaded { return loaded }
        guard let root = garageRoot else { return nil }
        return GarageLoader.load(at: root, options: .init(activities: .skip)).garage
    }

    func fileStems(in folder: String) -> [String] {
        guard let root = garageRoot, let names = try? FileManager.default.contentsOfDirectory(atPath: root + "/" + folder) else { return [] }
        return names.compactMap { name in
            for ext in [".yaml", ".yml"] where name.hasSuffix(ext) && !name.hasPrefix(".") { return String(name.dropLast(ext.count)) }
            return nil
        }
    }

    /// Sorted, without repeats, starting with the prefix.
    func matching(_ names: [String]) -> [String] {
        Array(Set(names.filter { $0.hasPrefix(prefix) })).sorted()
    }
}
