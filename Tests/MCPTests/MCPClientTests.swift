import Foundation
import TestSupport
import Testing

/// `bikecheck mcp` under the `mcp` package's own client (PyPI, in .build-tools/venv; pinned by
/// scripts/bootstrap): the tools and their annotations, status as the command prints it, done's
/// plan that writes nothing and its confirmation that writes what `bikecheck done` writes; and
/// docs/mcp.md's Python client, run as the page has it. A missing package fails the test with
/// what installs it: nothing is skipped.
@Suite struct MCPClientTests {
    static let clients = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients")

    func requireClient() -> Bool {
        let found = try? runProcess(toolsPython, ["-c", "import mcp"], in: repositoryRoot)
        guard found?.status == 0 else {
            Issue.record("the mcp package is not installed in \(toolsPython.path): run scripts/bootstrap --test")
            return false
        }
        return true
    }

    @Test func theMCPClientListsTheToolsGetsStatusAndConfirmsDoneAsBikecheckDoneWrites() throws {
        guard requireClient() else { return }
        let garage = try TemporaryFolder()
        try garage.copyExampleGarage()
        let twin = try TemporaryFolder()
        try twin.copyExampleGarage()
        let result = try runProcess(
            toolsPython, [Self.clients.appendingPathComponent("check_bikecheck_mcp.py").path], in: garage.url,
            environment: [
                "BIKECHECK_BIN": bikecheckBinary.path, "GARAGE": garage.path, "TWIN": twin.path, "AS_OF": "2026-11-15", "BIKECHECK_GARAGE": "",
                "PYTHONDONTWRITEBYTECODE": "1",
            ], timeout: 120)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let checks = result.stdout.split(separator: "\n").filter { $0.hasPrefix("CHECK ") }
        #expect(checks.count == 8, "\(result.stdout)\n\(result.stderr)")
    }

    /// The page's one Python block and the output it shows.
    static func documented() throws -> (script: String, output: [String]) {
        let page = try String(decoding: Data(contentsOf: repositoryRoot.appendingPathComponent("docs/mcp.md")), as: UTF8.self)
        let section = try #require(page.range(of: "\n## An MCP client from Python\n"))
        let start = try #require(page.range(of: "```python\n", range: section.upperBound..<page.endIndex))
        let end = try #require(page.range(of: "\n```\n", range: start.upperBound..<page.endIndex))
        let outputStart = try #require(page.range(of: "```\n", range: end.upperBound..<page.endIndex))
        let outputEnd = try #require(page.range(of: "\n```\n", range: outputStart.upperBound..<page.endIndex))
        let output = page[outputStart.upperBound..<outputEnd.lowerBound].split(separator: "\n").map(String.init)
        return (String(page[start.upperBound..<end.lowerBound]) + "\n", output)
    }

    @Test func thePythonClientInTheDocsRunsAsWrittenAndPrintsWhatThePageShows() throws {
        guard requireClient() else { return }
        let (script, shown) = try Self.documented()
        let garage = try TemporaryFolder()
        try garage.copyExampleGarage()
        let tools = try TemporaryFolder()
        try FileManager.default.createDirectory(at: tools.url.appendingPathComponent("bin"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: tools.url.appendingPathComponent("bin/bikecheck"), withDestinationURL: bikecheckBinary)
        try tools.write("client.py", script)
        let path = tools.url.appendingPathComponent("bin").path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let result = try runProcess(
            toolsPython, [tools.url.appendingPathComponent("client.py").path], in: garage.url,
            environment: ["PATH": path, "BIKECHECK_GARAGE": "", "PYTHONDONTWRITEBYTECODE": "1"], timeout: 120)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        // The page shows the first lines, then `…`.
        let head = Array(shown.prefix { $0 != "…" })
        #expect(Array(lines.prefix(head.count)) == head, "\(result.stdout)\n\(result.stderr)")
        #expect(lines.count > head.count)
    }

    @Test func theClaudeDesktopSnippetIsJSONThatStartsTheServer() throws {
        let page = try String(decoding: Data(contentsOf: repositoryRoot.appendingPathComponent("docs/mcp.md")), as: UTF8.self)
        let start = try #require(page.range(of: "```json\n"))
        let end = try #require(page.range(of: "\n```\n", range: start.upperBound..<page.endIndex))
        let config = try JSONSerialization.jsonObject(with: Data(page[start.upperBound..<end.lowerBound].utf8)) as? [String: Any]
        let server = (config?["mcpServers"] as? [String: Any])?["bikecheck"] as? [String: Any]
        let arguments = try #require(server?["args"] as? [String])
        #expect(arguments.first == "mcp")
        // The same arguments, on a real garage, start a server that answers.
        let garage = try TemporaryFolder()
        try garage.copyExampleGarage()
        let given = arguments.map { $0 == "/home/me/garage" ? garage.path : $0 }
        let input = garage.url.appendingPathComponent(".ping")
        try Data(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.utf8 + [10]).write(to: input)
        let quoted = ([bikecheckBinary.path] + given).map { "'\($0)'" }.joined(separator: " ")
        let result = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "exec \(quoted) < .ping"], in: garage.url, environment: ["BIKECHECK_GARAGE": ""])
        #expect(result.stdout == #"{"id":1,"jsonrpc":"2.0","result":{}}"# + "\n", "\(result.stderr)")
    }
}
