import Foundation

/// Finds the garage: `--garage DIR`, else `BIKECHECK_GARAGE`, else the nearest folder upward
/// from the working directory that holds a `garage.yaml` (as git finds `.git`).
package enum GarageLocator {
    package enum Failure: Error, CustomStringConvertible {
        case noGarageFile(String)
        case notFound(String)

        package var description: String {
            switch self {
            case .noGarageFile(let dir): "no garage.yaml in '\(dir)'"
            case .notFound(let dir): "no garage.yaml in '\(dir)' or any folder above it; pass --garage DIR, set BIKECHECK_GARAGE, or run 'bikecheck init'"
            }
        }
    }

    package static func locate(explicit: String?, environment: [String: String], workingDirectory: String) throws(Failure) -> String {
        if let dir = explicit ?? environment["BIKECHECK_GARAGE"].flatMap({ $0.isEmpty ? nil : $0 }) {
            let absolute = dir.hasPrefix("/") ? dir : workingDirectory + "/" + dir
            let normalized = URL(fileURLWithPath: absolute).standardizedFileURL.path
            guard FileManager.default.fileExists(atPath: normalized + "/garage.yaml") else { throw .noGarageFile(dir) }
            return normalized
        }
        var url = URL(fileURLWithPath: workingDirectory).standardizedFileURL
        while true {
            if FileManager.default.fileExists(atPath: url.path + "/garage.yaml") { return url.path }
            let parent = url.deletingLastPathComponent()
            if parent.path == url.path { throw .notFound(workingDirectory) }
            url = parent
        }
    }
}
