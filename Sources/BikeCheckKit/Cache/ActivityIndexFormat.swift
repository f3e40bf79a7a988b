import Foundation

/// The index files' format (little-endian): a header naming the month file and its key, the
/// records, the strings, and the checksums that tell a whole file from a torn or foreign one.
extension ActivityIndex {
    static func encode(_ entry: Entry, name: String, key: Key) -> [UInt8] {
        let buffer = EncodeBuffer()
        return withExtendedLifetime(buffer) { Array(encode(entry, name: name, key: key, into: buffer)) }
    }

    /// `encode`'s bytes written into `buffer`'s memory, grown as needed and otherwise reused: a
    /// cold run's 121 index files took a fresh 460 KB each, a fifth of its page faults.
    static func encode(_ entry: Entry, name: String, key: Key, into buffer: EncodeBuffer) -> UnsafeRawBufferPointer {
        let nameBytes = Array(name.utf8)
        let stringBytes = entry.strings.map { Array($0.utf8) }
        let stringByteCount = stringBytes.reduce(0) { $0 + $1.count }
        let length = headerSize + nameBytes.count + entry.records.count * recordSize + stringBytes.count * 4 + stringByteCount + 8
        // Written in place, every byte once: appending a field at a time, and zeros first for
        // the records, were most of a cold run's indexing.
        do {
            let raw = buffer.bytes(length)
            var at = 0
            func put<T: FixedWidthInteger>(_ v: T) {
                raw.storeBytes(of: v.littleEndian, toByteOffset: at, as: T.self)
                at &+= MemoryLayout<T>.size
            }
            func put(_ bytes: [UInt8]) {
                bytes.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: raw[at...]).copyMemory(from: $0) }
                at &+= bytes.count
            }
            put(magic)
            put(version)
            put(UInt32(recordSize))
            for w in key.words { put(w) }
            put(entry.source)
            put(UInt32(nameBytes.count))
            put(UInt32(entry.records.count))
            put(UInt32(entry.strings.count))
            put(UInt32(entry.misplaced))
            put(UInt32(entry.unsorted ? 1 : 0))
            put(UInt32(stringByteCount))
            put(nameBytes)
            // Seven words a record: the 32-bit fields in pairs. Stored at a pointer that moves a
            // record at a time (`put`'s offset and its captured state took 68 instructions a record).
            entry.records.withUnsafeBufferPointer { records in
                guard var p = raw.baseAddress.map({ $0 + at }) else { return }
                @inline(__always) func word(_ v: UInt64, _ offset: Int) { p.storeBytes(of: v.littleEndian, toByteOffset: offset, as: UInt64.self) }
                for r in records {
                    word(UInt64(bitPattern: r.id), 0)
                    word(UInt64(UInt32(bitPattern: r.day)) | UInt64(UInt32(bitPattern: r.gear)) << 32, 8)
                    word(UInt64(UInt32(bitPattern: r.sport)) | (r.trainer ? 1 << 32 : 0), 16)
                    word(r.movingTime.bitPattern, 24)
                    word(r.distance.bitPattern, 32)
                    word(r.elevation.bitPattern, 40)
                    word(UInt64(UInt32(bitPattern: r.tags)), 48)
                    p += recordSize
                }
            }
            at &+= entry.records.count * recordSize
            for s in stringBytes { put(UInt32(s.count)) }
            for s in stringBytes { put(s) }
            put(laneChecksum(UnsafeRawBufferPointer(rebasing: raw[0..<at])))
            return UnsafeRawBufferPointer(raw)
        }
    }

    /// Memory to encode index files into, one after the other (not shared between threads):
    /// kept, so that its pages are touched once.
    final class EncodeBuffer {
        private var memory = UnsafeMutableRawBufferPointer(start: nil, count: 0)

        deinit { memory.deallocate() }

        /// The first `count` bytes, uninitialised: room for one file, valid until the next call.
        func bytes(_ count: Int) -> UnsafeMutableRawBufferPointer {
            if memory.count < count {
                memory.deallocate()
                memory = .allocate(byteCount: count, alignment: 16)
            }
            return UnsafeMutableRawBufferPointer(rebasing: memory[0..<count])
        }
    }

    /// What an index file's header says: enough to know its length and how many records it
    /// holds before reading them.
    struct Header {
        var nameLength: Int
        var count: Int
        var stringCount: Int
        var misplaced: Int
        var unsorted: Bool
        var stringByteCount: Int
        /// The checksum of the month file's bytes it was made from.
        var source: UInt64
        /// The length of the whole index file.
        var length: Int { headerSize + nameLength + count * recordSize + stringCount * 4 + stringByteCount + 8 }
    }

    /// The header at the start of `raw` if it is this version's and names `key`: nil for any
    /// other file. (Its name, records and checksum are checked by `decode`.)
    static func header(_ raw: UnsafeRawBufferPointer, key: Key, match: Match) -> Header? {
        guard raw.count >= headerSize, raw.prefix(8).elementsEqual(magic) else { return nil }
        func u32(_ at: Int) -> Int { Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self))) }
        func u64(_ at: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        guard u32(8) == Int(version), u32(12) == recordSize else { return nil }
        let compared = match == .exact ? 7 : 3
        let words = key.words
        for k in 0..<compared where u64(16 + 8 * k) != words[k] { return nil }
        let h = 16 + 56 + 8
        // Lengths in Int: no overflow from 32-bit counts.
        let header = Header(
            nameLength: u32(h), count: u32(h + 4), stringCount: u32(h + 8), misplaced: u32(h + 12), unsorted: u32(h + 16) == 1,
            stringByteCount: u32(h + 20), source: u64(16 + 56))
        guard u32(h + 16) <= 1, header.misplaced <= header.count else { return nil }
        return header
    }

    /// The entry in `bytes` if everything checks: nil for any other file.
    static func decode(_ bytes: [UInt8], name: String, key: Key, match: Match = .exact) -> Entry? {
        var records: [ActivitySummary] = []
        let entry = bytes.withUnsafeBytes { raw in
            decode(raw, name: name, key: key, match: match) { count, write in
                // Written in place (a record is plain numbers: one left unwritten leaks nothing).
                records = [ActivitySummary](unsafeUninitializedCapacity: count) { buffer, initialized in
                    initialized = write(buffer) ? count : 0
                }
                return records.count == count
            }
        }
        return entry.map { Entry(records: records, strings: $0.strings, misplaced: $0.misplaced, unsorted: $0.unsorted, source: $0.source) }
    }

    /// The entry in an index file's bytes if everything checks, without its records: `place` gets
    /// their count and a function that writes them into a buffer of that many (false when one is
    /// not valid), and says whether they were written. The loader has it write them straight into
    /// their place among every month's records (`ActivityCacheLoader.placeSummaries`).
    static func decode(
        _ raw: UnsafeRawBufferPointer, name: String, key: Key, match: Match = .exact,
        place: (Int, (UnsafeMutableBufferPointer<ActivitySummary>) -> Bool) -> Bool
    ) -> Entry? {
        func u32(_ at: Int) -> Int { Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self))) }
        func u64(_ at: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        guard raw.count >= headerSize + 8, let header = header(raw, key: key, match: match), raw.count == header.length else { return nil }
        let nameLength = header.nameLength, count = header.count, stringCount = header.stringCount
        let body = UnsafeRawBufferPointer(rebasing: raw[0..<(raw.count - 8)])
        guard laneChecksum(body) == u64(raw.count - 8) else { return nil }
        guard raw[headerSize..<(headerSize + nameLength)].elementsEqual(name.utf8) else { return nil }

        let start = headerSize + nameLength
        let records = UnsafeRawBufferPointer(rebasing: raw[start..<(start + count * recordSize)])
        let placed = place(count) { buffer in
            recordsAreInMemoryForm
                ? placeAsInMemory(records, into: buffer, strings: stringCount) : placeByField(records, into: buffer, strings: stringCount)
        }
        guard placed else { return nil }
        let at = start + count * recordSize
        var strings: [String] = []
        strings.reserveCapacity(stringCount)
        var text = at + stringCount * 4
        for k in 0..<stringCount {
            let length = u32(at + 4 * k)
            guard text + length <= raw.count - 8 else { return nil }
            guard let s = CacheReader.string(UnsafeRawBufferPointer(rebasing: raw[text..<(text + length)])) else { return nil }
            strings.append(s)
            text += length
        }
        guard text == raw.count - 8 else { return nil }
        return Entry(records: [], strings: strings, misplaced: header.misplaced, unsorted: header.unsorted, source: header.source)
    }

    /// Whether a record's bytes in an index file are an `ActivitySummary` in memory: the same
    /// fields at the same offsets, little-endian, the record's size its stride (`trainer` a
    /// byte of 0 or 1 followed by three zero bytes, the last four bytes zero: what the checks
    /// ask of them, so the padding they fill holds zeros either way).
    static let recordsAreInMemoryForm: Bool = {
        #if _endian(little)
            typealias S = ActivitySummary
            let offsets: [PartialKeyPath<S>: Int] = [
                \S.id: 0, \S.day: 8, \S.gear: 12, \S.sport: 16, \S.trainer: 20, \S.movingTime: 24, \S.distance: 32, \S.elevation: 40, \S.tags: 48,
            ]
            return MemoryLayout<S>.stride == recordSize && offsets.allSatisfy { MemoryLayout<S>.offset(of: $0.key) == $0.value }
        #else
            return false
        #endif
    }()

    /// The records in `raw` (`count` of them, in the index's form) copied into `buffer` as they
    /// are, when every one checks: each record's seven words loaded once, checked and stored,
    /// where making each record field by field took about 70 instructions a record (a warm load
    /// decodes a million). Not checked first and then copied with `memcpy`: glibc copies as
    /// large a block with `rep movsb`, which callgrind counts a byte at a time (56 M
    /// "instructions" for a million records). The checks are `placeByField`'s, on the words:
    /// `id` positive; `gear` and `tags` -1 or a string's number, `sport` a string's number;
    /// `trainer` 0 or 1; the distances and times finite; the last four bytes zero. A record that
    /// fails leaves those after it unwritten (plain numbers, never read: the file is not used).
    static func placeAsInMemory(_ raw: UnsafeRawBufferPointer, into buffer: UnsafeMutableBufferPointer<ActivitySummary>, strings: Int) -> Bool {
        let count = buffer.count
        guard raw.count == count * recordSize else { return false }
        guard count > 0, let base = raw.baseAddress, let out = UnsafeMutableRawPointer(buffer.baseAddress) else { return true }
        // Numbers of strings as 32-bit: an index file of 2^31 strings is far over its size limit.
        guard strings <= Int(Int32.max) else { return false }
        let limit = UInt32(truncatingIfNeeded: strings)
        let exponent: UInt64 = 0x7FF0_0000_0000_0000
        var at = 0
        for _ in 0..<count {
            @inline(__always) func word(_ k: Int) -> UInt64 { UInt64(littleEndian: base.loadUnaligned(fromByteOffset: at &+ 8 &* k, as: UInt64.self)) }
            let w0 = word(0), w1 = word(1), w2 = word(2), w3 = word(3), w4 = word(4), w5 = word(5), w6 = word(6)
            // -1 and 0..<strings as one unsigned comparison: -1 + 1 is 0, the largest string's number + 1 is `strings`.
            let gear = UInt32(truncatingIfNeeded: w1 >> 32) &+ 1, sport = UInt32(truncatingIfNeeded: w2), tags = UInt32(truncatingIfNeeded: w6) &+ 1
            guard Int64(bitPattern: w0) > 0, gear <= limit, sport < limit, w2 >> 32 <= 1, tags <= limit, w6 >> 32 == 0,
                w3 & exponent != exponent, w4 & exponent != exponent, w5 & exponent != exponent
            else { return false }
            @inline(__always) func put(_ k: Int, _ w: UInt64) { out.storeBytes(of: w.littleEndian, toByteOffset: at &+ 8 &* k, as: UInt64.self) }
            put(0, w0)
            put(1, w1)
            put(2, w2)
            put(3, w3)
            put(4, w4)
            put(5, w5)
            put(6, w6)
            at &+= recordSize
        }
        return true
    }

    /// The records in `raw` (`count` of them, in the index's form) made field by field into
    /// `buffer`, when every one checks: the general form of `placeAsInMemory`, for a platform
    /// where the two forms differ.
    static func placeByField(_ raw: UnsafeRawBufferPointer, into buffer: UnsafeMutableBufferPointer<ActivitySummary>, strings: Int) -> Bool {
        func u32(_ at: Int) -> Int { Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self))) }
        func u64(_ at: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        guard raw.count == buffer.count * recordSize else { return false }
        var at = 0
        for k in 0..<buffer.count {
            let r = ActivitySummary(
                id: Int64(bitPattern: u64(at)), day: Int32(bitPattern: UInt32(u32(at + 8))), gear: Int32(bitPattern: UInt32(u32(at + 12))),
                sport: Int32(bitPattern: UInt32(u32(at + 16))), trainer: u32(at + 20) != 0,
                movingTime: Double(bitPattern: u64(at + 24)), distance: Double(bitPattern: u64(at + 32)),
                elevation: Double(bitPattern: u64(at + 40)), tags: Int32(bitPattern: UInt32(u32(at + 48))))
            // What the reader can produce, and what the loader relies on.
            guard r.id > 0, r.gear >= -1, r.gear < strings, r.sport >= 0, r.sport < strings, u32(at + 20) <= 1,
                r.tags >= -1, r.tags < strings, u32(at + 52) == 0,
                r.movingTime.isFinite, r.distance.isFinite, r.elevation.isFinite
            else { return false }
            buffer.initializeElement(at: k, to: r)
            at += recordSize
        }
        return true
    }

    /// How many records the index holds for cache file `name` in the version `key`, from its
    /// header alone (nil when there is no index file for this version): what the loader reserves
    /// room for before it decodes any file. `decode` checks the rest.
    func count(_ name: String, key: Key) -> Int? {
        guard let path = path(name) else { return nil }
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        var bytes = [UInt8](repeating: 0, count: Self.headerSize)
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= FileSizeLimit.activityIndex,
            bytes.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, Self.headerSize, 0) }) == Self.headerSize,
            let header = bytes.withUnsafeBytes({ Self.header($0, key: key, match: .exact) }), header.length == Int(info.st_size)
        else { return nil }
        return header.count
    }

    /// The index's checksum of a month file's bytes and of its own (version 6): eight lanes of
    /// Fletcher's two running sums over little-endian words (modulo 2^64), lane `k` taking the
    /// words at 8k, 8k + 64, … of each 64 bytes; the last 0 to 63 bytes as words into the first
    /// lane, the last word padded with zeros; the length and the lanes mixed at the end. Like
    /// `checksum` it catches torn, truncated and altered files (not an attacker), with no
    /// multiplication in its loop: `checksum`'s chain waits on one for every eight bytes, which
    /// a cold run pays on each byte of the activity cache. The lanes go two to a vector register
    /// (three instructions for 16 bytes, where version 5's four scalar lanes took about eleven
    /// for 32). (The garage cache keeps `checksum`: its bytes fix its definition.)
    static func laneChecksum(_ raw: UnsafeRawBufferPointer) -> UInt64 {
        typealias Lanes = SIMD2<UInt64>
        var a: LaneSums = (Lanes(), Lanes(), Lanes(), Lanes())
        var b = a
        let n = raw.count
        if let base = raw.baseAddress {
            var at = 0
            @inline(__always) func blocks(_ load: (Int) -> Lanes) {
                @inline(__always) func lanes(_ at: Int) -> Lanes {
                    let v = load(at)
                    #if _endian(big)
                        return Lanes(v[0].byteSwapped, v[1].byteSwapped)
                    #else
                        return v
                    #endif
                }
                while at &+ 64 <= n {
                    a.0 &+= lanes(at)
                    b.0 &+= a.0
                    a.1 &+= lanes(at &+ 16)
                    b.1 &+= a.1
                    a.2 &+= lanes(at &+ 32)
                    b.2 &+= a.2
                    a.3 &+= lanes(at &+ 48)
                    b.3 &+= a.3
                    at &+= 64
                }
            }
            // The same sums either way; aligned bytes (a mapped month file, an array's) are
            // added straight from memory, without a load of their own.
            if Int(bitPattern: base) & 15 == 0 {
                blocks { base.load(fromByteOffset: $0, as: Lanes.self) }
            } else {
                blocks { base.loadUnaligned(fromByteOffset: $0, as: Lanes.self) }
            }
            while at < n {
                var w: UInt64 = 0
                if at &+ 8 <= n {
                    w = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt64.self))
                } else {
                    for k in 0..<(n &- at) { w |= UInt64(base.load(fromByteOffset: at &+ k, as: UInt8.self)) << UInt64(8 &* k) }
                }
                a.0[0] &+= w
                b.0[0] &+= a.0[0]
                at &+= 8
            }
        }
        return mixed(count: n, a, b)
    }

    /// `laneChecksum`'s end: the length and its lanes' two sums mixed into one word.
    @inline(__always)
    private static func mixed(count n: Int, _ a: LaneSums, _ b: LaneSums) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(n)
        func mix(_ v: SIMD2<UInt64>) {
            for k in 0..<2 {
                h = (h ^ v[k]) &* 0x9E37_79B9_7F4A_7C15
                h ^= h >> 29
            }
        }
        mix(a.0)
        mix(b.0)
        mix(a.1)
        mix(b.1)
        mix(a.2)
        mix(b.2)
        mix(a.3)
        mix(b.3)
        return h ^ (h >> 32)
    }

    /// `laneChecksum`'s eight lanes, two to a vector.
    private typealias LaneSums = (SIMD2<UInt64>, SIMD2<UInt64>, SIMD2<UInt64>, SIMD2<UInt64>)

    /// A 64-bit checksum, eight bytes at a time: it catches torn, truncated and altered files
    /// (not an attacker: the garage cache is the garage owner's own local state).
    static func checksum(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { checksum($0) } }

    static func checksum(_ raw: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(raw.count)
        guard let base = raw.baseAddress else { return h ^ (h >> 32) }
        @inline(__always) func mix(_ at: Int) {
            h = (h ^ base.loadUnaligned(fromByteOffset: at, as: UInt64.self)) &* 0x100_0000_01b3
            h ^= h >> 29
        }
        // The same words in the same order, four to a step: the loop's own counting and checks
        // were half of the instructions (the index is checked whole at every warm start).
        let words = raw.count & ~7
        var at = 0
        while at < words & ~31 {
            mix(at)
            mix(at &+ 8)
            mix(at &+ 16)
            mix(at &+ 24)
            at &+= 32
        }
        while at < words {
            mix(at)
            at &+= 8
        }
        while at < raw.count {
            h = (h ^ UInt64(base.load(fromByteOffset: at, as: UInt8.self))) &* 0x100_0000_01b3
            at &+= 1
        }
        return h ^ (h >> 32)
    }
}
