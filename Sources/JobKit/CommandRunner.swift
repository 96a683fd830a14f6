import Platform
import ArchiverCore
import ArgumentParser
import Desktop
import Dispatch
import Glibc

/// Runs one of the commands the way every Archiver executable does: UTF-8 locale, signals that cancel,
/// DESIGN.md's exit codes (usage errors are 2, not swift-argument-parser's 64).
public enum CommandRunner {
    public static func main<Command: ParsableCommand>(_ type: Command.Type) {
        Catalog.bootstrap()
        LocaleFormats.install()
        signal(SIGPIPE, SIG_IGN)
        do {
            // Help and version requests come back as a command whose `run()` throws them.
            var command = try Command.parseAsRoot(Array(CommandLine.arguments.dropFirst()))
            try command.run()
            exit(ExitStatus.success)
        } catch let code as ExitCode {
            exit(code.rawValue)
        } catch {
            let code = Command.exitCode(for: error)
            let message = Command.fullMessage(for: error)
            if code == .success {
                print(message)
                exit(ExitStatus.success)
            }
            printError(message)
            exit(code == .validationFailure ? ArchiverError.Code.usage.exitStatus : code.rawValue)
        }
    }

    /// The job control of this process: SIGINT, SIGTERM and SIGHUP cancel it. The job notices between
    /// blocks; when it does not within a second (stuck in one long library call), the watchdog abandons
    /// it: its temporary outputs are removed and the process exits, at once on a second signal.
    /// - Parameter watchesProgress: also give up, as malformed, on a reader that makes no progress.
    package static func installSignalHandlers(_ control: JobControl, watchesProgress: Bool = false) {
        watchdog = StopWatchdog(control: control, watchesProgress: watchesProgress)
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { requestStop(control) }
            source.resume()
            signalSources.append(source)
        }
    }

    /// Stops the job as Ctrl-C does (the notification's Cancel button too): at the next block, or by
    /// abandoning it after a grace period, or at once when asked a second time.
    package static func requestStop(_ control: JobControl) {
        if control.isCancelled { watchdog?.hurry.store(true, ordering: .relaxed) }
        control.cancel()
    }

    /// Says why the job was abandoned, as the running command does (its `--json` object, if any).
    static func report(_ error: ArchiverError) {
        if let report = onAbandon { report(error) } else { printProblem(error) }
        PasswordPrompt.restoreTerminal()
        fflush(nil)  // _exit skips the flush of stdout, where the JSON object is.
    }

    /// How the running command reports a job stopped from outside (its `--json` object, if any).
    nonisolated(unsafe) package static var onAbandon: ((ArchiverError) -> Void)?

    nonisolated(unsafe) private static var watchdog: StopWatchdog?

    nonisolated(unsafe) private static var signalSources: [any DispatchSourceSignal] = []
}

/// Writes to standard error, as a line unless `newline` is false.
package func printError(_ text: String, newline: Bool = true) {
    let line = !newline || text.hasSuffix("\n") ? text : text + "\n"
    // Unbuffered write(2): stderr's FILE is global mutable state to Swift 6, and a progress line must
    // appear at once.
    var remaining = line.utf8[...]
    while !remaining.isEmpty {
        let written = Array(remaining).withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        if written <= 0 { return }
        remaining = remaining.dropFirst(written)
    }
}
