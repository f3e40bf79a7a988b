@testable import BikeCheckKit
import Diagnostics
import Foundation
import TestSupport
import Testing

/// A load that reuses an earlier one's parses also reuses what resolving and checking found in
/// each bike's and part's file while nothing it depends on changed (`CheckedFiles`): its
/// diagnostics and its garage must be exactly those of a load from scratch, whatever changed.
@Suite struct CheckedFilesTests {
    static let files: [String: String] = [
        "garage.yaml": "units: metric\n",
        "templates/road.yaml": """
        name: Road
        intervals:
          chain-lube: {every: 10 h, component: chain}
          bar-tape: {every: 12 months}

        """,
        "templates/wheelset.yaml": "name: Wheelset\nintervals:\n  hub-service: {every: 12 months}\n",
        "bikes/grail.yaml": """
        name: Grail
        templates: [road]
        components:
          chain: {installed: 2025-01-01}
        log:
          - {date: 2025-02-01, done: [chain-lube]}
          - {date: 2025-03-01, done: [bar-tape]}

        """,
        "bikes/tarmac.yaml": """
        name: Tarmac
        templates: [road]
        retired: 2025-06-01
        components:
          chain: {installed: 2024-01-01}
        log:
          - {date: 2025-02-01, done: [chain-lube]}

        """,
        // Uses the template without its chain: a gap the template's users are told of.
        "bikes/stumpy.yaml": "name: Stumpy\ntemplates: [road]\nlog:\n  - {date: 2025-04-01, done: [bar-tape]}\n",
        "bikes/own.yaml": "name: Own\nintervals:\n  wash: {every: 1 months}\nlog:\n  - {date: 2025-04-01, done: [wash]}\n",
        "parts/wheels.yaml": """
        name: Wheels
        templates: [wheelset]
        bought: 2024-01-01
        mounts:
          - {bike: grail, from: 2024-01-01, to: 2025-01-31}
          - {bike: stumpy, from: 2025-02-01}

        """,
        "parts/spare.yaml": "name: Spare\nintervals:\n  check: {every: 6 months}\nmounts:\n  - {bike: grail, from: 2025-02-01}\n",
        "rides.yaml": "rides:\n  - {date: 2025-05-01, bike: stumpy, distance: 20 km}\n",
    ]

    /// An editor's session on a garage: each check reuses the last one's parses, with the open
    /// buffers laid over the files.
    struct Session {
        let garage: TemporaryFolder
        var overlay: [String: String] = [:]
        var today = Day("2026-11-15")
        private(set) var parsed: ParsedFiles?

        init() throws {
            garage = try TemporaryFolder(CheckedFilesTests.files.mapValues { Array($0.utf8) })
        }

        func options(keeping: Bool, environment: [String: String] = [:]) -> GarageLoader.Options {
            var options = GarageLoader.Options(activities: .skip, today: today, keepsParsedFiles: keeping, environment: environment)
            options.overlay = overlay.mapValues { Array($0.utf8) }
            return options
        }

        /// Checks the garage as it stands, reusing the last check, and expects exactly what a
        /// load from scratch finds; returns the files whose findings were reused.
        @discardableResult
        mutating func check(_ comment: Comment, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Set<String> {
            let loaded = GarageLoader.load(at: garage.path, options: options(keeping: true), reusing: parsed)
            parsed = loaded.parsedFiles
            let scratch = GarageLoader.load(at: garage.path, options: options(keeping: false, environment: ["BIKECHECK_NO_CACHE": "1"]))
            #expect(loaded.diagnostics == scratch.diagnostics, comment, sourceLocation: sourceLocation)
            #expect(Self.shape(loaded.garage) == Self.shape(scratch.garage), comment, sourceLocation: sourceLocation)
            return parsed?.checked?.reused ?? []
        }

        /// What the resolved garage says of each bike and part: its intervals and their limits,
        /// its mounts, what counts.
        static func shape(_ garage: Garage) -> [String] {
            garage.bikes.map { b in
                "\(b.bike.id) \(b.intervals.map { "\($0.id)/\($0.limits)/\(String(describing: $0.template))" }) \(b.counts.sorted()) \(b.trainer) \(b.ridesOf.sorted { $0.rawValue < $1.rawValue })"
            }
                + garage.parts.map { p in
                    "\(p.part.id) \(p.intervals.map { "\($0.id)/\($0.limits)" }) \(p.part.mounts.map { "\($0.bike.value) \($0.from) \(String(describing: $0.to)) \($0.via)" })"
                }
        }
    }

    @Test func anEditedBikeIsResolvedAgainAndTheOthersAreReused() throws {
        var s = try Session()
        #expect(s.check("first load").isEmpty)
        #expect(s.check("nothing changed") == Set(Self.files.keys.filter { $0.hasPrefix("bikes/") || $0.hasPrefix("parts/") }))
        s.overlay["bikes/grail.yaml"] = Self.files["bikes/grail.yaml"]! + "  - {date: 2025-05-01, done: [chain-oil]}\n"
        let reused = s.check("an unknown interval in an unsaved buffer")
        #expect(!reused.contains("bikes/grail.yaml"))
        #expect(reused.isSuperset(of: ["bikes/tarmac.yaml", "bikes/stumpy.yaml", "bikes/own.yaml", "parts/wheels.yaml"]))
        #expect(reused.contains("parts/spare.yaml"), "on the bike that changed, but not in when it was retired")
        s.overlay["bikes/grail.yaml"] = Self.files["bikes/grail.yaml"]!
        s.check("the buffer as the file again")
    }

    @Test func aTemplateEditRechecksTheBikesAndPartsThatUseIt() throws {
        var s = try Session()
        s.check("first load")
        s.overlay["templates/road.yaml"] = Self.files["templates/road.yaml"]!.replacingOccurrences(of: "chain-lube:", with: "oil:")
        let reused = s.check("the bikes' logs name an interval the template no longer has")
        #expect(reused.isDisjoint(with: ["bikes/grail.yaml", "bikes/tarmac.yaml", "bikes/stumpy.yaml"]))
        #expect(reused.isSuperset(of: ["bikes/own.yaml", "parts/wheels.yaml", "parts/spare.yaml"]))
        // The template's gap moves: it tracks a component no bike lists.
        s.overlay["templates/road.yaml"] = Self.files["templates/road.yaml"]!.replacingOccurrences(of: "component: chain", with: "component: chian")
        s.check("a typo in the template's component")
        s.overlay["templates/wheelset.yaml"] = "name: Wheelset\nintervals:\n  hub-service: {every: 12 kg}\n"
        #expect(!s.check("the part's template broken").contains("parts/wheels.yaml"))
        s.overlay = [:]
        s.check("both buffers closed")
    }

    @Test func aPartMovedBetweenBikesAndABikeRetiredUnderAPart() throws {
        var s = try Session()
        s.check("first load")
        // Moved onto the retired tarmac: a warning at the part.
        s.overlay["parts/wheels.yaml"] = Self.files["parts/wheels.yaml"]!.replacingOccurrences(of: "bike: stumpy", with: "bike: tarmac")
        s.check("the part on a retired bike")
        // The bike's file makes the part's warning go, then come back: the part is not edited.
        s.overlay["bikes/tarmac.yaml"] = Self.files["bikes/tarmac.yaml"]!.replacingOccurrences(of: "retired: 2025-06-01\n", with: "")
        #expect(!s.check("the bike no longer retired").contains("parts/wheels.yaml"))
        s.overlay["bikes/tarmac.yaml"] = nil
        s.check("the bike's buffer closed: retired again")
        s.overlay["parts/wheels.yaml"] = Self.files["parts/wheels.yaml"]!.replacingOccurrences(of: "bike: stumpy", with: "bike: stumpi")
        s.check("an unknown bike")
    }

    @Test func aRenamedOrDeletedFileAndANewOne() throws {
        var s = try Session()
        s.check("first load")
        try FileManager.default.moveItem(atPath: s.garage.path + "/bikes/stumpy.yaml", toPath: s.garage.path + "/bikes/stumpjumper.yaml")
        s.check("a bike renamed: the part and the ride name a bike that is gone")
        try FileManager.default.moveItem(atPath: s.garage.path + "/bikes/stumpjumper.yaml", toPath: s.garage.path + "/bikes/stumpy.yaml")
        s.check("renamed back")
        try FileManager.default.removeItem(atPath: s.garage.path + "/templates/wheelset.yaml")
        s.check("a template deleted")
        try s.garage.write("templates/wheelset.yaml", Self.files["templates/wheelset.yaml"]!)
        s.check("and written again")
        try FileManager.default.removeItem(atPath: s.garage.path + "/bikes/grail.yaml")
        s.check("a bike deleted")
        try s.garage.write("bikes/gravel.yaml", "name: Gravel\ntemplates: [road]\n")
        s.check("a new bike")
        try s.garage.write("gear/gravel.yaml", "name: Shoes\nkind: shoes\n")
        s.check("gear with a bike's id")
    }

    @Test func aBikeParsedAgainToTheSameValueKeepsItsFindingsUnlessALocationMoved() throws {
        var s = try Session()
        s.check("first load")
        let unknown = Self.files["bikes/grail.yaml"]! + "  - {date: 2025-05-01, done: [chain-oil]}\n"
        s.overlay["bikes/grail.yaml"] = unknown
        #expect(!s.check("an unknown interval in an unsaved buffer").contains("bikes/grail.yaml"))
        s.overlay["bikes/grail.yaml"] = unknown + "# a comment\n"
        #expect(s.check("a comment added below: the same bike").contains("bikes/grail.yaml"))
        s.overlay["bikes/grail.yaml"] = "# a comment\n" + unknown
        #expect(!s.check("a comment added above: every location one line down").contains("bikes/grail.yaml"))
        s.overlay["bikes/tarmac.yaml"] = Self.files["bikes/tarmac.yaml"]! + "# retired, and it stays so\n"
        let reused = s.check("a comment in a retired bike under a part")
        #expect(reused.isSuperset(of: ["bikes/tarmac.yaml", "parts/wheels.yaml", "parts/spare.yaml"]))
    }

    @Test func aSettledFolderIsNotListedAgainUntilAFileIsAddedRemovedOrRenamed() throws {
        var s = try Session()
        func settle() { Thread.sleep(forTimeInterval: ActivityIndex.settleTime + 0.02) }
        /// The storage of the bikes' listing: the same while the folder is not listed again.
        func listing() -> UnsafePointer<String>? { s.parsed?.listings["bikes"]?.relatives.withUnsafeBufferPointer { $0.baseAddress } }
        settle()
        s.check("first load")
        #expect(s.parsed?.listings["bikes"]?.key != nil, "a settled folder's listing is kept with its key")
        let first = listing()
        s.check("nothing changed")
        #expect(first != nil && listing() == first, "not listed again")
        try s.garage.write("bikes/gravel.yaml", "name: Gravel\ntemplates: [road]\n")
        s.check("a bike added right after a listing")
        #expect(listing() != first)
        settle()
        s.check("settled again")
        try FileManager.default.removeItem(atPath: s.garage.path + "/bikes/own.yaml")
        s.check("a bike removed")
        settle()
        s.check("settled again")
        try FileManager.default.moveItem(atPath: s.garage.path + "/bikes/stumpy.yaml", toPath: s.garage.path + "/bikes/stumpy.yml")
        s.check("a bike renamed to .yml")
        settle()
        s.check("settled again")
        try FileManager.default.moveItem(atPath: s.garage.path + "/parts", toPath: s.garage.path + "/old-parts")
        try FileManager.default.createDirectory(atPath: s.garage.path + "/parts", withIntermediateDirectories: false)
        try s.garage.write("parts/chain.yaml", "name: Chain\nmounts:\n  - {bike: grail, from: 2025-02-01}\n")
        s.check("the parts folder replaced by another")
    }

    @Test func theGarageCacheIsPrunedWhenTheGaragesFilesChangeAndOnlyThen() throws {
        var s = try Session()
        Thread.sleep(forTimeInterval: ActivityIndex.settleTime + 0.02)
        s.check("first load")
        let cache = s.garage.path + "/.bikecheck/garage-cache/"
        let entry = cache + "bikes+stumpy.yaml.cache"
        #expect(FileManager.default.fileExists(atPath: entry))
        try FileManager.default.removeItem(atPath: s.garage.path + "/bikes/stumpy.yaml")
        s.check("a bike deleted")
        #expect(!FileManager.default.fileExists(atPath: entry), "the deleted bike's entry is pruned")
        try s.garage.write("bikes/stumpy.yaml", Self.files["bikes/stumpy.yaml"]!)
        Thread.sleep(forTimeInterval: ActivityIndex.settleTime + 0.02)
        s.check("written again")
        #expect(FileManager.default.fileExists(atPath: entry))
        // With the same files, the cache folder is not read again: a stray entry stays until the
        // garage's files change.
        try Data("stray".utf8).write(to: URL(fileURLWithPath: cache + "bikes+gone.yaml.cache"))
        s.check("nothing changed")
        #expect(FileManager.default.fileExists(atPath: cache + "bikes+gone.yaml.cache"))
        try s.garage.write("bikes/new.yaml", "name: New\n")
        s.check("a bike added")
        #expect(!FileManager.default.fileExists(atPath: cache + "bikes+gone.yaml.cache"), "pruned when the files changed")
    }

    @Test func aKeptFileReplacedByALinkOutOfTheGarageIsRefused() throws {
        var s = try Session()
        let outside = try TemporaryFolder(["secret.yaml": Array("name: Secret\n".utf8)])
        s.check("first load")
        try FileManager.default.removeItem(atPath: s.garage.path + "/bikes/own.yaml")
        try FileManager.default.createSymbolicLink(atPath: s.garage.path + "/bikes/own.yaml", withDestinationPath: outside.path + "/secret.yaml")
        s.check("a bike's file now links out of the garage")
        let loaded = GarageLoader.load(at: s.garage.path, options: s.options(keeping: false))
        #expect(loaded.diagnostics.contains { $0.id == "symlink-outside-garage" && $0.location.file == "bikes/own.yaml" })
        #expect(!loaded.garage.bikes.contains { $0.bike.name == "Secret" })
        // A link that stays inside the garage is followed, to where it leads.
        try FileManager.default.removeItem(atPath: s.garage.path + "/bikes/own.yaml")
        try s.garage.write("archive/own.yaml", Self.files["bikes/own.yaml"]!)
        try FileManager.default.createSymbolicLink(atPath: s.garage.path + "/bikes/own.yaml", withDestinationPath: "../archive/own.yaml")
        s.check("a link inside the garage")
        #expect(GarageLoader.load(at: s.garage.path, options: s.options(keeping: false)).garage.bikes.contains { $0.bike.name == "Own" })
    }

    /// The boundary asked of a folder's files (its real path looked up once) answers as it does
    /// asked of each file by its path: plain files, links in and out, a missing file, a linked
    /// folder, a garage reached through a link.
    @Test func aFoldersBoundaryAnswersAsTheGaragesDoes() throws {
        let outside = try TemporaryFolder(["secret.yaml": Array("x: 1\n".utf8), "bikes/far.yaml": Array("x: 1\n".utf8)])
        let garage = try TemporaryFolder(["bikes/a.yaml": [], "archive/b.yaml": [], "archive/c.yaml": []])
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: garage.path + "/bikes/in.yaml", withDestinationPath: "../archive/b.yaml")
        try fm.createSymbolicLink(atPath: garage.path + "/bikes/out.yaml", withDestinationPath: outside.path + "/secret.yaml")
        try fm.createSymbolicLink(atPath: garage.path + "/bikes/dangling.yaml", withDestinationPath: "../archive/none.yaml")
        try fm.createSymbolicLink(atPath: garage.path + "/parts", withDestinationPath: "archive")
        try fm.createSymbolicLink(atPath: garage.path + "/gear", withDestinationPath: outside.path + "/bikes")
        let linkedRoot = try TemporaryFolder()
        try fm.createSymbolicLink(atPath: linkedRoot.path + "/garage", withDestinationPath: garage.path)
        for root in [garage.path, linkedRoot.path + "/garage", linkedRoot.path + "/garage/", linkedRoot.path + "/garage/../garage"] {
            let boundary = GarageBoundary(root: root)
            for (folder, names) in [
                ("bikes", ["a.yaml", "in.yaml", "out.yaml", "dangling.yaml", "missing.yaml"]), ("parts", ["b.yaml", "c.yaml", "none.yaml"]),
                ("gear", ["far.yaml"]), ("none", ["a.yaml"]),
            ] {
                for name in names {
                    #expect(boundary.folder(folder).access(name, folder + "/" + name) == boundary.access(folder + "/" + name), "\(root) \(folder)/\(name)")
                }
            }
        }
    }

    /// File names are ids, looked at on every load: ASCII ones are judged without Unicode's
    /// tables, and must be judged as with them (letters, digits, then also `-`, `_`, `.`).
    @Test func anASCIIIdIsJudgedAsByUnicodeProperties() {
        func byProperties(_ text: String) -> Bool {
            guard let first = text.unicodeScalars.first, first.properties.isAlphabetic || ("0"..."9").contains(first) else { return false }
            return text.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" || $0 == "." }
        }
        for first in 0..<128 {
            for second in [0x2D, 0x2E, 0x2F, 0x30, 0x39, 0x40, 0x41, 0x5A, 0x5B, 0x5F, 0x60, 0x61, 0x7A, 0x7B, 0x7F, first] {
                let text = String(decoding: [UInt8(first), UInt8(second)], as: UTF8.self)
                #expect(isIdentifier(text) == byProperties(text), "\(Array(text.utf8))")
            }
        }
        #expect(!isIdentifier("") && isIdentifier("grail-2.old_1") && isIdentifier("vélo") && !isIdentifier("-grail"))
    }

    @Test func settingsAndTodayInvalidateEverything() throws {
        var s = try Session()
        s.check("first load")
        s.overlay["garage.yaml"] = "units: metric\ndue_soon: 50 %\n"
        #expect(s.check("garage.yaml changed").isEmpty)
        s.today = Day("2025-02-15")
        #expect(s.check("another day: log entries in the future").isEmpty)
        s.check("the same day again")
    }

    @Test func theExampleGarageWithPartsOnPartsAndGear() throws {
        var s = try Session()
        for (file, _) in Self.files where file != "garage.yaml" { try FileManager.default.removeItem(atPath: s.garage.path + "/" + file) }
        let example = repositoryFolder.appendingPathComponent("example-garage")
        for folder in ["bikes", "gear", "parts", "templates"] {
            for name in try FileManager.default.contentsOfDirectory(atPath: example.appendingPathComponent(folder).path) {
                try s.garage.write(folder + "/" + name, [UInt8](try Data(contentsOf: example.appendingPathComponent(folder + "/" + name))))
            }
        }
        try s.garage.write("garage.yaml", [UInt8](try Data(contentsOf: example.appendingPathComponent("garage.yaml"))))
        try s.garage.write("rides.yaml", [UInt8](try Data(contentsOf: example.appendingPathComponent("rides.yaml"))))
        s.check("first load")
        #expect(s.check("nothing changed").contains("bikes/grail.yaml"))
        let wheels = try String(contentsOfFile: s.garage.path + "/parts/race-wheels.yaml", encoding: .utf8)
        s.overlay["parts/race-wheels.yaml"] = wheels.replacingOccurrences(of: "bike: tarmac", with: "bike: grail")
        s.check("the wheels, and the tyres on them, moved")
        s.overlay["parts/race-wheels.yaml"] = nil
        s.check("and back")
    }
}
