import Testing

@testable import BikeCheckKit

/// `possible-duplicate-service` looks only within a day (a long log is checked on every load and
/// on every edit in an editor): the same warnings, in log order, whether or not the log is in
/// date order.
@Suite struct PossibleDuplicatesTests {
    @Test func aLogOutOfDateOrderGivesEachDuplicateOnceInLogOrder() throws {
        let yaml = """
            name: Grail
            intervals:
              chain: {every: 3000 km}
              tyres: {every: 3000 km}
            log:
              - {date: 2025-10-02, done: [tyres], cost: 10}
              - {date: 2025-10-01, done: [chain], cost: 45}
              - {date: 2025-10-02, done: [tyres, chain], cost: 12}
              - {date: 2025-10-01, done: [chain, chain], cost: 49}
              - {date: 2025-10-01, done: [chain], cost: 45}
              - {date: 2025-09-30, done: [chain], cost: 1}

            """
        let file = GarageLoader.parse("bikes/grail.yaml", Array(yaml.utf8)) { FileDecoders.bike(id: BikeID("grail"), $0, &$1) }
        let found = Checks.possibleDuplicates(try #require(file.value).log)
        #expect(found.map { $0.location.range?.start.line } == [8, 9])
        #expect(found.map { $0.notes.first?.location.range?.start.line } == [6, 7])
        #expect(found.first?.message.hasPrefix("'tyres' is logged twice on 2025-10-02, with different costs (10 and 12)") == true)
        #expect(found.last?.message.hasPrefix("'chain' is logged twice on 2025-10-01, with different costs (45 and 49)") == true)
    }
}
