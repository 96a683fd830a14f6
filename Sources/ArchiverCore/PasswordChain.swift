/// One way of asking a person for a password.
public enum PasswordMethod: Equatable, Sendable {
    /// A no-echo prompt on the terminal that is standard input.
    case terminal
    /// An ssh-askpass-style program: the prompt as its argument, the password on its standard output.
    case askpass(program: String)
    case kdialog
    case zenity
}

/// Which way to ask for a password, decided from the environment alone so that it can be tested.
public enum PasswordChain {
    /// The method to use, or nil when there is none (no terminal and no helper program).
    ///
    /// Only the first applicable method is ever used: a cancel there is the person's answer, not a reason
    /// to try the next one.
    /// - Parameters:
    ///   - stdinIsTerminal: whether standard input is a terminal. When it is not (a script, a pipe, the
    ///     desktop), the terminal is never used, not even through /dev/tty.
    ///   - isInstalled: whether a program of that name is on the `PATH`.
    public static func method(
        environment: [String: String], stdinIsTerminal: Bool, isInstalled: (String) -> Bool
    ) -> PasswordMethod? {
        if stdinIsTerminal { return .terminal }
        if let program = environment["ARCHIVER_ASKPASS"], !program.isEmpty { return .askpass(program: program) }
        if let program = environment["SSH_ASKPASS"], !program.isEmpty { return .askpass(program: program) }
        let onKDE = (environment["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":").contains {
            $0.uppercased() == "KDE"
        }
        if onKDE, isInstalled("kdialog") { return .kdialog }
        if isInstalled("zenity") { return .zenity }
        if isInstalled("kdialog") { return .kdialog }
        return nil
    }
}
