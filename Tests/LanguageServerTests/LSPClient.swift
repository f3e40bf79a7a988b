import Foundation
import TestSupport
import Testing

/// A language client for the tests: runs the real `bikecheck lsp` over pipes, writes what a
/// test asks (framed, or raw bytes), and reads the server's messages with its own small parser
/// (not the server's framer, so the two check each other).
final class LSPClient: @unchecked Sendable {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let condition = NSCondition()
    private var received: [[String: Any]] = []
    private var ended = false
    private var nextID = 1
    let stderrFile: URL

    init(in directory: URL, arguments: [String] = ["lsp"]) throws {
        process.executableURL = bikecheckBinary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        env["BIKECHECK_GARAGE"] = ""
        process.environment = env
        process.standardInput = input
        process.standardOutput = output
        stderrFile = FileManager.default.temporaryDirectory.appendingPathComponent("lsp-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: stderrFile)
        try process.run()
        let handle = output.fileHandleForReading
        Thread { [self] in
            var buffer: [UInt8] = []
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                buffer += data
                while let (body, rest) = Self.cut(buffer) {
                    buffer = rest
                    let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? ["unparsed": String(decoding: body, as: UTF8.self)]
                    condition.lock()
                    received.append(object)
                    condition.broadcast()
                    condition.unlock()
                }
            }
            condition.lock()
            ended = true
            condition.broadcast()
            condition.unlock()
        }.start()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: stderrFile)
    }

    /// One framed message off the front of `buffer`, and the rest.
    static func cut(_ buffer: [UInt8]) -> ([UInt8], [UInt8])? {
        let text = buffer.prefix(200)
        guard let end = text.indices.first(where: { i in i + 3 < text.count && Array(text[i...i + 3]) == [13, 10, 13, 10] }) else { return nil }
        let headers = String(decoding: buffer[..<end], as: UTF8.self)
        guard let line = headers.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") }),
            let length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces))
        else { return nil }
        guard buffer.count >= end + 4 + length else { return nil }
        return (Array(buffer[(end + 4)..<(end + 4 + length)]), Array(buffer[(end + 4 + length)...]))
    }

    // MARK: Writing

    func writeRaw(_ bytes: [UInt8]) {
        input.fileHandleForWriting.write(Data(bytes))
    }

    static func frame(_ object: [String: Any]) -> [UInt8] {
        let body = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
    }

    func notify(_ method: String, _ params: [String: Any] = [:]) {
        writeRaw(Self.frame(["jsonrpc": "2.0", "method": method, "params": params]))
    }

    /// Sends a request and returns its id.
    @discardableResult
    func send(_ method: String, _ params: [String: Any] = [:]) -> Int {
        let id = nextID
        nextID += 1
        writeRaw(Self.frame(["jsonrpc": "2.0", "id": id, "method": method, "params": params]))
        return id
    }

    /// Sends a request and waits for its response.
    func request(_ method: String, _ params: [String: Any] = [:], timeout: TimeInterval = 30) -> [String: Any]? {
        let id = send(method, params)
        return response(id, timeout: timeout)
    }

    func closeInput() { try? input.fileHandleForWriting.close() }

    // MARK: Reading

    /// Waits for the first message (from `from` on) that `matches`; nil after `timeout`.
    func waitFor(after from: Int = 0, timeout: TimeInterval = 30, _ matches: ([String: Any]) -> Bool) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let found = received[min(from, received.count)...].first(where: matches) { return found }
            if ended || !condition.wait(until: deadline) { return received[min(from, received.count)...].first(where: matches) }
        }
    }

    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return received.count
    }

    var messages: [[String: Any]] {
        condition.lock()
        defer { condition.unlock() }
        return received
    }

    func response(_ id: Int, timeout: TimeInterval = 30) -> [String: Any]? {
        waitFor(timeout: timeout) { ($0["id"] as? Int) == id && $0["method"] == nil }
    }

    /// The next diagnostics published for `uri` after message number `from`.
    func diagnostics(for uri: String, after from: Int, timeout: TimeInterval = 30) -> [[String: Any]]? {
        let message = waitFor(after: from, timeout: timeout) {
            ($0["method"] as? String) == "textDocument/publishDiagnostics" && (($0["params"] as? [String: Any])?["uri"] as? String) == uri
        }
        return (message?["params"] as? [String: Any])?["diagnostics"] as? [[String: Any]]
    }

    /// Waits for the server to end; its exit status, or nil when it did not within `timeout`.
    func exitStatus(timeout: TimeInterval = 10) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        return process.isRunning ? nil : process.terminationStatus
    }

    var stderr: String { (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? "" }

    // MARK: The usual start

    /// `initialize` (with `root` as the workspace folder, if any) and `initialized`.
    @discardableResult
    func start(root: URL?, capabilities: [String: Any] = [:]) -> [String: Any]? {
        var params: [String: Any] = ["processId": NSNull(), "capabilities": capabilities]
        if let root {
            params["rootUri"] = root.absoluteString
            params["workspaceFolders"] = [["uri": root.absoluteString, "name": "garage"]]
        } else {
            params["rootUri"] = NSNull()
        }
        let result = request("initialize", params)
        notify("initialized")
        return result
    }

    func open(_ uri: String, _ text: String, version: Int = 1) {
        notify("textDocument/didOpen", ["textDocument": ["uri": uri, "languageId": "yaml", "version": version, "text": text]])
    }

    func change(_ uri: String, version: Int, _ changes: [[String: Any]]) {
        notify("textDocument/didChange", ["textDocument": ["uri": uri, "version": version], "contentChanges": changes])
    }

    func stop() -> Int32? {
        _ = request("shutdown")
        notify("exit")
        return exitStatus()
    }
}

/// A protocol range as a dictionary.
func lspRange(_ startLine: Int, _ startCharacter: Int, _ endLine: Int, _ endCharacter: Int) -> [String: Any] {
    ["start": ["line": startLine, "character": startCharacter], "end": ["line": endLine, "character": endCharacter]]
}

/// A diagnostic's range as four numbers: start line, character, end line, character.
func numbers(_ range: Any?) -> [Int] {
    guard let r = range as? [String: Any], let s = r["start"] as? [String: Any], let e = r["end"] as? [String: Any] else { return [] }
    return [s["line"], s["character"], e["line"], e["character"]].map { ($0 as? Int) ?? -1 }
}

extension TemporaryFolder {
    func read(_ relative: String) throws -> String {
        try String(decoding: Data(contentsOf: url.appendingPathComponent(relative)), as: UTF8.self)
    }
}
