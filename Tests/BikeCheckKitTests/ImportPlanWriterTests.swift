@testable import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// The one writer of every tracker import: new files get everything the plan has for them, the
/// garage's own files only what they lack, and a second run of the same plan changes nothing.
@Suite struct ImportPlanWriterTests {
    static let grail = """
        name: Canyon Grail   # the gravel bike
        strava: b1

        intervals:
          chain-lube: {task: Lube the chain, every: 10 h}

        log:
          - date: 2026-01-10
            done: [chain-lube]
          - date: 2026-05-01
            done: [chain-lube]

        """

    func garage() throws -> TemporaryFolder {
        try TemporaryFolder(["garage.yaml": Array("units: metric\n".utf8), "bikes/grail.yaml": Array(Self.grail.utf8)])
    }

    func day(_ text: String) throws -> Day { try #require(Day(text)) }

    func plan() throws -> ImportPlan {
        var plan = ImportPlan(format: "test", files: ["export.json"])
        plan.bikes = [
            .init(id: "grail", name: "Grail (as the tracker calls it)", strava: "b1", bought: try day("2023-04-02"), price: "2499"),
            .init(id: "ride-17", name: "Saucony Ride 17", strava: "g7", kind: "shoes", bought: try day("2025-10-01"), price: "140"),
        ]
        plan.parts = [
            .init(id: "wheelset", name: "DT Swiss wheelset", slot: "wheels", kilometres: 800, mounts: [.init(bike: "grail", from: try day("2026-01-01"))]),
            .init(id: "tyres", name: "GP5000", mounts: [.init(part: "wheelset", from: try day("2026-02-01"), to: try day("2026-06-30"))], price: "45.99 USD"),
        ]
        plan.intervals = [
            .init(owner: "ride-17", id: "replace", task: "Replace the shoes", every: ["500 km"]),
            .init(owner: "tyres", id: "tyres-replace", task: "Replace the tyres", every: ["4000 km", "12 months"]),
            .init(owner: "grail", id: "chain-replace", task: "Replace the chain", every: ["3000 km"]),
            .init(owner: "grail", id: "chain-lube", task: "Lube it otherwise", every: ["20 h"]),
        ]
        plan.log = [
            .init(owner: "grail", date: try day("2026-03-01"), cost: 45.99, costText: "45.99", category: "parts", note: "KMC X11 chain", key: "KMC X11"),
            .init(owner: "tyres", date: try day("2026-04-01"), done: ["tyres-replace"], note: "", key: ""),
            .init(owner: "grail", date: try day("2026-01-10"), done: ["chain-lube"], note: "", key: ""),
        ]
        return plan
    }

    func apply(_ plan: ImportPlan, to g: TemporaryFolder) throws -> GarageChange {
        let change = try ImportPlanWriter.change(plan, in: g.context())
        _ = try ChangeWriter(root: g.root, options: .init()).apply(change)
        return change
    }

    @Test func newGearAndPartsGetEverythingThePlanHasForThemAndTheGarageValidates() throws {
        let g = try garage()
        let change = try apply(try plan(), to: g)
        #expect(change.files.filter(\.isChange).map(\.path).sorted() == ["bikes/grail.yaml", "gear/ride-17.yaml", "parts/tyres.yaml", "parts/wheelset.yaml"])
        #expect(
            String(decoding: try #require(g.read("gear/ride-17.yaml")), as: UTF8.self) == """
                # yaml-language-server: $schema=../.schemas/gear.schema.json
                name: Saucony Ride 17
                kind: shoes
                strava: g7
                bought: 2025-10-01
                price: 140
                intervals:
                  replace:
                    task: Replace the shoes
                    every: 500 km

                """)
        #expect(
            String(decoding: try #require(g.read("parts/tyres.yaml")), as: UTF8.self) == """
                # yaml-language-server: $schema=../.schemas/part.schema.json
                name: GP5000
                price: 45.99 USD
                intervals:
                  tyres-replace:
                    task: Replace the tyres
                    every: [4000 km, 12 months]
                mounts:
                  - {part: wheelset, from: 2026-02-01, to: 2026-06-30}
                log:
                  - date: 2026-04-01
                    done: [tyres-replace]

                """)
        let loaded = GarageLoader.load(at: g.root)
        #expect(loaded.diagnostics.filter { $0.severity == .error }.map(\.message) == [])
        #expect(loaded.garage.part(PartID("tyres"))?.part.partMounts.map(\.parent.value.rawValue) == ["wheelset"])
    }

    @Test func theGaragesOwnFileGainsOnlyWhatItLacksAroundItsComments() throws {
        let g = try garage()
        _ = try apply(try plan(), to: g)
        // The name differs and chain-lube is there: both stay as the rider wrote them; the
        // 2026-01-10 service is there. The purchase, one interval and one expense are new.
        #expect(
            String(decoding: try #require(g.read("bikes/grail.yaml")), as: UTF8.self) == """
                name: Canyon Grail   # the gravel bike
                strava: b1
                bought: 2023-04-02
                price: 2499

                intervals:
                  chain-lube: {task: Lube the chain, every: 10 h}
                  chain-replace:
                    task: Replace the chain
                    every: 3000 km

                log:
                  - date: 2026-01-10
                    done: [chain-lube]
                  - date: 2026-03-01
                    cost: 45.99
                    category: parts
                    note: KMC X11 chain
                  - date: 2026-05-01
                    done: [chain-lube]

                """)
    }

    @Test func theSamePlanAgainChangesNothingAndHandEditsSurvive() throws {
        let g = try garage()
        _ = try apply(try plan(), to: g)
        // The rider edits an imported interval and an imported entry's note.
        var tyres = String(decoding: try #require(g.read("parts/tyres.yaml")), as: UTF8.self)
        tyres = tyres.replacingOccurrences(of: "every: [4000 km, 12 months]", with: "every: 5000 km   # tubeless: they last")
        try g.write("parts/tyres.yaml", Array(tyres.utf8))
        var grail = String(decoding: try #require(g.read("bikes/grail.yaml")), as: UTF8.self)
        grail = grail.replacingOccurrences(of: "note: KMC X11 chain", with: "note: KMC X11 chain, from the shop on the corner")
        try g.write("bikes/grail.yaml", Array(grail.utf8))
        let before = try ["bikes/grail.yaml", "gear/ride-17.yaml", "parts/tyres.yaml", "parts/wheelset.yaml"].map { try #require(g.read($0)) }
        let again = try apply(try plan(), to: g)
        #expect(again.files.filter(\.isChange).isEmpty)
        #expect(again.summary == ["nothing to import from test export.json: the garage has it all"])
        let after = try ["bikes/grail.yaml", "gear/ride-17.yaml", "parts/tyres.yaml", "parts/wheelset.yaml"].map { try #require(g.read($0)) }
        #expect(after == before)
    }

    @Test func aPartOnAPartTheGarageHasGainsTheMissingMountOnly() throws {
        let g = try garage()
        try g.write("parts/tyres.yaml", Array("name: GP5000\nmounts:\n  - {part: wheelset, from: 2026-02-01, to: 2026-06-30}   # summer\n".utf8))
        try g.write("parts/wheelset.yaml", Array("name: DT Swiss wheelset\nmounts: [{bike: grail, from: 2026-01-01}]\n".utf8))
        var plan = ImportPlan(format: "test", files: ["export.json"])
        plan.parts = [
            .init(
                id: "tyres", name: "GP5000",
                mounts: [.init(part: "wheelset", from: try day("2026-02-01"), to: try day("2026-06-30")), .init(part: "wheelset", from: try day("2026-08-01"))])
        ]
        let change = try apply(plan, to: g)
        #expect(change.summary == ["part 'tyres': 1 mount added (parts/tyres.yaml)"])
        #expect(
            String(decoding: try #require(g.read("parts/tyres.yaml")), as: UTF8.self)
                == "name: GP5000\nmounts:\n  - {part: wheelset, from: 2026-02-01, to: 2026-06-30}   # summer\n  - {part: wheelset, from: 2026-08-01}\n")
    }
}
