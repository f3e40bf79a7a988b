import Foundation
import TestSupport
import Testing
@testable import BikeCheckKit

/// Golden files for YAML after `snooze`, `done --todo` and `todo add`: `NAME.before.yaml` is a
/// hand-written bike, `NAME.after.yaml` what bikecheck writes (BIKECHECK_RECORD=1
/// re-records). Each write is also read back: the garage holds exactly the intended change.
@Suite struct SnoozeTodoWriteGoldenTests {
    static let snoozeFolder = testsFolder.appendingPathComponent("Golden/snooze")
    static let doneFolder = testsFolder.appendingPathComponent("Golden/done-todo")
    static let addFolder = testsFolder.appendingPathComponent("Golden/todo-add")

    @Test func thereAreGoldenCases() {
        #expect(goldenCases(in: Self.snoozeFolder).count >= 5)
        #expect(goldenCases(in: Self.doneFolder).count >= 4)
        #expect(goldenCases(in: Self.addFolder).count >= 4)
    }

    /// A scratch garage whose `bikes/bike.yaml` is the case's before file.
    static func garage(_ folder: URL, _ name: String) throws -> (TemporaryFolder, [UInt8]) {
        let before = [UInt8](try Data(contentsOf: folder.appendingPathComponent("\(name).before.yaml")))
        var files = try exampleTemplates()
        files["bikes/bike.yaml"] = before
        return (try TemporaryFolder(files), before)
    }

    /// The bike as the loader reads it after the write, with no diagnostics about its file.
    static func reread(_ garage: TemporaryFolder, _ after: [UInt8]) throws -> Bike {
        try garage.write("bikes/bike.yaml", after)
        let loaded = GarageLoader.load(at: garage.root, options: .init(activities: .skip, today: Day("2026-11-20")))
        #expect(loaded.diagnostics.filter { $0.location.file == "bikes/bike.yaml" }.isEmpty, "\(loaded.diagnostics.map(\.message))")
        return try #require(loaded.garage.bike(BikeID("bike"))?.bike)
    }

    @Test(arguments: goldenCases(in: snoozeFolder))
    func snoozeWritesWhatTheGoldenFileSays(name: String) throws {
        let (garage, before) = try Self.garage(Self.snoozeFolder, name)
        let old = try Self.reread(garage, before)
        let change = try SnoozeRecorder.plan(SnoozeRecord(owner: "bike", interval: "chain-lube", until: Day("2026-12-01")!), in: garage.context())
        let after = try #require(change.files.first?.after)
        // At most the one line that held the date (or the empty `snooze:`, or the one-line `{ }`) changes.
        let removed = try expectGolden(after, before: before, name: name, in: Self.snoozeFolder)
        #expect(removed.count <= 1, "\(removed)")
        let bike = try Self.reread(garage, after)
        let snoozes = bike.snoozes.map { "\($0.interval.value)=\($0.until)" }
        let kept = old.snoozes.filter { $0.interval.value.rawValue != "chain-lube" }.map { "\($0.interval.value)=\($0.until)" }
        #expect(Set(snoozes) == Set(kept + ["chain-lube=2026-12-01"]))
        #expect(bike.log.count == old.log.count)
    }

    @Test(arguments: goldenCases(in: doneFolder))
    func doneWithATodoWritesWhatTheGoldenFileSays(name: String) throws {
        let (garage, before) = try Self.garage(Self.doneFolder, name)
        let old = try Self.reread(garage, before)
        let record = ServiceRecord(bike: "bike", intervals: ["chain-lube"], date: Day("2026-11-16"), todo: "hanger")
        let change = try ServiceRecorder.plan(record, in: garage.context())
        let after = try #require(change.files.first?.after)
        _ = try expectGolden(after, before: before, name: name, in: Self.doneFolder)
        let bike = try Self.reread(garage, after)
        // chain-lube is no longer snoozed, the other snoozes stay; the hanger left the list.
        #expect(bike.snoozes.map(\.interval.value.rawValue) == old.snoozes.map(\.interval.value.rawValue).filter { $0 != "chain-lube" })
        let closed = try #require(old.todos.first { $0.isNamed("hanger") })
        #expect(bike.todos.map(\.task) == old.todos.filter { !$0.isNamed("hanger") }.map(\.task))
        let entry = try #require(bike.log.last)
        #expect(bike.log.count == old.log.count + 1)
        #expect(entry.todo == closed.task && entry.done.map(\.value.rawValue) == ["chain-lube"] && entry.date == Day("2026-11-16"))
        #expect(change.summary.contains("bike: chain-lube no longer snoozed") == old.snoozes.contains { $0.interval.value.rawValue == "chain-lube" })
    }

    @Test(arguments: goldenCases(in: addFolder))
    func todoAddWritesWhatTheGoldenFileSays(name: String) throws {
        let (garage, before) = try Self.garage(Self.addFolder, name)
        let old = try Self.reread(garage, before)
        let change = try TodoRecorder.plan(NewTodo(owner: "bike", task: "true the rear wheel", due: Day("2026-12-01")), in: garage.context())
        let after = try #require(change.files.first?.after)
        let removed = try expectGolden(after, before: before, name: name, in: Self.addFolder)
        #expect(removed.count <= 1, "\(removed)")
        let bike = try Self.reread(garage, after)
        #expect(bike.todos.map(\.task) == old.todos.map(\.task) + ["true the rear wheel"])
        #expect(bike.todos.last?.due == Day("2026-12-01"))
    }

    @Test func snoozeRefusesAnUnknownIntervalATodayDateAndADuplicateTodo() throws {
        let (garage, before) = try Self.garage(Self.doneFolder, "block")
        func failure(_ plan: () throws(WriteFailure) -> GarageChange) -> WriteFailure? {
            do {
                _ = try plan()
                return nil
            } catch { return error }
        }
        let unknown = failure { () throws(WriteFailure) in
            try SnoozeRecorder.plan(SnoozeRecord(owner: "bike", interval: "chain-lueb", until: Day("2026-12-01")!), in: garage.context())
        }
        #expect(unknown?.kind == .usage && unknown?.message == "bike 'bike' has no interval 'chain-lueb'; did you mean 'chain-lube'?")
        let today = failure { () throws(WriteFailure) in
            try SnoozeRecorder.plan(SnoozeRecord(owner: "bike", interval: "chain-lube", until: Day("2026-11-20")!), in: garage.context())
        }
        #expect(today?.message.hasPrefix("--until 2026-11-20 is not after today (2026-11-20)") == true)
        let duplicate = failure { () throws(WriteFailure) in try TodoRecorder.plan(NewTodo(owner: "bike", task: "hanger"), in: garage.context()) }
        #expect(duplicate?.message == "bike 'bike' already has the to-do 'hanger'")
        let empty = failure { () throws(WriteFailure) in try TodoRecorder.plan(NewTodo(owner: "bike", task: "  "), in: garage.context()) }
        #expect(empty?.message == "the to-do's text is empty")
        let missing = failure { () throws(WriteFailure) in
            try ServiceRecorder.plan(ServiceRecord(bike: "bike", intervals: [], todo: "hangar"), in: garage.context())
        }
        #expect(missing?.message == "bike 'bike' has no to-do 'hangar'; did you mean 'hanger'?")
        #expect(garage.read("bikes/bike.yaml") == before)
    }
}
