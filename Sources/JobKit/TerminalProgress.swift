import ArchiverCore
import Glibc

/// A progress line on standard error, redrawn at most ten times a second, only when standard error is a
/// terminal (a script or a log gets nothing).
package final class TerminalProgress {
    private var meter: ProgressMeter?
    private let enabled: Bool
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private var drawn = false
    private let label: String

    /// - Parameter label: what the job does, in the user's language: "Compressing".
    package init(label: String, enabled: Bool = isatty(STDERR_FILENO) == 1) {
        self.label = label
        self.enabled = enabled
        start = clock.now
    }

    /// Records progress; redraws when it is time.
    /// - Parameter detail: shown instead of bytes (`12 of 48 photos…`, in the user's language), followed by
    ///   the time left.
    package func update(done: Int64, total: Int64?, detail: String? = nil) {
        guard enabled else { return }
        let now = (clock.now - start).inSeconds
        if meter == nil { meter = ProgressMeter(total: total, start: 0) }
        guard let snapshot = meter?.update(done: done, now: now) else { return }
        // Short jobs show only their result.
        guard now >= 0.5 else { return }
        let line = detail.map { $0 + (snapshot.remaining.map { "  " + tr("%@ left", TextValue.clock($0)).localized } ?? "") }
        printError("\r\u{1B}[K\(label)  \(line ?? HumanFormat.progressLine(snapshot).localized)", newline: false)
        drawn = true
    }

    /// Clears the line before the result is printed.
    package func finish() {
        guard drawn else { return }
        printError("\r\u{1B}[K", newline: false)
        drawn = false
    }

    /// Seconds since the job started.
    package var elapsed: Double { (clock.now - start).inSeconds }
}
