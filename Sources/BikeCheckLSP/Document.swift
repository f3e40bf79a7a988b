import Diagnostics

/// An open buffer: the text the editor has, which may differ from the file on disk.
struct Document {
    var uri: String
    var version: Int?
    var text: SourceText

    init(uri: String, version: Int?, text: String) {
        self.uri = uri
        self.version = version
        self.text = SourceText(path: uri, bytes: Array(text.utf8))
    }

    var bytes: [UInt8] { text.bytes }

    /// Applies the changes of one `didChange`, in order: each range is in the text as the
    /// changes before it left it; a change without a range replaces everything.
    mutating func apply(_ changes: [ContentChange], version: Int?) {
        var bytes = text.bytes
        for change in changes {
            if let range = change.range {
                let current = SourceText(path: uri, bytes: bytes)
                let a = current.offset(of: range.start), b = current.offset(of: range.end)
                bytes.replaceSubrange(min(a, b)..<max(a, b), with: Array(change.text.utf8))
            } else {
                bytes = Array(change.text.utf8)
            }
        }
        text = SourceText(path: uri, bytes: bytes)
        self.version = version
    }
}
