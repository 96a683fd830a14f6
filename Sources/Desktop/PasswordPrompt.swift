import ArchiverCore
import Glibc
import Platform
import Synchronization

/// Asks a person for a password: a no-echo prompt on the terminal, else an askpass program or the desktop's
/// password dialog (the order is `PasswordChain`'s). The password stays in a `Secret` from the first byte
/// read: it is never a `String`, and never in a child's argv or environment.
public enum PasswordPrompt {
    public enum Answer: Sendable {
        case password(Secret)
        case cancelled
        case unavailable(ArchiverError)
    }

    /// How many times "type it again" may disagree before we give up.
    static let confirmAttempts = 3

    /// - Parameters:
    ///   - prompt: what is asked, e.g. "Password for “Photos.zip”".
    ///   - confirm: ask twice and compare (for creating an archive); on a mismatch ask again, at most three
    ///     times, then `.cancelled` with a message on standard error.
    ///   - retry: re-asking after a wrong password; the prompt then starts with "Wrong password. ".
    ///   - environment: the process environment. Helper programs are found on its `PATH` and run with it.
    public static func ask(prompt: Text, confirm: Bool, retry: Bool = false, environment: [String: String])
        -> Answer
    {
        ask(prompt: prompt, confirm: confirm, retry: retry, environment: environment, stdinIsTerminal: isatty(0) == 1)
    }

    /// `ask` with the terminal test made by the caller, so tests run the same from a terminal as in CI.
    static func ask(prompt: Text, confirm: Bool, retry: Bool, environment: [String: String], stdinIsTerminal: Bool)
        -> Answer
    {
        let method = PasswordChain.method(environment: environment, stdinIsTerminal: stdinIsTerminal) {
            Programs.find($0, path: environment["PATH"]) != nil
        }
        guard let method else {
            return .unavailable(
                ArchiverError(
                    .password, tr("No way to ask for the password: no terminal and no password dialog."),
                    hint: tr("Install zenity (or kdialog on KDE), set ARCHIVER_ASKPASS to an ssh-askpass-style program, or use --password-stdin.")))
        }
        let asking = { (text: Text) in ask(text.localized, by: method, environment: environment) }
        // TRANSLATORS: %@ is the question that follows, such as “Password for “Photos.zip””.
        var first = retry ? tr("Wrong password. %@", prompt) : prompt
        guard confirm else { return asking(first) }
        for _ in 1...confirmAttempts {
            let answer = asking(first)
            guard case .password(let password) = answer else { return answer }
            // TRANSLATORS: the same question asked a second time, to confirm a new password.
            let again = asking(tr("%@ (again)", prompt))
            guard case .password(let repeated) = again else { return again }
            if password.matches(repeated) { return .password(password) }
            // Said in the next prompt itself: a dialog's user never sees standard error.
            first = tr("The passwords did not match. %@", prompt)
        }
        let giveUp = ntr("The passwords did not match %ld time in a row; giving up.", "The passwords did not match %ld times in a row; giving up.", confirmAttempts)
        writeToStandardError(giveUp.localized + "\n")
        return .cancelled
    }

    /// Puts the terminal's echo back if a prompt turned it off. For a process that exits while the prompt
    /// waits (a second Ctrl-C), where the prompt's own restore never runs.
    public static func restoreTerminal() {
        guard var saved = savedTerminal.withLock({ $0 }) else { return }
        tcsetattr(0, TCSANOW, &saved)
    }

    private static func ask(_ prompt: String, by method: PasswordMethod, environment: [String: String]) -> Answer {
        switch method {
        case .terminal: askOnTerminal(prompt)
        case .askpass(let program): run([program, prompt], environment: environment)
        case .kdialog: run(["kdialog", "--title", "Archiver", "--password", Markup.kdialog(prompt)], environment: environment)
        // zenity 3.44's password dialog has a fixed label and no --text, so the prompt is its title.
        case .zenity: run(["zenity", "--password", "--title=\(prompt)", "--no-markup"], environment: environment)
        }
    }
}

// MARK: - Terminal

extension PasswordPrompt {
    /// The terminal settings from before echo was turned off, while a prompt waits.
    private static let savedTerminal = Mutex<termios?>(nil)

    private static func askOnTerminal(_ prompt: String) -> Answer {
        // Ctrl-C arrives as a byte (signals are off while asking) and cancels: the terminal's echo is put
        // back on every way out, which a signal killing the process would skip. The prompt is shown only
        // once echo is off, so nothing typed in answer to it is flushed away.
        let line = withEchoOff {
            // TRANSLATORS: the terminal's password prompt; %@ is the question, such as “Password for “Photos.zip””.
            writeToStandardError(tr("%@:", prompt).localized + " ")
            return Secret.readLine(from: 0, interrupt: 0x03)
        }
        writeToStandardError("\n")
        return line.map { .password($0) } ?? .cancelled
    }

    private static func withEchoOff<R>(_ body: () -> R) -> R {
        var saved = termios()
        guard tcgetattr(0, &saved) == 0 else { return body() }
        savedTerminal.withLock { $0 = saved }
        defer {
            tcsetattr(0, TCSANOW, &saved)
            savedTerminal.withLock { $0 = nil }
        }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO | ISIG)
        // TCSAFLUSH drops anything typed ahead, as getpass does: it was not typed for this prompt.
        tcsetattr(0, TCSAFLUSH, &silent)
        return body()
    }

    private static func writeToStandardError(_ text: String) {
        var remaining = text.utf8[...]
        while !remaining.isEmpty {
            let written = remaining.withContiguousStorageIfAvailable { write(2, $0.baseAddress, $0.count) } ?? -1
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            remaining = remaining.dropFirst(written)
        }
    }
}

// MARK: - Helper programs

extension PasswordPrompt {
    /// Runs a helper the ssh-askpass way: the password is the first line of its output, and any exit but 0
    /// is a cancel.
    private static func run(_ argv: [String], environment: [String: String]) -> Answer {
        guard let (line, succeeded) = Spawn.firstLine(of: argv.map { Array($0.utf8) }, environment: environment) else {
            return .unavailable(
                ArchiverError(
                    .password, tr("Could not start the password program “%@”.", argv[0]),
                    hint: tr("Check ARCHIVER_ASKPASS and SSH_ASKPASS, or use --password-stdin.")))
        }
        return succeeded ? .password(line ?? Secret([])) : .cancelled
    }
}
