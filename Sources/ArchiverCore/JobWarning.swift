/// Something that went wrong without stopping the job (exit status 1): said to the person in their
/// language, and named for scripts by a code that never changes with the language or the wording.
public struct JobWarning: Sendable, CustomStringConvertible {
    /// A stable name for scripts (`--json`'s `warningCodes`), in kebab-case: `entry-failed`, `names-clash`, ….
    public var code: String
    public var text: Text

    public init(_ code: String, _ text: Text) {
        self.code = code
        self.text = text
    }

    public var description: String { text.localized }
}
