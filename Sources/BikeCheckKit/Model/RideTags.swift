/// The hashtags in a ride's name (`Race day #race #wet`): the words that start with `#`, as
/// strava-gear reads them. A mount with `tag: race` holds only for rides tagged `#race`; one with
/// `unless_tag: race` for the others.
package enum RideTags {
    /// The name's hashtags, each once, sorted and joined by a space (`#race #wet`), or nil when it
    /// has none: one String per distinct set, which the activity summaries number.
    package static func of(name: String?) -> String? {
        guard let name, name.contains("#") else { return nil }
        let words = Set(name.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).filter { $0.hasPrefix("#") && $0.count > 1 })
        return words.isEmpty ? nil : words.map(String.init).sorted().joined(separator: " ")
    }

    /// Whether a set of tags as `of(name:)` gives it (nil for none) contains `tag` (written without `#`).
    package static func contains(_ tags: String?, _ tag: String) -> Bool {
        guard let tags else { return false }
        return tags.split(separator: " ").contains { $0.dropFirst() == tag[...] }
    }
}
