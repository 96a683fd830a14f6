/// Asks for an archive's password, one attempt at a time.
public struct PasswordAsker: Sendable {
    /// How many wrong passwords are allowed: 3 at a prompt, 1 for `--password-stdin`.
    public var attempts: Int
    /// Returns the password for attempt 1, 2, …; throws to give up (a cancelled dialog).
    public var ask: @Sendable (_ archive: String, _ attempt: Int) throws(ArchiverError) -> Secret

    public init(attempts: Int, ask: @escaping @Sendable (_ archive: String, _ attempt: Int) throws(ArchiverError) -> Secret) {
        self.attempts = attempts
        self.ask = ask
    }

    /// The same questions, with the time a person takes to answer kept off `control`'s budget.
    public func notCounted(by control: JobControl) -> PasswordAsker {
        PasswordAsker(attempts: attempts) { archive, attempt throws(ArchiverError) in
            try control.notCounting { () throws(ArchiverError) in try ask(archive, attempt) }
        }
    }
}
