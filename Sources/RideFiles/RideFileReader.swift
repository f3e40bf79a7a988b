import BikeCheckKit
import Foundation
import ZIPFoundation

/// Finds and reads ride files: `.fit`, `.tcx` and `.gpx`, each also gzipped (`.fit.gz`, as in
/// Strava's bulk export), given as files or folders (searched recursively, in name order).
package enum RideFileReader {
    /// A file larger than this is refused before it is read (a ride's FIT file is a few MB; a
    /// week-long GPX track with every extension is under 200 MB).
    package static let maximumFileSize = 256 << 20

    /// The format a file's name says, and whether it is gzipped; nil for other files.
    package static func kind(of path: String) -> (format: RecordedRide.Format, gzipped: Bool)? {
        var name = lastComponent(path).lowercased()
        let gzipped = name.hasSuffix(".gz")
        if gzipped { name.removeLast(3) }
        for format in [RecordedRide.Format.fit, .tcx, .gpx] where name.hasSuffix("." + format.rawValue) { return (format, gzipped) }
        return nil
    }

    /// The last component of a path, as `NSString.lastPathComponent` gives it (trailing
    /// slashes dropped; "/" stays "/"), without bridging: asked several times of every file.
    package static func lastComponent(_ path: String) -> Substring {
        let u = path.utf8
        let slash = UInt8(ascii: "/")
        guard !u.isEmpty else { return path[...] }
        var end = u.endIndex
        while u.index(before: end) != u.startIndex, u[u.index(before: end)] == slash { end = u.index(before: end) }
        var start = end
        while start != u.startIndex, u[u.index(before: start)] != slash { start = u.index(before: start) }
        // Only slashes: "/".
        if start == end { return path[u.index(before: end)..<end] }
        return path[start..<end]
    }

    /// Everything under `folder`, as paths relative to it, as `FileManager`'s enumerator lists
    /// it (subfolders walked, symbolic links to folders not followed, unreadable folders left
    /// out), without its cost per file (a tenth of importing 1,000 files).
    static func walk(_ folder: String) -> [String] {
        var found: [String] = []
        var pending = [""]
        while let relative = pending.popLast() {
            let path = relative.isEmpty ? folder : folder + "/" + relative
            guard let dir = opendir(path) else { continue }
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                guard name != ".", name != ".." else { continue }
                let item = relative.isEmpty ? name : relative + "/" + name
                found.append(item)
                var isFolder = Int32(entry.pointee.d_type) == Int32(DT_DIR)
                if Int32(entry.pointee.d_type) == Int32(DT_UNKNOWN) {
                    var info = stat()
                    isFolder = lstat(path + "/" + name, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
                }
                if isFolder { pending.append(item) }
            }
            closedir(dir)
        }
        return found
    }

    /// The ride files under `paths`, each once, in a stable order; paths that are neither a ride
    /// file nor a folder are returned as `unreadable` with the reason.
    package static func files(in paths: [String]) -> (files: [String], unreadable: [(path: String, reason: String)]) {
        var found: [String] = []
        var unreadable: [(String, String)] = []
        var seen = Set<String>()
        let fm = FileManager.default
        for path in paths {
            var isFolder: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isFolder) else {
                unreadable.append((path, "no such file or folder"))
                continue
            }
            if isFolder.boolValue {
                let base = path.hasSuffix("/") ? String(path.dropLast()) : path
                let inside = walk(base).sorted()
                for relative in inside where kind(of: relative) != nil {
                    let full = base + "/" + relative
                    if seen.insert(full).inserted { found.append(full) }
                }
            } else if kind(of: path) != nil {
                if seen.insert(path).inserted { found.append(path) }
            } else {
                unreadable.append((path, "not a .fit, .tcx or .gpx file (or one of those gzipped)"))
            }
        }
        return (found, unreadable)
    }

    /// The file's bytes as its format reads them (gunzipped), with the size limit applied.
    package static func contents(of path: String) throws(RideFileError) -> [UInt8] {
        let bytes: [UInt8]
        switch readFile(path, limit: maximumFileSize) {
        case .bytes(let b): bytes = b
        case .tooLarge(let size):
            throw RideFileError("the file is \(FileSizeLimit.describe(size)), more than a ride file may be (\(FileSizeLimit.describe(maximumFileSize)))")
        case .unreadable: throw RideFileError("cannot be read (not a regular file, or no permission)")
        }
        guard kind(of: path)?.gzipped == true else { return bytes }
        return try gunzip(bytes)
    }

    /// Reads one ride file.
    package static func read(_ path: String) throws(RideFileError) -> (ride: RecordedRide, bytes: [UInt8]) {
        guard kind(of: path) != nil else { throw RideFileError("not a .fit, .tcx or .gpx file") }
        let bytes = try contents(of: path)
        return (try decode(bytes, name: path, gunzipped: true), bytes)
    }

    /// Decodes a ride file's bytes, as its name's format says (gunzipping first unless done).
    package static func decode(_ bytes: [UInt8], name: String, gunzipped: Bool = false) throws(RideFileError) -> RecordedRide {
        guard let kind = kind(of: name) else { throw RideFileError("not a .fit, .tcx or .gpx file") }
        let plain = kind.gzipped && !gunzipped ? try gunzip(bytes) : bytes
        switch kind.format {
        case .fit: return try FITDecoder.decode(plain).checked()
        case .tcx, .gpx: return try XMLRideReader.decode(plain, format: kind.format).checked()
        }
    }

    /// A gzip member (RFC 1952): the header, the deflate stream, and the length and CRC it must
    /// give. The output is limited as it inflates (`FileSizeLimit.unpacked`, whatever the trailer
    /// declares).
    static func gunzip(_ bytes: [UInt8]) throws(RideFileError) -> [UInt8] {
        guard bytes.count >= 18, bytes[0] == 0x1F, bytes[1] == 0x8B, bytes[2] == 8 else { throw RideFileError("not a gzip file", offset: 0) }
        let flags = bytes[3]
        var k = 10
        if flags & 0x04 != 0 {  // FEXTRA
            guard k + 2 <= bytes.count else { throw RideFileError("the gzip header is cut off", offset: k) }
            k += 2 + (Int(bytes[k]) | Int(bytes[k + 1]) << 8)
        }
        for flag in [UInt8(0x08), 0x10] where flags & flag != 0 {  // FNAME, FCOMMENT: zero-terminated
            while k < bytes.count, bytes[k] != 0 { k += 1 }
            k += 1
        }
        if flags & 0x02 != 0 { k += 2 }  // FHCRC
        guard k < bytes.count - 8 else { throw RideFileError("the gzip file is cut off", offset: bytes.count) }
        let payload = Data(bytes[k..<(bytes.count - 8)])
        let n = bytes.count
        let expectedSize = Int(UInt32(bytes[n - 4]) | UInt32(bytes[n - 3]) << 8 | UInt32(bytes[n - 2]) << 16 | UInt32(bytes[n - 1]) << 24)
        let expectedCRC = UInt32(bytes[n - 8]) | UInt32(bytes[n - 7]) << 8 | UInt32(bytes[n - 6]) << 16 | UInt32(bytes[n - 5]) << 24
        let limit = min(maximumFileSize, FileSizeLimit.unpacked)
        // Gathered as Data (each chunk one copy, in Foundation), made an array once at the end.
        var out = Data()
        struct TooLarge: Error {}
        struct CutOff: Error {}
        do {
            // One chunk, the whole stream: the inflater reads exactly what it is given, and asking
            // for more means the stream was cut off. The CRC is checked once the whole file is in,
            // so a bomb costs no checksum time.
            _ = try Data.decompress(
                size: Int64(payload.count), bufferSize: payload.count, skipCRC32: true,
                provider: { position, _ in
                    guard position == 0 else { throw CutOff() }
                    return payload
                },
                consumer: { chunk in
                    guard out.count + chunk.count <= limit else { throw TooLarge() }
                    out.append(chunk)
                })
        } catch is TooLarge {
            throw RideFileError("larger than \(FileSizeLimit.describe(limit)) when unpacked")
        } catch is CutOff {
            throw RideFileError("the gzip stream is cut off")
        } catch {
            throw RideFileError("the gzip stream is corrupt")
        }
        guard out.count & 0xFFFF_FFFF == expectedSize, out.crc32(checksum: 0) == expectedCRC else {
            throw RideFileError("the gzip file's length or CRC does not match: corrupt or cut off")
        }
        return [UInt8](out)
    }
}
