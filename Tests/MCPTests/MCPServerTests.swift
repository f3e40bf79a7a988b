import BikeCheckMCP
import Foundation
import JSONRPC
import Testing

/// `MCPServer` without pipes: one message in, the messages out; the lifecycle and each tool's
/// declared arguments, checked before the tool runs.
@Suite struct MCPServerTests {
    /// A server with one tool that echoes what it was given, on a garage that does not exist
    /// (no tool here reads it).
    func server() -> MCPServer {
        let echo = MCPTool(
            name: "echo", title: "Echo", description: "Says what it got.",
            arguments: [
                .init("word", .string, "A word.", required: true), .init("words", .strings, "Words."), .init("cost", .amount, "Money."),
                .init("loud", .boolean, "Shout."), .init("per", .choice(["month", "year"]), "A period."),
            ],
            annotations: .readOnly
        ) { arguments in
            let given = arguments.values.keys.sorted().map { "\($0)=\(arguments.values[$0].map { "\($0)" } ?? "")" }
            let json = (try? JSONEncoder().encode(["given": given.joined(separator: ";")])) ?? Data()
            return .json(String(decoding: json, as: UTF8.self))
        }
        return MCPServer(tools: [echo], resources: GarageResources(root: "/nonexistent"), instructions: "test")
    }

    func send(_ server: MCPServer, _ json: String) throws -> [String: Any] {
        let out = server.handle(Array(json.utf8))
        #expect(out.count == 1)
        let body = try #require(out.first?.body)
        return try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
    }

    func started() throws -> MCPServer {
        let server = server()
        _ = try send(server, #"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#)
        return server
    }

    func call(_ server: MCPServer, _ arguments: String) throws -> (result: [String: Any]?, error: String?) {
        let answer = try send(server, #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":\#(arguments)}}"#)
        return (answer["result"] as? [String: Any], (answer["error"] as? [String: Any])?["message"] as? String)
    }

    @Test func notificationsGetNoAnswerAndASecondInitializeIsRefused() throws {
        let server = try started()
        #expect(server.handle(Array(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.utf8)).isEmpty)
        #expect(server.handle(Array(#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#.utf8)).isEmpty)
        let again = try send(server, #"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#)
        #expect((again["error"] as? [String: Any])?["message"] as? String == "initialize was already sent")
        #expect(server.version == "2025-06-18")
    }

    @Test func argumentsAreTakenAsDeclared() throws {
        let server = try started()
        let given = { (args: String) throws -> String? in
            ((try call(server, args).result?["structuredContent"]) as? [String: Any])?["given"] as? String
        }
        #expect(
            try given(#"{"word":"a","words":"b","cost":45.5,"loud":true,"per":"year"}"#)
                == #"cost=text("45.5");loud=flag(true);per=text("year");word=text("a");words=texts(["b"])"#)
        #expect(try given(#"{"word":"a","cost":40,"words":null}"#) == #"cost=text("40");word=text("a")"#)
    }

    @Test(arguments: [
        (#"{}"#, "tool 'echo' needs the argument 'word': A word."),
        (#"{"word":1}"#, "argument 'word' of tool 'echo' is a number, expected a string"),
        (#"{"word":"a","words":["b",2]}"#, "argument 'words' of tool 'echo' holds a number, expected strings only"),
        (#"{"word":"a","per":"week"}"#, "argument 'per' of tool 'echo' is 'week', expected one of month, year"),
        (#"{"word":"a","loud":"yes"}"#, "argument 'loud' of tool 'echo' is a string, expected true or false"),
        (#"{"word":"a","cost":{"x":1}}"#, #"argument 'cost' of tool 'echo' is an object, expected a number or a string such as "45.99 USD""#),
        (#"{"word":"a","wrod":"b"}"#, "tool 'echo' has no argument 'wrod'; it takes: word, words, cost, loud, per"),
    ])
    func argumentsThatDoNotFitAreInvalidParamsSayingWhatFits(arguments: String, message: String) throws {
        let server = try started()
        let (result, error) = try call(server, arguments)
        #expect(result == nil)
        #expect(error == message)
    }

    @Test func theSchemaIsTheDeclaration() throws {
        let server = try started()
        let list = try send(server, #"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        let tool = try #require(((list["result"] as? [String: Any])?["tools"] as? [[String: Any]])?.first)
        let schema = try #require(tool["inputSchema"] as? [String: Any])
        #expect(schema["required"] as? [String] == ["word"])
        #expect(schema["additionalProperties"] as? Bool == false)
        let properties = try #require(schema["properties"] as? [String: [String: Any]])
        #expect(properties["per"]?["enum"] as? [String] == ["month", "year"])
        #expect(properties["cost"]?["type"] as? [String] == ["string", "number"])
        #expect((properties["words"]?["items"] as? [String: Any])?["type"] as? String == "string")
    }
}
