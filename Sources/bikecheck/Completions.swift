import ArgumentParser
import BikeCheckKit

/// Shell completion of the garage's names (see `CompletionCandidates`), for the arguments and
/// options that take them.
enum Completions {
    static let bikes = CompletionKind.custom { words, _, prefix in CompletionCandidates(words: words, prefix: prefix).bikes }
    /// Bikes and parts (`parts/`), where an argument takes either.
    static let bikesAndParts = CompletionKind.custom { words, _, prefix in CompletionCandidates(words: words, prefix: prefix).bikesAndParts }
    /// Parts (`parts/`), where an argument takes a part.
    static let parts = CompletionKind.custom { words, _, prefix in CompletionCandidates(words: words, prefix: prefix).movableParts }
    static let templates = CompletionKind.custom { words, _, prefix in CompletionCandidates(words: words, prefix: prefix).templates }
    /// The intervals of the bike (or part) named after `done` (all bikes' when none is yet).
    static let doneIntervals = CompletionKind.custom { words, _, prefix in
        let candidates = CompletionCandidates(words: words, prefix: prefix)
        return candidates.intervals(of: candidates.firstArgument(after: "done", valueOptions: DeclaredOptions(DoneCommand.self).valueTaking))
    }
    /// The intervals of the bike (or part) named after `snooze`.
    static let snoozeIntervals = CompletionKind.custom { words, _, prefix in
        let candidates = CompletionCandidates(words: words, prefix: prefix)
        return candidates.intervals(of: candidates.firstArgument(after: "snooze", valueOptions: DeclaredOptions(SnoozeCommand.self).valueTaking))
    }
}
