import Diagnostics
import Foundation

/// EXPERIMENT (branch-local, removed after the decision): the garage cache's hand codec against
/// Codable encoders on the same entries.
package enum CacheCodecExperiment {
    struct CodableEntry<T: Codable>: Codable {
        var version: String
        var relative: String
        var context: String?
        var words: [UInt64]
        var size: Int
        var checksum: UInt64
        var value: T?
        var diagnostics: [Diagnostic]
    }

    struct Item {
        var relative: String
        var context: String?
        var key: ActivityIndex.Key
        var bytes: [UInt8]
    }

    package struct Figures {
        package var files = 0
        package var handBytes = 0
        package var plistBytes = 0
        package var jsonBytes = 0
        package var handDecode = Double.infinity, handEncode = Double.infinity
        package var plistDecode = Double.infinity, plistEncode = Double.infinity
        package var jsonDecode = Double.infinity, jsonEncode = Double.infinity
        package var roundTrips = true
    }

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
    }

    /// `only`: "hand", "plist", "json" or "all" (for callgrind: one codec per run).
    package static func run(root: String, rounds: Int, only: String) -> Figures {
        let cache = GarageCache(root: root)
        guard let directory = cache.directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return Figures() }
        var groups: [String: [Item]] = [:]
        for name in names.sorted() where name.hasSuffix(GarageCache.suffix) {
            let relative = GarageCache.swapping(String(name.dropLast(GarageCache.suffix.count)), "+", "/")
            guard let bytes = FileManager.default.contents(atPath: directory + "/" + name).map(Array.init),
                let key = ActivityIndex.key(root + "/" + relative)
            else { continue }
            // The header: magic, version, then bikecheck's version, the file and the context.
            let context: String? = bytes.withUnsafeBytes { raw in
                var r = CacheReader(raw, at: GarageCache.magic.count + 4)
                _ = try? r.string()
                _ = try? r.string()
                return (try? String?(from: &r)) ?? nil
            }
            let kind = relative == "garage.yaml" ? "settings" : relative == "rides.yaml" ? "rides" : String(relative.prefix { $0 != "/" })
            groups[kind, default: []].append(Item(relative: relative, context: context, key: key, bytes: bytes))
        }
        var f = Figures()
        for _ in 0..<rounds {
            f.files = 0
            f.handBytes = 0
            f.plistBytes = 0
            f.jsonBytes = 0
            measure(groups["settings"] ?? [], GarageSettings.self, cache, only, &f)
            measure(groups["templates"] ?? [], Template.self, cache, only, &f)
            measure((groups["bikes"] ?? []) + (groups["gear"] ?? []), Bike.self, cache, only, &f)
            measure(groups["parts"] ?? [], Part.self, cache, only, &f)
            measure(groups["rides"] ?? [], [Ride].self, cache, only, &f)
        }
        return f
    }

    static func measure<T: CacheCodable & Codable & Sendable>(_ items: [Item], _: T.Type, _ cache: GarageCache, _ only: String, _ f: inout Figures) {
        guard !items.isEmpty else { return }
        f.files += items.count
        f.handBytes += items.reduce(0) { $0 + $1.bytes.count }
        let t0 = now()
        let entries: [GarageCache.Entry<T>] = handDecodeAll(items, cache)
        let t1 = now()
        f.handDecode = min(f.handDecode, t1 - t0)
        if only == "hand" || only == "all" {
            let t2 = now()
            let again = handEncodeAll(items, entries, cache)
            f.handEncode = min(f.handEncode, now() - t2)
            if again != items.map(\.bytes) { f.roundTrips = false }
        }
        let codable = items.indices.map { i in
            CodableEntry(
                version: bikecheckVersion, relative: items[i].relative, context: items[i].context, words: cache.garage + items[i].key.words,
                size: entries[i].source.size, checksum: entries[i].source.checksum, value: entries[i].file.value,
                diagnostics: entries[i].file.diagnostics)
        }
        if only == "plist" || only == "all" {
            let t2 = now()
            let encoded = plistEncodeAll(codable)
            let t3 = now()
            let decoded: [CodableEntry<T>] = plistDecodeAll(encoded)
            let t4 = now()
            f.plistEncode = min(f.plistEncode, t3 - t2)
            f.plistDecode = min(f.plistDecode, t4 - t3)
            f.plistBytes += encoded.reduce(0) { $0 + $1.count }
            if !roundTrips(decoded, items, cache) { f.roundTrips = false }
        }
        if only == "json" || only == "all" {
            let t2 = now()
            let encoded = jsonEncodeAll(codable)
            let t3 = now()
            let decoded: [CodableEntry<T>] = jsonDecodeAll(encoded)
            let t4 = now()
            f.jsonEncode = min(f.jsonEncode, t3 - t2)
            f.jsonDecode = min(f.jsonDecode, t4 - t3)
            f.jsonBytes += encoded.reduce(0) { $0 + $1.count }
            if !roundTrips(decoded, items, cache) { f.roundTrips = false }
        }
    }

    /// Whether what a Codable encoder read back is written by the hand codec to the same bytes.
    static func roundTrips<T: CacheCodable & Codable & Sendable>(_ decoded: [CodableEntry<T>], _ items: [Item], _ cache: GarageCache) -> Bool {
        guard decoded.count == items.count else { return false }
        return items.indices.allSatisfy { i in
            let file = GarageLoader.DecodedFile<T>(value: decoded[i].value, diagnostics: decoded[i].diagnostics)
            return GarageCache.encode(
                file, relative: items[i].relative, context: items[i].context, key: items[i].key, garage: cache.garage,
                source: GarageCache.SourceStamp(size: decoded[i].size, checksum: decoded[i].checksum)) == items[i].bytes
        }
    }

    @inline(never)
    static func handDecodeAll<T: CacheCodable & Sendable>(_ items: [Item], _ cache: GarageCache) -> [GarageCache.Entry<T>] {
        items.compactMap { GarageCache.decode($0.bytes, relative: $0.relative, context: $0.context, key: $0.key, garage: cache.garage) }
    }

    @inline(never)
    static func handEncodeAll<T: CacheCodable & Sendable>(_ items: [Item], _ entries: [GarageCache.Entry<T>], _ cache: GarageCache) -> [[UInt8]] {
        items.indices.compactMap { i in
            GarageCache.encode(
                entries[i].file, relative: items[i].relative, context: items[i].context, key: items[i].key, garage: cache.garage,
                source: entries[i].source)
        }
    }

    @inline(never)
    static func plistEncodeAll<T: Codable>(_ entries: [CodableEntry<T>]) -> [Data] {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return entries.compactMap { try? encoder.encode($0) }
    }

    @inline(never)
    static func plistDecodeAll<T: Codable>(_ data: [Data]) -> [CodableEntry<T>] {
        let decoder = PropertyListDecoder()
        return data.compactMap { try? decoder.decode(CodableEntry<T>.self, from: $0) }
    }

    @inline(never)
    static func jsonEncodeAll<T: Codable>(_ entries: [CodableEntry<T>]) -> [Data] {
        let encoder = JSONEncoder()
        return entries.compactMap { try? encoder.encode($0) }
    }

    @inline(never)
    static func jsonDecodeAll<T: Codable>(_ data: [Data]) -> [CodableEntry<T>] {
        let decoder = JSONDecoder()
        return data.compactMap { try? decoder.decode(CodableEntry<T>.self, from: $0) }
    }
}
