import BikeCheckLSP
import Foundation
import TestSupport
import Testing

/// The edits of a code action (`edit.documentChanges`, versioned) for the document `uri`.
func documentEdits(_ action: [String: Any]?, _ uri: String) -> [[String: Any]]? {
    let changes = (action?["edit"] as? [String: Any])?["documentChanges"] as? [[String: Any]]
    let forDocument = changes?.first { ($0["textDocument"] as? [String: Any])?["uri"] as? String == uri }
    return forDocument?["edits"] as? [[String: Any]]
}

/// The language server's limits: a message larger than the cap is refused as it arrives (an
/// error, never held), a `Content-Length` no stream could follow stops the server with an error
/// (never a silent skip of everything after it), and a code action's edit names the version of
/// the buffer it was computed on.
@Suite struct LSPLimitsEndToEndTests {
    @Test func aBodyAboveTheCapIsRefusedAsItArrivesNeverHeld() {
        var framer = MessageFramer()
        let size = MessageFramer.bodyLimit + 1
        framer.append(Array("Content-Length: \(size)\r\n\r\n".utf8))
        guard case .garbage(let reason) = framer.next() else {
            Issue.record("expected the body to be refused")
            return
        }
        #expect(reason.contains("more than \(MessageFramer.bodyLimit)"))
        var left = size
        let chunk = [UInt8](repeating: 32, count: 1 << 20)
        while left > 0 {
            let n = min(left, chunk.count)
            framer.append(chunk[0..<n])
            left -= n
            #expect(framer.next() == nil)
            #expect(framer.pending == 0)
        }
        let one = MessageFramer.frame(Array(#"{"jsonrpc":"2.0","method":"a"}"#.utf8))
        framer.append(one)
        #expect(framer.next() == .message(Array(#"{"jsonrpc":"2.0","method":"a"}"#.utf8)))
        // Below what the server could hold: a 500 MB didOpen is refused.
        #expect(MessageFramer.bodyLimit < 500_000_000 / 4)
    }

    @Test func anImpossibleContentLengthIsAnErrorAndTheServerStops() throws {
        let garage = try TemporaryFolder()
        try garage.write("garage.yaml", "units: metric\n")
        let client = try LSPClient(in: garage.url)
        client.start(root: garage.url)
        let before = client.count
        client.writeRaw(Array("Content-Length: 123456789012\r\n\r\n".utf8) + LSPClient.frame(["jsonrpc": "2.0", "id": 99, "method": "shutdown"]))
        let error = client.waitFor(after: before) { $0["error"] != nil }
        let message = (error?["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("123456789012") && message.contains("cannot be followed"), "\(String(describing: error))")
        #expect(client.exitStatus() == 1, "the server stops rather than lose every later message")
        #expect(client.response(99, timeout: 1) == nil)
    }

    @Test func aCodeActionsEditNamesTheVersionOfTheBufferItWasComputedOn() throws {
        let garage = try TemporaryFolder()
        try garage.write("garage.yaml", "units: metric\n")
        try garage.write("templates/road-basics.yaml", "name: Road basics\nintervals:\n  chain:\n    every: 10 h\n")
        let text = "name: Tarmac\ntemplates: [road-basic]\n"
        try garage.write("bikes/tarmac.yaml", text)
        let client = try LSPClient(in: garage.url)
        client.start(root: garage.url)
        let uri = garage.url.appendingPathComponent("bikes/tarmac.yaml").absoluteString
        client.open(uri, text, version: 3)
        client.change(uri, version: 7, [["text": text]])
        let response = client.request(
            "textDocument/codeAction", ["textDocument": ["uri": uri], "range": lspRange(1, 14, 1, 14), "context": ["diagnostics": [Any]()]])
        let action = (response?["result"] as? [[String: Any]])?.first
        let changes = (action?["edit"] as? [String: Any])?["documentChanges"] as? [[String: Any]]
        let document = changes?.first?["textDocument"] as? [String: Any]
        #expect(document?["uri"] as? String == uri)
        #expect(document?["version"] as? Int == 7, "\(String(describing: action))")
        #expect(documentEdits(action, uri)?.first?["newText"] as? String == "road-basics")
        #expect(client.stop() == 0)
    }
}
