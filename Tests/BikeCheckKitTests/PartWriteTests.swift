import Foundation
import TestSupport
import Testing
@testable import BikeCheckKit

/// The refusals of the part write commands: each says why, and nothing is planned.
@Suite struct PartWriteTests {
    func garage(_ extra: [String: String] = [:]) throws -> TemporaryFolder {
        var files = try exampleTemplates()
        files["bikes/grail.yaml"] = Array("name: Grail\n".utf8)
        files["bikes/tarmac.yaml"] = Array("name: Tarmac\nretired: 2026-06-30\n".utf8)
        files["bikes/stumpy.yaml"] = Array("name: Stumpy\n".utf8)
        files["parts/wheels.yaml"] = Array(
            "name: Wheels\nslot: wheels\nmounts:\n  - {bike: grail, from: 2026-01-01, to: 2026-03-31}\n  - {bike: stumpy, from: 2026-04-01}\n".utf8)
        for (path, text) in extra { files[path] = Array(text.utf8) }
        return try TemporaryFolder(files)
    }

    func refusal(_ plan: () throws(WriteFailure) -> GarageChange) -> String? {
        do {
            _ = try plan()
            return nil
        } catch {
            return error.message
        }
    }

    @Test func aMountOnARetiredBikeOrBeforeTheLastMoveIsRefused() throws {
        let g = try garage()
        #expect(
            refusal { () throws(WriteFailure) in try PartEditor.mount("wheels", on: "tarmac", date: Day("2026-07-01"), in: g.context()) }
                == "bike 'tarmac' was retired on 2026-06-30, before 2026-07-01")
        #expect(
            refusal { () throws(WriteFailure) in try PartEditor.mount("wheels", on: "grail", date: Day("2026-03-15"), in: g.context()) }
                == "part 'wheels' was on 'grail' through 2026-03-31, on or after 2026-03-15")
        #expect(
            refusal { () throws(WriteFailure) in try PartEditor.mount("wheels", on: "grail", date: Day("2026-04-01"), in: g.context()) }
                == "part 'wheels' went on 'stumpy' on 2026-04-01; it cannot move on or before that day")
        #expect(
            refusal { () throws(WriteFailure) in try PartEditor.mount("wheels", on: "grail", date: Day("2026-12-01"), in: g.context()) }
                == "the mount date 2026-12-01 is in the future (today is 2026-11-20)")
    }

    @Test func aMountIntoASlotAnotherPartFillsIsRefused() throws {
        let g = try garage(["parts/winter.yaml": "name: Winter wheels\nslot: wheels\nmounts: [{bike: grail, from: 2026-04-01}]\n"])
        #expect(
            refusal { () throws(WriteFailure) in try PartEditor.mount("wheels", on: "grail", date: Day("2026-05-01"), in: g.context()) }
                == "part 'winter' fills slot 'wheels' of bike 'grail' on 2026-05-01")
    }

    @Test func mountingOnTheBikeItIsOnIsNothingToDo() throws {
        let g = try garage()
        let change = try PartEditor.mount("wheels", on: "stumpy", date: Day("2026-05-01"), in: g.context())
        #expect(change.files.allSatisfy { !$0.isChange })
        #expect(change.summary == ["part 'wheels' has been on 'stumpy' since 2026-04-01; nothing to do"])
    }

    @Test func retiringAMountedPartEndsItsMountThatDay() throws {
        let g = try garage()
        let change = try PartEditor.retire("wheels", on: Day("2026-10-01"), in: g.context())
        let after = String(decoding: try #require(change.files.first?.after), as: UTF8.self)
        #expect(
            after
                == "name: Wheels\nretired: 2026-10-01\nslot: wheels\nmounts:\n  - {bike: grail, from: 2026-01-01, to: 2026-03-31}\n  - {bike: stumpy, from: 2026-04-01, to: 2026-10-01}\n"
        )
    }
}
