import Foundation
import TestSupport
import Testing

@Suite struct InitEndToEndTests {
    @Test func initCreatesAGarageThatValidatesSilentlyWithTemplatesAndAGitignore() throws {
        let folder = try TemporaryFolder()
        let r = try runBikecheck(["init", "garage", "--name", "Ma flotte"], in: folder.url)
        #expect(r.status == 0, "\(r.stderr)")
        let root = folder.url.appendingPathComponent("garage")
        let read = { (p: String) in try String(decoding: Data(contentsOf: root.appendingPathComponent(p)), as: UTF8.self) }
        #expect(try read("garage.yaml").contains("name: Ma flotte\n"))
        #expect(try read(".gitignore").contains("activities/\n.bikecheck/\n"))
        for template in ["road", "gravel", "suspension-fork", "rear-shock", "ebike-drive", "tubeless"] {
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("templates/\(template).yaml").path), "\(template)")
        }
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("bikes").path))
        let validate = try runBikecheck(["validate", "--garage", root.path], in: folder.url)
        #expect(validate.status == 0, "\(validate.stderr)")
        #expect(validate.stderr.isEmpty, "\(validate.stderr)")
        let list = try runBikecheck(["template", "list"], in: root)
        #expect(list.stdout.contains("tubeless"))
    }

    @Test func initRefusesAnExistingGarageAndWritesNothing() throws {
        let garage = try TemporaryFolder(["garage.yaml": "name: mine # keep\n"])
        let r = try runBikecheck(["init", garage.path], in: garage.root)
        #expect(r.status == 1)
        #expect(r.stderr.contains("already holds a garage"))
        #expect(try garage.read("garage.yaml") == "name: mine # keep\n")
        #expect(!FileManager.default.fileExists(atPath: garage.path + "/templates"))
    }

    @Test func initAcceptsAFolderHoldingAnIdenticalTemplateAndLeavesItAlone() throws {
        let folder = try TemporaryFolder()
        #expect(try runBikecheck(["init", "first"], in: folder.url).status == 0)
        let first = folder.url.appendingPathComponent("first"), second = folder.url.appendingPathComponent("second")
        try FileManager.default.createDirectory(at: second.appendingPathComponent("templates"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: first.appendingPathComponent("templates/road.yaml"),
            to: second.appendingPathComponent("templates/road.yaml"))
        let r = try runBikecheck(["init", "second"], in: folder.url)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("changed while bikecheck was working"), "\(r.stderr)")
        #expect(
            try Data(contentsOf: second.appendingPathComponent("templates/road.yaml"))
                == Data(contentsOf: first.appendingPathComponent("templates/road.yaml")))
        #expect(FileManager.default.fileExists(atPath: second.appendingPathComponent("garage.yaml").path))
        #expect(try runBikecheck(["validate", "--garage", second.path], in: folder.url).status == 0)
    }

    @Test func initWithCommitInAFreshRepositoryLeavesACleanTree() throws {
        let folder = try TemporaryFolder()
        try git(["init", "--quiet"], in: folder.url)
        try Data("notes\n".utf8).write(to: folder.url.appendingPathComponent(".gitignore"))
        let r = try runBikecheck(["init", ".", "--commit"], in: folder.url, environment: gitAuthor)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try git(["status", "--porcelain"], in: folder.url).isEmpty)
        #expect(try git(["log", "--format=%s"], in: folder.url) == "New bikecheck garage\n")
        // An existing .gitignore keeps its lines and gains the missing ones.
        let ignore = try String(decoding: Data(contentsOf: folder.url.appendingPathComponent(".gitignore")), as: UTF8.self)
        #expect(ignore == "notes\nactivities/\n.bikecheck/\n.*.bikecheck-??????\n")
    }

    @Test func initDryRunShowsNewFilesAndCreatesNothing() throws {
        let folder = try TemporaryFolder()
        let r = try runBikecheck(["init", "g", "--dry-run"], in: folder.url)
        #expect(r.status == 0)
        #expect(r.stdout.contains("--- /dev/null\n+++ b/garage.yaml\n"))
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("g").path))
    }
}

@Suite struct BikeAndTemplateEndToEndTests {
    func startedGarage() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        let r = try runBikecheck(["init", "."], in: folder.root)
        #expect(r.status == 0, "\(r.stderr)")
        try git(["init", "--quiet"], in: folder.root)
        try git(["add", "."], in: folder.root)
        try git(["commit", "--quiet", "-m", "start"], in: folder.root)
        return folder
    }

    @Test func bikeAddWritesAValidBikeWithTheComponentsItsTemplatesTrack() throws {
        let garage = try startedGarage()
        let r = try garage.run(
            [
                "bike", "add", "grail", "--name", "Canyon Grail: CF SL", "--strava", "b1234", "--bought", "2024-03-01",
                "--template", "gravel", "--template", "tubeless", "--commit",
            ], environment: gitAuthor)
        #expect(r.status == 0, "\(r.stderr)")
        let text = try garage.read("bikes/grail.yaml")
        #expect(
            text.contains("name: \"Canyon Grail: CF SL\"\nstrava: b1234\nbought: 2024-03-01\ntemplates: [gravel, tubeless]\ncomponents:\n  chain:\n  tyres:\n"),
            "\(text)")
        #expect(try garage.run(["validate"]).stderr.isEmpty)
        #expect(try git(["log", "--format=%s", "-1"], in: garage.root) == "grail: new bike Canyon Grail: CF SL\n")
        let list = try garage.run(["bike", "list"])
        #expect(list.stdout.contains("grail  Canyon Grail: CF SL  strava b1234  templates: gravel, tubeless"))

        let json = try garage.run(["bike", "list", "--format", "json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(rows.first?["id"] as? String == "grail")
        #expect(rows.first?["templates"] as? [String] == ["gravel", "tubeless"])

        let again = try garage.run(["bike", "add", "grail", "--name", "Other"])
        #expect(again.status == 1)
        let typo = try garage.run(["bike", "add", "x", "--name", "X", "--template", "gravle"])
        #expect(typo.status == 2)
        #expect(typo.stderr.contains("did you mean 'gravel'?"))
    }

    @Test(arguments: ["b-5", "b+5", "b", "B5", "b٣", "b1234567890123456789"])
    func bikeAddRefusesAGearIDTheLoaderWouldRefuse(gear: String) throws {
        let garage = try startedGarage()
        let r = try garage.run(["bike", "add", "zz", "--name", "Zed", "--strava", gear])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("'\(gear)' is not a Strava bike gear id"), "\(r.stderr)")
        #expect(!r.stderr.contains("bug"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: garage.root.appendingPathComponent("bikes/zz.yaml").path))
    }

    @Test func retireAddsOneLineAfterBought() throws {
        let garage = try startedGarage()
        try garage.write("bikes/old.yaml", "name: Old # yes\nbought: 2020-01-01  # used\nlog: []\n")
        let r = try garage.run(["bike", "retire", "old", "--date", "2026-01-01"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try garage.read("bikes/old.yaml") == "name: Old # yes\nbought: 2020-01-01  # used\nretired: 2026-01-01\nlog: []\n")
        let status = try garage.run(["status", "--as-of", "2026-06-01"])
        #expect(!status.stdout.contains("old ·"), "\(status.stdout)")
    }

    @Test func templateApplyAddsTheReferenceToTheList() throws {
        let garage = try startedGarage()
        try garage.write("bikes/grail.yaml", "name: Grail\ntemplates: [road]   # mine\ncomponents:\n  chain:\n  tyres:\n")
        let r = try garage.run(["template", "apply", "tubeless", "grail"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try garage.read("bikes/grail.yaml") == "name: Grail\ntemplates: [road, tubeless]   # mine\ncomponents:\n  chain:\n  tyres:\n")
        // A template that tracks parts the bike lacks adds them, so validate stays quiet.
        let fork = try garage.run(["template", "apply", "suspension-fork", "grail"])
        #expect(fork.status == 0, "\(fork.stderr)")
        #expect(
            try garage.read("bikes/grail.yaml")
                == "name: Grail\ntemplates: [road, tubeless, suspension-fork]   # mine\ncomponents:\n  chain:\n  tyres:\n  fork:\n")
        #expect(try garage.run(["validate"]).stderr.isEmpty)
        let again = try garage.run(["template", "apply", "tubeless", "grail"])
        #expect(again.stdout.contains("already uses"))
        let typo = try garage.run(["template", "show", "tubless"])
        #expect(typo.status == 2)
        #expect(typo.stderr.contains("error: no template 'tubless'; did you mean 'tubeless'?"), "\(typo.stderr)")
        let show = try garage.run(["template", "show", "tubeless"])
        #expect(show.stdout.contains("sealant  every 3 months  Top up tubeless sealant"))
        #expect(show.stdout.contains("used by: grail"))

        try garage.write("bikes/plain.yaml", "name: Plain\n")
        #expect(try garage.run(["template", "apply", "road", "plain"]).status == 0)
        #expect(try garage.read("bikes/plain.yaml") == "name: Plain\ntemplates: [road]\ncomponents:\n  chain:\n  tyres:\n")
    }

    @Test func templateImportCopiesFromAnotherGarageNotingTheSourceAndNeverClobbers() throws {
        let garage = try startedGarage()
        let r = try garage.run(["template", "import", exampleGarage.path, "fox-36", "--commit"], environment: gitAuthor)
        #expect(r.status == 0, "\(r.stderr)")
        let copied = try garage.read("templates/fox-36.yaml")
        let original = try String(decoding: Data(contentsOf: exampleGarage.appendingPathComponent("templates/fox-36.yaml")), as: UTF8.self)
        // The source is relative to the garage: no absolute path of this machine is written.
        #expect(copied.split(separator: "\n").contains { $0.hasPrefix("source: ../") && $0.hasSuffix("example-garage/templates/fox-36.yaml") }, "\(copied)")
        // Every line of the original is kept, apart from the schema modeline pointing at this garage.
        for line in original.split(separator: "\n") where !line.hasPrefix("# yaml-language-server") {
            #expect(copied.contains(line))
        }
        #expect(try git(["status", "--porcelain"], in: garage.root).isEmpty)
        #expect(try git(["log", "--format=%s", "-1"], in: garage.root) == "Import template fox-36\n")

        // The same template again changes nothing; a different one of the same name is refused.
        let again = try garage.run(["template", "import", exampleGarage.path + "/templates/fox-36.yaml"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("unchanged"))
        try garage.write("elsewhere/road.yaml", "name: Other road\nintervals:\n  wash:\n    every: 1 week\n")
        let before = try garage.read("templates/road.yaml")
        let clash = try garage.run(["template", "import", "elsewhere/road.yaml"])
        #expect(clash.status == 1)
        #expect(clash.stderr.contains("--as"))
        #expect(try garage.read("templates/road.yaml") == before)
        let renamed = try garage.run(["template", "import", "elsewhere/road.yaml", "--as", "club-road"])
        #expect(renamed.status == 0, "\(renamed.stderr)")
        #expect(try garage.read("templates/club-road.yaml").contains("source: elsewhere/road.yaml\n"))
    }

    @Test func anInvalidTemplateIsNotImported() throws {
        let garage = try startedGarage()
        try garage.write("bad.yaml", "name: Bad\nintervals:\n  wash:\n    every: 1 fortnight\n")
        let r = try garage.run(["template", "import", "bad.yaml"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("bad.yaml:4:12: error:"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: garage.path + "/templates/bad.yaml"))
    }

    @Test func rideAddCreatesRidesYamlThenAppendsAndTheRideCounts() throws {
        let garage = try startedGarage()
        #expect(try garage.run(["bike", "add", "charger", "--name", "Charger", "--template", "ebike-drive", "--bought", "2026-01-01"]).status == 0)
        let first = try garage.run(["ride", "add", "charger", "--date", "2026-06-01", "--time", "1:30", "--distance", "35km"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try garage.read("rides.yaml").hasSuffix("rides:\n  - date: 2026-06-01\n    bike: charger\n    time: \"1:30\"\n    distance: 35 km\n"))
        let second = try garage.run(["ride", "add", "charger", "--date", "2026-06-02", "--time", "2h", "--distance", "40 km", "--sport", "EBikeRide"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(
            try garage.read("rides.yaml").hasSuffix(
                "    distance: 35 km\n  - date: 2026-06-02\n    bike: charger\n    time: 2h\n    distance: 40 km\n    sport: EBikeRide\n"))
        #expect(try garage.run(["validate"]).status == 0)
        let status = try garage.run(["status", "--format", "json", "--as-of", "2026-06-10"])
        #expect(status.stdout.contains("\"distance\" : 75000"), "\(status.stdout)")

        let bad = try garage.run(["ride", "add", "charger", "--date", "2026-06-02", "--time", "soon"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("not a ride time"))
    }
}

@Suite struct WrittenFilesMatchTheirSchemasTests {
    @Test func everyFileTheWriteCommandsCreateMatchesTheSchemaItsModelineNames() throws {
        let folder = try TemporaryFolder()
        let root = folder.url
        #expect(try runBikecheck(["init", "."], in: root).status == 0)
        #expect(try runBikecheck(["bike", "add", "grail", "--name", "Grail: 2024", "--strava", "b77", "--template", "gravel"], in: root).status == 0)
        #expect(try runBikecheck(["done", "grail", "chain-lube", "--date", "2026-11-01", "--cost", "3", "--note", "yes"], in: root).status == 0)
        #expect(try runBikecheck(["ride", "add", "grail", "--date", "2026-11-02", "--time", "1:30", "--distance", "35 km"], in: root).status == 0)
        let templates = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("templates").path).sorted().map { "templates/" + $0 }
        for (schema, files) in [("garage", ["garage.yaml"]), ("bike", ["bikes/grail.yaml"]), ("template", templates), ("rides", ["rides.yaml"])] {
            for file in files {
                let text = try String(decoding: Data(contentsOf: root.appendingPathComponent(file)), as: UTF8.self)
                let depth = file.contains("/") ? "../" : ""
                #expect(text.hasPrefix("# yaml-language-server: $schema=\(depth).schemas/\(schema).schema.json\n"), "\(file)")
            }
            let result = try checkJSONSchema(["--schemafile", ".schemas/\(schema).schema.json"] + files, in: root)
            #expect(result?.status == 0, "\(files) do not match \(schema).schema.json: \(result?.stdout ?? "")")
        }
    }
}

@Suite struct ExampleGarageWritesEndToEndTests {
    @Test func aRideAddedToTheExampleGarageMatchesItsOneLineEntries() throws {
        let garage = try TemporaryFolder(copying: true)
        let before = try garage.read("rides.yaml")
        let r = try garage.run(["ride", "add", "charger", "--date", "2026-11-15", "--time", "45 min", "--distance", "18.2 km"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try garage.read("rides.yaml") == before + "  - {date: 2026-11-15, bike: charger, time: 45 min, distance: 18.2 km}\n")
        #expect(try garage.run(["validate"]).status == 0)
    }
}
