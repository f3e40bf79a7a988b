import Foundation
import TestSupport
import Testing

/// The real `bikecheck lsp` over pipes: framing as a pipe delivers it, the lifecycle and its exit
/// codes, and what is answered to what it does not know.
@Suite struct ProtocolEndToEndTests {
    let garage: TemporaryFolder

    init() throws {
        garage = try TemporaryFolder(["garage.yaml": Array("units: metric\n".utf8)])
    }

    @Test func initializeAnnouncesIncrementalSyncUTF16AndTheFeatures() throws {
        let client = try LSPClient(in: garage.url)
        let response = client.start(root: garage.url)
        let capabilities = (response?["result"] as? [String: Any])?["capabilities"] as? [String: Any]
        #expect(capabilities?["positionEncoding"] as? String == "utf-16")
        #expect((capabilities?["textDocumentSync"] as? [String: Any])?["change"] as? Int == 2)
        #expect(capabilities?["definitionProvider"] as? Bool == true)
        #expect(capabilities?["completionProvider"] != nil)
        #expect(client.stop() == 0)
    }

    @Test func exitWithoutShutdownExitsOneAndEndOfInputToo() throws {
        let a = try LSPClient(in: garage.url)
        a.start(root: garage.url)
        a.notify("exit")
        #expect(a.exitStatus() == 1)

        let b = try LSPClient(in: garage.url)
        b.start(root: garage.url)
        b.closeInput()
        #expect(b.exitStatus() == 1)
    }

    @Test func requestsBeforeInitializeAndAfterShutdownAreRefused() throws {
        let client = try LSPClient(in: garage.url)
        let early = client.request("textDocument/documentSymbol", ["textDocument": ["uri": "file:///x.yaml"]])
        #expect((early?["error"] as? [String: Any])?["code"] as? Int == -32002)
        client.start(root: garage.url)
        _ = client.request("shutdown")
        let late = client.request("textDocument/documentSymbol", ["textDocument": ["uri": "file:///x.yaml"]])
        #expect((late?["error"] as? [String: Any])?["code"] as? Int == -32600)
        client.notify("exit")
        #expect(client.exitStatus() == 0)
    }

    @Test func anUnknownRequestIsMethodNotFoundAndAnUnknownNotificationIsIgnored() throws {
        let client = try LSPClient(in: garage.url)
        client.start(root: garage.url)
        client.notify("workspace/somethingNew", ["x": 1])
        let before = client.count
        let answer = client.request("textDocument/somethingNew", ["x": 1])
        #expect((answer?["error"] as? [String: Any])?["code"] as? Int == -32601)
        // The notification got no answer: the only message since is the error above.
        #expect(client.count == before + 1)
        #expect(client.stop() == 0)
    }

    @Test func garbageGetsAParseErrorAndTheServerGoesOn() throws {
        let client = try LSPClient(in: garage.url)
        client.start(root: garage.url)
        let from = client.count
        // Not JSON in a good frame, then no frame at all, then a good request.
        client.writeRaw(Array("Content-Length: 9\r\n\r\n{not json".utf8))
        client.writeRaw(Array("this is not a header\r\n\r\n".utf8))
        let id = client.send("textDocument/documentSymbol", ["textDocument": ["uri": "file:///x.yaml"]])
        let answer = client.response(id)
        #expect(answer?["result"] != nil)
        let errors = client.messages[from...].filter { ($0["error"] as? [String: Any])?["code"] as? Int == -32700 }
        #expect(errors.count == 2)
        #expect(errors.allSatisfy { $0["id"] is NSNull })
        #expect(client.stop() == 0)
    }

    @Test func messagesSplitAnywhereAndSeveralInOneWriteAllArrive() throws {
        let client = try LSPClient(in: garage.url)
        client.start(root: garage.url)
        var stream: [UInt8] = []
        for id in 100..<110 {
            stream += LSPClient.frame([
                "jsonrpc": "2.0", "id": id, "method": "textDocument/documentSymbol", "params": ["textDocument": ["uri": "file:///é/😀.yaml"]],
            ])
        }
        // Pieces of 1 to 37 bytes, cutting headers, bodies and multi-byte characters.
        var i = 0, size = 1
        while i < stream.count {
            client.writeRaw(Array(stream[i..<min(i + size, stream.count)]))
            i += size
            size = size % 37 + 1
            if size % 5 == 0 { Thread.sleep(forTimeInterval: 0.001) }
        }
        for id in 100..<110 { #expect(client.response(id)?["result"] != nil, "request \(id)") }
        #expect(client.stop() == 0)
    }

    @Test func aRequestCancelledInTheSameBatchIsAnsweredAsCancelled() throws {
        let client = try LSPClient(in: garage.url)
        client.start(root: garage.url)
        // One write: the server takes both in one batch.
        let request = LSPClient.frame([
            "jsonrpc": "2.0", "id": 77, "method": "textDocument/documentSymbol", "params": ["textDocument": ["uri": "file:///x.yaml"]],
        ])
        let cancel = LSPClient.frame(["jsonrpc": "2.0", "method": "$/cancelRequest", "params": ["id": 77]])
        client.writeRaw(request + cancel)
        let answer = client.response(77)
        #expect((answer?["error"] as? [String: Any])?["code"] as? Int == -32800)
        // A cancel for a request long answered is accepted silently.
        client.notify("$/cancelRequest", ["id": 1])
        #expect(client.request("textDocument/documentSymbol", ["textDocument": ["uri": "file:///x.yaml"]])?["result"] != nil)
        #expect(client.stop() == 0)
    }

    @Test func invalidParametersAreInvalidParamsNotACrash() throws {
        let client = try LSPClient(in: garage.url)
        client.start(root: garage.url)
        let answer = client.request("textDocument/completion", ["textDocument": 5])
        #expect((answer?["error"] as? [String: Any])?["code"] as? Int == -32602)
        #expect(client.stop() == 0)
    }

    @Test func aGarageNamedOnTheCommandLineWinsOverTheWorkspace() throws {
        let other = try TemporaryFolder(["garage.yaml": Array("units: metric\n".utf8), "bikes/x.yaml": Array("name: X\ntemplates: [nope]\n".utf8)])
        let client = try LSPClient(in: garage.url, arguments: ["lsp", "--garage", other.path])
        client.start(root: garage.url)
        let from = client.count
        _ = client.request("textDocument/hover", ["textDocument": ["uri": "file:///x.yaml"], "position": ["line": 0, "character": 0]])
        let published = client.messages[from...].filter { ($0["method"] as? String) == "textDocument/publishDiagnostics" }
        let uris = published.compactMap { ($0["params"] as? [String: Any])?["uri"] as? String }
        #expect(uris == [other.url.appendingPathComponent("bikes/x.yaml").absoluteString])
        #expect(client.stop() == 0)
    }
}
