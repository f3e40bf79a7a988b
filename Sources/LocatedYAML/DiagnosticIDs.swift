import Diagnostics

/// The ids of the YAML layer's diagnostics: files that are not one readable YAML document, YAML
/// features a garage does not use, and edits the engine refuses.
extension DiagnosticID {
    public static let duplicateKey = DiagnosticID("duplicate-key")
    public static let emptyFile = DiagnosticID("empty-file")
    public static let invalidUtf8 = DiagnosticID("invalid-utf8")
    public static let yamlAlias = DiagnosticID("yaml-alias")
    public static let yamlAnchor = DiagnosticID("yaml-anchor")
    public static let yamlComplexKey = DiagnosticID("yaml-complex-key")
    public static let yamlEditRefused = DiagnosticID("yaml-edit-refused")
    public static let yamlEditUnsafe = DiagnosticID("yaml-edit-unsafe")
    public static let yamlMultipleDocuments = DiagnosticID("yaml-multiple-documents")
    public static let yamlSyntax = DiagnosticID("yaml-syntax")
    public static let yamlTab = DiagnosticID("yaml-tab")
    public static let yamlTag = DiagnosticID("yaml-tag")
    public static let yamlTooDeep = DiagnosticID("yaml-too-deep")

    /// Every id the YAML layer reports.
    public static let yaml: [DiagnosticID] = [
        .duplicateKey, .emptyFile, .invalidUtf8, .yamlAlias, .yamlAnchor, .yamlComplexKey, .yamlEditRefused,
        .yamlEditUnsafe, .yamlMultipleDocuments, .yamlSyntax, .yamlTab, .yamlTag, .yamlTooDeep,
    ]
}
