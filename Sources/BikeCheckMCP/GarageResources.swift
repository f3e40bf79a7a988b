import BikeCheckKit
import Foundation
import JSONRPC

/// The garage's YAML files as MCP resources (`bikecheck://garage/bikes/grail.yaml`): the files
/// the loader reads (`GarageLoader.garageFiles`), nothing else, and none through a link that
/// leads outside the garage.
package struct GarageResources: Sendable {
    package let root: String

    package static let scheme = "bikecheck://garage/"
    package static let mimeType = "application/yaml"

    package init(root: String) {
        self.root = root
    }

    /// `resources/list`'s resources.
    func list() -> JSONValue {
        .array(
            GarageLoader.garageFiles(at: root).map { relative in
                .object([
                    "uri": .string(Self.scheme + relative), "name": .string(relative), "title": .string(Self.title(relative)),
                    "mimeType": .string(Self.mimeType),
                ])
            })
    }

    /// `resources/read`'s contents for `uri`, or why there is none (MCP: -32002, resource not found).
    func read(_ uri: String) -> Checked<JSONValue> {
        guard uri.hasPrefix(Self.scheme) else {
            return .bad("no resource '\(uri)': the garage's files are \(Self.scheme)PATH, e.g. \(Self.scheme)garage.yaml")
        }
        let relative = String(uri.dropFirst(Self.scheme.count))
        let files = GarageLoader.garageFiles(at: root)
        guard files.contains(relative) else {
            return .bad("no resource '\(uri)'\(didYouMean(relative, among: files)): resources/list names the garage's files")
        }
        guard case .read(let path) = GarageBoundary(root: root).access(relative) else { return .bad("'\(relative)' leads outside the garage") }
        switch readFile(path, limit: FileSizeLimit.garageFile) {
        case .bytes(let bytes):
            var content: [String: JSONValue] = ["uri": .string(uri), "mimeType": .string(Self.mimeType)]
            if let text = String(validating: bytes, as: UTF8.self) {
                content["text"] = .string(text)
            } else {
                content["blob"] = .string(Data(bytes).base64EncodedString())
            }
            return .ok(.object(["contents": .array([.object(content)])]))
        case .tooLarge(let size): return .bad("'\(relative)' is \(size) bytes, more than a garage file may be (\(FileSizeLimit.garageFile))")
        case .unreadable: return .bad("'\(relative)' cannot be read")
        }
    }

    /// "bike grail", "template road-basics", "garage settings".
    static func title(_ relative: String) -> String {
        let parts = relative.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return relative == "garage.yaml" ? "garage settings" : relative == "rides.yaml" ? "hand-entered rides" : relative }
        let kind = ["bikes": "bike", "parts": "part", "templates": "template"][parts[0]] ?? parts[0]
        return "\(kind) \(GarageLoader.stem(parts[1]))"
    }
}
