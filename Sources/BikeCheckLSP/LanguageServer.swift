import BikeCheckKit
import Diagnostics
import Foundation
import JSONRPC

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
    /// For each open file, the last check in which it could be read (its bike, part or template
    /// was there): hover and actions use it while the buffer does not parse, and say so.
    private var lastReadable: [String: LoadedGarage] = [:]
    /// The client applies file renames in a workspace edit (`rename` of a bike or template id).
    private var renamesFiles = false
    /// The client takes snippets in completion items.
    private var takesSnippets = false
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
            renamesFiles = p.capabilities?.renamesFiles ?? false
            takesSnippets = p.capabilities?.takesSnippets ?? false
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
        case "textDocument/rename":
            let p = try params(RenameParams.self, data)
            return .result(id, try rename(p))
        case "workspace/symbol":
            let p = try params(WorkspaceSymbolParams.self, data)
            return .result(id, workspaceSymbols(p.query))
        case "textDocument/inlayHint":
            let p = try params(InlayHintParams.self, data)
            return .result(id, inlayHints(p))
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
        if let loaded = check.loaded {
            var readable: [String: LoadedGarage] = [:]
            for path in documents.keys {
                guard let relative = check.relative(path) else { continue }
                if Self.holds(loaded, relative) { readable[relative] = loaded } else if let earlier = lastReadable[relative] { readable[relative] = earlier }
            }
            lastReadable = readable
        }
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

    /// Whether `loaded` has what the file `relative` holds (its bike, part or template; the other
    /// files always): false while it does not parse.
    static func holds(_ loaded: LoadedGarage, _ relative: String) -> Bool {
        let parts = relative.split(separator: "/")
        guard parts.count == 2 else { return true }
        let id = GarageLoader.stem(String(parts[1]))
        switch parts[0] {
        case "bikes", "gear": return loaded.garage.bike(BikeID(id)) != nil
        case "parts": return loaded.garage.part(PartID(id)) != nil
        case "templates": return loaded.garage.templates.contains { $0.id.rawValue == id }
        default: return true
        }
    }

    /// The garage to answer about the file `relative` from: the last check's, or, while the file
    /// cannot be read, the last in which it could, with a line that says so (`stale`); nil when
    /// there is none, with why (`why`: the file's first error).
    private func readable(_ relative: String, _ check: GarageCheck) -> (loaded: LoadedGarage, stale: String?)? {
        guard let loaded = check.loaded else { return nil }
        if Self.holds(loaded, relative) { return (loaded, nil) }
        guard let earlier = lastReadable[relative] else { return nil }
        return (earlier, "_\(why(relative, loaded)); this is as of the last time it could be read._")
    }

    /// Why a file cannot be read: its first error, where it is.
    private func why(_ relative: String, _ loaded: LoadedGarage) -> String {
        guard let first = loaded.diagnostics.first(where: { $0.location.file == relative && $0.severity == .error }) else {
            return "`\(relative)` cannot be read as it is"
        }
        let line = first.location.range.map { " (line \($0.start.line))" } ?? ""
        return "`\(relative)` cannot be read as it is\(line): \(first.message)"
    }

    private func completions(_ p: PositionParams) -> [CompletionItem] {
        guard let (document, relative, check) = document(p.textDocument.uri), let (loaded, _) = readable(relative, check) ?? check.loaded.map({ ($0, nil) })
        else { return [] }
        var provider = CompletionProvider(garage: loaded.garage, root: check.root, file: relative, text: document.text)
        provider.snippets = takesSnippets
        return provider.items(at: p.position)
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
    /// In a file with errors the action is there but disabled, with `done`'s reason.
    private func serviceActions(_ p: CodeActionParams) -> [CodeAction] {
        guard let (document, relative, check) = document(p.textDocument.uri), let loaded = check.loaded,
            let (usable, _) = readable(relative, check)
        else { return [] }
        let provider = CompletionProvider(garage: usable.garage, root: check.root, file: relative, text: document.text)
        guard let (subject, interval) = provider.loggableInterval(at: p.range.start) else { return [] }
        let day = today()
        let title = "log \(interval) done today (\(day))"
        let context = WriteContext(root: check.root, today: day, loaded: loaded, overlay: overlay(of: check))
        let change: GarageChange
        do {
            change = try ServiceRecorder.plan(ServiceRecord(bike: subject, intervals: [interval]), in: context)
        } catch {
            return [CodeAction(title: title, kind: "refactor.rewrite", diagnostics: nil, isPreferred: nil, edit: nil, disabled: .init(reason: error.message))]
        }
        guard let file = change.files.first(where: { $0.path == relative && $0.isChange }),
            change.files.allSatisfy({ $0.path == relative || !$0.isChange }), file.before == document.bytes
        else { return [] }
        let edits = UnifiedDiff.changedSpans(document.bytes, file.after).map { span in
            TextEdit(range: document.text.range(ofBytes: span.old), newText: String(decoding: span.new, as: UTF8.self))
        }
        return [
            CodeAction(
                title: title, kind: "refactor.rewrite", diagnostics: nil, isPreferred: nil,
                edit: WorkspaceEdit(document, edits))
        ]
    }

    /// The hover of the garage the file can be read in (see `readable`); in a file that has
    /// never been read, why not.
    private func hover(_ p: PositionParams) -> Hover? {
        guard let (document, relative, check) = document(p.textDocument.uri), let current = check.loaded else { return nil }
        guard let (loaded, stale) = readable(relative, check) else {
            return Hover(contents: MarkupContent(value: why(relative, current) + ", so there is nothing to show here yet."), range: nil)
        }
        let provider = CompletionProvider(garage: loaded.garage, root: check.root, file: relative, text: document.text)
        guard var hover = provider.hover(at: p.position, activities: loaded.activitySummaries, today: today()) else { return nil }
        if let stale { hover.contents.value = stale + "\n\n" + hover.contents.value }
        return hover
    }

    // MARK: Rename, workspace symbols, inlay hints

    /// Renames the interval, template or bike id under the cursor (or, on the `name:` key of a
    /// bike's, part's or template's file, that file's id) everywhere the garage writes it
    /// (`IDReferences`), and a bike's, part's or template's file with it: one versioned edit per
    /// file (null for a file not open), then the file renames.
    private func rename(_ p: RenameParams) throws -> WorkspaceEdit {
        guard let (document, relative, check) = document(p.textDocument.uri), let loaded = check.loaded, Self.holds(loaded, relative) else {
            throw RequestFailure(code: .requestFailed, message: "this file cannot be read as it is: fix its errors first")
        }
        let context = CursorContext(document.text, at: p.position)
        var old = String(decoding: document.bytes[context.word], as: UTF8.self)
        let garage = loaded.garage
        let kind: IDReferences.Kind
        let line = document.text.line(p.position.line + 1) ?? ""
        let folders: [String: IDReferences.Kind] = ["bikes": .bike, "gear": .bike, "parts": .part, "templates": .template]
        let file = relative.split(separator: "/")
        switch (context.key, context.isMapKey) {
        case (nil, _) where old == "name" && line.hasPrefix("name:") && file.count == 2 && folders[String(file[0])] != nil:
            // On the top-level `name:` key of a bike's, part's or template's file: its id.
            kind = folders[String(file[0])] ?? .part
            old = GarageLoader.stem(String(file[1]))
        case ("done", false), ("snooze", true), ("intervals", true), ("readings", true):
            guard let owner = IDReferences.owner(ofInterval: old, seenFrom: relative, in: garage) else {
                throw RequestFailure(code: .requestFailed, message: "'\(old)' is no interval of this file")
            }
            kind = .interval(owner: owner)
        case ("templates", false): kind = .template
        case ("bike", false): kind = .bike
        case ("part", false): kind = .part
        default:
            throw RequestFailure(
                code: .requestFailed,
                message:
                    "put the cursor on an interval, template, bike or part id, or on the 'name:' key of a bike's, part's or template's file, to rename it")
        }
        let new = p.newName
        guard isIdentifier(new) else {
            throw RequestFailure(code: .invalidParams, message: "'\(new)' is not a valid id: use letters, digits, '-', '_' and '.'")
        }
        let references = IDReferences(kind, old, in: garage)
        guard !references.spans.isEmpty || references.file != nil else {
            throw RequestFailure(code: .requestFailed, message: "'\(old)' is not defined in this garage")
        }
        var renamed: String?
        if let file = references.file {
            guard renamesFiles else {
                throw RequestFailure(code: .requestFailed, message: "renaming '\(old)' renames \(file), and this editor does not let a server rename files")
            }
            let folder = String(file.split(separator: "/").first ?? "")
            let taken = GarageLoader.stem(String(file.split(separator: "/").last ?? ""))
            let target = folder + "/" + new + String(file.dropFirst(folder.count + 1 + taken.count))
            let exists =
                FileManager.default.fileExists(atPath: check.root + "/" + folder + "/" + new + ".yaml")
                || FileManager.default.fileExists(atPath: check.root + "/" + folder + "/" + new + ".yml")
            if exists { throw RequestFailure(code: .requestFailed, message: "\(folder)/\(new).yaml is there already") }
            renamed = target
        }
        if case .interval(let owner) = kind, IDReferences(.interval(owner: owner), new, in: garage).spans.contains(where: { _ in true }) {
            throw RequestFailure(code: .requestFailed, message: "an interval '\(new)' is there already")
        }
        var changes: [WorkspaceEdit.Change] = []
        for (file, spans) in Dictionary(grouping: references.spans, by: \.file).sorted(by: { $0.key < $1.key }) {
            let path = check.root + "/" + file
            let open = documents[path]
            let text = open?.text ?? SourceText(path: file, bytes: readBytes(path) ?? [])
            var edits: [TextEdit] = []
            for span in spans {
                let range = span.range.start.offset..<span.range.end.offset
                guard range.upperBound <= text.bytes.count else { continue }
                var written = Array(text.bytes[range])
                var inner = range
                // A quoted id: the text between the quotes.
                if written.count >= 2, let first = written.first, first == UInt8(ascii: "\"") || first == UInt8(ascii: "'"), written.last == first {
                    inner = (range.lowerBound + 1)..<(range.upperBound - 1)
                    written = Array(written.dropFirst().dropLast())
                }
                guard written == Array(old.utf8) else { continue }
                edits.append(TextEdit(range: text.range(ofBytes: inner), newText: new))
            }
            guard !edits.isEmpty else { continue }
            changes.append(.edit(TextDocumentEdit(textDocument: .init(uri: open?.uri ?? check.uri(of: file), version: open?.version), edits: edits)))
        }
        if let file = references.file, let renamed {
            changes.append(.rename(RenameFile(oldUri: documents[check.root + "/" + file]?.uri ?? check.uri(of: file), newUri: check.uri(of: renamed))))
        }
        return WorkspaceEdit(changes: changes)
    }

    /// The garage's bikes, parts, templates and intervals whose id or name contains `query`
    /// (any case), from the last check.
    private func workspaceSymbols(_ query: String) -> [SymbolInformation] {
        guard let check = garage, let loaded = check.loaded else { return [] }
        let wanted = query.lowercased()
        func matches(_ texts: String?...) -> Bool { wanted.isEmpty || texts.contains { $0?.lowercased().contains(wanted) == true } }
        func location(_ l: SourceLocation) -> Location {
            let path = check.root + "/" + l.file
            let text = documents[path]?.text ?? loaded.sources[l.file]
            let range =
                text.map { $0.range(of: l.range) }
                ?? l.range.map {
                    TextRange(
                        start: Position(line: $0.start.line - 1, character: $0.start.column - 1),
                        end: Position(line: $0.end.line - 1, character: $0.end.column - 1))
                } ?? TextRange(start: Position(line: 0, character: 0), end: Position(line: 0, character: 0))
            return Location(uri: documents[path]?.uri ?? check.uri(of: l.file), range: range)
        }
        var found: [SymbolInformation] = []
        func intervals(_ specs: [IntervalSpec], of owner: String) {
            for spec in specs where matches(spec.id.rawValue, spec.task) {
                found.append(SymbolInformation(name: spec.id.rawValue, kind: 6, location: location(spec.location), containerName: owner))
            }
        }
        let garage = loaded.garage
        for bike in garage.bikes {
            if matches(bike.bike.id.rawValue, bike.bike.name) {
                found.append(SymbolInformation(name: bike.bike.id.rawValue, kind: 5, location: location(bike.bike.location), containerName: bike.bike.name))
            }
            intervals(bike.bike.intervals, of: bike.bike.id.rawValue)
        }
        for part in garage.parts {
            if matches(part.part.id.rawValue, part.part.name) {
                found.append(SymbolInformation(name: part.part.id.rawValue, kind: 5, location: location(part.part.location), containerName: part.part.name))
            }
            intervals(part.part.intervals, of: part.part.id.rawValue)
        }
        for template in garage.templates {
            if matches(template.id.rawValue, template.name) {
                found.append(SymbolInformation(name: template.id.rawValue, kind: 2, location: location(template.location), containerName: template.name))
            }
            intervals(template.intervals, of: template.id.rawValue)
        }
        return found
    }

    /// In a bike's or part's file: after each interval it has (its own under `intervals:`, those
    /// of a template after the template's id in `templates:`), its line of `bikecheck status`:
    /// how far along it is and when it falls due.
    private func inlayHints(_ p: InlayHintParams) -> [InlayHint] {
        guard let (document, relative, check) = document(p.textDocument.uri), let loaded = check.loaded, Self.holds(loaded, relative) else {
            return []
        }
        let parts = relative.split(separator: "/")
        guard parts.count == 2, ["bikes", "gear", "parts"].contains(parts[0]) else { return [] }
        let id = GarageLoader.stem(String(parts[1]))
        let garage = loaded.garage
        let isBike = parts[0] != "parts"
        let report = StatusPlanner(asOf: today()).plan(
            garage, summaries: loaded.activitySummaries, only: isBike ? [BikeID(id)] : [], parts: isBike ? [] : [PartID(id)])
        let statuses = (isBike ? report.bikes.first?.intervals : report.parts.first?.intervals) ?? []
        let own = (isBike ? garage.bike(BikeID(id))?.bike.intervals : garage.part(PartID(id))?.part.intervals) ?? []
        let templates = (isBike ? garage.bike(BikeID(id))?.bike.templates : garage.part(PartID(id))?.part.templates) ?? []
        let resolved = (isBike ? garage.bike(BikeID(id))?.intervals : garage.part(PartID(id))?.intervals) ?? []
        let first = document.text.offset(of: p.range.start), last = document.text.offset(of: p.range.end)
        var hints: [InlayHint] = []
        func hint(after location: SourceLocation, _ label: String) {
            guard let range = location.range, range.end.offset >= first, range.start.offset <= last, range.end.offset <= document.bytes.count else { return }
            hints.append(InlayHint(position: document.text.position(ofByte: range.end.offset), label: label))
        }
        for spec in own {
            guard let status = statuses.first(where: { $0.id == spec.id.rawValue }) else { continue }
            hint(after: spec.location, Self.statusLabel(status))
        }
        for template in templates {
            let fromIt = resolved.filter { $0.template == template.value && !own.map(\.id).contains($0.id) }
            let labels = fromIt.compactMap { interval in
                statuses.first(where: { $0.id == interval.id.rawValue }).map { "\(interval.id): " + Self.statusLabel($0) }
            }
            if !labels.isEmpty { hint(after: template.location, labels.joined(separator: "; ")) }
        }
        return hints
    }

    /// An interval's state as a hint: `ok 36%, due ~2026-12-19`.
    static func statusLabel(_ status: IntervalStatus) -> String {
        let state = status.snoozedUntil.map { "snoozed until \($0)" } ?? status.state.rawValue
        return "\(state) \(Int((status.progress * 100).rounded()))%" + (status.due.map { ", due ~\($0)" } ?? "")
    }
}
