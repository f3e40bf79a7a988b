import Foundation
import ZIPFoundation

/// The one way an entry of a zip is unpacked: with a running limit on the bytes it inflates to,
/// whatever its header declares (a deflate bomb's header claims a few bytes), so a bomb costs at
/// most `limit` bytes of memory and the time to inflate them.
package enum Unzip {
    package enum Failure: Error, Equatable {
        /// It inflated past the limit (what it had given was dropped).
        case tooLarge
        /// Not unpackable (corrupt, a CRC that does not match, an unknown method).
        case unreadable
    }

    package static func extract(_ entry: Entry, of archive: Archive, limit: Int) -> Result<[UInt8], Failure> {
        struct Oversized: Error {}
        // Gathered as Data (each chunk one copy, in Foundation), made an array once at the end.
        // The CRC is checked once the whole entry is in, so a bomb costs no checksum time.
        var bytes = Data()
        do {
            _ = try archive.extract(entry, skipCRC32: true) { chunk in
                guard bytes.count + chunk.count <= limit else { throw Oversized() }
                bytes.append(chunk)
            }
        } catch is Oversized {
            return .failure(.tooLarge)
        } catch {
            return .failure(.unreadable)
        }
        guard bytes.crc32(checksum: 0) == entry.checksum else { return .failure(.unreadable) }
        return .success([UInt8](bytes))
    }
}
