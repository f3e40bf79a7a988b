import BikeCheckKit

/// Reads a FIT file (Garmin's Flexible and Interoperable Data Transfer protocol) as far as a ride
/// needs: who recorded it (`file_id`, `device_info`), what it was (`session`), and, when a file
/// has no session, its `record`s. Written from the published protocol: a 12- or 14-byte header,
/// definition and data messages (little- or big-endian), compressed-timestamp headers, developer
/// fields (skipped by their declared size) and a CRC over the whole file. Files chained one after
/// another are read in turn.
package enum FITDecoder {
    /// Seconds from the Unix epoch to FIT's, 1989-12-31T00:00:00Z.
    static let epochOffset: Int64 = 631_065_600

    package static func decode(_ bytes: [UInt8]) throws(RideFileError) -> RecordedRide {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(RideFileError) -> RecordedRide in
                var reader = Reader(bytes: bytes, raw: raw)
                var ride = Collected()
                repeat {
                    try reader.readFile(into: &ride)
                } while reader.offset < bytes.count
                return try ride.ride()
            }
        }.get()
    }

    /// What one file says, gathered from its messages in order.
    struct Collected {
        var creatorSerial: UInt32?
        var deviceSerials: [UInt32] = []
        var sessions: [Session] = []
        var records = Records()
        /// From the `activity` message: local time minus UTC, in seconds.
        var utcOffset: Int64?

        struct Session {
            var start: Int64?
            var sport: UInt8?
            var subSport: UInt8?
            var elapsed: Double?
            var timer: Double?
            var distance: Double?
            var ascent: Double?
            var timestamp: Int64?
        }

        /// The track, as a ride without a session has it.
        struct Records {
            var first: Int64?
            var last: Int64?
            var points: [TrackPoint] = []
            var maxDistance: Double?
            var hasPosition = false
        }

        func ride() throws(RideFileError) -> RecordedRide {
            var serials: [UInt32] = []
            for s in [creatorSerial].compactMap({ $0 }) + deviceSerials where !serials.contains(s) { serials.append(s) }
            let track = Track(points: records.points)
            if !sessions.isEmpty {
                // A multisport file has a session per leg: the ride is the cycling ones, else all.
                let cycling = sessions.filter { Sport.isCycling($0.sport) }
                let chosen = cycling.isEmpty ? sessions : cycling
                guard let start = chosen.compactMap({ $0.start ?? $0.timestamp }).min() else {
                    throw RideFileError("the session has no start time")
                }
                let first = chosen[0]
                let sport = Sport.stravaType(sport: first.sport, subSport: first.subSport)
                let timer = chosen.compactMap(\.timer).reduce(0, +)
                let elapsed = chosen.compactMap(\.elapsed).reduce(0, +)
                let distance = chosen.compactMap(\.distance).reduce(0, +)
                let ascent = chosen.compactMap(\.ascent).reduce(0, +)
                let indoor = Sport.isIndoor(subSport: first.subSport) || (!records.hasPosition && !records.points.isEmpty) || sport == "VirtualRide"
                return RecordedRide(
                    format: .fit, start: start, sport: sport, indoor: indoor,
                    movingTime: timer > 0 ? timer : track.movingTime, elapsedTime: elapsed > 0 ? elapsed : Double((records.last ?? start) - start),
                    distance: distance > 0 ? distance : (records.maxDistance ?? track.distance), ascent: ascent, devices: serials, utcOffset: utcOffset)
            }
            guard let start = records.first, let last = records.last else { throw RideFileError("no session and no records: nothing to import") }
            return RecordedRide(
                format: .fit, start: start, sport: "Ride", indoor: !records.hasPosition, movingTime: track.movingTime,
                elapsedTime: Double(last - start), distance: records.maxDistance ?? track.distance, ascent: track.ascent, devices: serials,
                utcOffset: utcOffset)
        }
    }

    struct Definition {
        var global: UInt16
        var bigEndian: Bool
        /// Field number, size, base type.
        var fields: [(number: UInt8, size: Int, type: UInt8)]
        /// Bytes of developer fields after the fields, skipped.
        var developerBytes: Int
    }

    /// Where a `record` message of one definition has the fields a ride takes from it (`record`),
    /// so that a whole message is checked once and only those fields are read: a plain value per
    /// local message type (no array, no reference counting per message; a record a second is
    /// most of a file).
    struct RecordLayout {
        /// A field's place in the message and its size and base type; `offset` -1: no such field.
        struct Field {
            var offset: Int32 = -1
            var size: UInt8 = 0
            var type: UInt8 = 0

            /// The field's value in the message at `message`, as `Reader.value` reads it.
            @inline(__always)
            func value(in message: UnsafeRawPointer, bigEndian: Bool) -> Double? {
                offset < 0 ? nil : Reader.value(message + Int(offset), size: Int(size), type: type, bigEndian: bigEndian)
            }
        }

        /// The whole message's bytes, developer fields included; -1 when the definition is not a
        /// record's, or names a field twice (read field by field, the last value kept).
        var size = -1
        var bigEndian = false
        var timestamp = Field(), latitude = Field(), longitude = Field(), altitude = Field(), distance = Field()
        var enhancedAltitude = Field()

        init() {}

        init(_ definition: Definition) {
            guard definition.global == 20 else { return }
            var offset = 0
            for field in definition.fields {
                let here = Field(offset: Int32(offset), size: UInt8(field.size), type: field.type)
                offset += field.size
                let slot: WritableKeyPath<RecordLayout, Field>
                switch field.number {
                case 253: slot = \.timestamp
                case 0: slot = \.latitude
                case 1: slot = \.longitude
                case 2: slot = \.altitude
                case 5: slot = \.distance
                case 78: slot = \.enhancedAltitude
                default: continue
                }
                guard self[keyPath: slot].offset < 0 else { return }
                self[keyPath: slot] = here
            }
            size = offset + definition.developerBytes
            bigEndian = definition.bigEndian
        }
    }

    struct Reader {
        let bytes: [UInt8]
        /// `bytes`, for reading fields whose range is checked.
        let raw: UnsafeRawBufferPointer
        var offset = 0
        var definitions: [Definition?] = Array(repeating: nil, count: 16)
        var recordLayouts: [RecordLayout] = Array(repeating: RecordLayout(), count: 16)
        var lastTimestamp: Int64?

        init(bytes: [UInt8], raw: UnsafeRawBufferPointer) {
            self.bytes = bytes
            self.raw = raw
        }

        /// The value of the field of `size` bytes at `at` (in range), as `value` reads it.
        func value(at: Int, size: Int, type: UInt8, bigEndian: Bool) -> Double? {
            Self.value(raw.baseAddress! + at, size: size, type: type, bigEndian: bigEndian)
        }

        func error(_ message: String, at position: Int? = nil) -> RideFileError {
            RideFileError(message, offset: position ?? offset)
        }

        mutating func readFile(into ride: inout Collected) throws(RideFileError) {
            let fileStart = offset
            guard bytes.count - offset >= 12 else { throw error("too short for a FIT header (\(bytes.count - offset) bytes)") }
            let headerSize = Int(bytes[offset])
            guard headerSize == 12 || headerSize == 14 else { throw error("not a FIT file: header size \(headerSize), not 12 or 14") }
            guard bytes.count - offset >= headerSize else { throw error("the header is cut off") }
            guard Array(bytes[(offset + 8)..<(offset + 12)]) == Array(".FIT".utf8) else { throw error("not a FIT file: no '.FIT' signature") }
            let dataSize = Int(UInt32(bytes[offset + 4]) | UInt32(bytes[offset + 5]) << 8 | UInt32(bytes[offset + 6]) << 16 | UInt32(bytes[offset + 7]) << 24)
            if headerSize == 14 {
                let stored = UInt16(bytes[offset + 12]) | UInt16(bytes[offset + 13]) << 8
                if stored != 0, stored != CRC.of(bytes[offset..<(offset + 12)]) { throw error("the header's CRC does not match") }
            }
            let dataStart = offset + headerSize
            let dataEnd = dataStart + dataSize
            guard dataEnd + 2 <= bytes.count else {
                throw error("truncated: the header promises \(dataSize) bytes of data and a CRC, the file has \(bytes.count - dataStart)", at: dataStart)
            }
            let stored = UInt16(bytes[dataEnd]) | UInt16(bytes[dataEnd + 1]) << 8
            // A CRC of 0 means none was written; any other must match.
            if stored != 0, stored != CRC.of(bytes[fileStart..<dataEnd]) { throw error("the file's CRC does not match: corrupt or changed", at: dataEnd) }
            offset = dataStart
            definitions = Array(repeating: nil, count: 16)
            recordLayouts = Array(repeating: RecordLayout(), count: 16)
            while offset < dataEnd { try readMessage(end: dataEnd, into: &ride) }
            offset = dataEnd + 2
        }

        mutating func readMessage(end: Int, into ride: inout Collected) throws(RideFileError) {
            let start = offset
            let header = bytes[offset]
            offset += 1
            if header & 0x80 != 0 {
                // Compressed timestamp: the local type in bits 5-6, a 5-bit offset in 0-4.
                let local = Int((header >> 5) & 0x3)
                guard let last = lastTimestamp else { throw error("a compressed timestamp before any full timestamp", at: start) }
                let low = Int64(header & 0x1F)
                let timestamp = last + ((low - (last & 0x1F)) & 0x1F)
                lastTimestamp = timestamp
                try readData(local: local, end: end, timestamp: timestamp, into: &ride, at: start)
            } else if header & 0x40 != 0 {
                try readDefinition(local: Int(header & 0x0F), developer: header & 0x20 != 0, end: end, at: start)
            } else {
                try readData(local: Int(header & 0x0F), end: end, timestamp: nil, into: &ride, at: start)
            }
        }

        /// `take`, giving where the bytes start rather than a slice of them.
        mutating func skip(_ count: Int, end: Int, _ what: String) throws(RideFileError) -> Int {
            guard count >= 0, end - offset >= count else { throw error("truncated inside \(what)") }
            defer { offset += count }
            return offset
        }

        mutating func take(_ count: Int, end: Int, _ what: String) throws(RideFileError) -> ArraySlice<UInt8> {
            guard count >= 0, end - offset >= count else { throw error("truncated inside \(what)") }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }

        mutating func readDefinition(local: Int, developer: Bool, end: Int, at start: Int) throws(RideFileError) {
            let head = try take(5, end: end, "a definition message")
            let base = head.startIndex
            guard head[base + 1] <= 1 else { throw error("a definition's architecture is \(head[base + 1]), not 0 or 1", at: start) }
            let big = head[base + 1] == 1
            let global = big ? UInt16(head[base + 2]) << 8 | UInt16(head[base + 3]) : UInt16(head[base + 3]) << 8 | UInt16(head[base + 2])
            let count = Int(head[base + 4])
            let raw = try take(count * 3, end: end, "a definition message")
            var fields: [(number: UInt8, size: Int, type: UInt8)] = []
            fields.reserveCapacity(count)
            var k = raw.startIndex
            while k < raw.endIndex {
                fields.append((raw[k], Int(raw[k + 1]), raw[k + 2]))
                k += 3
            }
            var developerBytes = 0
            if developer {
                let n = Int(try take(1, end: end, "a definition message").first!)
                let dev = try take(n * 3, end: end, "a definition's developer fields")
                var j = dev.startIndex
                while j < dev.endIndex {
                    developerBytes += Int(dev[j + 1])
                    j += 3
                }
            }
            let definition = Definition(global: global, bigEndian: big, fields: fields, developerBytes: developerBytes)
            definitions[local] = definition
            recordLayouts[local] = RecordLayout(definition)
        }

        mutating func readData(local: Int, end: Int, timestamp: Int64?, into ride: inout Collected, at start: Int) throws(RideFileError) {
            let layout = recordLayouts[local]
            if layout.size >= 0, end - offset >= layout.size {
                try readRecord(layout, end: end, timestamp: timestamp, into: &ride, at: start)
                return
            }
            // Any other message, or a record cut off (its error at the field it cuts), field by field.
            guard let definition = definitions[local] else { throw error("a data message of local type \(local), which nothing defined", at: start) }
            // Messages this reader does not use are skipped whole (a timestamp still counts, for
            // compressed timestamps after it).
            guard FieldValues.isUsed(definition.global) else {
                for field in definition.fields {
                    let at = try skip(field.size, end: end, "a data message")
                    if field.number == 253, let t = value(at: at, size: field.size, type: field.type, bigEndian: definition.bigEndian) {
                        lastTimestamp = try Self.timestamp(t, at: start)
                    }
                }
                _ = try take(definition.developerBytes, end: end, "a data message's developer fields")
                return
            }
            if definition.global == 20, ride.records.points.isEmpty {
                // A record a second: room for as many as the rest of the data could hold (at most
                // a million at first), not one doubling after another.
                let size = 1 + definition.fields.reduce(definition.developerBytes) { $0 + $1.size }
                ride.records.points.reserveCapacity(min(1 << 20, (end - offset) / size + 1))
            }
            var values = FieldValues(timestamp: timestamp)
            for field in definition.fields {
                let at = try skip(field.size, end: end, "a data message")
                if let v = value(at: at, size: field.size, type: field.type, bigEndian: definition.bigEndian) { values.set(field.number, v) }
            }
            _ = try take(definition.developerBytes, end: end, "a data message's developer fields")
            if let t = values[253] {
                lastTimestamp = try Self.timestamp(t, at: start)
                values.timestamp = lastTimestamp
            }
            try collect(definition.global, values, into: &ride, at: start)
        }

        /// A whole `record` message, read where `layout` says its fields are: what the field by
        /// field reading and `collect` make of it.
        mutating func readRecord(_ layout: RecordLayout, end: Int, timestamp: Int64?, into ride: inout Collected, at start: Int) throws(RideFileError) {
            if ride.records.points.isEmpty {
                // As `readData` reserves.
                ride.records.points.reserveCapacity(min(1 << 20, (end - offset) / (1 + layout.size) + 1))
            }
            let message = raw.baseAddress! + offset
            offset += layout.size
            var time = timestamp
            if let t = layout.timestamp.value(in: message, bigEndian: layout.bigEndian) {
                lastTimestamp = try Self.timestamp(t, at: start)
                time = lastTimestamp
            }
            let big = layout.bigEndian
            try Self.record(
                time: time, latitude: layout.latitude.value(in: message, bigEndian: big), longitude: layout.longitude.value(in: message, bigEndian: big),
                altitude: layout.enhancedAltitude.value(in: message, bigEndian: big) ?? layout.altitude.value(in: message, bigEndian: big),
                distance: layout.distance.value(in: message, bigEndian: big), into: &ride.records, at: start)
        }

        /// A `record` message's point (`time` in FIT's epoch, the rest as the fields hold them),
        /// added to the track.
        static func record(
            time: Int64?, latitude: Double?, longitude: Double?, altitude: Double?, distance raw: Double?, into records: inout Collected.Records,
            at start: Int
        ) throws(RideFileError) {
            guard let time else { return }
            let t = time + FITDecoder.epochOffset
            if records.first == nil || t < records.first! { records.first = t }
            if records.last == nil || t > records.last! { records.last = t }
            var point = TrackPoint(time: t)
            if let raw {
                guard let d = FileNumber.within(raw / 100, .distance) else {
                    throw RideFileError(FileNumber.outOfRange("a record's distance", raw / 100, .distance), offset: start)
                }
                records.maxDistance = max(records.maxDistance ?? 0, d)
                point.distance = d
            }
            if let latitude, let longitude {
                records.hasPosition = true
                point.latitude = latitude * (180 / 2_147_483_648)
                point.longitude = longitude * (180 / 2_147_483_648)
            }
            if let altitude { point.elevation = altitude / 5 - 500 }
            records.points.append(point)
        }

        /// A FIT timestamp (seconds since FIT's epoch, a uint32) read from any base type: one that
        /// is not whole or out of range makes the file bad, at the message's byte.
        @inline(__always)
        static func timestamp(_ raw: Double, at start: Int) throws(RideFileError) -> Int64 {
            // The usual case first, inlined: a whole number in range (what `FileNumber.whole` says, cheaper).
            if raw >= 0, raw <= Double(UInt32.max) { return Int64(raw.rounded(.towardZero)) }
            return try unusualTimestamp(raw, at: start)
        }

        /// `timestamp` of a number outside 0...`UInt32.max` or not a number: an error, unless it
        /// rounds towards zero into the range (-0.5).
        static func unusualTimestamp(_ raw: Double, at start: Int) throws(RideFileError) -> Int64 {
            guard let t = FileNumber.whole(raw, as: UInt32.self) else {
                throw RideFileError(
                    "a timestamp \(ActivityLimits.format(raw)) is out of range: expected 0 to \(UInt32.max) (seconds since 1989-12-31)", offset: start)
            }
            return Int64(t)
        }

        /// Every number a ride takes from the message at `start` is range-checked (`FileNumber`,
        /// `ActivityLimits`) before it is converted or kept.
        func collect(_ global: UInt16, _ v: FieldValues, into ride: inout Collected, at start: Int) throws(RideFileError) {
            func time(_ raw: Double?) throws(RideFileError) -> Int64? {
                guard let raw else { return nil }
                return try Self.timestamp(raw, at: start) + FITDecoder.epochOffset
            }
            func whole<T: BinaryInteger>(_ raw: Double?, _ what: String, as type: T.Type) throws(RideFileError) -> T? {
                guard let raw else { return nil }
                guard let w = FileNumber.whole(raw, as: type) else {
                    throw RideFileError("\(what) \(ActivityLimits.format(raw)) is out of range", offset: start)
                }
                return w
            }
            func within(_ raw: Double?, _ scale: Double, _ what: String, _ field: ActivityLimits.Field) throws(RideFileError) -> Double? {
                guard let raw else { return nil }
                guard let v = FileNumber.within(raw / scale, field) else { throw RideFileError(FileNumber.outOfRange(what, raw / scale, field), offset: start) }
                return v
            }
            switch global {
            case 0:  // file_id
                if let s = try whole(v[3], "the serial number", as: UInt32.self) { ride.creatorSerial = ride.creatorSerial ?? s }
            case 23:  // device_info
                if let s = try whole(v[3], "the serial number", as: UInt32.self), !ride.deviceSerials.contains(s) { ride.deviceSerials.append(s) }
            case 18:  // session
                ride.sessions.append(
                    Collected.Session(
                        start: try time(v[2]), sport: try whole(v[5], "the sport", as: UInt8.self), subSport: try whole(v[6], "the sub-sport", as: UInt8.self),
                        elapsed: try within(v[7], 1000, "the session's elapsed time", .elapsedTime),
                        timer: try within(v[8], 1000, "the session's timer time", .movingTime),
                        distance: try within(v[9], 100, "the session's distance", .distance),
                        ascent: try within(v[22], 1, "the session's ascent", .totalElevationGain), timestamp: v.timestamp.map { $0 + FITDecoder.epochOffset }))
            case 34:  // activity: its local time says the rider's offset from UTC (within a day).
                if let t = v.timestamp, let local = try whole(v[5], "the local time", as: Int64.self), abs(local - t) <= 86_400 { ride.utcOffset = local - t }
            case 20:  // record
                try Self.record(time: v.timestamp, latitude: v[0], longitude: v[1], altitude: v[78] ?? v[2], distance: v[5], into: &ride.records, at: start)
            default: break
            }
        }

        /// The field of `size` bytes at `p` (in range), or nil when it holds its type's invalid
        /// value (or is a kind this reader does not need: strings, arrays, bytes).
        static func value(_ p: UnsafeRawPointer, size: Int, type: UInt8, bigEndian: Bool) -> Double? {
            func load<T: FixedWidthInteger>(_: T.Type) -> T? {
                guard size == MemoryLayout<T>.size else { return nil }
                let v = p.loadUnaligned(as: T.self)
                return bigEndian ? T(bigEndian: v) : T(littleEndian: v)
            }
            switch type & 0x1F {
            case 0x00, 0x02:  // enum, uint8
                return load(UInt8.self).flatMap { $0 == 0xFF ? nil : Double($0) }
            case 0x0A:  // uint8z
                return load(UInt8.self).flatMap { $0 == 0 ? nil : Double($0) }
            case 0x01:  // sint8
                return load(Int8.self).flatMap { $0 == 0x7F ? nil : Double($0) }
            case 0x04:  // uint16
                return load(UInt16.self).flatMap { $0 == 0xFFFF ? nil : Double($0) }
            case 0x0B:  // uint16z
                return load(UInt16.self).flatMap { $0 == 0 ? nil : Double($0) }
            case 0x03:  // sint16
                return load(Int16.self).flatMap { $0 == 0x7FFF ? nil : Double($0) }
            case 0x06:  // uint32
                return load(UInt32.self).flatMap { $0 == 0xFFFF_FFFF ? nil : Double($0) }
            case 0x0C:  // uint32z
                return load(UInt32.self).flatMap { $0 == 0 ? nil : Double($0) }
            case 0x05:  // sint32
                return load(Int32.self).flatMap { $0 == 0x7FFF_FFFF ? nil : Double($0) }
            case 0x08:  // float32
                return load(UInt32.self).flatMap { v in
                    let f = Float(bitPattern: v)
                    return f.isFinite ? Double(f) : nil
                }
            case 0x09:  // float64
                return load(UInt64.self).flatMap { v in
                    let f = Double(bitPattern: v)
                    return f.isFinite ? f : nil
                }
            default: return nil
            }
        }
    }

    /// The values of one data message that this reader uses, by field number: no allocation per
    /// message (a ride has a record a second).
    struct FieldValues {
        /// The messages read: file_id, session, record, device_info, activity (a switch, not a
        /// set: asked of every message).
        static func isUsed(_ global: UInt16) -> Bool {
            switch global {
            case 0, 18, 20, 23, 34: true
            default: false
            }
        }
        var timestamp: Int64?
        /// Fields 0-9, 22 (session: total ascent), 78 (record: enhanced altitude) and 253 (timestamp).
        private var low: (Double?, Double?, Double?, Double?, Double?, Double?, Double?, Double?, Double?, Double?) =
            (nil, nil, nil, nil, nil, nil, nil, nil, nil, nil)
        private var ascent, enhancedAltitude, stamp: Double?

        init(timestamp: Int64?) { self.timestamp = timestamp }

        subscript(number: Int) -> Double? {
            switch number {
            case 0: low.0
            case 1: low.1
            case 2: low.2
            case 3: low.3
            case 4: low.4
            case 5: low.5
            case 6: low.6
            case 7: low.7
            case 8: low.8
            case 9: low.9
            case 22: ascent
            case 78: enhancedAltitude
            case 253: stamp
            default: nil
            }
        }

        mutating func set(_ number: UInt8, _ value: Double) {
            switch number {
            case 0: low.0 = value
            case 1: low.1 = value
            case 2: low.2 = value
            case 3: low.3 = value
            case 4: low.4 = value
            case 5: low.5 = value
            case 6: low.6 = value
            case 7: low.7 = value
            case 8: low.8 = value
            case 9: low.9 = value
            case 22: ascent = value
            case 78: enhancedAltitude = value
            case 253: stamp = value
            default: break
            }
        }
    }

    /// FIT's CRC-16: the protocol's nibble-table step (`nibble`), taken eight bytes at a time.
    enum CRC {
        static let table: [UInt16] = [
            0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
            0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400,
        ]

        /// The protocol's step for one byte.
        static func nibble(_ crc: UInt16, _ byte: UInt8) -> UInt16 {
            var crc = crc
            var tmp = table[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ table[Int(byte & 0xF)]
            tmp = table[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ table[Int((byte >> 4) & 0xF)]
            return crc
        }

        /// The same step from one look-up (the CRC is linear: a byte's step from 0 is its entry).
        static let bytes: [UInt16] = (0...255).map { nibble(0, UInt8($0)) }

        /// Eight bytes at a time ("slicing by eight"): entry `256 * k + b` is byte b's step
        /// followed by k steps of a zero byte, so eight bytes' steps are eight look-ups combined.
        static let slices: [UInt16] = {
            var table = bytes
            for k in 1...7 {
                let previous = table[(256 * (k - 1))...]
                table += previous.map { ($0 >> 8) ^ bytes[Int($0 & 0xFF)] }
            }
            return table
        }()

        static func of(_ data: ArraySlice<UInt8>) -> UInt16 {
            slices.withUnsafeBufferPointer { table in
                data.withUnsafeBufferPointer { data in
                    var crc: UInt16 = 0
                    var i = 0
                    while data.count - i >= 8 {
                        let low = Int(UInt8(truncatingIfNeeded: crc) ^ data[i]), high = Int(UInt8(truncatingIfNeeded: crc >> 8) ^ data[i + 1])
                        crc = table[1792 + low] ^ table[1536 + high] ^ table[1280 + Int(data[i + 2])] ^ table[1024 + Int(data[i + 3])]
                        crc ^= table[768 + Int(data[i + 4])] ^ table[512 + Int(data[i + 5])] ^ table[256 + Int(data[i + 6])] ^ table[Int(data[i + 7])]
                        i += 8
                    }
                    for byte in data[i...] { crc = (crc >> 8) ^ table[Int(UInt8(truncatingIfNeeded: crc) ^ byte)] }
                    return crc
                }
            }
        }
    }

    /// FIT's sport and sub-sport, as Strava names a ride's sport type.
    enum Sport {
        static func isCycling(_ sport: UInt8?) -> Bool { sport == 2 || sport == 21 }

        static func isIndoor(subSport: UInt8?) -> Bool { subSport == 6 || subSport == 58 }

        static func stravaType(sport: UInt8?, subSport: UInt8?) -> String {
            switch (sport, subSport) {
            case (2, 58): return "VirtualRide"
            case (2, 8), (2, 9): return "MountainBikeRide"
            case (2, 46): return "GravelRide"
            case (21, 8), (21, 47), (2, 47): return "EMountainBikeRide"
            case (21, _): return "EBikeRide"
            case (2, _): return "Ride"
            case (1, _): return "Run"
            case (11, _): return "Walk"
            case (17, _): return "Hike"
            case (5, _): return "Swim"
            case (nil, _), (0, _): return "Ride"
            default: return "Workout"
            }
        }
    }
}
