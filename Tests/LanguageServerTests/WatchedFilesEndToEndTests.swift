import Foundation
import TestSupport
import Testing

/// Files changed on disk outside the editor (issue 29): the server registers for
/// `workspace/didChangeWatchedFiles` when the client lets it, and a `git pull` that changes a
/// template re-checks the bikes that use it, with no buffer open or edited.
@Suite struct WatchedFilesEndToEndTests {
    static var capabilities: [String: Any] { ["workspace": ["didChangeWatchedFiles": ["dynamicRegistration": true]]] }

    /// `initialize` with `capabilities` and the garage as the workspace, then `initialized`.
    func start(_ client: LSPClient, _ root: URL, capabilities: [String: Any]) {
        let params: [String: Any] = [
            "processId": NSNull(), "capabilities": capabilities, "rootUri": root.absoluteString,
            "workspaceFolders": [["uri": root.absoluteString, "name": "garage"]],
        ]
        _ = client.request("initialize", params)
        client.notify("initialized")
    }

    func git(_ arguments: [String], in folder: URL) throws {
        let r = try runProcess(
            URL(fileURLWithPath: "/usr/bin/env"), ["git"] + arguments, in: folder,
            environment: [
                "GIT_AUTHOR_NAME": "Test Rider", "GIT_AUTHOR_EMAIL": "rider@example.com", "GIT_COMMITTER_NAME": "Test Rider",
                "GIT_COMMITTER_EMAIL": "rider@example.com",
            ])
        #expect(r.status == 0, "git \(arguments): \(r.stderr)")
    }

    @Test func aPullThatRenamesATemplatesIntervalFlagsTheBikeWithoutAnEdit() throws {
        let folder = try TemporaryFolder()
        let remote = folder.url.appendingPathComponent("remote.git")
        try git(["init", "--quiet", "--bare", remote.path], in: folder.url)
        try git(["clone", "--quiet", remote.path, "mine"], in: folder.url)
        let mine = folder.url.appendingPathComponent("mine")
        try Data("units: metric\n".utf8).write(to: mine.appendingPathComponent("garage.yaml"))
        try FileManager.default.createDirectory(at: mine.appendingPathComponent("bikes"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: mine.appendingPathComponent("templates"), withIntermediateDirectories: true)
        try Data(DiagnosticsEndToEndTests.bike.utf8).write(to: mine.appendingPathComponent("bikes/grail.yaml"))
        try Data(DiagnosticsEndToEndTests.template.utf8).write(to: mine.appendingPathComponent("templates/road.yaml"))
        try git(["add", "-A"], in: mine)
        try git(["commit", "--quiet", "-m", "garage"], in: mine)
        try git(["push", "--quiet", "origin", "HEAD"], in: mine)
        // Another clone renames the template's interval and pushes.
        try git(["clone", "--quiet", remote.path, "theirs"], in: folder.url)
        let theirs = folder.url.appendingPathComponent("theirs")
        try Data(DiagnosticsEndToEndTests.template.replacingOccurrences(of: "chain-lube:", with: "chain-oil:").utf8)
            .write(to: theirs.appendingPathComponent("templates/road.yaml"))
        try git(["commit", "--quiet", "-am", "rename"], in: theirs)
        try git(["push", "--quiet", "origin", "HEAD"], in: theirs)

        let client = try LSPClient(in: mine)
        start(client, mine, capabilities: Self.capabilities)
        let registration = client.waitFor { $0["method"] as? String == "client/registerCapability" }
        let registrations = (registration?["params"] as? [String: Any])?["registrations"] as? [[String: Any]]
        #expect(registrations?.first?["method"] as? String == "workspace/didChangeWatchedFiles")
        let watchers = (registrations?.first?["registerOptions"] as? [String: Any])?["watchers"] as? [[String: Any]]
        #expect(watchers?.compactMap { $0["globPattern"] as? String }.contains("**/*.yaml") == true)
        // The client's answer is taken, not answered: the next answer is the symbols'.
        let id = try #require(registration?["id"])
        client.writeRaw(LSPClient.frame(["jsonrpc": "2.0", "id": id, "result": NSNull()]))
        let before = DiagnosticsEndToEndTests.publishedAtStart(client)
        let bike = mine.appendingPathComponent("bikes/grail.yaml").absoluteString
        #expect(before[bike] == nil, "clean at the start: \(before)")
        #expect(!client.messages.contains { ($0["error"] as? [String: Any]) != nil }, "\(client.messages)")

        // git pull, then what the client's watcher sends: the bike is flagged, never opened.
        try git(["pull", "--quiet", "--no-rebase", "origin", "HEAD"], in: mine)
        let from = client.count
        let template = mine.appendingPathComponent("templates/road.yaml").absoluteString
        client.notify("workspace/didChangeWatchedFiles", ["changes": [["uri": template, "type": 2]]])
        let flagged = client.diagnostics(for: bike, after: from)
        #expect(flagged?.map { $0["code"] as? String } == ["unknown-interval"])
        #expect(client.stop() == 0)
    }

    @Test func withoutDynamicRegistrationTheServerAsksNothing() throws {
        let garage = try DiagnosticsEndToEndTests().roadGarage()
        let client = try LSPClient(in: garage.url)
        start(client, garage.url, capabilities: [:])
        _ = DiagnosticsEndToEndTests.publishedAtStart(client)
        #expect(!client.messages.contains { $0["method"] as? String == "client/registerCapability" })
        // A change outside the garage is no reason to check; one inside is.
        var from = client.count
        client.notify("workspace/didChangeWatchedFiles", ["changes": [["uri": "file:///elsewhere/x.yaml", "type": 2]]])
        let bike = garage.url.appendingPathComponent("bikes/grail.yaml")
        try Data(DiagnosticsEndToEndTests.bike.replacingOccurrences(of: "[road]", with: "[roab]").utf8).write(to: bike)
        _ = DiagnosticsEndToEndTests.publishedAtStart(client)
        #expect(!client.messages[from...].contains { $0["method"] as? String == "textDocument/publishDiagnostics" })
        from = client.count
        client.notify("workspace/didChangeWatchedFiles", ["changes": [["uri": bike.absoluteString, "type": 2]]])
        #expect(client.diagnostics(for: bike.absoluteString, after: from)?.map { $0["code"] as? String } == ["unknown-template"])
        #expect(client.stop() == 0)
    }
}
