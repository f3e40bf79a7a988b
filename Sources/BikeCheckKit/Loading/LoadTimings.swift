import Foundation

/// How long each stage of one garage load took, in seconds (`BIKECHECK_TIMINGS=1` prints it):
/// the stages of the pipeline, and the activity cache, read meanwhile on another thread. Files
/// are read, composed and decoded on all cores, so those three are summed over the files; the
/// others are wall-clock time.
package struct LoadTimings: Sendable, Equatable {
    package var read = 0.0
    package var compose = 0.0
    package var decode = 0.0
    package var resolve = 0.0
    package var check = 0.0
    package var activities = 0.0
    package var total = 0.0
    /// Month files of the cache answered from the activity index.
    package var indexed = 0
    /// Garage files answered from the garage cache.
    package var cached = 0

    package init() {}

    /// `timings: read 0.21 ms, compose 1.30 ms, …, total 9.80 ms (index: 12 month files) (garage cache: 8 files)`.
    package var line: String {
        let stages = [
            ("read", read), ("compose", compose), ("decode", decode), ("resolve", resolve), ("check", check),
            ("activities", activities), ("total", total),
        ]
        let text = stages.map { "\($0.0) \(String(format: "%.2f", $0.1 * 1000)) ms" }.joined(separator: ", ")
        return "timings: " + text + " (index: \(indexed) month file\(indexed == 1 ? "" : "s"))"
            + " (garage cache: \(cached) file\(cached == 1 ? "" : "s"))"
    }

    /// One file's share of the first three stages.
    struct FileTime: Sendable {
        var read = 0.0
        var compose = 0.0
        var decode = 0.0
        /// Answered from the garage cache.
        var cached = false
    }

    mutating func add(_ file: FileTime) {
        read += file.read
        compose += file.compose
        decode += file.decode
        if file.cached { cached += 1 }
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    static func since(_ start: UInt64) -> Double { Double(now() &- start) / 1e9 }
}
