import BikeCheckKit

/// What to do about rides imported without a bike, one line per device rather than per ride:
/// the `devices:` line that puts a device's rides on a bike, and `--bike` for rides that name
/// no device.
package enum DeviceAdvice {
    /// `again` is how to import once the device is listed; `noDevice` what to do about rides
    /// whose files name no device.
    package static func warnings(_ groups: [(device: UInt32?, rides: Int, example: String?)], garage: Garage, again: String, noDevice: String)
        -> [Warning]
    {
        let total = groups.reduce(0) { $0 + $1.rides }
        guard total > 0 else { return [] }
        let bikes = garage.bikes.map(\.bike.id.rawValue)
        let file = bikes.count == 1 ? "bikes/\(bikes[0]).yaml" : "the file of the bike that carries it (bikes/BIKE.yaml)"
        func rides(_ n: Int) -> String { "\(n) ride\(n == 1 ? "" : "s")" }
        var out: [String] = []
        let sorted = groups.sorted { a, b in
            a.rides != b.rides ? a.rides > b.rides : (a.device.map(Int64.init) ?? Int64.max) < (b.device.map(Int64.init) ?? Int64.max)
        }
        var listedBy: [Int64: String] = [:]
        for p in garage.parts { for d in p.part.devices where listedBy[d.value] == nil { listedBy[d.value] = "part '\(p.part.id.rawValue)'" } }
        for b in garage.bikes { for d in b.bike.devices { listedBy[d.value] = "bike '\(b.bike.id.rawValue)'" } }
        for g in sorted {
            let example = g.example.map { g.rides == 1 ? " (\($0))" : " (such as \($0))" } ?? ""
            if let device = g.device, let owner = listedBy[Int64(device)] {
                out.append("\(rides(g.rides)) recorded by device \(device)\(example), which \(owner) lists, on days it was on no bike: \(noDevice)")
            } else if let device = g.device {
                out.append("\(rides(g.rides)) recorded by device \(device)\(example): add 'devices: [\(device)]' to \(file), then \(again)")
            } else {
                out.append("\(rides(g.rides)) that name\(g.rides == 1 ? "s" : "") no device\(example): \(noDevice)")
            }
        }
        return [Warning("\(rides(total)) \(total == 1 ? "has" : "have") no bike:", details: out)]
    }
}
