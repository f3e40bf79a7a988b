import Diagnostics
import Foundation
import LocatedYAML
import TestSupport
import Testing

/// Hand-written files of the kinds riders keep: comments everywhere, blank lines, block
/// scalars, flow lists, Unicode, odd indentation.
let handWrittenCorpus: [String] = [
    """
    # yaml-language-server: $schema=../.schemas/bike.schema.json
    name: Canyon Grail CF SL 7
    strava: b1000001             # activities with this gear id count for this bike
    bought: 2023-04-02
    templates: [road-basics, tubeless]

    components:
      chain:
        name: Shimano CN-M8100
        installed: 2026-03-01

    intervals:
      chain-lube:
        every: 8 h               # gravel dust

    log:
      - date: 2026-03-01
        done: [chain-replace, chain-lube]
        cost: 45.99
        note: KMC X11, old one at 0.5 % stretch
      - date: 2026-10-25
        done: [chain-lube]
    # the end

    """,
    """
    name: "Vélo de Côte d'Azur 🚲"
    notes: >
      Folded notes that run
      over two lines.

    log:
    - date: 2025-01-02
      done: chain-lube
    - date: 2025-02-03
      done:
      - chain-lube
      - brake-pads
      note: |
        Pads were at 1 mm.
    """,
    """
    name: Stumpjumper   # trail
    counts: [MountainBikeRide]
    intervals:
        fork-lowers:
            every: [125 h, 12 months]
        sealant:
            every: 3 months
            due_soon: 70%
    log: []   # nothing yet
    """,
    """
    name: 'Tarmac'
    retired: 2026-01-01
    components:
      wheels: ~
      bars:
    log:
    notes: 'it''s sold'
    """,
    """
    rides:
      - date: 2026-06-01
        bike: charger
        time: 1h30   # commute
        distance: 35 km

      - date: 2026-06-02
        bike: charger
        time: "0:45"
    """,
]

/// The example garage's YAML files: real hand-written bikes, templates and rides.
let exampleGarageFiles: [String] = {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("example-garage")
    var texts: [String] = []
    for folder in ["", "bikes/", "templates/", "parts/"] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path + "/" + folder)) ?? []
        for name in names.sorted() where name.hasSuffix(".yaml") {
            if let data = FileManager.default.contents(atPath: root.path + "/" + folder + name) {
                texts.append(String(decoding: data, as: UTF8.self))
            }
        }
    }
    return texts
}()

/// A corpus file in each of its variants: as written, with CRLF, without a final newline.
let corpusVariants: [String] = (handWrittenCorpus + exampleGarageFiles).flatMap { text -> [String] in
    let trimmed = text.hasSuffix("\n") ? String(text.dropLast()) : text
    let crlf = text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
    // "\r\n" is one Character, so dropping one drops the whole line break.
    return [text, trimmed, crlf, String(crlf.dropLast(crlf.hasSuffix("\r\n") ? 1 : 0))]
}

/// Every path to a node, with the node.
func allPaths(_ node: YAMLNode, _ path: YAMLPath = []) -> [(YAMLPath, YAMLNode)] {
    var out: [(YAMLPath, YAMLNode)] = [(path, node)]
    switch node {
    case .scalar: break
    case .mapping(let m): for e in m.entries { out += allPaths(e.value, path + [.key(e.keyText ?? "")]) }
    case .sequence(let q): for (i, item) in q.items.enumerated() { out += allPaths(item, path + [.index(i)]) }
    }
    return out
}

func randomValue(_ rng: inout SeededGenerator, depth: Int = 0) -> YAMLValue {
    let words = ["chain-lube", "2026-11-16", "yes", "a: b", "note #1", "Ünïcode 🚲", "45.99", "it's", "", "plain words", "- x", "null"]
    let pick = { (rng: inout SeededGenerator) in words[Int.random(in: 0..<words.count, using: &rng)] }
    switch depth > 1 ? Int.random(in: 0..<2, using: &rng) : Int.random(in: 0..<6, using: &rng) {
    case 5: return .flowMapping((0..<Int.random(in: 1...3, using: &rng)).map { i in YAMLPair("f\(i)", .text(pick(&rng))) })
    case 0: return .text(pick(&rng))
    case 1: return .plain(["2026-11-16", "12", "chain-lube", "b123"][Int.random(in: 0..<4, using: &rng)])
    case 2: return .flowList((0..<Int.random(in: 1...3, using: &rng)).map { _ in .text(pick(&rng)) })
    case 3: return .list((0..<Int.random(in: 1...2, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) })
    default: return .mapping((0..<Int.random(in: 1...3, using: &rng)).map { i in YAMLPair("k\(i)", randomValue(&rng, depth: depth + 1)) })
    }
}

func randomEdit(_ root: YAMLNode, _ rng: inout SeededGenerator) -> YAMLEdit? {
    let paths = allPaths(root)
    let (path, node) = paths[Int.random(in: 0..<paths.count, using: &rng)]
    switch node {
    case .mapping(let m):
        if Bool.random(using: &rng), let victim = m.entries.randomElement(using: &rng)?.keyText {
            return .removeKey(victim, from: path)
        }
        let after = m.entries.randomElement(using: &rng)?.keyText.map { [$0] } ?? []
        return .addKey("new-key-\(Int.random(in: 0..<100, using: &rng))", randomValue(&rng), in: path, after: after)
    case .sequence(let q):
        if Int.random(in: 0..<4, using: &rng) == 0, q.items.count > 1 {
            return .removeItem(Int.random(in: 0..<q.items.count, using: &rng), from: path)
        }
        if Bool.random(using: &rng), !q.items.isEmpty {
            return .insert(randomValue(&rng), into: path, at: Int.random(in: 0...q.items.count, using: &rng))
        }
        return .append(randomValue(&rng), to: path)
    case .scalar:
        return path.isEmpty ? nil : .set(path, randomValue(&rng))
    }
}

func lines(_ text: String) -> [Substring] { text.split(separator: "\n", omittingEmptySubsequences: false) }

@Suite struct YAMLEditorPropertyTests {
    @Test func theCorpusHoldsTheExampleGarage() {
        #expect(exampleGarageFiles.count >= 10)
    }

    @Test func noEditIsByteIdenticalForEveryCorpusFile() throws {
        for text in corpusVariants {
            let doc = YAMLDocument(path: "t.yaml", bytes: Array(text.utf8))
            #expect(doc.diagnostics.isEmpty, "corpus file does not parse: \(doc.diagnostics)")
            #expect(try YAMLEditor(document: doc).apply([]) == Array(text.utf8))
        }
    }

    @Test func randomEditsChangeOnlyTheirOwnLinesAndReadBackAsIntended() throws {
        var rng = SeededGenerator(seed: 2026)
        var applied = 0, refused = 0
        for _ in 0..<600 {
            let text = corpusVariants[Int.random(in: 0..<corpusVariants.count, using: &rng)]
            let doc = YAMLDocument(path: "t.yaml", bytes: Array(text.utf8))
            guard let root = doc.root, let edit = randomEdit(root, &rng) else { continue }
            let result: [UInt8]
            do {
                result = try YAMLEditor(document: doc).apply([edit])
            } catch {
                refused += 1
                if ProcessInfo.processInfo.environment["SHOW_REFUSALS"] != nil { print("REFUSED", edit, error.diagnostics.map { "\($0.id): \($0.message)" }) }
                #expect(error.diagnostics.allSatisfy { $0.location.file == "t.yaml" })
                continue
            }
            applied += 1
            let new = String(decoding: result, as: UTF8.self)
            // The bytes change exactly when the meaning does (setting a value to itself is a no-op).
            let meaningChanged = YAMLShape(root) != YAMLDocument(path: "t.yaml", bytes: result).root.map(YAMLShape.init)
            #expect((new != text) == meaningChanged, "edit \(edit) in \(text.debugDescription)")
            if !meaningChanged { continue }

            // Lines outside the edited span are untouched: everything but one window of the old
            // file survives as a common prefix and suffix.
            let a = lines(text), b = lines(new)
            var prefix = 0
            while prefix < min(a.count, b.count), a[prefix] == b[prefix] { prefix += 1 }
            var suffix = 0
            while suffix < min(a.count, b.count) - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
            let oldChanged = a.count - prefix - suffix
            switch edit {
            case .append, .addKey, .insert:
                #expect(oldChanged <= 1, "\(edit) rewrote \(oldChanged) old lines:\n\(text)\n---\n\(new)")
            case .set:
                #expect(oldChanged <= 1, "\(edit) rewrote \(oldChanged) old lines")
            case .removeKey, .removeItem:
                #expect(b.count - prefix - suffix <= 1, "\(edit) added lines")
            case .replaceLines, .mergeItems: break
            }

            // Line endings and the final newline are kept.
            if text.contains("\r\n") { #expect(!new.replacingCRLF().contains("\n"), "bare LF in a CRLF file:\n\(new)") }
            switch edit {
            case .removeKey, .removeItem: break
            default:
                #expect(text.hasSuffix("\n") == new.hasSuffix("\n"), "\(edit)\n\(text.debugDescription)\n\(new.debugDescription)")
            }

            // The change reads back: the file parses cleanly and holds the new value.
            let after = YAMLDocument(path: "t.yaml", bytes: result)
            #expect(after.diagnostics.isEmpty)
            if case .addKey(let key, _, let path, _) = edit, let node = allPaths(try #require(after.root)).first(where: { $0.0 == path })?.1,
                case .mapping(let m) = node
            {
                #expect(m.entry(key) != nil)
            }
        }
        print("YAMLEditor property: \(applied) edits applied, \(refused) refused")
        // Most edits must go through, or the property says little.
        #expect(applied > 400, "only \(applied) edits applied, \(refused) refused")
    }
}

extension String {
    /// The text without its CRLF line breaks ("\r\n" is one Character), to look for bare LFs.
    func replacingCRLF() -> String { String(filter { $0 != "\r\n" }) }
}
