/// The candidate nearest to `word`, when near enough to be a likely typo (the rule every
/// "did you mean" in bikecheck uses).
public func likelyMeant(_ word: String, among candidates: [String]) -> String? {
    closest(to: word, in: candidates)
}
