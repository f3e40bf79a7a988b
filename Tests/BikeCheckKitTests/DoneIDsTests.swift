@testable import BikeCheckKit
import Diagnostics
import Foundation
import TestSupport
import Testing

/// The done ids a log names that its bike or part does not know (`Resolver.unknownDone`), and the
/// known ids taking the log's Strings for their text as they are found.
@Suite struct DoneIDsTests {
    /// A String of `text` in storage of its own (a literal's, or another String's, is not).
    static func fresh(_ text: String) -> String { String(decoding: Array(text.utf8), as: UTF8.self) }

    /// Where a String's bytes are: the same place for the same String, another for a copy.
    static func storage(_ text: String) -> UnsafeRawPointer? {
        text.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }

    static func log(_ days: [[String]]) -> [LogEntry] {
        let at = Diagnostics.SourceLocation(file: "bikes/b.yaml")
        return days.enumerated().map { n, ids in
            LogEntry(
                date: Day(ordinal: 20_000 + n), dateLocation: at, done: ids.map { Located(IntervalID($0), at: at) }, cost: nil, category: nil,
                note: nil, todo: nil, location: at)
        }
    }

    @Test func theUnknownIdsAreThoseOfTheLookupByComparingAndTheKnownKeepTheirText() {
        var random = SeededGenerator(seed: 32)
        let names = ["a", "chain-lube", "chain-replace", "drive-inspection", "brake-pads-front", "brake-pads-rear", "x", "fork-lower-service"]
        for round in 0..<300 {
            let known = (0..<random.next(6)).map { _ in IntervalID(Self.fresh(names[random.next(names.count)])) }
            // Each id of the log one String for all its mentions, as the garage cache reads them.
            let spelled = names.map(Self.fresh)
            let log = Self.log((0..<random.next(8)).map { _ in (0..<random.next(4)).map { _ in spelled[random.next(spelled.count)] } })
            var ids = known
            let unknown = Resolver.unknownDone(in: log, known: &ids)
            #expect(unknown == Resolver.unknownDone(in: log, known: FewIDs(known)), "round \(round)")
            #expect(ids == known, "round \(round)")
        }
    }

    @Test func aKnownIdTakesTheLogsStringOfItsTextAndOnlyThat() throws {
        let long = Self.fresh("drive-inspection"), other = Self.fresh("brake-pads-front")
        let log = Self.log([[long, "chain-lube"], [long], [Self.fresh("unknown-interval-id")]])
        var ids = [IntervalID(Self.fresh("drive-inspection")), IntervalID("chain-lube"), IntervalID(other)]
        #expect(Self.storage(ids[0].rawValue) != Self.storage(long))
        let unknown = Resolver.unknownDone(in: log, known: &ids)
        #expect(unknown.map(\.value.rawValue) == ["unknown-interval-id"])
        #expect(Self.storage(ids[0].rawValue) == Self.storage(long))
        // An id the log does not name keeps its own String.
        #expect(Self.storage(ids[2].rawValue) == Self.storage(other))
    }

    @Test func aBikesIntervalsTakeTheirLogsStringsWhenResolved() throws {
        let template = try #require(
            GarageLoader.parse("templates/t.yaml", Array("name: T\nintervals:\n  drive-inspection: {every: 100 km}\n".utf8)) {
                FileDecoders.template(id: TemplateID("t"), $0, &$1)
            }.value)
        let text = "name: B\ntemplates: [t]\nlog:\n  - date: 2026-01-02\n    done: [drive-inspection]\n"
        let bike = try #require(GarageLoader.parse("bikes/b.yaml", Array(text.utf8)) { FileDecoders.bike(id: BikeID("b"), $0, &$1) }.value)
        var resolver = Resolver(settings: GarageSettings(), templates: [template])
        let resolved = resolver.resolve(bike)
        #expect(resolver.diagnostics.isEmpty)
        #expect(resolved.intervals.map(\.id.rawValue) == ["drive-inspection"])
        let logged = bike.log[0].done[0].value.rawValue
        #expect(Self.storage(template.intervals[0].id.rawValue) != Self.storage(logged))
        #expect(Self.storage(resolved.intervals[0].id.rawValue) == Self.storage(logged))
    }
}
