import ArchiverCore
import Desktop
import Glibc
import Platform
import Synchronization

/// Where the executables get passwords: one line of standard input (`--password-stdin`), else the prompt
/// chain (terminal, askpass, kdialog, zenity). A cancel is exit 6, like a wrong password.
package enum Passwords {
    /// The password for a new archive: asked twice, or one line of standard input.
    /// - Parameter prompt: the question, such as “Password to protect “Photos””.
    package static func forNewArchive(prompt: Text, fromStandardInput: Bool) throws(ArchiverError) -> Secret {
        // TRANSLATORS: what a missing password means for the job; it ends the sentences “No password was given; %@.”
        let nothingMade = tr("no archive was made")
        if fromStandardInput { return try readStandardInput(nothingMade: nothingMade) }
        let answer = PasswordPrompt.ask(prompt: prompt, confirm: true, environment: ProcessEnvironment.current.variables)
        return try unwrap(answer, nothingMade: nothingMade)
    }

    /// Asks for an existing archive's password: once from standard input, or up to three times at the prompt.
    /// - Parameter nothingMade: what a missing password means for the job, in words (`tr("nothing was listed")`);
    ///   nil for "nothing was extracted".
    package static func asker(fromStandardInput: Bool, nothingMade: Text? = nil) -> PasswordAsker {
        // TRANSLATORS: what a missing password means for the job; it ends the sentences “No password was given; %@.”
        let nothingMade = nothingMade ?? tr("nothing was extracted")
        if fromStandardInput {
            // One line, read once: a second archive in the same call gets the same password.
            let line = Mutex<Secret?>(nil)
            return PasswordAsker(attempts: 1) { _, _ throws(ArchiverError) in
                if let known = line.withLock({ $0 }) { return known }
                let secret = try readStandardInput(nothingMade: nothingMade)
                line.withLock { $0 = secret }
                return secret
            }
        }
        let environment = ProcessEnvironment.current.variables
        return PasswordAsker(attempts: 3) { archive, attempt throws(ArchiverError) in
            let answer = PasswordPrompt.ask(prompt: tr("Password for “%@”", archive), confirm: false, retry: attempt > 1, environment: environment)
            return try unwrap(answer, nothingMade: nothingMade)
        }
    }

    private static func readStandardInput(nothingMade: Text) throws(ArchiverError) -> Secret {
        guard let secret = Secret.readLine(from: STDIN_FILENO) else {
            throw ArchiverError(
                .password, tr("--password-stdin found no password on standard input; %@.", nothingMade),
                hint: tr("Pipe the password in as one line, e.g. from a password manager."))
        }
        return secret
    }

    private static func unwrap(_ answer: PasswordPrompt.Answer, nothingMade: Text) throws(ArchiverError) -> Secret {
        switch answer {
        case .password(let secret): return secret
        case .cancelled: throw ArchiverError(.password, tr("No password was given; %@.", nothingMade))
        case .unavailable(let error): throw error
        }
    }
}
