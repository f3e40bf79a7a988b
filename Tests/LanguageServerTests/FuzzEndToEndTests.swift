import Foundation
import TestSupport
import Testing

/// Random and truncated messages and random edits, sent to the real server: it never crashes,
/// never hangs, answers correctly afterwards and its memory stays bounded.
/// `BIKECHECK_LSP_FUZZ=10000` makes the run long; `BIKECHECK_LSP_FUZZ_SEED` repeats one.
@Suite struct FuzzEndToEndTests {
    /// SplitMix64: the same seed gives the same run.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func residentKilobytes(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    @Test func randomMessagesAndEditsNeverCrashOrHangTheServer() throws {
        let environment = ProcessInfo.processInfo.environment
        let iterations = environment["BIKECHECK_LSP_FUZZ"].flatMap(Int.init) ?? 400
        let seed = environment["BIKECHECK_LSP_FUZZ_SEED"].flatMap(UInt64.init) ?? UInt64(Date().timeIntervalSince1970 * 1000)
        var random = Generator(state: seed)
        let bike = "name: Grail\ntemplates: [road]\nlog:\n  - date: 2025-01-02\n    done: [chain-lube]\n"
        let garage = try TemporaryFolder([
            "garage.yaml": Array("units: metric\n".utf8), "bikes/grail.yaml": Array(bike.utf8),
            "templates/road.yaml": Array("name: Road\nintervals:\n  chain-lube:\n    task: Lube\n    every: 10 h\n".utf8),
        ])
        let client = try LSPClient(in: garage.url)
        client.start(root: garage.url)
        let uri = garage.url.appendingPathComponent("bikes/grail.yaml").absoluteString
        client.open(uri, bike)

        let pieces = [
            "é", "😀", "\n", "  ", "- ", ": ", "[", "]", "{", "}", "chain-lube", "road", "every: 8 h", "#", "\"", "\r\n", "&a", "*a", "\t", "\u{202E}",
        ]
        let methods = ["textDocument/completion", "textDocument/definition", "textDocument/hover", "textDocument/documentSymbol", "textDocument/nothing"]
        var version = 1
        var midpoint = 0
        var edits = 0
        for i in 0..<iterations {
            if i == iterations / 4 { midpoint = Self.residentKilobytes(client.process.processIdentifier) }
            switch Int.random(in: 0..<10, using: &random) {
            case 0:
                // Random bytes, sometimes framed.
                let bytes = (0..<Int.random(in: 0..<200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                client.writeRaw(Bool.random(using: &random) ? Array("Content-Length: \(bytes.count)\r\n\r\n".utf8) + bytes : bytes)
            case 1:
                // A message cut short: its header promises more than comes.
                let whole = LSPClient.frame(["jsonrpc": "2.0", "id": 5000 + i, "method": methods.randomElement(using: &random)!, "params": [:]])
                client.writeRaw(Array(whole.prefix(Int.random(in: 1..<whole.count, using: &random))))
            case 2:
                // Well-formed JSON that is not what the method wants.
                client.send(methods.randomElement(using: &random)!, ["textDocument": ["uri": uri], "position": ["line": "x"]])
            case 3, 4:
                let line = Int.random(in: -1..<12, using: &random), character = Int.random(in: -1..<40, using: &random)
                client.send(methods.randomElement(using: &random)!, ["textDocument": ["uri": uri], "position": ["line": line, "character": character]])
            default:
                // A random edit: a range anywhere (past the end, inside a surrogate pair, reversed).
                version += 1
                edits += 1
                let a = [Int.random(in: 0..<10, using: &random), Int.random(in: 0..<30, using: &random)]
                let b = [Int.random(in: 0..<10, using: &random), Int.random(in: 0..<30, using: &random)]
                let text = (0..<Int.random(in: 0..<4, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
                client.change(uri, version: version, [["range": lspRange(a[0], a[1], b[0], b[1]), "text": text]])
            }
        }
        // Whatever a cut message left waiting is filled, then the framer finds the next header.
        client.writeRaw([UInt8](repeating: 32, count: 5000) + [UInt8](repeating: 120, count: 9000))
        // Answered after every edit before it was checked: what follows is the last edit's.
        let sync = client.send("textDocument/documentSymbol", ["textDocument": ["uri": uri]])
        // Every request first checks the edits before it: a long run takes a while to drain.
        let patience = TimeInterval(max(60, iterations / 20))
        #expect(client.response(sync, timeout: patience)?["result"] != nil, "the server did not answer after the fuzz (seed \(seed))")
        let from = client.count
        client.change(uri, version: version + 1, [["text": bike.replacingOccurrences(of: "[road]", with: "[roab]")]])
        let after = client.diagnostics(for: uri, after: from, timeout: 60)
        #expect(after?.compactMap { $0["code"] as? String } == ["unknown-template"], "seed \(seed)")
        let end = Self.residentKilobytes(client.process.processIdentifier)
        #expect(end <= max(midpoint * 2, midpoint + 64 << 10), "resident memory grew from \(midpoint) kB to \(end) kB (seed \(seed))")
        if environment["BIKECHECK_LSP_FUZZ"] != nil {
            print("LSP FUZZ seed \(seed): \(iterations) messages, \(edits) of them edits; resident \(midpoint) kB after a quarter, \(end) kB at the end")
        }
        #expect(client.stop() == 0, "seed \(seed): \(client.stderr.suffix(500))")
    }
}
