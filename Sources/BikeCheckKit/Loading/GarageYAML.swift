import LocatedYAML

extension YAMLDocument.Limits {
    /// The YAML layer's limits with its help lines worded for garage files.
    static let garage: YAMLDocument.Limits = {
        var limits = YAMLDocument.Limits()
        limits.help.alias = "write the value out, or share intervals through a template"
        limits.help.depth = "a garage file needs only a few levels of nesting"
        limits.help.unclosedList = "end the list with ']' on the same line, e.g. done: [chain-lube, brake-bleed]"
        limits.help.unclosedMapping = "end it with '}' on the same line, e.g. {date: 2025-11-12, bike: grail, time: 1h30}"
        limits.help.editRefused = "fix the problems 'bikecheck validate' reports, then try again"
        return limits
    }()
}
