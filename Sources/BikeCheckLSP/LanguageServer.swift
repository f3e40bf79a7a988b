import BikeCheckKit
import Diagnostics
import Foundation

/// The language server's state and its answer to each message: the lifecycle, the open buffers,
/// the garage they belong to and what was last published. It does no I/O (`ServerLoop` reads and
/// writes the pipes), so one message in gives the messages out, in order.
package final class LanguageServer {
    private enum Phase { case starting, running, shutDown }

    private var phase = Phase.starting
    /// Set by `exit`: 0 after `shutdown`, else 1 (as the protocol says).
    package private(set) var exitCode: Int32?
    /// Open buffers by absolute path.
    private var documents: [String: Document] = [:]
    private var garage: GarageCheck?
    /// Folders the client named at `initialize`, where the garage is looked for.
    private var workspaceFolders: [String] = []
    /// Paths whose diagnostics must be published after the next check even when unchanged (the
    /// buffers just opened or edited: the client waits for them).
    private var touched: Set<String> = []
    private var needsCheck = false
    private let today: @Sendable () -> Day
    /// The client lets the server register for watched files (`initialize`'s capabilities).
    private var registersWatchedFiles = false
    /// Ids of the server's own requests not yet answered; their answers are taken, not answered.
    private var pendingRequests: Set<RequestID> = []
    /// The id of the server's registration request for watched files.
    static let watchRegistration = RequestID.string("bikecheck/watch-garage-files")
    /// The garage's files on disk (`git pull`, `bikecheck done`, another editor): YAML, and the
    /// activity cache.
    static let watchedGlobs = ["**/*.yaml", "**/*.yml", "**/activities/*"]

    /// `garage`: the garage's folder when the command line named it; else the workspace's or the
    /// first opened file's.
    package init(garage: String? = nil, today: @escaping @Sendable () -> Day) {
        self.garage = garage.map { GarageCheck(root: $0) }
        self.today = today
    }

    /// The answer to one message body (and any diagnostics it makes due before a request).
    /// `cancelled`: a `$/cancelRequest` for it arrived before it was handled.
    package func handle(_ body: [UInt8], cancelled: Bool = false) -> [Outgoing] {
        let data = Data(body)
        guard (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil else {
            return [.error(nil, .parseError, "the message is not JSON")]
        }
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: data) else {
            return [.error(nil, .invalidRequest, "the message is not a JSON-RPC request or notification")]
        }
        guard let method = envelope.method else {
            // A response to a request of ours (taken: a refused registration leaves the edits,
            // opens and saves to re-check) or a request without a method.
            if let id = envelope.id, pendingRequests.remove(id) != nil { return [] }
            return envelope.id.map { [.error($0, .invalidRequest, "a request needs a method")] } ?? []
        }
        guard let id = envelope.id else { return notify(method, data) }
        if cancelled { return [.error(id, .requestCancelled, "cancelled")] }
        switch phase {
        case .starting where method != "initialize":
            return [.error(id, .serverNotInitialized, "initialize first")]
        case .shutDown:
            return [.error(id, .invalidRequest, "the server is shutting down")]
        default: break
        }
        // A request sees the buffers as they are: a pending check runs first.
        var out = method == "initialize" || method == "shutdown" ? [] : checkIfNeeded()
        do {
            out.append(try answer(id, method, data))
        } catch let failure as RequestFailure {
            out.append(.error(id, failure.code, failure.message))
        } catch {
            out.append(.error(id, .invalidParams, "invalid parameters for \(method): \(error)"))
        }
        return out
    }

    struct RequestFailure: Error {
        var code: ErrorCode
        var message: String
    }

    private func params<P: Decodable>(_ type: P.Type, _ data: Data) throws -> P {
        try JSONDecoder().decode(Parameters<P>.self, from: data).params
    }

    private func answer(_ id: RequestID, _ method: String, _ data: Data) throws -> Outgoing {
        switch method {
        case "initialize":
            guard phase == .starting else { throw RequestFailure(code: .invalidRequest, message: "initialize was already sent") }
            let p = try params(InitializeParams.self, data)
            registersWatchedFiles = p.capabilities?.registersWatchedFiles ?? false
            workspaceFolders = (p.workspaceFolders ?? []).compactMap { Self.path(ofURI: $0.uri) }
            if let root = p.rootUri.flatMap(Self.path(ofURI:)) ?? p.rootPath { workspaceFolders.append(root) }
            phase = .running
            for folder in workspaceFolders where garage == nil {
                if let root = try? GarageLocator.locate(explicit: nil, environment: [:], workingDirectory: folder) {
                    garage = GarageCheck(root: root)
                }
            }
            return .result(id, InitializeResult(serverInfo: ServerInfo(name: "bikecheck", version: bikecheckVersion)))
        case "shutdown":
            phase = .shutDown
            return .result(id, Null())
        case "textDocument/completion":
            let p = try params(PositionParams.self, data)
            return .result(id, completions(p))
        case "textDocument/definition":
            let p = try params(PositionParams.self, data)
            return definition(p).map { .result(id, $0) } ?? .result(id, Null())
        case "textDocument/documentSymbol":
            let p = try params(DocumentParams.self, data)
            return .result(id, symbols(p.textDocument.uri))
        case "textDocument/codeAction":
            let p = try params(CodeActionParams.self, data)
            return .result(id, quickFixes(p) + serviceActions(p))
        case "textDocument/hover":
            let p = try params(PositionParams.self, data)
            return hover(p).map { .result(id, $0) } ?? .result(id, Null())
        default:
            throw RequestFailure(code: .methodNotFound, message: "unknown method '\(method)'")
        }
    }

    /// Notifications get no answer, not even an error; before `initialize` only `exit` counts.
    /// `initialized` may make the server's one request: registering for the files on disk.
    private func notify(_ method: String, _ data: Data) -> [Outgoing] {
        if method == "exit" {
            exitCode = phase == .shutDown ? 0 : 1
            return []
        }
        guard phase == .running else { return [] }
        switch method {
        case "textDocument/didOpen":
            guard let p = try? params(DidOpenParams.self, data), let path = Self.path(ofURI: p.textDocument.uri) else { return [] }
            documents[path] = Document(uri: p.textDocument.uri, version: p.textDocument.version, text: p.textDocument.text)
            if garage == nil,
                let root = try? GarageLocator.locate(
                    explicit: nil, environment: [:], workingDirectory: (path as NSString).deletingLastPathComponent)
            {
                garage = GarageCheck(root: root)
            }
            changed(path)
        case "textDocument/didChange":
            guard let p = try? params(DidChangeParams.self, data), let path = Self.path(ofURI: p.textDocument.uri) else { return [] }
            documents[path]?.apply(p.contentChanges, version: p.textDocument.version)
            changed(path)
        case "textDocument/didClose":
            guard let p = try? params(DocumentParams.self, data), let path = Self.path(ofURI: p.textDocument.uri) else { return [] }
            // The file on disk counts again, which may differ from the closed buffer.
            documents[path] = nil
            changed(path)
        case "textDocument/didSave":
            guard let p = try? params(DidSaveParams.self, data), let path = Self.path(ofURI: p.textDocument.uri) else { return [] }
            changed(path)
        case "initialized":
            // The whole garage's problems as soon as the editor is ready; and, when the client
            // allows it, a watch on the garage's files, so a change on disk (`git pull`) re-checks
            // the files it touched and every file that refers to them, without an edit.
            needsCheck = true
            guard registersWatchedFiles, !pendingRequests.contains(Self.watchRegistration) else { return [] }
            pendingRequests.insert(Self.watchRegistration)
            let watch = RegistrationParams.Registration(
                id: "bikecheck-garage-files", method: "workspace/didChangeWatchedFiles",
                registerOptions: .init(watchers: Self.watchedGlobs.map { .init(globPattern: $0) }))
            return [.request(Self.watchRegistration, "client/registerCapability", RegistrationParams(registrations: [watch]))]
        case "workspace/didChangeWatchedFiles":
            // Files changed outside the editor: every file is read again at the next check (those
            // whose bytes did not change are not parsed again); open buffers still win. Changes
            // all outside the garage (another folder of the workspace) are no reason to.
            if let p = try? params(DidChangeWatchedFilesParams.self, data), let check = garage,
                !p.changes.contains(where: { Self.path(ofURI: $0.uri).flatMap(check.relative) != nil })
            {
                return []
            }
            needsCheck = true
        default:
            // `$/cancelRequest` (handled by the loop), `$/setTrace` and the rest.
            break
        }
        return []
    }

    private func changed(_ path: String) {
        touched.insert(path)
        needsCheck = true
    }

    /// Whether a check is due (an edit, an open, a save since the last).
    package var hasPendingCheck: Bool { needsCheck }

    /// Checks the garage with the open buffers laid over its files, if anything changed since the
    /// last check, and returns the diagnostics to publish.
    package func checkIfNeeded() -> [Outgoing] {
        guard needsCheck, phase == .running, var check = garage else { return [] }
        needsCheck = false
        let overlay = overlay(of: check)
        let touchedFiles = Set(touched.compactMap { check.relative($0) })
        touched = []
        let published = check.run(overlay: overlay, today: today(), alwaysPublishing: touchedFiles)
        garage = check
        return published.map { file, diagnostics in
            let path = check.root + "/" + file
            let document = documents[path]
            return .notification(
                "textDocument/publishDiagnostics",
                PublishDiagnosticsParams(uri: document?.uri ?? check.uri(of: file), version: document?.version, diagnostics: diagnostics))
        }
    }

    /// The open buffers of the garage's files, by path relative to it.
    private func overlay(of check: GarageCheck) -> [String: [UInt8]] {
        var overlay: [String: [UInt8]] = [:]
        for (path, document) in documents {
            if let relative = check.relative(path) { overlay[relative] = document.bytes }
        }
        return overlay
    }

    /// The absolute, normalised path of a `file:` URI.
    static func path(ofURI uri: String) -> String? {
        guard let url = URL(string: uri), url.isFileURL else { return nil }
        return url.standardizedFileURL.path
    }

    // MARK: Garage-aware requests

    private func document(_ uri: String) -> (document: Document, relative: String, check: GarageCheck)? {
        guard let path = Self.path(ofURI: uri), let document = documents[path], let check = garage, let relative = check.relative(path) else {
            return nil
        }
        return (document, relative, check)
    }

    private func completions(_ p: PositionParams) -> [CompletionItem] {
        guard let (document, relative, check) = document(p.textDocument.uri), let loaded = check.loaded else { return [] }
        return CompletionProvider(garage: loaded.garage, root: check.root, file: relative, text: document.text).items(at: p.position)
    }

    private func definition(_ p: PositionParams) -> Location? {
        guard let (document, relative, check) = document(p.textDocument.uri), let loaded = check.loaded else { return nil }
        let provider = CompletionProvider(garage: loaded.garage, root: check.root, file: relative, text: document.text)
        guard let (file, range) = provider.definition(at: p.position) else { return nil }
        let path = check.root + "/" + file
        let text = documents[path]?.text ?? loaded.sources[file] ?? SourceText(path: file, bytes: readBytes(path) ?? [])
        return Location(uri: documents[path]?.uri ?? check.uri(of: file), range: text.range(of: range))
    }

    private func symbols(_ uri: String) -> [DocumentSymbol] {
        guard let path = Self.path(ofURI: uri), let document = documents[path] else { return [] }
        return DocumentOutline(text: document.text).symbols
    }

    /// The fix each diagnostic in the range carries (`Diagnostic.fix`, set where its did-you-mean
    /// is made) as a quick fix: its range (the misspelt value) replaced by the name suggested.
    private func quickFixes(_ p: CodeActionParams) -> [CodeAction] {
        guard let (document, relative, check) = document(p.textDocument.uri), let loaded = check.loaded else { return [] }
        let wanted = (document.text.offset(of: p.range.start), document.text.offset(of: p.range.end))
        return loaded.diagnostics.compactMap { d -> CodeAction? in
            guard d.location.file == relative, let range = d.location.range, range.start.offset <= wanted.1, wanted.0 <= range.end.offset,
                range.start.offset < range.end.offset, range.end.offset <= document.bytes.count,
                let suggested = d.fix
            else { return nil }
            let written = String(decoding: document.bytes[range.start.offset..<range.end.offset], as: UTF8.self)
            guard written != suggested, !written.contains(where: { $0 == ":" || $0 == "\n" }) else { return nil }
            let edit = TextEdit(range: document.text.range(of: range), newText: suggested)
            return CodeAction(
                title: "change '\(written)' to '\(suggested)'", diagnostics: [check.lspDiagnostic(d, loaded.sources)],
                edit: WorkspaceEdit(document, [edit]))
        }
    }

    /// "log this service today" on an interval of the file's bike or part: the edit `bikecheck
    /// done BIKE INTERVAL` would make, planned by the same recorder over the open buffer, for the
    /// editor to apply (the file is not written here).
    private func serviceActions(_ p: CodeActionParams) -> [CodeAction] {
        guard let (document, relative, check) = document(p.textDocument.uri), let loaded = check.loaded else { return [] }
        let provider = CompletionProvider(garage: loaded.garage, root: check.root, file: relative, text: document.text)
        guard let (subject, interval) = provider.loggableInterval(at: p.range.start) else { return [] }
        let day = today()
        let context = WriteContext(root: check.root, today: day, loaded: loaded, overlay: overlay(of: check))
        guard let change = try? ServiceRecorder.plan(ServiceRecord(bike: subject, intervals: [interval]), in: context),
            let file = change.files.first(where: { $0.path == relative && $0.isChange }), change.files.allSatisfy({ $0.path == relative || !$0.isChange }),
            file.before == document.bytes
        else { return [] }
        let edits = UnifiedDiff.changedSpans(document.bytes, file.after).map { span in
            TextEdit(range: document.text.range(ofBytes: span.old), newText: String(decoding: span.new, as: UTF8.self))
        }
        return [
            CodeAction(
                title: "log \(interval) done today (\(day))", kind: "refactor.rewrite", diagnostics: nil, isPreferred: nil,
                edit: WorkspaceEdit(document, edits))
        ]
    }

    private func hover(_ p: PositionParams) -> Hover? {
        guard let (document, relative, check) = document(p.textDocument.uri), let loaded = check.loaded else { return nil }
        let provider = CompletionProvider(garage: loaded.garage, root: check.root, file: relative, text: document.text)
        return provider.hover(at: p.position, activities: loaded.activitySummaries, today: today())
    }
}
