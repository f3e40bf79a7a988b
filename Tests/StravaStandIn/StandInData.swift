import Foundation

/// A bike or shoe as the stand-in serves it, shaped like the recorded 2025 `/gear` bodies.
public struct StandInGear: Sendable, Encodable {
    public var id: String
    public var name: String
    public var nickname: String?
    public var retired: Bool
    public var primary: Bool
    public var distance: Double
    public var brandName: String?
    public var modelName: String?
    public var frameType: Int?

    public init(
        id: String, name: String, nickname: String? = nil, retired: Bool = false, primary: Bool = false,
        distance: Double = 0, brandName: String? = nil, modelName: String? = nil, frameType: Int? = nil
    ) {
        self.id = id
        self.name = name
        self.nickname = nickname
        self.retired = retired
        self.primary = primary
        self.distance = distance
        self.brandName = brandName
        self.modelName = modelName
        self.frameType = frameType
    }

    /// The SummaryGear form inside `/athlete` (resource_state 2).
    func summaryJSON() -> [String: Any] {
        [
            "id": id, "primary": primary, "name": name, "nickname": nickname as Any? ?? NSNull(), "resource_state": 2,
            "retired": retired, "distance": distance, "converted_distance": (distance / 1000 * 10).rounded() / 10,
        ]
    }

    /// The DetailedGear form of `/gear/{id}` (resource_state 3).
    func detailJSON() -> [String: Any] {
        var d = summaryJSON()
        d["resource_state"] = 3
        d["brand_name"] = brandName ?? NSNull()
        d["model_name"] = modelName ?? NSNull()
        d["description"] = ""
        if let frameType { d["frame_type"] = frameType; d["weight"] = 9.0 }
        return d
    }
}

/// One activity as the stand-in serves it, in the SummaryActivity shape of the recorded
/// `/athlete/activities` responses (with the undocumented extras they carry).
public struct StandInActivity: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var sportType: String
    public var type: String
    /// Epoch seconds, UTC.
    public var start: Int64
    public var utcOffset: Int
    public var timezone: String
    public var movingTime: Int
    public var elapsedTime: Int
    public var distance: Double
    public var elevationGain: Double
    public var gearID: String?
    public var trainer = false
    public var commute = false
    public var manual = false
    public var isPrivate = false
    /// Served with `"start_date":null`, as a malformed element a client cannot read (its id still can be).
    public var malformed = false
    /// Whose activity it is: an athlete `addAthlete` added; nil: the stand-in's own athlete.
    public var athlete: Int64?

    public init(
        id: Int64, name: String, sportType: String, type: String? = nil, start: Int64, utcOffset: Int = 3600,
        timezone: String = "(GMT+01:00) Europe/Berlin", movingTime: Int, elapsedTime: Int, distance: Double,
        elevationGain: Double = 0, gearID: String? = nil
    ) {
        self.id = id
        self.name = name
        self.sportType = sportType
        self.type = type ?? sportType
        self.start = start
        self.utcOffset = utcOffset
        self.timezone = timezone
        self.movingTime = movingTime
        self.elapsedTime = elapsedTime
        self.distance = distance
        self.elevationGain = elevationGain
        self.gearID = gearID
    }

    static func iso(_ epoch: Int64) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: Date(timeIntervalSince1970: TimeInterval(epoch)))
    }

    /// The cache's `start_date`.
    public var startDate: String { Self.iso(start) }

    /// The SummaryActivity JSON object, written directly: the stand-in serves thousands of these.
    func jsonBytes(athleteID: Int64) -> [UInt8] {
        let str = Self.jsonString
        let speed = movingTime > 0 ? distance / Double(movingTime) : 0
        let upload = id + 1_000_000_000
        let gear = gearID.map(str) ?? "null"
        let text = """
            {"resource_state":2,"athlete":{"id":\(athleteID),"resource_state":1},"name":\(str(name)),"distance":\(distance),\
            "moving_time":\(movingTime),"elapsed_time":\(elapsedTime),"total_elevation_gain":\(elevationGain),"type":\(str(type)),\
            "sport_type":\(str(sportType)),"workout_type":null,"id":\(id),"start_date":\(malformed ? "null" : "\"" + Self.iso(start) + "\""),\
            "start_date_local":"\(Self.iso(start + Int64(utcOffset)))","timezone":\(str(timezone)),"utc_offset":\(Double(utcOffset)),\
            "location_city":null,"location_state":null,"location_country":null,"achievement_count":0,"kudos_count":3,\
            "comment_count":0,"athlete_count":1,"photo_count":0,"map":{"id":"a\(id)","summary_polyline":\(Self.polylineJSON),\
            "resource_state":2},"trainer":\(trainer),"commute":\(commute),"manual":\(manual),"private":\(isPrivate),\
            "visibility":"everyone","flagged":false,"gear_id":\(gear),"start_latlng":[52.52,13.405],"end_latlng":[52.51,13.39],\
            "average_speed":\(speed),"max_speed":14.2,"average_cadence":84.1,"average_watts":181.3,"weighted_average_watts":190,\
            "kilojoules":612.4,"device_watts":true,"has_heartrate":true,"average_heartrate":141.2,"max_heartrate":172.0,\
            "heartrate_opt_out":false,"display_hide_heartrate_option":true,"elev_high":82.4,"elev_low":31.0,\
            "upload_id":\(upload),"upload_id_str":"\(upload)","external_id":"garmin_ping_\(id)","from_accepted_tag":false,\
            "pr_count":0,"total_photo_count":0,"has_kudoed":false,"suffer_score":42.0}
            """
        return Array(text.utf8)
    }

    /// A JSON string literal for `s`.
    static func jsonString(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case _ where u.value < 0x20: out += String(format: "\\u%04x", u.value)
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }

    static let polylineJSON = jsonString(polyline)

    static let polyline =
        "ki{eFvqfiVqAWQIGEEKAYJgBVqDJ{BHa@jAkNJw@Pw@V{APs@^aABQAOEQGKoJ_FuJkFqAo@{A}@sH{DiAs@Q]?WVy@`@oBt@_CB]KYMMkB{AQEI@WT{BlE{@zAQPI@ICsCqA_BcAeCmAaFmCqIoEcLeG}KcG}A}@cDaBiDsByAkAuBqBi@y@_@o@o@kB}BgIoA_EUkAMcACa@BeBBq@LaAJe@b@uA`@_AdBcD`@iAPq@RgALqAB{@EqAyAoOCy@AmCBmANqBLqAZkB\\iCPiBJwCCsASiCq@iD]eA]y@[i@w@mAa@i@k@g@kAw@i@Ya@Q]EWFMLa@~BYpAFNpA`Aj@n@X`@V`AHh@JfB@xAMvAGZGHIDIAWOEQNcC@sACYK[MSOMe@QKKKYOs@UYQISCQ?Q@WNo@r@OHGAGCKOQ_BU}@MQGG]Io@@c@FYNg@d@s@d@ODQAMOMaASs@_@a@SESAQDqBn@a@RO?KK?UBU\\kA@Y?WMo@Iy@GWQ_@WSSGg@AkABQB_Ap@_A^o@b@Q@o@IS@OHi@n@OFS?OI}@iAQMQGQC}@DOIIUK{@IUOMyBo@kASOKIQCa@L[|AgATWN[He@?QKw@FOPCh@Fx@l@TDLELKl@aAHIJEX@r@ZTDV@LENQVg@RkA@c@MeA?WFOPMf@Ej@Fj@@LGHKDM?_@_@iC?a@HKRIl@NT?FCHMFW?YEYGWQa@GYBiAIq@Gq@L_BHSHK|@WJETSLQZs@z@_A~@uA^U`@G\\CRB\\Tl@p@Th@JZ^bB`@lAHLXVLDP?LGFSKiDBo@d@wBVi@R]VYVE\\@`@Lh@Fh@CzAk@RSDQA]GYe@eAGWSiBAWBWBIJORK`@KPOPSTg@h@}Ad@o@F[E_@EGMKUGmAEYGMIMYKs@?a@J}@@_BD_@HQJMx@e@LKHKHWAo@UoAAWFmAH}@?w@C[YwAAc@HSNM|Ao@rA}@zAq@`@a@j@eAxAuBXQj@MXSR[b@gAFg@?YISOGaAHi@Xw@v@_@d@WRSFqARUHQJc@d@m@`A[VSFUBcAEU@WFULUPa@v@Y~@UrBc@dBI~@?l@P~ABt@N`HEjA]zAEp@@p@TrBCl@CTQb@k@dAg@jAU^KJYLK@k@A[Js@d@a@b@]RgBl@[FMAw@[]G]?m@D_@F]P[Vu@t@[TMF_@Do@E_@@q@P]PWZUZw@vAkAlAGJOj@IlAMd@OR{@p@a@d@sBpD]v@a@`Aa@n@]TODgBVk@Pe@^cBfBc@Rs@La@RSPm@|@wCpDS^Wp@QZML{@l@qBbCYd@k@lAIVCZBZNTr@`@RRHZANIZQPKDW@e@CaASU?I@YTKRQx@@\\VmALc@"

    /// `count` activities a day or so apart, ending near `end`: rides on the bikes (in turn),
    /// gravel and MTB rides, runs in shoes, virtual rides without gear, and now and then a sport
    /// type this client has never heard of.
    public static func generate(
        count: Int, firstID: Int64 = 9_000_000_000, end: Int64 = 1_763_600_000,
        bikes: [String] = ["b1001", "b1002"]
    ) -> [StandInActivity] {
        var out: [StandInActivity] = []
        out.reserveCapacity(count)
        for i in 0..<count {
            let start = end - Int64(count - i) * 86_400 + Int64((i * 7919) % 36_000)
            let kind = i % 10
            let sport: String, type: String, gear: String?
            switch kind {
            case 0, 1, 2, 3: sport = "Ride"; type = "Ride"; gear = bikes.isEmpty ? nil : bikes[i % bikes.count]
            case 4: sport = "GravelRide"; type = "Ride"; gear = bikes.first
            case 5: sport = "MountainBikeRide"; type = "Ride"; gear = bikes.last
            case 6, 7: sport = "Run"; type = "Run"; gear = "g2001"
            case 8: sport = "VirtualRide"; type = "VirtualRide"; gear = nil
            default: sport = i % 20 == 9 ? "Sandboarding" : "EBikeRide"; type = i % 20 == 9 ? "Workout" : "EBikeRide"; gear = bikes.first
            }
            let moving = 1800 + (i * 37) % 7200
            out.append(
                StandInActivity(
                    id: firstID + Int64(i) * 3, name: i % 13 == 0 ? "Café ride \"with\" friends, \(i)" : "Ride \(i)",
                    sportType: sport, type: type, start: start, movingTime: moving, elapsedTime: moving + (i % 600),
                    distance: Double(moving) * 6.5 + Double(i % 10) / 10, elevationGain: Double((i * 13) % 900), gearID: gear))
        }
        return out
    }
}
