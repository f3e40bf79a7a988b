import JSONRPC

/// The parts of the Language Server Protocol (3.17) this server reads and writes, as plain
/// Codable values. Positions are 0-based lines and UTF-16 code units, as the protocol's default.

package struct Position: Codable, Sendable, Hashable, Comparable {
    package var line: Int
    package var character: Int

    package init(line: Int, character: Int) {
        self.line = line
        self.character = character
    }

    package static func < (a: Position, b: Position) -> Bool { (a.line, a.character) < (b.line, b.character) }
}

package struct TextRange: Codable, Sendable, Hashable {
    package var start: Position
    package var end: Position

    package init(start: Position, end: Position) {
        self.start = start
        self.end = end
    }
}

package struct Location: Codable, Sendable, Hashable {
    package var uri: String
    package var range: TextRange
}

struct TextDocumentIdentifier: Codable, Sendable {
    var uri: String
}

struct WorkspaceFolder: Codable, Sendable {
    var uri: String
    var name: String?
}

struct InitializeParams: Decodable {
    var rootUri: String?
    var rootPath: String?
    var workspaceFolders: [WorkspaceFolder]?
    var capabilities: ClientCapabilities?
}

/// What of the client's capabilities the server reads: whether it lets the server register
/// for `workspace/didChangeWatchedFiles` (there is no static registration for it), applies file
/// renames in a workspace edit, and takes snippets in completion.
struct ClientCapabilities: Decodable {
    struct Workspace: Decodable {
        struct Registration: Decodable { var dynamicRegistration: Bool? }
        struct WorkspaceEditCapabilities: Decodable {
            var documentChanges: Bool?
            var resourceOperations: [String]?
        }
        var didChangeWatchedFiles: Registration?
        var workspaceEdit: WorkspaceEditCapabilities?
    }
    struct TextDocument: Decodable {
        struct Completion: Decodable {
            struct Item: Decodable { var snippetSupport: Bool? }
            var completionItem: Item?
        }
        var completion: Completion?
    }
    var workspace: Workspace?
    var textDocument: TextDocument?

    var registersWatchedFiles: Bool { workspace?.didChangeWatchedFiles?.dynamicRegistration == true }
    var renamesFiles: Bool {
        workspace?.workspaceEdit?.documentChanges == true && workspace?.workspaceEdit?.resourceOperations?.contains("rename") == true
    }
    var takesSnippets: Bool { textDocument?.completion?.completionItem?.snippetSupport == true }
}

/// `client/registerCapability`'s parameters, for the garage's files watched on disk.
struct RegistrationParams: Encodable, Sendable {
    struct Registration: Encodable, Sendable {
        var id: String
        var method: String
        var registerOptions: WatchOptions
    }
    struct WatchOptions: Encodable, Sendable {
        var watchers: [Watcher]
    }
    /// `kind` absent: created, changed and deleted.
    struct Watcher: Encodable, Sendable {
        var globPattern: String
    }
    var registrations: [Registration]
}

/// `workspace/didChangeWatchedFiles`' parameters (what changed is not needed: the check reads
/// every file again, and re-parses only those whose bytes changed).
struct DidChangeWatchedFilesParams: Decodable {
    struct Event: Decodable {
        var uri: String
        var type: Int
    }
    var changes: [Event]
}

struct TextDocumentItem: Decodable {
    var uri: String
    var version: Int?
    var text: String
}

struct DidOpenParams: Decodable {
    var textDocument: TextDocumentItem
}

struct ContentChange: Decodable {
    /// Absent: the change is the whole text.
    var range: TextRange?
    var text: String
}

struct VersionedTextDocumentIdentifier: Decodable {
    var uri: String
    var version: Int?
}

struct DidChangeParams: Decodable {
    var textDocument: VersionedTextDocumentIdentifier
    var contentChanges: [ContentChange]
}

struct DocumentParams: Decodable {
    var textDocument: TextDocumentIdentifier
}

struct DidSaveParams: Decodable {
    var textDocument: TextDocumentIdentifier
    var text: String?
}

struct PositionParams: Decodable {
    var textDocument: TextDocumentIdentifier
    var position: Position
}

struct CancelParams: Decodable {
    var id: RequestID
}

struct ServerCapabilities: Encodable, Sendable {
    struct Sync: Encodable, Sendable {
        var openClose = true
        /// 2: incremental; a change without a range (a full text) is read as well.
        var change = 2
        var save = ["includeText": false]
    }
    struct CompletionOptions: Encodable, Sendable {
        var triggerCharacters = [" ", "[", ",", "-"]
    }
    var positionEncoding = "utf-16"
    var textDocumentSync = Sync()
    var completionProvider = CompletionOptions()
    var definitionProvider = true
    var documentSymbolProvider = true
    var hoverProvider = true
    var renameProvider = true
    var workspaceSymbolProvider = true
    var inlayHintProvider = true
    var codeActionProvider = ["codeActionKinds": ["quickfix", "refactor.rewrite"]]
}

struct ServerInfo: Encodable, Sendable {
    var name: String
    var version: String
}

struct InitializeResult: Encodable, Sendable {
    var capabilities = ServerCapabilities()
    var serverInfo: ServerInfo
}

package struct DiagnosticRelatedInformation: Codable, Sendable, Hashable {
    package var location: Location
    package var message: String
}

/// A diagnostic as the protocol has it: `code` is bikecheck's diagnostic id.
package struct LSPDiagnostic: Codable, Sendable, Hashable {
    package var range: TextRange
    /// 1 error, 2 warning, 3 information.
    package var severity: Int
    package var code: String
    package var source = "bikecheck"
    package var message: String
    package var relatedInformation: [DiagnosticRelatedInformation]?
    /// What the client hands back with a code action request: the fix, when there is one.
    package var data: FixData?
}

/// A diagnostic's quick fix as data (`Diagnostic.fix`): the text that replaces its range.
package struct FixData: Codable, Sendable, Hashable {
    package var replacement: String
}

package struct PublishDiagnosticsParams: Codable, Sendable {
    package var uri: String
    package var version: Int?
    package var diagnostics: [LSPDiagnostic]
}

struct TextEdit: Encodable, Sendable {
    var range: TextRange
    var newText: String
}

struct CompletionItem: Encodable, Sendable {
    var label: String
    /// 12 value, 18 reference, 7 class, 10 property.
    var kind: Int
    var detail: String?
    /// A key's description from its JSON Schema.
    var documentation: MarkupContent?
    var textEdit: TextEdit
    /// 2: `textEdit`'s text is a snippet (`${1:id}` placeholders); left out: plain text.
    var insertTextFormat: Int? = nil
}

struct DocumentSymbol: Encodable, Sendable {
    var name: String
    var detail: String?
    /// 2 module, 5 class, 6 method, 8 field, 13 variable, 20 key, 23 struct.
    var kind: Int
    var range: TextRange
    var selectionRange: TextRange
    var children: [DocumentSymbol]?
}

struct MarkupContent: Encodable, Sendable {
    var kind = "markdown"
    var value: String
}

struct Hover: Encodable, Sendable {
    var contents: MarkupContent
    var range: TextRange?
}

struct CodeActionParams: Decodable {
    var textDocument: TextDocumentIdentifier
    var range: TextRange
}

/// A code action's or a rename's edit, as `documentChanges`: each document's edits with the
/// version of the buffer they were computed on (a versioned `TextDocumentEdit`; null for a file
/// not open), so a client can tell an edit planned before a `didChange` and refuse it rather
/// than apply it to the wrong lines; then the files to rename.
struct WorkspaceEdit: Encodable, Sendable {
    var documentChanges: [Change]

    enum Change: Encodable, Sendable {
        case edit(TextDocumentEdit)
        case rename(RenameFile)

        func encode(to encoder: Encoder) throws {
            switch self {
            case .edit(let edit): try edit.encode(to: encoder)
            case .rename(let rename): try rename.encode(to: encoder)
            }
        }
    }

    init(_ document: Document, _ edits: [TextEdit]) {
        documentChanges = [.edit(TextDocumentEdit(textDocument: .init(uri: document.uri, version: document.version), edits: edits))]
    }

    init(changes: [Change]) { documentChanges = changes }
}

struct RenameFile: Encodable, Sendable {
    var kind = "rename"
    var oldUri: String
    var newUri: String
}

struct RenameParams: Decodable {
    var textDocument: TextDocumentIdentifier
    var position: Position
    var newName: String
}

struct WorkspaceSymbolParams: Decodable {
    var query: String
}

struct SymbolInformation: Encodable, Sendable {
    var name: String
    /// 5 class (a bike, a part), 2 module (a template), 6 method (an interval).
    var kind: Int
    var location: Location
    var containerName: String?
}

struct InlayHintParams: Decodable {
    var textDocument: TextDocumentIdentifier
    var range: TextRange
}

struct InlayHint: Encodable, Sendable {
    var position: Position
    var label: String
    var paddingLeft = true
}

struct TextDocumentEdit: Encodable, Sendable {
    var textDocument: OptionalVersionedTextDocumentIdentifier
    var edits: [TextEdit]
}

struct OptionalVersionedTextDocumentIdentifier: Encodable, Sendable {
    var uri: String
    /// The buffer's version; null (written, not left out) when the client gave none.
    var version: Int?

    private enum Key: String, CodingKey { case uri, version }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(uri, forKey: .uri)
        try c.encode(version, forKey: .version)
    }
}

struct CodeAction: Encodable, Sendable {
    var title: String
    /// `quickfix` for a diagnostic's fix, `refactor.rewrite` for "log this service today".
    var kind = "quickfix"
    var diagnostics: [LSPDiagnostic]?
    var isPreferred: Bool? = true
    var edit: WorkspaceEdit?
    /// Why the action cannot be taken now (the file has errors): shown, not applied.
    var disabled: Disabled? = nil

    struct Disabled: Encodable, Sendable { var reason: String }
}
