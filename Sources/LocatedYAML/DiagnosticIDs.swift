import Diagnostics

/// The ids of the YAML layer's diagnostics: files that are not one readable YAML document, YAML
/// features a garage does not use, and edits the engine refuses.
extension DiagnosticID {
    package static let duplicateKey = DiagnosticID("duplicate-key")
    package static let emptyFile = DiagnosticID("empty-file")
    package static let invalidUtf8 = DiagnosticID("invalid-utf8")
    package static let mergeConflict = DiagnosticID("merge-conflict")
    package static let yamlAlias = DiagnosticID("yaml-alias")
    package static let yamlAnchor = DiagnosticID("yaml-anchor")
    package static let yamlComplexKey = DiagnosticID("yaml-complex-key")
    package static let yamlEditRefused = DiagnosticID("yaml-edit-refused")
    package static let yamlEditUnsafe = DiagnosticID("yaml-edit-unsafe")
    package static let yamlMultipleDocuments = DiagnosticID("yaml-multiple-documents")
    package static let yamlSyntax = DiagnosticID("yaml-syntax")
    package static let yamlTab = DiagnosticID("yaml-tab")
    package static let yamlTag = DiagnosticID("yaml-tag")
    package static let yamlTooDeep = DiagnosticID("yaml-too-deep")

    /// Every id the YAML layer reports.
    package static let yaml: [DiagnosticID] = [
        .duplicateKey, .emptyFile, .invalidUtf8, .mergeConflict, .yamlAlias, .yamlAnchor, .yamlComplexKey, .yamlEditRefused,
        .yamlEditUnsafe, .yamlMultipleDocuments, .yamlSyntax, .yamlTab, .yamlTag, .yamlTooDeep,
    ]
}
