@testable import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// A write parses the garage once: the re-check after writing parses only the files it wrote
/// (and any changed meanwhile), reuses the rest, and still runs the checks across files.
@Suite struct WriteParsesOnceTests {
    func garage() throws -> TemporaryFolder {
        var files = try exampleTemplates()
        files["garage.yaml"] = Array("units: metric\n".utf8)
        for id in ["grail", "tarmac", "stumpy"] { files["bikes/\(id).yaml"] = Array("name: \(id)\ntemplates: [road]\n".utf8) }
        return try TemporaryFolder(files)
    }

    @Test func theRecheckParsesOnlyTheFileTheWriteTouched() throws {
        let g = try garage()
        let context = g.context()
        let all: Set = ["garage.yaml", "templates/road.yaml", "bikes/grail.yaml", "bikes/tarmac.yaml", "bikes/stumpy.yaml"]
        #expect(try #require(context.loaded.parsedFiles).parsed.isSuperset(of: all), "the load before planning parses every file")
        let change = try ServiceRecorder.plan(ServiceRecord(bike: "grail", intervals: ["bar-tape"], date: Day("2026-02-01")), in: context)
        let outcome = try ChangeWriter(root: g.root, options: .init()).apply(change)
        #expect(outcome.written == ["bikes/grail.yaml"])
        #expect(outcome.reparsed == ["bikes/grail.yaml"], "the re-check after writing parses only what was written")
    }

    @Test func aFileChangedByHandBetweenTheTwoLoadsIsParsedAgain() throws {
        let g = try garage()
        let change = try ServiceRecorder.plan(ServiceRecord(bike: "grail", intervals: ["bar-tape"], date: Day("2026-02-01")), in: g.context())
        // Someone edits another bike meanwhile: its new bytes are parsed, never the kept tree.
        try g.write("bikes/tarmac.yaml", Array("name: tarmac\ntemplates: [road]\nbought: 2025-01-01\n".utf8))
        let outcome = try ChangeWriter(root: g.root, options: .init()).apply(change)
        #expect(outcome.reparsed == ["bikes/grail.yaml", "bikes/tarmac.yaml"])
    }

    @Test func aChangeWithoutParsedFilesParsesEverythingAgain() throws {
        let g = try garage()
        var change = try ServiceRecorder.plan(ServiceRecord(bike: "grail", intervals: ["bar-tape"], date: Day("2026-02-01")), in: g.context())
        change.parsedFiles = nil
        // Nor the garage cache the load before planning made of the files it parsed.
        try? FileManager.default.removeItem(atPath: g.root + "/.bikecheck/garage-cache")
        let outcome = try ChangeWriter(root: g.root, options: .init()).apply(change)
        let every = Set(try exampleTemplates().keys.filter { $0.hasSuffix(".yaml") }).union(["bikes/grail.yaml", "bikes/tarmac.yaml", "bikes/stumpy.yaml"])
        #expect(outcome.reparsed == every)
    }

    @Test func bypassingTheDerivedCachesParsesEveryFileAgain() throws {
        let g = try garage()
        let keep = GarageLoader.Options(activities: .skip, keepsParsedFiles: true, environment: [:])
        let first = try #require(GarageLoader.load(at: g.root, options: keep).parsedFiles)
        #expect(GarageLoader.load(at: g.root, options: keep, reusing: first).parsedFiles?.parsed == [], "nothing changed: nothing is parsed")
        let bypass = GarageLoader.Options(activities: .skip, keepsParsedFiles: true, environment: ["BIKECHECK_NO_CACHE": "1"])
        #expect(GarageLoader.load(at: g.root, options: bypass, reusing: first).parsedFiles?.parsed == first.parsed)
    }

    @Test func bikesAndPartsAreParsedAgainWhenTheGarageCurrencyChanged() throws {
        let g = try garage()
        let first = try #require(GarageLoader.load(at: g.root, options: .init(activities: .skip, keepsParsedFiles: true)).parsedFiles)
        try g.write("garage.yaml", Array("units: metric\ncurrency: EUR\n".utf8))
        let second = GarageLoader.load(at: g.root, options: .init(activities: .skip, keepsParsedFiles: true), reusing: first)
        #expect(second.parsedFiles?.parsed == ["garage.yaml", "bikes/grail.yaml", "bikes/tarmac.yaml", "bikes/stumpy.yaml"])
    }

    @Test func aChangeThatBreaksACrossFileCheckInTheTouchedFileIsStillPutBack() throws {
        let g = try garage()
        _ = g.context()  // the load before planning, as a command makes it
        let before = try #require(g.read("bikes/grail.yaml"))
        // A template that does not exist: an error of the resolver (across files), in the touched file.
        let after = Array("name: grail\ntemplates: [no-such-template]\n".utf8)
        let change = GarageChange(files: [FileChange(path: "bikes/grail.yaml", before: before, after: after)], message: "m")
        #expect {
            try ChangeWriter(root: g.root, options: .init()).apply(change)
        } throws: { error in
            (error as? WriteFailure)?.diagnostics.contains { $0.location.file == "bikes/grail.yaml" } == true
        }
        #expect(g.read("bikes/grail.yaml") == before)
    }
}
