import BikeCheckKit
import Foundation

// EXPERIMENT: cache-codec-experiment GARAGE ROUNDS hand|plist|json|all
let args = CommandLine.arguments
// The garage cache as this build writes it: a load stores every settled file's entry.
if args.count > 4, args[4] == "warm" { _ = GarageLoader.load(at: args[1]) }
let f = CacheCodecExperiment.run(root: args[1], rounds: Int(args[2]) ?? 1, only: args.count > 3 ? args[3] : "all")
func ms(_ x: Double) -> String { x.isFinite ? String(format: "%.2f ms", x) : "-" }
print("files \(f.files), round trips: \(f.roundTrips)")
print("hand:  \(f.handBytes) bytes, encode \(ms(f.handEncode)), decode \(ms(f.handDecode))")
print("plist: \(f.plistBytes) bytes, encode \(ms(f.plistEncode)), decode \(ms(f.plistDecode))")
print("json:  \(f.jsonBytes) bytes, encode \(ms(f.jsonEncode)), decode \(ms(f.jsonDecode))")
