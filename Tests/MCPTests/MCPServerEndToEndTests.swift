import Foundation
import TestSupport
import Testing

/// The real `bikecheck mcp` over its standard input and output: one JSON-RPC message a line each
/// way, the protocol version agreed, and every kind of bad request answered with a clear error
/// while the server goes on.
@Suite struct MCPServerEndToEndTests {
    static let asOf = "2026-11-15"

    /// What the server answered to `lines` (written at once, then the input closed), by id
    /// (null-id answers under -1, in order), and how it ended.
    struct Session {
        var answers: [[String: Any]]
        var status: Int32
        var stderr: String

        func answer(_ id: Int) -> [String: Any]? { answers.first { ($0["id"] as? Int) == id } }
        func result(_ id: Int) -> [String: Any]? { answer(id)?["result"] as? [String: Any] }
        func error(_ id: Int) -> (code: Int, message: String)? {
            guard let e = answer(id)?["error"] as? [String: Any] else { return nil }
            return (e["code"] as? Int ?? 0, e["message"] as? String ?? "")
        }
    }

    static let initialize =
        #"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#

    func run(_ lines: [String], garage: TemporaryFolder, arguments: [String] = []) throws -> Session {
        let input = garage.url.appendingPathComponent(".mcp-input")
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let quoted = ([bikecheckBinary.path, "mcp", "--garage", garage.path, "--as-of", Self.asOf] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let result = try runProcess(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "exec \(quoted) < .mcp-input"], in: garage.url, environment: ["BIKECHECK_GARAGE": ""])
        var answers: [[String: Any]] = []
        for line in result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object != nil, "not one JSON object a line: \(line)")
            answers.append(object ?? [:])
        }
        #expect(result.stdout.isEmpty || result.stdout.hasSuffix("\n"))
        return Session(answers: answers, status: result.status, stderr: result.stderr)
    }

    func exampleCopy() throws -> TemporaryFolder {
        let garage = try TemporaryFolder()
        try garage.copyExampleGarage()
        return garage
    }

    func call(_ id: Int, _ tool: String, _ arguments: String = "{}") -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"tools/call","params":{"name":"\#(tool)","arguments":\#(arguments)}}"#
    }

    @Test func eachRequestGetsOneLineAndStatusIsTheCommandsJSON() throws {
        let garage = try exampleCopy()
        let session = try run(
            [Self.initialize, #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, call(2, "status")],
            garage: garage)
        #expect(session.answers.count == 3, "\(session.answers)")
        #expect(session.result(0)?["protocolVersion"] as? String == "2025-06-18")
        #expect(session.result(1)?.isEmpty == true)
        let result = try #require(session.result(2))
        let command = try runBikecheck(["status", "--format", "json", "--as-of", Self.asOf, "--garage", garage.path], in: garage.url)
        let expected = try JSONSerialization.jsonObject(with: Data(command.stdout.utf8)) as? NSDictionary
        #expect(result["structuredContent"] as? NSDictionary == expected)
        let content = try #require(result["content"] as? [[String: Any]])
        #expect(content.count == 1)
        #expect(content.first?["text"] as? String == command.stdout)
        #expect(result["isError"] as? Bool == false)
        #expect(session.status == 0, "\(session.stderr)")
    }

    @Test(arguments: [("2025-06-18", "2025-06-18"), ("2025-03-26", "2025-03-26"), ("2024-11-05", "2024-11-05"), ("1999-01-01", "2025-06-18")])
    func theProtocolVersionIsTheClientsWhenSpokenElseTheNewest(asked: String, agreed: String) throws {
        let garage = try exampleCopy()
        let initialize = Self.initialize.replacingOccurrences(of: "2025-06-18", with: asked)
        let session = try run([initialize, #"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, call(2, "part_list")], garage: garage)
        #expect(session.result(0)?["protocolVersion"] as? String == agreed)
        let tools = try #require(session.result(1)?["tools"] as? [[String: Any]])
        #expect(tools.count == 10)
        // Annotations came with 2025-03-26, structured content with 2025-06-18.
        #expect(tools.allSatisfy { ($0["annotations"] != nil) == (agreed != "2024-11-05") })
        #expect((session.result(2)?["structuredContent"] != nil) == (agreed == "2025-06-18"))
        #expect((session.result(2)?["content"] as? [[String: Any]])?.first?["text"] != nil)
    }

    @Test func everyReadToolIsReadOnlyAndDoneIsTheOneWrite() throws {
        let garage = try exampleCopy()
        let session = try run([Self.initialize, #"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#], garage: garage)
        let tools = try #require(session.result(1)?["tools"] as? [[String: Any]])
        let names = tools.compactMap { $0["name"] as? String }
        #expect(names == ["status", "validate", "history", "costs", "usage", "rides", "part_list", "part_show", "calendar", "done"])
        for tool in tools {
            let hints = tool["annotations"] as? [String: Any]
            #expect(hints?["readOnlyHint"] as? Bool == (tool["name"] as? String != "done"), "\(tool)")
            #expect((tool["inputSchema"] as? [String: Any])?["type"] as? String == "object")
        }
        let done = try #require(tools.first { $0["name"] as? String == "done" })
        let hints = done["annotations"] as? [String: Any]
        #expect(hints?["idempotentHint"] as? Bool == false)
        #expect(hints?["destructiveHint"] as? Bool == false)
        let schema = done["inputSchema"] as? [String: Any]
        #expect(schema?["required"] as? [String] == ["bike"])
        #expect(((schema?["properties"] as? [String: Any])?["intervals"] as? [String: Any])?["type"] as? String == "array")
    }

    @Test func badRequestsAreClearErrorsAndTheServerGoesOn() throws {
        let garage = try exampleCopy()
        let session = try run(
            [
                #"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,  // before initialize
                Self.initialize,
                "this is not JSON",
                #"[{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
                #"{"jsonrpc":"2.0","id":3,"method":"prompts/get"}"#,
                call(4, "statsu"),
                call(5, "status", #"{"as_of":5}"#),
                call(6, "history", #"{"bike":"grail","colour":"red"}"#),
                call(7, "status", #"{"bikes":"grial"}"#),
                call(8, "history", #"{"since":"2025-13-01"}"#),
                call(9, "part_show", "{}"),
                #"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"costs","arguments":[1]}}"#,
                #"{"jsonrpc":"2.0","id":11,"method":"resources/read","params":{"uri":"bikecheck://garage/../../etc/passwd"}}"#,
                #"{"jsonrpc":"2.0","id":12,"method":"ping"}"#,
            ], garage: garage)
        #expect(session.error(1)?.code == -32600)
        let nullID = session.answers.filter { $0["id"] is NSNull }
        #expect(nullID.compactMap { ($0["error"] as? [String: Any])?["code"] as? Int } == [-32700, -32600])
        #expect(session.error(3)?.code == -32601)
        #expect(session.error(4)?.code == -32602)
        #expect(session.error(4)?.message.contains("unknown tool 'statsu'; did you mean 'status'?") == true, "\(session.error(4)?.message ?? "")")
        #expect(session.error(5)?.message == "argument 'as_of' of tool 'status' is a number, expected a date as a string, YYYY-MM-DD")
        #expect(session.error(6)?.message.hasPrefix("tool 'history' has no argument 'colour'; it takes: bike, bikes,") == true)
        // What the command refuses is the tool's answer, in the command's words, for the model to read.
        let unknownBike = try #require(session.result(7))
        #expect(unknownBike["isError"] as? Bool == true)
        #expect(
            ((unknownBike["content"] as? [[String: Any]])?.first?["text"] as? String)?.hasPrefix("error: no bike or part 'grial'; did you mean 'grail'?")
                == true)
        let badDate = (session.result(8)?["content"] as? [[String: Any]])?.first?["text"] as? String
        #expect(badDate?.hasPrefix("error: since '2025-13-01' is not a real date") == true, "\(badDate ?? "")")
        #expect(session.error(9)?.message.hasPrefix("tool 'part_show' needs the argument 'part'") == true)
        #expect(session.error(10)?.message == "the arguments of tool 'costs' must be an object, not an array")
        #expect(session.error(11)?.code == -32002)
        #expect(session.result(12) != nil)
        #expect(session.status == 0, "\(session.stderr)")
    }

    @Test func aGarageWithErrorsAnswersWithValidatesJSONAsAToolError() throws {
        let garage = try exampleCopy()
        let grail = try String(contentsOf: garage.url.appendingPathComponent("bikes/grail.yaml"), encoding: .utf8)
        try garage.write("bikes/grail.yaml", grail.replacingOccurrences(of: "templates: [", with: "templates: [no-such-template, "))
        let session = try run([Self.initialize, call(1, "status"), call(2, "validate"), call(3, "costs")], garage: garage)
        for id in [1, 3] {
            let result = try #require(session.result(id))
            #expect(result["isError"] as? Bool == true)
            let structured = result["structuredContent"] as? [String: Any]
            #expect((structured?["errors"] as? Int ?? 0) > 0, "\(result)")
        }
        // validate's answer is the diagnostics, not a failure of the tool.
        #expect(session.result(2)?["isError"] as? Bool == false)
        #expect(((session.result(2)?["structuredContent"] as? [String: Any])?["errors"] as? Int ?? 0) > 0)
    }

    @Test func theGarageFilesAreResourcesAndNothingElseIs() throws {
        let garage = try exampleCopy()
        let session = try run(
            [
                Self.initialize, #"{"jsonrpc":"2.0","id":1,"method":"resources/list"}"#,
                #"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"bikecheck://garage/bikes/grail.yaml"}}"#,
                #"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"bikecheck://garage/activities/2025-06.json"}}"#,
            ], garage: garage)
        let resources = try #require(session.result(1)?["resources"] as? [[String: Any]])
        let uris = resources.compactMap { $0["uri"] as? String }
        #expect(uris.first == "bikecheck://garage/garage.yaml")
        #expect(uris.contains("bikecheck://garage/bikes/grail.yaml"))
        #expect(uris.allSatisfy { $0.hasSuffix(".yaml") })
        #expect(resources.allSatisfy { $0["mimeType"] as? String == "application/yaml" })
        let contents = try #require((session.result(2)?["contents"] as? [[String: Any]])?.first)
        #expect(contents["text"] as? String == (try String(contentsOf: garage.url.appendingPathComponent("bikes/grail.yaml"), encoding: .utf8)))
        #expect(session.error(3)?.code == -32002)
    }
}

extension MCPServerEndToEndTests {
    @Test func aValueIsNeverReadAsAnOption() throws {
        let garage = try exampleCopy()
        let other = try TemporaryFolder()
        try other.copyExampleGarage()
        let session = try run(
            [
                Self.initialize, call(1, "status", #"{"bikes":["--garage=\#(other.path)"]}"#), call(2, "history", #"{"interval":"--help"}"#),
                call(3, "done", #"{"bike":"grail","intervals":["chain-lube"],"note":"--commit"}"#),
            ], garage: garage)
        let text = { (id: Int) in ((session.result(id)?["content"] as? [[String: Any]])?.first?["text"] as? String) ?? "" }
        #expect(session.result(1)?["isError"] as? Bool == true)
        #expect(text(1).hasPrefix("error: no bike or part '--garage="), "\(text(1))")
        #expect(text(2).hasPrefix("error: no interval '--help'"), "\(text(2))")
        // The note is the text "--commit", in the planned entry, and nothing is committed.
        let plan = session.result(3)?["structuredContent"] as? [String: Any]
        #expect((plan?["diff"] as? String)?.contains("--commit") == true, "\(text(3))")
        #expect(plan?["dry_run"] as? Bool == true)
    }
}

extension MCPServerEndToEndTests {
    func git(_ arguments: [String], in garage: TemporaryFolder) throws -> CommandResult {
        try runProcess(
            URL(fileURLWithPath: "/usr/bin/git"), ["-c", "core.hooksPath=/dev/null"] + arguments, in: garage.url,
            environment: [
                "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org",
                "GIT_CONFIG_GLOBAL": "/dev/null",
            ])
    }

    /// The token of one session confirms in the next (it is the change's, not the session's),
    /// and `commit: true` commits as `done --commit` does.
    @Test func aConfirmedDoneWithCommitCommitsTheFile() throws {
        let garage = try exampleCopy()
        for arguments in [["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "start"]] {
            #expect(try git(arguments, in: garage).status == 0)
        }
        let done = #"{"bike":"grail","intervals":["chain-lube"],"date":"2026-11-14","commit":true"#
        let plan = try run([Self.initialize, call(1, "done", done + "}")], garage: garage)
        let token = try #require((plan.result(1)?["structuredContent"] as? [String: Any])?["confirm"] as? String)
        #expect(try git(["status", "--porcelain"], in: garage).stdout.isEmpty)
        let write = try run([Self.initialize, call(1, "done", done + #","confirm":"\#(token)"}"#)], garage: garage)
        let report = try #require(write.result(1)?["structuredContent"] as? [String: Any], "\(write.answers)")
        #expect(write.result(1)?["isError"] as? Bool == false, "\(report)")
        #expect(report["commit"] is String, "\(report)")
        #expect(try git(["log", "-1", "--format=%s"], in: garage).stdout == "grail: chain-lube done 2026-11-14\n")
        #expect(try git(["status", "--porcelain"], in: garage).stdout.isEmpty)
        // The same token again: the file changed, so it is no longer this change's.
        let again = try run([Self.initialize, call(1, "done", done + #","confirm":"\#(token)"}"#)], garage: garage)
        #expect(again.result(1)?["isError"] as? Bool == true)
    }
}
