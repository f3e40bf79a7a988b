import Diagnostics
import Foundation
import LocatedYAML
import TestSupport
import Testing

@testable import BikeCheckKit

/// The merge driver's engine on file bytes: `GarageMerge` over `YAMLMerge`, with the edit engine.
@Suite struct GarageMergeTests {
    static let base = """
        # yaml-language-server: $schema=../.schemas/bike.schema.json
        name: Grail   # the gravel bike
        components:
          chain:
            name: KMC X11
            installed: 2025-01-01

        intervals:
          chain-lube:
            task: Lube the chain
            component: chain
            every: 10 h
        todo:
          - true the rear wheel
          - {task: replace the hanger, id: hanger}
        log:
          - date: 2025-03-01
            done: [chain-lube]   # first of the year
          - date: 2025-06-01
            done: [chain-lube]

        """

    func merge(_ ours: String, _ theirs: String, base: String = Self.base, path: String = "bikes/grail.yaml") -> GarageMerge.Outcome {
        GarageMerge.merge(base: Array(base.utf8), ours: Array(ours.utf8), theirs: Array(theirs.utf8), path: path)
    }

    func text(_ outcome: GarageMerge.Outcome) -> String? { outcome.merged.map { String(decoding: $0, as: UTF8.self) } }

    @Test func entriesAddedOnBothSidesGoInDateOrderAndTheSameEntryOnBothSidesIsKeptOnce() {
        let ours =
            Self.base.replacingOccurrences(
                of: "  - date: 2025-06-01\n", with: "  - date: 2025-04-01\n    done: [chain-lube]\n  - date: 2025-06-01\n")
            + "  - date: 2025-08-01\n    done: [chain-lube]\n"
        let theirs = Self.base + "  - date: 2025-07-01\n    done: [chain-lube]\n    note: wet week\n  - date: 2025-08-01\n    done: [chain-lube]\n"
        let outcome = merge(ours, theirs)
        #expect(outcome.diagnostics.isEmpty, "\(outcome.diagnostics)")
        #expect(
            text(outcome)
                == Self.base.replacingOccurrences(
                    of: "  - date: 2025-06-01\n", with: "  - date: 2025-04-01\n    done: [chain-lube]\n  - date: 2025-06-01\n")
                + "  - date: 2025-07-01\n    done: [chain-lube]\n    note: wet week\n  - date: 2025-08-01\n    done: [chain-lube]\n")
    }

    /// Gear (`gear/`) merges as a bike's file, and is checked by the gear decoder: its `kind:`
    /// is required there, and a shoe id is taken.
    @Test func aGearFileMergesAsABikeFileAndIsCheckedAsGear() {
        let base = "name: Trail shoes\nkind: shoes\nstrava: g2001\nlog:\n  - date: 2025-03-01\n    done: [replace]\n"
        let ours = base + "  - date: 2025-04-01\n    done: [replace]\n"
        let theirs = base + "  - date: 2025-05-01\n    done: [replace]\n"
        let outcome = merge(ours, theirs, base: base, path: "gear/trail-shoes.yaml")
        #expect(outcome.diagnostics.isEmpty, "\(outcome.diagnostics)")
        #expect(text(outcome) == ours + "  - date: 2025-05-01\n    done: [replace]\n")
        let noKind = merge(ours.replacingOccurrences(of: "kind: shoes\n", with: ""), theirs, base: base, path: "gear/trail-shoes.yaml")
        #expect(noKind.diagnostics.map(\.id).contains(DiagnosticID.missingKey.rawValue), "\(noKind.diagnostics)")
    }

    @Test func aToDoClosedOnOneSideAndOneAddedOnTheOtherGivesBoth() {
        let ours = Self.base.replacingOccurrences(of: "  - true the rear wheel\n", with: "")
        let theirs = Self.base.replacingOccurrences(
            of: "  - {task: replace the hanger, id: hanger}\n", with: "  - {task: replace the hanger, id: hanger}\n  - new bar tape\n")
        let outcome = merge(ours, theirs)
        #expect(outcome.diagnostics.isEmpty, "\(outcome.diagnostics)")
        #expect(text(outcome) == ours.replacingOccurrences(of: "id: hanger}\n", with: "id: hanger}\n  - new bar tape\n"))
    }

    @Test func keysChangedOnOneSideEachAreTakenAndCommentsStay() {
        let ours = Self.base.replacingOccurrences(of: "name: KMC X11", with: "name: KMC X11 SL   # gold")
        let theirs = Self.base.replacingOccurrences(of: "every: 10 h", with: "every: [8 h, 3 months]")
            .replacingOccurrences(of: "name: Grail   # the gravel bike\n", with: "name: Grail   # the gravel bike\nbought: 2023-04-02\n")
        let outcome = merge(ours, theirs)
        #expect(outcome.diagnostics.isEmpty, "\(outcome.diagnostics)")
        #expect(
            text(outcome)
                == ours.replacingOccurrences(of: "every: 10 h", with: "every: [8 h, 3 months]")
                .replacingOccurrences(of: "# the gravel bike\n", with: "# the gravel bike\nbought: 2023-04-02\n"))
    }

    @Test func theSameKeyChangedDifferentlyIsAConflictAtItsPlaceNeverAPick() {
        let ours = Self.base.replacingOccurrences(of: "every: 10 h", with: "every: 8 h")
        let theirs = Self.base.replacingOccurrences(of: "every: 10 h", with: "every: 12 h") + "  - date: 2025-07-01\n    done: [chain-lube]\n"
        let outcome = merge(ours, theirs)
        #expect(outcome.merged == nil)
        #expect(outcome.diagnostics.count == 1)
        let d = outcome.diagnostics[0]
        #expect(d.id == DiagnosticID.mergeConflict.rawValue && d.severity == .error)
        #expect(d.message == "'intervals.chain-lube.every' was changed on both sides: here to 8 h, on the other side to 12 h")
        #expect(d.location.file == "bikes/grail.yaml" && d.location.range?.start.line == 12 && d.location.range?.start.column == 12)
    }

    @Test func aMergeThatDoesNotValidateIsAConflictWithTheDecodersDiagnostic() {
        let ours = Self.base.replacingOccurrences(of: "id: hanger}\n", with: "id: hanger}\n  - {task: new chain, id: drive}\n")
        let theirs = Self.base.replacingOccurrences(of: "id: hanger}\n", with: "id: hanger}\n  - {task: new cassette, id: drive}\n")
        let outcome = merge(ours, theirs)
        #expect(outcome.merged != nil)
        #expect(outcome.diagnostics.map(\.id) == [DiagnosticID.mergeConflict.rawValue, DiagnosticID.duplicateTodo.rawValue], "\(outcome.diagnostics)")
    }

    /// A household (docs/household.md): riders added on both sides are both kept, each with
    /// their settings; a rider's `notify:` changed on one side is taken.
    @Test func ridersAddedOnBothSidesAreBothKeptAndTheirSettingsMergeByKey() {
        let base = "name: The Millers' garage\nriders:\n  alex:\n  sam:\n    notify: {ntfy: {topic: sam-bikes}}\n"
        let ours = base.replacingOccurrences(of: "  sam:\n", with: "  kim:   # new\n  sam:\n")
        let theirs = base.replacingOccurrences(of: "topic: sam-bikes", with: "topic: sam-rides") + "  jo:\n    notes: the tandem\n"
        let outcome = merge(ours, theirs, base: base, path: "garage.yaml")
        #expect(outcome.diagnostics.isEmpty, "\(outcome.diagnostics)")
        let merged = text(outcome) ?? ""
        for rider in ["alex:", "kim:   # new", "sam:", "jo:\n    notes: the tandem"] { #expect(merged.contains("  " + rider), "\(merged)") }
        #expect(merged.contains("topic: sam-rides"), "\(merged)")
    }

    @Test func aRiderGivenOnOneSideAndAServiceOnTheOtherGivesBothAndTwoRidersAreAConflict() {
        let ours = Self.base.replacingOccurrences(of: "name: Grail   # the gravel bike\n", with: "name: Grail   # the gravel bike\nrider: alex\n")
        let theirs = Self.base + "  - date: 2025-07-01\n    done: [chain-lube]\n"
        let outcome = merge(ours, theirs)
        #expect(outcome.diagnostics.isEmpty, "\(outcome.diagnostics)")
        #expect(text(outcome) == ours + "  - date: 2025-07-01\n    done: [chain-lube]\n")
        let sam = Self.base.replacingOccurrences(of: "name: Grail   # the gravel bike\n", with: "name: Grail   # the gravel bike\nrider: sam\n")
        let both = merge(ours, sam)
        #expect(both.merged == nil)
        #expect(
            both.diagnostics.first?.message == "'rider' was changed on both sides: here to alex, on the other side to sam", "\(both.diagnostics.map(\.message))"
        )
    }

    @Test func aSideThatIsNotYAMLIsAConflict() {
        let outcome = merge(Self.base + "log: [\n", Self.base)
        #expect(outcome.merged == nil && outcome.diagnostics.first?.id == DiagnosticID.mergeConflict.rawValue)
    }

    @Test func handEnteredRidesMergeAsASetInDateOrder() {
        let base = "rides:\n  - {date: 2025-05-01, bike: grail, time: 1h}\n"
        let ours = base + "  - {date: 2025-05-03, bike: grail, time: 2h}\n"
        let theirs = base + "  - {date: 2025-05-02, bike: grail, time: 1h30}\n"
        let outcome = merge(ours, theirs, base: base, path: "rides.yaml")
        #expect(outcome.diagnostics.isEmpty, "\(outcome.diagnostics)")
        #expect(text(outcome) == base + "  - {date: 2025-05-02, bike: grail, time: 1h30}\n  - {date: 2025-05-03, bike: grail, time: 2h}\n")
    }

    /// A long log (what `git pull` meets after years of services): both sides' new services in
    /// date order, the one both logged once, the one the other side deleted gone, the other
    /// side's new name taken; every other line of ours as it was. (The merge once searched the
    /// whole log for each base entry: minutes for a 40 MB file.)
    @Test func aLongLogMergesByItsEntries() {
        let count = 3_000
        var day = Day("2000-01-01")!
        var entries: [String] = []
        for i in 0..<count {
            entries.append("  - date: \(day)\n    done: [\(i % 3 == 0 ? "chain-lube, sealant" : "chain-lube")]\n" + (i % 4 == 0 ? "    cost: \(i % 97)\n" : ""))
            day = day.adding(days: 1 + i % 3)
        }
        func entry(_ date: String, _ text: String) -> String { "  - date: \(date)\n    done: [\(text)]\n" }
        let head =
            "name: Grail   # the gravel bike\nintervals:\n  chain-lube:\n    task: Lube\n    every: 10 h\n  sealant:\n    task: Sealant\n    every: 3 months\n"
        let (ours1, shared, theirs1, theirs2) = (
            entry("2017-01-05", "sealant"), entry("2017-01-07", "chain-lube"), entry("2017-01-03", "chain-lube, sealant"), entry("2017-02-01", "sealant")
        )
        let removed = count / 2
        let base = head + "log:\n" + entries.joined()
        let ours = head + "todo:\n  - true the rear wheel\n" + "log:\n" + entries.joined() + ours1 + shared
        let theirs =
            head.replacingOccurrences(of: "name: Grail   #", with: "name: Grail CF   #") + "log:\n"
            + (entries[..<removed] + entries[(removed + 1)...]).joined() + theirs1 + shared + theirs2
        let outcome = merge(ours, theirs, base: base)
        #expect(outcome.diagnostics.isEmpty, "\(outcome.diagnostics.map(\.message))")
        let expected =
            head.replacingOccurrences(of: "name: Grail   #", with: "name: Grail CF   #") + "todo:\n  - true the rear wheel\n" + "log:\n"
            + (entries[..<removed] + entries[(removed + 1)...]).joined() + theirs1 + ours1 + shared + theirs2
        #expect(text(outcome) == expected)
    }

    @Test func aFileAddedOnBothSidesMergesFromNothing() {
        let ours = "name: Tarmac\nlog:\n  - date: 2025-05-01\n    done: [chain-lube]\n"
        let theirs = "name: Tarmac\nlog:\n  - date: 2025-04-01\n    done: [chain-lube]\n"
        let outcome = merge(ours, theirs, base: "", path: "bikes/tarmac.yaml")
        #expect(text(outcome) == "name: Tarmac\nlog:\n  - date: 2025-04-01\n    done: [chain-lube]\n  - date: 2025-05-01\n    done: [chain-lube]\n")
    }

    /// The property: random services (and to-dos) recorded on both sides from one base merge to
    /// their union, the log in date order, every line of ours kept in order, and it validates.
    @Test(arguments: 0..<40) func randomServicesOnBothSidesMergeToTheirUnion(seed: UInt64) throws {
        var g = SeededGenerator(seed: 0x23_0000 + seed)
        let intervals = ["chain-lube", "sealant", "brake-pads", "chain-replace"]
        func entry(_ g: inout SeededGenerator) -> (day: String, done: [String], note: String?) {
            let day = String(format: "2025-%02d-%02d", 1 + g.next(12), 1 + g.next(28))
            var done = [intervals[g.next(intervals.count)]]
            if g.next(3) == 0 { done.append(intervals.filter { !done.contains($0) }[g.next(intervals.count - 1)]) }
            return (day, done, g.next(4) == 0 ? "note \(g.next(100))" : nil)
        }
        func yaml(_ e: (day: String, done: [String], note: String?)) -> YAMLValue {
            var pairs = [YAMLPair("date", .plain(e.day)), YAMLPair("done", .flowList(e.done.map { .plain($0) }))]
            if let note = e.note { pairs.append(YAMLPair("note", .text(note))) }
            return .mapping(pairs)
        }
        var baseEntries = (0..<g.next(5)).map { _ in entry(&g) }
        baseEntries.sort { $0.day < $1.day }
        var base = "name: Grail   # gravel\nintervals:\n" + intervals.map { "  \($0):\n    task: \($0)\n    every: 10 h\n" }.joined()
        if !baseEntries.isEmpty {
            base +=
                "log:\n"
                + baseEntries.map { e in
                    "  - date: \(e.day)   # base\n    done: [\(e.done.joined(separator: ", "))]\n" + (e.note.map { "    note: \($0)\n" } ?? "")
                }.joined()
        }
        // Each side records services as `done` does: in date order, through the edit engine.
        func side(_ g: inout SeededGenerator, shared: [(day: String, done: [String], note: String?)]) throws -> (String, [String]) {
            var bytes = Array(base.utf8)
            var added: [String] = []
            for e in (0..<(1 + g.next(4))).map({ _ in entry(&g) }) + shared {
                let doc = YAMLDocument(path: "bikes/grail.yaml", bytes: bytes)
                guard case .mapping(let root)? = doc.root else { throw Failure() }
                let edit: YAMLEdit =
                    if let at = ServiceRecorder.datedPosition(of: Day(e.day)!, in: root["log"]) {
                        .insert(yaml(e), into: ["log"], at: at)
                    } else {
                        .appendOrCreate(yaml(e), list: "log", current: root["log"])
                    }
                bytes = try YAMLEditor(document: doc).apply([edit])
                added.append(key(e))
            }
            return (String(decoding: bytes, as: UTF8.self), added)
        }
        let shared = g.next(3) == 0 ? [entry(&g)] : []
        let (ours, oursAdded) = try side(&g, shared: shared)
        let (theirs, theirsAdded) = try side(&g, shared: shared)
        let outcome = merge(ours, theirs, base: base)
        #expect(outcome.diagnostics.isEmpty, "seed \(seed): \(outcome.diagnostics.map(\.message))")
        guard let merged = text(outcome) else { return }
        // The union, each entry once (an entry both added is one entry).
        let got = log(merged)
        let baseKeys = baseEntries.map(key)
        let oursLog = baseKeys + oursAdded
        #expect(Set(got) == Set(baseKeys + oursAdded + theirsAdded), "seed \(seed)\n\(merged)")
        #expect(got.count == oursLog.count + Set(theirsAdded).subtracting(oursLog).count, "seed \(seed)\n\(merged)")
        #expect(got.map { String($0.prefix(10)) } == got.map { String($0.prefix(10)) }.sorted(), "seed \(seed): not in date order\n\(merged)")
        // Ours is edited, never rewritten: its lines are all there, in their order.
        var rest = merged.split(separator: "\n", omittingEmptySubsequences: false)[...]
        for line in ours.split(separator: "\n", omittingEmptySubsequences: false) {
            guard let at = rest.firstIndex(of: line) else {
                Issue.record("seed \(seed): our line '\(line)' is gone\n\(merged)")
                break
            }
            rest = rest[(at + 1)...]
        }
    }

    struct Failure: Error {}

    func key(_ e: (day: String, done: [String], note: String?)) -> String { "\(e.day) \(e.done) \(e.note ?? "")" }

    /// The log of a merged file, as `key`s.
    func log(_ text: String) -> [String] {
        guard case .mapping(let root)? = YAMLDocument(path: "m", bytes: Array(text.utf8)).root, case .sequence(let q)? = root["log"] else { return [] }
        return q.items.compactMap { item in
            guard case .mapping(let m) = item, case .scalar(let d)? = m["date"], case .sequence(let done)? = m["done"] else { return nil }
            let names = done.items.compactMap { if case .scalar(let s) = $0 { s.value } else { nil } }
            var note: String?
            if case .scalar(let n)? = m["note"] { note = n.value }
            return key((d.value, names, note))
        }
    }
}
