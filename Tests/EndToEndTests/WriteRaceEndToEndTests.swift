import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// A `bikecheck` started and not yet waited for, its output going to files (a full pipe would
/// block it while the test is busy starting the others).
final class StartedBikecheck {
    let process = Process()
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("out-\(UUID().uuidString)")
    let err = FileManager.default.temporaryDirectory.appendingPathComponent("err-\(UUID().uuidString)")
    let arguments: [String]

    /// How it ended and what it printed.
    struct Finished {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    init(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws {
        self.arguments = arguments
        process.executableURL = bikecheckBinary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        env["BIKECHECK_GARAGE"] = ""
        for (k, v) in environment { env[k] = v }
        process.environment = env
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: out)
        try? FileManager.default.removeItem(at: err)
    }

    /// Waits for the end (killing it after `timeout`) and returns what it printed.
    func finish(timeout: TimeInterval = 30) throws -> Finished {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            Issue.record("bikecheck \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
        }
        process.waitUntilExit()
        return Finished(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }
}

/// Starts every command at once in `garage`, then waits for all of them.
func runAtOnce(_ commands: [[String]], in garage: TemporaryFolder, environment: [String: String] = [:]) throws -> [StartedBikecheck.Finished] {
    let started = try commands.map { try StartedBikecheck($0, in: garage.root, environment: environment) }
    return try started.map { try $0.finish() }
}

/// A distinct, valid past date for trial `i` (0 ..< 336 × 30).
/// Day `i` counted from 2000-01-01: later trials get later dates, so in a log kept in date order
/// each new entry goes at its end.
func trialDate(_ i: Int) -> String {
    Day(ordinal: Day("2000-01-01")!.ordinal + i).description
}

/// A garage with one bike whose log is written in block style, so a new entry is appended.
func raceGarage() throws -> TemporaryFolder {
    try TemporaryFolder([
        "garage.yaml": "name: Race garage\n",
        "templates/road.yaml": roadTemplate,
        "bikes/vélo.yaml": "name: Vélo\ntemplates: [road]\nlog:\n  - date: 1995-01-01\n    done: [chain-lube]\n",
        "rides.yaml": "rides:\n  - date: 1995-01-01\n    bike: vélo\n    time: 1h\n",
    ])
}

@Suite struct WriteRaceEndToEndTests {
    @Test func twentyDoneCommandsAtOnceAllLandInTheLog() throws {
        let garage = try raceGarage()
        let results = try runAtOnce((0..<20).map { ["done", "vélo", "chain-lube", "--date", trialDate($0)] }, in: garage)
        let file = try garage.read("bikes/vélo.yaml")
        for (i, r) in results.enumerated() {
            // Each either succeeded and is in the log, or said it failed; none is lost silently.
            if r.status == 0 {
                #expect(file.contains("date: \(trialDate(i))"), "reported logged, but missing: \(r.stdout)")
            } else {
                #expect(r.stderr.contains("error:"), "\(r.stderr)")
            }
        }
        // With a 10 s wait, twenty short writes all get their turn.
        #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
        #expect(file.components(separatedBy: "- date:").count - 1 == 21)
        #expect(try garage.run(["validate"]).status == 0)
    }

    @Test func twentyRidesAddedAtOnceAreAllKept() throws {
        let garage = try raceGarage()
        try FileManager.default.removeItem(at: garage.root.appendingPathComponent("rides.yaml"))
        // The first one creates rides.yaml: the others must append to it, not replace it.
        let results = try runAtOnce((0..<20).map { ["ride", "add", "vélo", "--date", trialDate($0), "--time", "1h"] }, in: garage)
        #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
        let file = try garage.read("rides.yaml")
        for i in 0..<20 { #expect(file.contains("date: \(trialDate(i))")) }
        #expect(try garage.run(["validate"]).status == 0)
    }

    @Test func oneBikeIDAddedTenTimesAtOnceIsAddedOnceAndTheOthersRefuse() throws {
        let garage = try raceGarage()
        let results = try runAtOnce((0..<10).map { ["bike", "add", "twin", "--name", "Twin \($0)"] }, in: garage)
        let winners = results.indices.filter { results[$0].status == 0 }
        #expect(winners.count == 1, "\(results.map(\.stderr))")
        for r in results where r.status != 0 {
            #expect(r.status == 1)
            #expect(r.stderr.contains("there is already a bike 'twin'"), "\(r.stderr)")
        }
        if let winner = winners.first { #expect(try garage.read("bikes/twin.yaml").contains("name: Twin \(winner)\n")) }
    }

    @Test func twentyTemplatesImportedUnderOneNameAtOnceLeaveExactlyTheOneThatSucceeded() throws {
        let garage = try raceGarage()
        for i in 0..<20 { try garage.write("incoming/t\(i).yaml", "name: Club \(i)\nintervals:\n  chain-lube:\n    every: \(i + 1)0 h\n") }
        let results = try runAtOnce((0..<20).map { ["template", "import", "incoming/t\($0).yaml", "--as", "club"] }, in: garage)
        let winners = results.indices.filter { results[$0].status == 0 }
        #expect(winners.count == 1, "\(results.map(\.stderr))")
        for r in results where r.status != 0 {
            #expect(r.stderr.contains("already has a different template 'club'"), "\(r.stderr)")
        }
        if let winner = winners.first { #expect(try garage.read("templates/club.yaml").contains("name: Club \(winner)\n")) }
    }

    @Test func fiveInitsAtOnceInOneFolderMakeOneGarageAndTheOthersRefuse() throws {
        let garage = try TemporaryFolder()
        let results = try runAtOnce((0..<5).map { ["init", ".", "--name", "Garage \($0)"] }, in: garage)
        let winners = results.indices.filter { results[$0].status == 0 }
        #expect(winners.count == 1, "\(results.map(\.stderr))")
        for r in results where r.status != 0 {
            #expect(r.stderr.contains("already holds a garage"), "\(r.stderr)")
        }
        if let winner = winners.first { #expect(try garage.read("garage.yaml").contains("name: Garage \(winner)\n")) }
    }

    @Test func aWriteWaitsForTheLockAndRefusesWhenItIsHeldTooLong() throws {
        let garage = try raceGarage()
        let before = try garage.read("bikes/vélo.yaml")
        try LocalState.prepare(garage: garage.path)
        var lock = try FileLock(path: ChangeWriter.lockPath(garage: garage.path), wait: 0)
        #expect(lock != nil)

        let refused = try garage.run(["done", "vélo", "chain-lube", "--date", trialDate(0)], environment: ["BIKECHECK_LOCK_WAIT": "0.2"])
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains("another bikecheck is writing to this garage and did not finish within 0.2 s; nothing was written"), "\(refused.stderr)")
        #expect(try garage.read("bikes/vélo.yaml") == before)

        // A writer that finds the lock taken waits for it, then writes.
        let waiting = try StartedBikecheck(["done", "vélo", "chain-lube", "--date", trialDate(1)], in: garage.root)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(waiting.process.isRunning)
        #expect(try garage.read("bikes/vélo.yaml") == before)
        lock = nil
        let r = try waiting.finish()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try garage.read("bikes/vélo.yaml").contains("date: \(trialDate(1))"))

        let bad = try garage.run(["done", "vélo", "chain-lube"], environment: ["BIKECHECK_LOCK_WAIT": "soon"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("BIKECHECK_LOCK_WAIT 'soon' is not a number of seconds"), "\(bad.stderr)")
        _ = lock
    }
}
