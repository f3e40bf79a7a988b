/// The candidate nearest to `word` by edit distance, when near enough to be a likely typo: the
/// rule every "did you mean" in bikecheck uses.
package func likelyMeant(_ word: String, among candidates: [String]) -> String? {
    let w = Array(word.lowercased())
    var best: (String, Int)?
    for candidate in candidates {
        let c = Array(candidate.lowercased())
        let limit = max(1, min(3, c.count / 3))
        // Lengths this far apart cannot be within the limit; skip the quadratic distance.
        guard abs(w.count - c.count) <= limit else { continue }
        let d = editDistance(w, c)
        if d <= limit, best == nil || d < best!.1 { best = (candidate, d) }
    }
    return best?.0
}

/// "; did you mean 'x'?" for the likely meant candidate, else nothing: the one way bikecheck's
/// messages end with a suggestion.
package func didYouMean(_ word: String, among candidates: [String]) -> String {
    Suggestion(word, among: candidates).hint
}

/// The likely meant candidate as a value and as the end of a message: a diagnostic carries
/// `name` as its `fix` (`Diagnostic.fixed(by:)`) and says `hint`.
package struct Suggestion: Sendable {
    package var name: String?

    package init(_ word: String, among candidates: [String]) { name = likelyMeant(word, among: candidates) }

    /// "; did you mean 'x'?", or nothing.
    package var hint: String { name.map { "; did you mean '\($0)'?" } ?? "" }
}
