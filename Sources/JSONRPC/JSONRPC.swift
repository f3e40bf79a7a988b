import Foundation

/// A JSON-RPC request id: a number or a string, echoed back as it came.
package enum RequestID: Codable, Sendable, Hashable {
    case number(Int)
    case string(String)

    package init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let n = try? c.decode(Int.self) { self = .number(n) } else { self = .string(try c.decode(String.self)) }
    }

    package func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .number(let n): try c.encode(n)
        case .string(let s): try c.encode(s)
        }
    }
}

/// JSON-RPC error codes the servers answer with (the language server's and the MCP server's),
/// with the LSP's own beside JSON-RPC's.
package enum ErrorCode: Int, Sendable {
    case parseError = -32700
    case invalidRequest = -32600
    case methodNotFound = -32601
    case invalidParams = -32602
    case internalError = -32603
    case serverNotInitialized = -32002
    case requestCancelled = -32800
    /// The request was valid but could not be done (a rename of something that is not an id).
    case requestFailed = -32803

    /// MCP's "resource not found": the same number as the LSP's `serverNotInitialized`.
    package static let resourceNotFound = ErrorCode.serverNotInitialized
}

/// What every incoming message has, read before its parameters.
package struct Envelope: Decodable {
    package var id: RequestID?
    package var method: String?
}

/// The parameters of a message, decoded to the type its method expects.
package struct Parameters<P: Decodable>: Decodable {
    package var params: P
}

/// One message to the client: a response (with a result or an error), a notification, or a
/// request of the server's (`client/registerCapability`). Its `body` is one line of JSON: the
/// language server frames it with `Content-Length` (`MessageFramer`), the MCP server ends it with
/// a newline.
package enum Outgoing: Encodable {
    case result(RequestID, any Encodable & Sendable)
    /// A nil id answers a message whose id could not be read (a parse error).
    case error(RequestID?, ErrorCode, String)
    case notification(String, any Encodable & Sendable)
    case request(RequestID, String, any Encodable & Sendable)

    private enum Keys: String, CodingKey { case jsonrpc, id, result, error, method, params, code, message }

    package func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode("2.0", forKey: .jsonrpc)
        switch self {
        case .result(let id, let result):
            try c.encode(id, forKey: .id)
            try c.encode(result, forKey: .result)
        case .error(let id, let code, let message):
            if let id { try c.encode(id, forKey: .id) } else { try c.encodeNil(forKey: .id) }
            var e = c.nestedContainer(keyedBy: Keys.self, forKey: .error)
            try e.encode(code.rawValue, forKey: .code)
            try e.encode(message, forKey: .message)
        case .notification(let method, let params):
            try c.encode(method, forKey: .method)
            try c.encode(params, forKey: .params)
        case .request(let id, let method, let params):
            try c.encode(id, forKey: .id)
            try c.encode(method, forKey: .method)
            try c.encode(params, forKey: .params)
        }
    }

    /// The JSON body: one line of UTF-8.
    package var body: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Every value here is a plain struct of strings and numbers: encoding cannot fail.
        return (try? Array(encoder.encode(self))) ?? Array(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"cannot encode"}}"#.utf8)
    }
}

/// JSON `null`, for results that are null (`shutdown`, a definition not found).
package struct Null: Encodable, Sendable {
    package init() {}
    package func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encodeNil()
    }
}
