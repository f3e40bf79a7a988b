/// The JSON Schemas `bikecheck init` copies into a new garage, for editor completion and
/// inline errors. Regenerate from the repository's schemas/ with scripts/embed-schemas.
public enum EmbeddedSchemas {
    /// The garage folder they go in; committed with the garage (it is not local state).
    public static let folder = ".schemas"

    public static let files: [(name: String, text: String)] = []
}
