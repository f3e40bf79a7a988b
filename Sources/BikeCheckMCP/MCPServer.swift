import BikeCheckKit
import Foundation
import JSONRPC

/// The MCP server's state and its answer to each message: the lifecycle with its protocol
/// version, the tools and the garage's files as resources. It does no I/O (`MCPServerLoop` reads
/// and writes the pipes), so one message in gives the messages out.
package final class MCPServer {
    /// The protocol versions this server speaks, newest first: a client asking for one of them
    /// gets it, any other gets the newest (and may disconnect).
    package static let protocolVersions = ["2025-06-18", "2025-03-26", "2024-11-05"]

    private let tools: [MCPTool]
    private let resources: GarageResources
    private let instructions: String
    /// The version agreed at `initialize`; nil before.
    package private(set) var version: String?

    package init(tools: [MCPTool], resources: GarageResources, instructions: String) {
        self.tools = tools
        self.resources = resources
        self.instructions = instructions
    }

    /// The answer to one message (none for a notification or a response).
    package func handle(_ body: [UInt8]) -> [Outgoing] {
        let data = Data(body)
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: data) else {
            return [.error(nil, .parseError, "the message is not JSON")]
        }
        guard case .object(let message) = value else {
            // 2025-06-18 has no batches; an array is answered as one bad request.
            return [.error(nil, .invalidRequest, "a message is one JSON-RPC object (batches are not supported)")]
        }
        let id = try? JSONDecoder().decode(Envelope.self, from: data).id
        guard case .string(let method)? = message["method"] else {
            // A response to a request of ours (this server sends none), or a request without a method.
            if message["result"] != nil || message["error"] != nil { return [] }
            return [.error(id, .invalidRequest, "a request needs a method")]
        }
        var params: [String: JSONValue] = [:]
        switch message["params"] {
        case nil, .null?: break
        case .object(let p)?: params = p
        default: return id.map { [.error($0, .invalidParams, "params must be an object")] } ?? []
        }
        // Notifications (initialized, cancelled, …) need no answer: requests run one at a time,
        // so there is nothing to cancel.
        guard let id else { return [] }
        if version == nil, method != "initialize", method != "ping" {
            return [.error(id, .invalidRequest, "initialize first")]
        }
        switch answer(method, params) {
        case .ok(let result): return [.result(id, result)]
        case .failed(let code, let text): return [.error(id, code, text)]
        }
    }

    private enum Answer {
        case ok(JSONValue)
        case failed(ErrorCode, String)
    }

    private func answer(_ method: String, _ params: [String: JSONValue]) -> Answer {
        switch method {
        case "initialize":
            guard version == nil else { return .failed(.invalidRequest, "initialize was already sent") }
            guard case .string(let asked)? = params["protocolVersion"] else { return .failed(.invalidParams, "initialize needs a protocolVersion") }
            let agreed = Self.protocolVersions.contains(asked) ? asked : Self.protocolVersions[0]
            version = agreed
            return .ok(
                .object([
                    "protocolVersion": .string(agreed),
                    "capabilities": .object([
                        "tools": .object(["listChanged": .bool(false)]),
                        "resources": .object(["listChanged": .bool(false), "subscribe": .bool(false)]),
                    ]),
                    "serverInfo": .object(["name": .string("bikecheck"), "title": .string("bikecheck"), "version": .string(bikecheckVersion)]),
                    "instructions": .string(instructions),
                ]))
        case "ping":
            return .ok(.object([:]))
        case "tools/list":
            // Annotations came with 2025-03-26.
            let annotated = version != "2024-11-05"
            return .ok(.object(["tools": .array(tools.map { $0.listing(annotated: annotated) })]))
        case "tools/call":
            return call(params)
        case "resources/list":
            return .ok(.object(["resources": resources.list()]))
        case "resources/templates/list":
            return .ok(.object(["resourceTemplates": .array([])]))
        case "resources/read":
            guard case .string(let uri)? = params["uri"] else { return .failed(.invalidParams, "resources/read needs a uri") }
            switch resources.read(uri) {
            case .ok(let contents): return .ok(contents)
            case .bad(let why): return .failed(.resourceNotFound, why)
            }
        default:
            return .failed(.methodNotFound, "unknown method '\(method)'")
        }
    }

    /// `tools/call`: an unknown tool or arguments that do not fit its schema are a JSON-RPC error
    /// (invalid params, saying what fits); what goes wrong in the tool (an unknown bike, a garage
    /// with errors, a refused write) is its result, with `isError`, for the model to read.
    private func call(_ params: [String: JSONValue]) -> Answer {
        guard case .string(let name)? = params["name"] else { return .failed(.invalidParams, "tools/call needs the tool's name") }
        guard let tool = tools.first(where: { $0.name == name }) else {
            let names = tools.map(\.name)
            return .failed(.invalidParams, "unknown tool '\(name)'\(didYouMean(name, among: names)); tools: \(names.joined(separator: ", "))")
        }
        var given: [String: JSONValue] = [:]
        switch params["arguments"] {
        case nil, .null?: break
        case .object(let a)?: given = a
        case let other?: return .failed(.invalidParams, "the arguments of tool '\(name)' must be an object, not \(other.kind)")
        }
        switch tool.check(given) {
        case .bad(let why): return .failed(.invalidParams, why)
        case .ok(let arguments):
            let result = tool.call(arguments)
            var out: [String: JSONValue] = [
                "content": .array([.object(["type": .string("text"), "text": .string(result.text)])]),
                "isError": .bool(result.isError),
            ]
            // Structured content came with 2025-06-18.
            if let structured = result.structured, version == Self.protocolVersions[0] { out["structuredContent"] = structured }
            return .ok(.object(out))
        }
    }
}
