@testable import BikeCheckKit
import Diagnostics
import Foundation
import LocatedYAML
import TestSupport
import Testing

/// The garage cache is derived from the YAML files and must never change an answer: every
/// property of the model survives the round trip, a warm load gives what a parse gives, and an
/// entry that is stale, corrupt, truncated, foreign or another version's is not trusted.
@Suite struct GarageCacheTests {
    // MARK: - Samples that set every property of the model, each to at least two values

    static let garages = [
        """
        name: Sink
        units: imperial
        currency: EUR
        due_soon: 75%
        counts: [Ride, VirtualRide]
        trainer: true
        strava: {client_id: "12345"}
        stale_after: 10 days
        quiet_after: 30 days
        notify:
          webhook: {url: "https://example.org/hooks/bikes"}
          ntfy: {url: "https://ntfy.sh", topic: bikes}
          email: {to: [sam@example.org], from: bikes@example.org, smtp: "smtp.example.org:587"}
          repeat: 3 days
          bands: [overdue, due-soon, 7d]
        riders:
          alex:
          sam:
            notify: {ntfy: {topic: sam-bikes}}
        """,
        """
        units: metric
        notify:
          webhook: {url: "https://example.com/other", token: hunter2}
          ntfy: {url: "https://ntfy.example.com", topic: garage}
          email: {to: [a@example.com, b@example.com], from: me@example.com, smtp: "mail.example.com:465"}
          repeat: never
          bands: [30d, overdue]
        """,
    ]

    static let bikes = [
        """
        name: Sink Bike
        rider: alex
        strava: b1234
        devices: [3980001234, 12]
        bought: 2024-01-01
        retired: 2026-10-01
        price: 1999.90
        templates: [road, nowhere]
        counts: [Ride, VirtualRide, Bicycle]
        trainer: only
        tempaltes: [x]
        components:
          chain:
            name: KMC X11
            installed: 2025-03-12
            hours: 12
            distance: 300 km
            rides: 4
            counts: [Ride]
            trainer: true
          fork:
        intervals:
          chain-lube:
            task: Lube the chain
            component: chain
            replaces: chain
            every: [8 h, 200 km]
            wear_limit: 0.75 %
            due_soon: 90%
            counts: [GravelRide]
            trainer: false
          broken:
            every: 10 hrs
        log:
          - date: 2025-01-02
            done: [chain-lube]
            cost: 12 USD
            currency: EUR
            category: parts
            note: new chain
            todo: fix hanger
          - date: 2025-02-03
            done: [chain-lube, fork-service]
            cost: 45.9
          - date: 2025-02-04
            readings: {chain-lube: 0.5 %, fork-service: 1.8 mm}
        snooze: {chain-lube: 2026-12-01, fork-service: 2027-01-01}
        todo:
          - replace bar tape
          - {task: bleed brakes, due: 2026-12-24, id: brakes}
        """,
        """
        name: Other
        strava: b99
        devices: 77
        price: 300 GBP
        templates: [road]
        counts: [GravelRide]
        trainer: false
        components:
          tyres: {name: Pirelli, hours: 3, distance: 40 km, rides: 2, counts: [GravelRide], trainer: only, installed: 2026-01-01}
        intervals:
          tyres: {every: 3 months, component: tyres, replaces: tyres, task: Tyres, due_soon: 50%, counts: [Ride], trainer: true, wear_limit: 1 mm}
        log:
          - {date: 2026-01-05, done: [tyres], cost: 80, category: labour, note: shop, todo: wobble}
          - {date: 2026-01-06, readings: {tyres: 2.5 mm}}
        snooze: {tyres: 2026-06-01}
        todo: [{task: true wheel, id: wheel, due: 2026-02-01}, new grips]
        """,
    ]

    static let parts = [
        """
        name: Wheels
        rider: sam
        bought: 2025-11-01
        retired: 2026-11-01
        price: 1299 EUR
        slot: wheels
        devices: [3980005678, 41]
        hours: 3
        distance: 800 km
        rides: 5
        counts: [Ride]
        trainer: true
        templates: [wheelset]
        intervals:
          hub: {every: 1000 km, task: Hub service, component: hub, replaces: hub, due_soon: 70%, counts: [Ride], trainer: only}
        mounts:
          - {part: frame, from: 2027-01-01}
          - {bike: grail, from: 2025-11-01, to: 2026-04-30, unless_tag: [race, wet]}
          - {bike: tarmac, from: 2026-05-01, tag: race}
        log:
          - {date: 2026-04-30, done: [hub], cost: 40, category: service, note: between bikes, todo: spoke}
        snooze: {hub: 2026-12-01}
        todo: [true the wheels, {task: tape, id: tape, due: 2026-12-01}]
        prce: 3
        """,
        """
        name: Spare chain
        bought: 2026-01-01
        retired: 2026-02-01
        price: 30
        slot: chain
        devices: 99
        hours: 1
        distance: 10 km
        rides: 1
        counts: [GravelRide]
        trainer: false
        templates: [chains]
        intervals:
          wax: {every: 300 km, task: Wax, component: chain, replaces: chain, due_soon: 60%, counts: [GravelRide], trainer: true}
        mounts:
          - {bike: tarmac, from: 2026-01-01, to: 2026-01-20}
          - {bike: grail, from: 2026-01-21, to: 2026-01-10}
          - {part: wheels, from: 2026-02-01, to: 2026-02-03}
        log:
          - {date: 2026-01-21, done: [wax], cost: 5 USD, category: wax, note: hot wax, todo: rinse}
        snooze: {wax: 2026-03-01}
        todo: [{task: measure, id: measure, due: 2026-01-30}, clean]
        """,
    ]

    static let templates = [
        """
        name: Road
        description: What a road bike needs.
        source: {url: "https://example.org/templates.git", path: road.yaml, commit: 0123456789abcdef0123456789abcdef01234567, ref: v1}
        intervals:
          bar-tape: {every: 12 months, task: Bar tape, component: bars, replaces: tape, due_soon: 90%, counts: [Ride], trainer: true}
          brake-pads: {every: [2000 km, 100 h], task: Pads}
          bad: {every: 12 fortnights}
        """,
        """
        name: Chains
        description: Chains.
        source: {url: "../library", path: chains.yaml, commit: fedcba9876543210fedcba9876543210fedcba98}
        intervals:
          wax: {every: 300 km, task: Wax, component: chain, replaces: chain, repeat: catch-up, due_soon: 60%, counts: [GravelRide], trainer: only}
        """,
        """
        name: Book
        source: a book on bikes
        intervals:
          wax: {every: 25 rides}
        """,
    ]

    static let rides = [
        """
        rides:
          - {date: 2025-11-12, bike: charger, time: 47 min, distance: 17.1 km, sport: Ride, name: Commute}
          - {date: 2025-11-13, bike: grail, time: 1h30, distance: 10 mi}
          - {date: 2025-11-14, bike: grail, time: 1h30, distance: 10 parsecs}
        """
    ]

    /// Each sample as the loader decodes it (in the context it is decoded in), described before
    /// and after a round trip through an entry (nil when it made none); the description before
    /// collects the values each property took.
    struct Sample {
        var relative: String
        var describe: (inout [String: Set<String>]) -> (before: String, after: String?)
    }

    static func decodedSamples() -> [Sample] {
        var out: [Sample] = []
        func add<T: CacheCodable & Sendable>(_ relative: String, _ file: GarageLoader.DecodedFile<T>, context: String?) {
            out.append(
                Sample(relative: relative) { values in
                    var ignored: [String: Set<String>] = [:]
                    let after = roundTrip(file, relative: relative, context: context).map { ModelText.describe(($0.file.value, $0.file.diagnostics), &ignored) }
                    return (ModelText.describe((file.value, file.diagnostics), &values), after)
                })
        }
        func add<T: CacheCodable & Sendable>(
            _ relative: String, _ text: String, context: String? = nil, _ body: @escaping (YAMLNode, inout NodeReader) -> T?
        ) {
            add(relative, GarageLoader.parse(relative, Array(text.utf8), body), context: context)
        }
        for (i, text) in garages.enumerated() { add("garage.yaml", text + "\n# \(i)\n") { FileDecoders.settings($0, &$1) } }
        for (i, text) in bikes.enumerated() {
            for currency in ["EUR", nil] {
                add("bikes/b\(i).yaml", text, context: currency) { FileDecoders.bike(id: BikeID("b\(i)"), $0, &$1, currency: currency) }
            }
        }
        // Gear is a bike with a kind.
        for (i, text) in ["name: Shoes\nkind: shoes\nstrava: g12\n", "name: Kickr\nkind: trainer\n"].enumerated() {
            add("gear/g\(i).yaml", text, context: "EUR") { FileDecoders.bike(id: BikeID("g\(i)"), $0, &$1, currency: "EUR", gear: true) }
        }
        for (i, text) in parts.enumerated() {
            for currency in ["EUR", nil] {
                add("parts/p\(i).yaml", text, context: currency) { FileDecoders.part(id: PartID("p\(i)"), $0, &$1, currency: currency) }
            }
        }
        for (i, text) in templates.enumerated() {
            add("templates/t\(i).yaml", text) { FileDecoders.template(id: TemplateID("t\(i)"), $0, &$1) }
        }
        for text in rides { add("rides.yaml", text) { FileDecoders.rides($0, &$1) } }
        // What no parse makes, but a file's diagnostics may hold: a summary of omitted problems,
        // a location without a range, no help.
        var summary = Diagnostic.tooManyProblems(3, at: SourceLocation(file: "rides.yaml"), severity: .warning)
        summary.help = nil
        summary.redactions = [0..<4, 9..<9]
        add("rides.yaml", GarageLoader.DecodedFile<[Ride]>(value: nil, diagnostics: [summary]), context: nil)
        return out
    }

    static let key = ActivityIndex.Key(size: 10, modified: (1_700_000_000, 5), changed: (1_700_000_000, 6), inode: 42, device: 7)
    static let garage: [UInt64] = [7, 2]

    static func roundTrip<T: CacheCodable & Sendable>(
        _ file: GarageLoader.DecodedFile<T>, relative: String, context: String?
    ) -> GarageCache.Entry<T>? {
        let source = GarageCache.SourceStamp(size: 10, checksum: 99)
        guard let bytes = GarageCache.encode(file, relative: relative, context: context, key: key, garage: garage, source: source) else { return nil }
        let entry: GarageCache.Entry<T>? = GarageCache.decode(bytes, relative: relative, context: context, key: key, garage: garage)
        #expect(entry?.source == source)
        return entry
    }

    @Test func everyPropertyOfEveryDecodedFileSurvivesTheRoundTrip() throws {
        var values: [String: Set<String>] = [:]
        for sample in Self.decodedSamples() {
            let (before, after) = sample.describe(&values)
            #expect(after != nil, "\(sample.relative) was not cached")
            #expect(after == before, "\(sample.relative)")
        }
        // A property the samples never vary would survive the round trip even if it were never
        // written: each must take two values (add them to the samples above).
        // What the resolver works out after decoding (a part's mounts through the parts it was
        // on) is never in a decoded file, so never cached.
        let derived: Set<String> = ["Mount.via"]
        let constant = values.filter { $0.value.count < 2 && !derived.contains($0.key) }.keys.sorted()
        #expect(values.count > 120, "every property of the model is reached: \(values.keys.sorted())")
        #expect(constant.isEmpty, "properties the samples never vary: \(constant)")
        for type in [
            "GarageSettings", "NotifySettings", "Email", "Bike", "Component", "IntervalSpec", "LogEntry", "Snooze", "Todo", "Part", "Mount", "Template",
            "TemplateOrigin", "Ride", "Rider", "Quantity", "Money", "Diagnostic", "Note", "SourceLocation", "Reading", "WearAmount",
        ] {
            #expect(values.keys.contains { $0.hasPrefix(type + ".") }, "no \(type) in the samples")
        }
    }

    @Test func theSameFileAlwaysGivesTheSameBytes() throws {
        let file = GarageLoader.parse("bikes/b0.yaml", Array(Self.bikes[0].utf8)) { FileDecoders.bike(id: BikeID("b0"), $0, &$1, currency: "EUR") }
        let source = GarageCache.SourceStamp(Array(Self.bikes[0].utf8))
        let one = GarageCache.encode(file, relative: "bikes/b0.yaml", context: "EUR", key: Self.key, garage: Self.garage, source: source)
        let again = GarageLoader.parse("bikes/b0.yaml", Array(Self.bikes[0].utf8)) { FileDecoders.bike(id: BikeID("b0"), $0, &$1, currency: "EUR") }
        // Dictionaries and sets iterate in another order in each value; the entry does not.
        #expect(one != nil)
        #expect(GarageCache.encode(again, relative: "bikes/b0.yaml", context: "EUR", key: Self.key, garage: Self.garage, source: source) == one)
    }

    /// Each way an entry can be wrong. Checksums are made anew where the damage is a valid entry
    /// of something else: only the check named catches it.
    static let damages = [
        "flipped byte", "truncated", "empty", "appended", "not an entry", "another format version", "another bikecheck version", "another file's",
        "another garage's", "another currency's", "another version of the file", "another source size",
    ]

    @Test(arguments: damages)
    func aDamagedEntryIsNotTrusted(_ damage: String) throws {
        let relative = "bikes/b0.yaml"
        let file = GarageLoader.parse(relative, Array(Self.bikes[0].utf8)) { FileDecoders.bike(id: BikeID("b0"), $0, &$1, currency: "EUR") }
        let source = GarageCache.SourceStamp(size: 10, checksum: 1)
        func encode(
            relative: String = relative, context: String? = "EUR", key: ActivityIndex.Key = Self.key, garage: [UInt64] = Self.garage,
            source: GarageCache.SourceStamp = source, version: String = bikecheckVersion
        ) -> [UInt8] {
            GarageCache.encode(file, relative: relative, context: context, key: key, garage: garage, source: source, version: version) ?? []
        }
        let good = encode()
        let read: ([UInt8]) -> GarageCache.Entry<Bike>? = {
            GarageCache.decode($0, relative: relative, context: "EUR", key: Self.key, garage: Self.garage)
        }
        #expect(read(good) != nil)
        var bytes = good
        var otherKey = Self.key
        otherKey.changed.1 += 1
        switch damage {
        case "flipped byte": bytes[bytes.count / 2] ^= 0x04
        case "truncated": bytes.removeLast(bytes.count / 3)
        case "empty": bytes = []
        case "appended": bytes += [0]
        case "not an entry": bytes = Array("name: Sink Bike\n".utf8)
        case "another format version":
            bytes[GarageCache.magic.count] &+= 1
            let body = Array(bytes.dropLast(8))
            bytes = body + withUnsafeBytes(of: ActivityIndex.checksum(body).littleEndian, Array.init)
        case "another bikecheck version": bytes = encode(version: "0.0.1")
        case "another file's": bytes = encode(relative: "bikes/b1.yaml")
        case "another garage's": bytes = encode(garage: [7, 3])
        case "another currency's": bytes = encode(context: "USD")
        case "another version of the file": bytes = encode(key: otherKey)
        case "another source size": bytes = encode(source: .init(size: 11, checksum: 1))
        default: Issue.record("unknown damage \(damage)")
        }
        #expect(read(bytes) == nil)
    }

    @Test func numbersOfEveryLengthReadBackTheSameAndATruncatedOneIsRefused() throws {
        // One byte, two (inlined), and the longer ones, on both sides of each length's edge.
        let numbers: [UInt64] = [0, 1, 127, 128, 129, 255, 300, 16_383, 16_384, 2_097_151, 2_097_152, 1 << 35, .max]
        let ints = [0, 1, -1, 63, -64, 64, -65, 8_191, 8_192, -8_193, Int.max, Int.min]
        var w = CacheWriter()
        for n in numbers { w.uint(n) }
        for n in ints { w.int(n) }
        let read = try w.bytes.withUnsafeBytes { raw throws -> (numbers: [UInt64], ints: [Int], atEnd: Bool) in
            var r = CacheReader(raw)
            let read = try numbers.map { _ in try r.uint() }
            return (read, try ints.map { _ in try r.int() }, r.isAtEnd)
        }
        #expect(read.numbers == numbers)
        #expect(read.ints == ints)
        #expect(read.atEnd)
        // A number whose last byte is missing: the first byte says more follows.
        for n: UInt64 in [128, 16_384, .max] {
            var w = CacheWriter()
            w.uint(n)
            let truncated = Array(w.bytes.dropLast())
            truncated.withUnsafeBytes { raw in
                var r = CacheReader(raw)
                #expect(throws: CacheReader.Invalid.self) { try r.uint() }
            }
        }
    }

    @Test func stringsReadBackTheSameAndBytesThatAreNotUTF8AreRefused() throws {
        // ASCII (read without validating twice), UTF-8 of every width, and the empty string.
        let texts = ["", "chain-lube", "a string longer than fifteen bytes", "Größe", "ветер", "€ 12", "🚲 rides", "x"]
        var w = CacheWriter()
        for t in texts { w.string(t) }
        let read = try w.bytes.withUnsafeBytes { raw throws -> [String] in
            var r = CacheReader(raw)
            return try texts.map { _ in try r.string() }
        }
        #expect(read == texts)
        for invalid: [UInt8] in [[0xFF], [0x61, 0xC3], [0xED, 0xA0, 0x80], [0x61, 0x80, 0x62]] {
            #expect(invalid.withUnsafeBytes { CacheReader.string($0) } == nil)
            // As a string of an entry: the number, the length, the bytes.
            let entry: [UInt8] = [0, UInt8(invalid.count)] + invalid
            entry.withUnsafeBytes { raw in
                var r = CacheReader(raw)
                #expect(throws: CacheReader.Invalid.self) { try r.string() }
            }
        }
    }

    @Test func locationsReadBackTheSameWhereverTheyAreAndATruncatedOneIsRefused() throws {
        typealias Location = Diagnostics.SourceLocation
        func at(_ file: String, _ offset: Int, _ line: Int, _ column: Int, to end: (Int, Int, Int)? = nil) -> Location {
            let start = SourcePosition(offset: offset, line: line, column: column)
            let last = end.map { SourcePosition(offset: $0.0, line: $0.1, column: $0.2) } ?? start
            return Location(file: file, range: SourceRange(start: start, end: last))
        }
        // Close together (eight one-byte numbers, read as one word), a file named the first time,
        // a range over lines (its end's offset in two bytes, the ninth byte read too), no range,
        // going back in the file, far apart (numbers of several bytes), a long line, a range over
        // many lines, a file of its own in between, and the last one in the last bytes.
        let grail = "bikes/grail.yaml"
        var locations: [Location] = [at(grail, 0, 1, 1), at(grail, 10, 2, 3, to: (20, 2, 13)), at(grail, 30, 3, 3, to: (180, 8, 2))]
        locations += [Location(file: grail), at(grail, 12, 2, 5, to: (14, 2, 7)), at(grail, 4, 1, 5), at(grail, 2_000_000, 40_000, 1)]
        locations += [at(grail, 2_000_100, 40_001, 300, to: (2_000_900, 40_020, 2)), at("parts/fork.yaml", 7, 1, 8)]
        locations += [at(grail, 2_000_110, 40_001, 310, to: (2_000_111, 40_001, 311)), at(grail, 2_000_111, 40_001, 311)]
        var w = CacheWriter()
        for l in locations { w.location(l) }
        let read = try w.bytes.withUnsafeBytes { raw throws -> (locations: [Location], atEnd: Bool) in
            var r = CacheReader(raw)
            return (try locations.map { _ in try r.location() }, r.isAtEnd)
        }
        #expect(read.locations == locations)
        #expect(read.atEnd)
        // Cut anywhere (also within the last eight bytes, where a word would run past the end),
        // the stream is refused rather than read as some other location.
        for cut in 1...12 {
            let truncated = Array(w.bytes.dropLast(cut))
            truncated.withUnsafeBytes { raw in
                var r = CacheReader(raw)
                #expect(throws: CacheReader.Invalid.self) { for _ in locations { _ = try r.location() } }
            }
        }
    }

    @Test func listsOfEveryLengthReadBackTheSameAndATruncatedOneIsRefused() throws {
        // A log entry's `done:` ids (read in one loop, into an array made at its size) and a
        // list read by the generic decoder, empty, of one and of several, then a cut anywhere.
        func done(_ ids: [String]) -> [Located<IntervalID>] {
            ids.enumerated().map { n, id in
                Located(
                    IntervalID(id),
                    at: Diagnostics.SourceLocation(
                        file: "bikes/grail.yaml", range: SourceRange(at: SourcePosition(offset: 40 + 12 * n, line: 3, column: 9 + 12 * n))))
            }
        }
        // Of every length up to four: one to three are made as array literals, more by appending.
        let lists = [
            done([]), done(["chain-lube"]), done(["chain-lube", "a-rather-long-interval-id"]), done(["x", "chain-lube", "drive-inspection"]),
            done(["a", "b", "c", "d"]), done(["a", "b", "c", "d", "e"]),
        ]
        let counts: [[Int]] = [[], [7], [1, 2, 3, 300]]
        var w = CacheWriter()
        for list in lists { w.write(list) }
        for list in counts { w.write(list) }
        let bytes = w.bytes
        let read = try bytes.withUnsafeBytes { raw throws -> (lists: [[Located<IntervalID>]], counts: [[Int]], atEnd: Bool) in
            var r = CacheReader(raw)
            let read = try lists.map { _ in try r.locatedIDs() as [Located<IntervalID>] }
            return (read, try counts.map { _ in try [Int](from: &r) }, r.isAtEnd)
        }
        #expect(read.lists == lists)
        #expect(read.counts == counts)
        #expect(read.atEnd)
        for cut in 1..<bytes.count {
            let truncated = Array(bytes.dropLast(cut))
            truncated.withUnsafeBytes { raw in
                var r = CacheReader(raw)
                #expect(throws: CacheReader.Invalid.self) {
                    for _ in lists { _ = try r.locatedIDs() as [Located<IntervalID>] }
                    for _ in counts { _ = try [Int](from: &r) }
                }
            }
        }
    }

    @Test func anAmountThatWouldNotReadBackTheSameIsNeverCached() throws {
        var file = GarageLoader.parse("bikes/b0.yaml", Array(Self.bikes[0].utf8)) { FileDecoders.bike(id: BikeID("b0"), $0, &$1) }
        file.value?.price?.value.amount = Decimal(string: "123456789012345678901234567890")!
        #expect(GarageCache.encode(file, relative: "bikes/b0.yaml", context: nil, key: Self.key, garage: Self.garage, source: .init([])) == nil)
    }
}

// MARK: - Loading through the cache

extension GarageCacheTests {
    /// The sample garage on disk: a bike and a part of each kind, templates, rides, and settings.
    func sampleGarage() throws -> TemporaryFolder {
        var files: [String: [UInt8]] = ["garage.yaml": Array((Self.garages[0] + "\n").utf8), "rides.yaml": Array(Self.rides[0].utf8)]
        for (i, text) in Self.bikes.enumerated() { files["bikes/b\(i).yaml"] = Array(text.utf8) }
        for (i, text) in Self.parts.enumerated() { files["parts/p\(i).yaml"] = Array(text.utf8) }
        for (i, text) in Self.templates.enumerated() { files["templates/t\(i).yaml"] = Array(text.utf8) }
        let folder = try TemporaryFolder(files)
        Thread.sleep(forTimeInterval: ActivityIndex.settleTime + 0.02)
        return folder
    }

    static let fileCount = 1 + 1 + bikes.count + parts.count + templates.count

    /// A load and how many files came from the cache.
    func load(_ root: String, bypass: Bool = false, reusing: ParsedFiles? = nil, keeping: Bool = false) -> (LoadedGarage, cached: Int) {
        let counted = Counted()
        var options = GarageLoader.Options(
            activities: .skip, today: Day("2026-11-15"), keepsParsedFiles: keeping, environment: bypass ? ["BIKECHECK_NO_CACHE": "1"] : [:])
        options.timings = { counted.set($0.cached) }
        return (GarageLoader.load(at: root, options: options, reusing: reusing), counted.value)
    }

    final class Counted: @unchecked Sendable {
        private let lock = NSLock()
        private var stored = -1
        var value: Int { lock.withLock { stored } }
        func set(_ value: Int) { lock.withLock { stored = value } }
    }

    /// Everything a load gives that output is made from: the model, and the diagnostics as shown.
    func answer(_ loaded: LoadedGarage) -> String {
        var ignored: [String: Set<String>] = [:]
        return ModelText.describe(loaded.garage, &ignored) + "\n"
            + DiagnosticRenderer(sources: loaded.sources).render(loaded.diagnostics).description
    }

    func entries(_ folder: TemporaryFolder) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path + "/.bikecheck/garage-cache")) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test func aColdLoadMakesAnEntryPerFileAndAWarmLoadGivesTheSameAnswerFromThem() throws {
        let folder = try sampleGarage()
        let parsed = answer(load(folder.path, bypass: true).0)
        #expect(entries(folder).isEmpty, "bypassing makes no entry")
        let cold = load(folder.path)
        #expect(cold.cached == 0)
        #expect(entries(folder).count == Self.fileCount)
        #expect(entries(folder).contains("bikes+b0.yaml.cache"))
        let warm = load(folder.path)
        #expect(warm.cached == Self.fileCount)
        #expect(answer(cold.0) == parsed)
        #expect(answer(warm.0) == parsed)
        #expect(parsed.contains("tempaltes"), "diagnostics with excerpts are part of the answer")
        // Only the files some diagnostic shows are read for their text.
        #expect(
            warm.0.sources.keys.allSatisfy { file in warm.0.diagnostics.contains { $0.location.file == file || $0.notes.contains { $0.location.file == file } }
            })
        #expect(warm.0.sources.count < cold.0.sources.count)
    }

    /// An entry of the format before (9: locations written whole) is another format: the file
    /// is parsed again and its entry written anew in this one.
    @Test func anEntryOfTheFormerFormatVersionIsParsedAgainAndWrittenAnew() throws {
        let folder = try sampleGarage()
        let parsed = answer(load(folder.path, bypass: true).0)
        _ = load(folder.path)
        let path = folder.path + "/.bikecheck/garage-cache/bikes+b0.yaml.cache"
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(GarageCache.formatVersion == 10)
        withUnsafeBytes(of: UInt32(9).littleEndian) { bytes.replaceSubrange(GarageCache.magic.count..<(GarageCache.magic.count + 4), with: $0) }
        let body = Array(bytes.dropLast(8))
        bytes = body + withUnsafeBytes(of: ActivityIndex.checksum(body).littleEndian, Array.init)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let again = load(folder.path)
        #expect(again.cached == Self.fileCount - 1)
        #expect(answer(again.0) == parsed)
        let rewritten = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(rewritten[GarageCache.magic.count] == 10)
        #expect(load(folder.path).cached == Self.fileCount)
    }

    @Test func aFileEditedInPlaceWithTheSameSizeAndItsOldTimeRestoredIsParsedAgain() throws {
        let folder = try sampleGarage()
        _ = load(folder.path)
        let path = folder.path + "/bikes/b1.yaml"
        let before = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as! Date
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: Data(Self.bikes[1].replacingOccurrences(of: "name: Other", with: "name: Odder").utf8))
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: before], ofItemAtPath: path)
        let after = load(folder.path)
        #expect(after.cached == Self.fileCount - 1)
        #expect(after.0.garage.bike(BikeID("b1"))?.bike.name == "Odder")
        #expect(answer(after.0) == answer(load(folder.path, bypass: true).0))
    }

    /// A `chmod` (a new change time) and a hard-linked copy of the garage (another folder, the
    /// files' change times) leave the bytes as they were: the entries are still used.
    @Test func aChmodOrAHardLinkedCopyKeepsTheCacheWarm() throws {
        let folder = try sampleGarage()
        let parsed = answer(load(folder.path, bypass: true).0)
        _ = load(folder.path)
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".yaml") }
        for file in files { chmod(folder.path + "/" + file, 0o600) }
        Thread.sleep(forTimeInterval: ActivityIndex.settleTime + 0.02)
        let chmodded = load(folder.path)
        #expect(chmodded.cached == Self.fileCount)
        #expect(answer(chmodded.0) == parsed)
        #expect(load(folder.path).cached == Self.fileCount)

        let copy = try TemporaryFolder()
        let linked = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter {
            $0.hasSuffix(".yaml") || $0.hasSuffix(".cache")
        }
        for relative in linked {
            try FileManager.default.createDirectory(
                at: copy.url.appendingPathComponent(relative).deletingLastPathComponent(), withIntermediateDirectories: true)
            #expect(link(folder.path + "/" + relative, copy.path + "/" + relative) == 0)
        }
        Thread.sleep(forTimeInterval: ActivityIndex.settleTime + 0.02)
        let fromCopy = load(copy.path)
        #expect(fromCopy.cached == Self.fileCount)
        #expect(answer(fromCopy.0) == answer(load(copy.path, bypass: true).0))
    }

    @Test func aFileChangedJustNowIsParsedButNotCached() throws {
        let folder = try sampleGarage()
        // Modified within the last moment (here: a clock ahead of ours): one more change in the
        // same tick would keep its key.
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var times = [timespec(tv_sec: now.tv_sec + 60, tv_nsec: 0), timespec(tv_sec: now.tv_sec + 60, tv_nsec: 5)]
        #expect(utimensat(AT_FDCWD, folder.path + "/bikes/b1.yaml", &times, 0) == 0)
        let loaded = load(folder.path)
        #expect(loaded.0.garage.bike(BikeID("b1"))?.bike.name == "Other")
        #expect(!entries(folder).contains("bikes+b1.yaml.cache"))
        #expect(entries(folder).count == Self.fileCount - 1)
    }

    @Test func aFileWithWholeSecondTimesIsNotCachedWithinItsTick() throws {
        let folder = try sampleGarage()
        let path = folder.path + "/bikes/b0.yaml"
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var times = [timespec(tv_sec: now.tv_sec, tv_nsec: 0), timespec(tv_sec: now.tv_sec, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        Thread.sleep(forTimeInterval: ActivityIndex.settleTime + 0.02)
        _ = load(folder.path)
        #expect(!entries(folder).contains("bikes+b0.yaml.cache"), "cached within its tick")
        #expect(entries(folder).contains("bikes+b1.yaml.cache"), "a file with fine times is cached at once")
    }

    @Test func anotherGarageCurrencyDecodesBikesAndPartsAgain() throws {
        let folder = try sampleGarage()
        _ = load(folder.path)
        try folder.write("garage.yaml", "currency: USD\n")
        Thread.sleep(forTimeInterval: ActivityIndex.settleTime + 0.02)
        let after = load(folder.path)
        // Templates and rides.yaml do not depend on it.
        #expect(after.cached == Self.templates.count + 1)
        #expect(answer(after.0) == answer(load(folder.path, bypass: true).0))
        #expect(after.0.garage.bike(BikeID("b0"))?.bike.log[1].cost?.value.currency == "USD")
    }

    @Test func theEntryOfAFileThatIsGoneIsRemoved() throws {
        let folder = try sampleGarage()
        _ = load(folder.path)
        try FileManager.default.removeItem(atPath: folder.path + "/parts/p1.yaml")
        _ = load(folder.path)
        #expect(!entries(folder).contains("parts+p1.yaml.cache"))
        #expect(entries(folder).contains("parts+p0.yaml.cache"))
    }

    @Test func aCacheFolderThatLinksOutsideTheGarageIsNotUsed() throws {
        let folder = try sampleGarage(), outside = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/.bikecheck", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/.bikecheck/garage-cache", withDestinationPath: outside.path)
        let loaded = load(folder.path)
        #expect(answer(loaded.0) == answer(load(folder.path, bypass: true).0))
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
    }

    @Test func aSourceChangedSinceItsEntryShowsNoExcerptRatherThanTextThatWasNotParsed() throws {
        let folder = try sampleGarage()
        var files = GarageLoader.Files(root: folder.path, reusing: nil, keeping: false)
        let path = folder.path + "/bikes/b0.yaml"
        let bytes = try #require(readBytes(path))
        files.unread["bikes/b0.yaml"] = .init(path: path, stamp: .init(bytes))
        files.unread["bikes/b1.yaml"] = .init(path: folder.path + "/bikes/b1.yaml", stamp: .init(bytes))
        let shown = [
            Diagnostic.warning(.tooManyProblems, "one", at: SourceLocation(file: "bikes/b0.yaml")),
            Diagnostic.warning(
                .tooManyProblems, "two", at: SourceLocation(file: "rides.yaml"), notes: [.init("here", at: SourceLocation(file: "bikes/b1.yaml"))]),
        ]
        var sources: [String: SourceText] = [:]
        files.readSources(shownBy: shown, into: &sources)
        #expect(sources["bikes/b0.yaml"]?.bytes == bytes)
        #expect(sources["bikes/b1.yaml"] == nil, "its bytes are not those of its entry")
    }

    @Test func theMemoOfAWriteReusesCachedFilesWithoutReadingThem() throws {
        let folder = try sampleGarage()
        _ = load(folder.path)
        let first = try #require(load(folder.path, keeping: true).0.parsedFiles)
        #expect(first.parsed.isEmpty, "every file came from the cache")
        let second = load(folder.path, reusing: first, keeping: true)
        #expect(second.0.parsedFiles?.parsed == [])
        #expect(second.cached == 0, "the memo answered before the cache")
        #expect(answer(second.0) == answer(load(folder.path, bypass: true).0))
    }
}

/// A model value as text: every stored property, recursively, with sets and dictionaries in a
/// fixed order; and, by `Type.property`, the values each property took.
enum ModelText {
    static func describe(_ value: Any, _ values: inout [String: Set<String>]) -> String {
        if let d = value as? Decimal { return "\(d)e\(d.exponent)" }
        let m = Mirror(reflecting: value)
        switch m.displayStyle {
        case .optional:
            guard let child = m.children.first else { return "nil" }
            return "some(" + describe(child.value, &values) + ")"
        case .collection:
            return "[" + m.children.map { describe($0.value, &values) }.joined(separator: ", ") + "]"
        case .set, .dictionary:
            return "{" + m.children.map { describe($0.value, &values) }.sorted().joined(separator: ", ") + "}"
        case .struct, .class, .tuple:
            let name = String(describing: type(of: value))
            let parts = m.children.map { child -> String in
                let text = describe(child.value, &values)
                if m.displayStyle != .tuple, let label = child.label { values[name.split(separator: "<")[0] + "." + label, default: []].insert(text) }
                return (child.label ?? "") + ": " + text
            }
            return name + "(" + parts.joined(separator: ", ") + ")"
        default:
            return String(reflecting: value)
        }
    }
}
