import Diagnostics
import Foundation
import LocatedYAML

/// Everything the loading pipeline produced: the garage as far as it could be read, the cached
/// activities, every diagnostic, and the source texts for showing them.
public struct LoadedGarage: Sendable {
    public var garage: Garage
    public var activities: [Activity]
    public var diagnostics: [Diagnostic]
    public var sources: [String: SourceText]

    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
}

/// The loading pipeline: read → compose YAML → decode → resolve → check. A broken file skips the
/// later stages; every other file keeps going, so one run reports every problem.
public enum GarageLoader {
    public struct Options: Sendable {
        /// Read the activity cache (status needs it; some commands do not).
        public var activities: Bool
        /// Today, for plausibility checks (dates in the future); nil skips them.
        public var today: Day?

        public init(activities: Bool = true, today: Day? = nil) {
            self.activities = activities
            self.today = today
        }
    }

    public static func load(at root: String, options: Options = Options()) -> LoadedGarage {
        var diagnostics: [Diagnostic] = []
        var sources: [String: SourceText] = [:]

        // The activity cache does not depend on the YAML files: read it meanwhile, on other threads.
        let reading = DispatchGroup()
        nonisolated(unsafe) var cache: ActivityCacheLoader.Result?
        if options.activities {
            DispatchQueue.global().async(group: reading) { cache = ActivityCacheLoader.load(root: root) }
        }

        func parse(_ relative: String) -> YAMLDocument? {
            guard let bytes = readBytes(root + "/" + relative) else {
                diagnostics.append(.error("unreadable-file", "cannot read the file", at: SourceLocation(file: relative),
                                          help: "check that it is a file you may read"))
                return nil
            }
            let doc = YAMLDocument(path: relative, bytes: bytes)
            sources[relative] = doc.source
            diagnostics += doc.diagnostics
            return doc.isUsable ? doc : nil
        }

        /// Parses and decodes one file; nil when the file is missing or broken.
        func decode<T>(_ relative: String, _ body: (YAMLNode, inout NodeReader) -> T?) -> T? {
            guard let doc = parse(relative), let node = doc.root else { return nil }
            var r = NodeReader(file: relative)
            defer { diagnostics += r.diagnostics }
            return body(node, &r)
        }

        /// Every YAML file of a folder, each named after the id of what it holds.
        func decodeFolder<T>(_ folder: String, kind: String, _ body: (String, YAMLNode, inout NodeReader) -> T?) -> [T] {
            yamlFiles(in: root + "/" + folder).compactMap { file in
                let relative = folder + "/" + file
                guard let id = fileID(file, kind: kind, relative: relative, &diagnostics) else { return nil }
                return decode(relative) { node, r in body(id, node, &r) }
            }
        }

        let settings = decode("garage.yaml") { FileDecoders.settings($0, &$1) } ?? GarageSettings()
        let templates = decodeFolder("templates", kind: "template") { FileDecoders.template(id: TemplateID($0), $1, &$2) }
        let bikes = decodeFolder("bikes", kind: "bike") { FileDecoders.bike(id: BikeID($0), $1, &$2) }
        // rides.yaml is optional.
        let rides = FileManager.default.fileExists(atPath: root + "/rides.yaml")
            ? decode("rides.yaml") { FileDecoders.rides($0, &$1) } ?? [] : []

        // Resolve and check.
        var resolver = Resolver(settings: settings, templates: templates)
        let resolved = bikes.map { resolver.resolve($0) }
        resolver.checkGearIDs(bikes)
        resolver.checkRides(rides, bikes: bikes)
        diagnostics += resolver.diagnostics
        if let today = options.today { diagnostics += Checks.run(bikes: bikes, rides: rides, today: today) }

        var activities: [Activity] = []
        reading.wait()
        if let cache {
            activities = cache.activities
            diagnostics += cache.diagnostics
            sources.merge(cache.sources) { a, _ in a }
        }

        let garage = Garage(root: root, settings: settings, bikes: resolved, templates: templates, rides: rides)
        return LoadedGarage(garage: garage, activities: activities, diagnostics: Diagnostic.sortedForDisplay(diagnostics),
                            sources: sources)
    }

    /// `*.yaml` and `*.yml` files of a folder, sorted by name; none when it does not exist.
    static func yamlFiles(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { ($0.hasSuffix(".yaml") || $0.hasSuffix(".yml")) && !$0.hasPrefix(".") }.sorted()
    }

    private static func fileID(_ file: String, kind: String, relative: String, _ diagnostics: inout [Diagnostic]) -> String? {
        let id = file.hasSuffix(".yaml") ? String(file.dropLast(5)) : String(file.dropLast(4))
        guard isIdentifier(id) else {
            diagnostics.append(.error("bad-id", "'\(id)' is not a valid \(kind) id (it comes from the file name)",
                                      at: SourceLocation(file: relative),
                                      help: "rename the file using letters, digits, '-', '_' and '.', e.g. grail.yaml"))
            return nil
        }
        return id
    }
}

/// Reads a whole file, or nil when it cannot be read.
func readBytes(_ path: String) -> [UInt8]? {
    // Regular files go straight into the array: through Data, every cache file was copied twice.
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return [UInt8](data)
    }
    var failed = false
    let bytes = [UInt8](unsafeUninitializedCapacity: Int(info.st_size)) { buffer, count in
        while count < buffer.count {
            let n = read(fd, buffer.baseAddress! + count, buffer.count - count)
            if n > 0 { count += n } else if n < 0, errno == EINTR { continue } else { failed = n < 0; break }
        }
    }
    return failed ? nil : bytes
}
