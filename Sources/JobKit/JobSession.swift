import ArchiverCore
import ArgumentParser
import Desktop
import Glibc
import JobProtocol

/// One job's lifecycle, the same for every tool: flags merged with the settings, the time budget, signals
/// and the watchdog, progress fanned out to the terminal, the notification and the event stream, warnings,
/// the failure or the result in the form asked for (sentences, `--json`, `--progress-json`), the exit status
/// by `JobTally`'s one rule, the statistics, and the wait for the result notification's buttons.
///
/// A command describes its items and their outcome; the session does the rest.
package final class JobSession: @unchecked Sendable {
    package let settings: ArchiverSettings
    package let control: JobControl
    /// `--progress-json`'s stream, when asked for.
    package let stream: EventStream?
    package let report: JobReport
    package let desktop: DesktopFeedback
    /// How the items ended so far; the exit status follows from it.
    package var tally = JobTally()
    private let terminal: TerminalProgress
    /// The failure notification's summary.
    package let couldNot: Text

    /// Starts the job: its clock and budget, signal handling, the desktop's progress.
    /// - Parameters:
    ///   - operation: the result's `operation` (`compress`, `extract`, …).
    ///   - label: the start of the terminal's progress line (“Compressing”).
    ///   - title: what the progress notification says the job does (“Compressing “Photos””).
    ///   - couldNot: the failure notification's summary (“Could not compress “Photos””).
    ///   - watchesProgress: also give up, as malformed, on a reader that makes no progress.
    ///   - notifies: whether this job may show notifications at all (a listing shows none).
    package init(
        operation: String, job: JobOptions, events: EventOptions, label: Text, title: Text, couldNot: Text,
        watchesProgress: Bool = false, notifies: Bool = true, settings: ArchiverSettings = UserSettings.current
    ) {
        self.settings = settings
        self.couldNot = couldNot
        control = JobControl(budget: settings.budget(flag: job.timeBudget))
        #if ARCHIVER_TEST_HOOKS
        // A tool slow to start (a loaded machine): the window's Cancel can come before the signals are handled.
        if let seconds = getenv("ARCHIVER_TEST_SLOW_START").flatMap({ UInt32(String(cString: $0)) }) { sleep(seconds) }
        #endif
        CommandRunner.installSignalHandlers(control, watchesProgress: watchesProgress)
        stream = events.stream()
        terminal = TerminalProgress(label: label.localized, enabled: events.terminalProgress)
        report = JobReport(operation: operation, json: job.json, events: stream)
        desktop = DesktopFeedback(
            title: title.localized, notify: notifies ? job.notifications(json: job.json || stream != nil) : false, settings: settings, control: control)
        CommandRunner.onAbandon = { [unowned self] in report($0) }
    }

    /// Whether the result is JSON (`--json` or `--progress-json`) rather than sentences.
    package var json: Bool { report.json }

    /// Seconds since the job started.
    package var elapsed: Double { terminal.elapsed }

    /// Bytes done of `total`, on the terminal, in the notification and in the event stream.
    /// - Parameters:
    ///   - detail: the line shown instead of bytes (photos: “12 of 48 photos …”).
    ///   - toStream: false when the tool writes progress events of its own.
    package func progress(done: Int64, total: Int64?, detail: (terminal: String, desktop: String)? = nil, toStream: Bool = true) {
        terminal.update(done: done, total: total, detail: detail?.terminal)
        desktop.update(done: done, total: total, detail: detail?.desktop)
        if toStream { stream?.progress(done: done, total: total) }
    }

    /// The progress callback engines take.
    package var progressHandler: @Sendable (Int64, Int64?) -> Void { { [unowned self] in progress(done: $0, total: $1) } }

    /// Clears the terminal's progress line before results are printed.
    package func endProgress() { terminal.finish() }

    /// A warning: on stderr, in the event stream and the result; it makes the exit status 1 when `counts`.
    package func warn(_ warning: JobWarning, counts: Bool = true) {
        report.warn(warning)
        if counts { tally.warned = true }
    }

    /// An item that failed while the batch goes on: said on stderr now, counted for the exit status.
    package func itemFailed(_ error: ArchiverError) {
        endProgress()
        printProblem(error)
        tally.record(error)
    }

    /// The job failed as a whole: stderr, the failure notification, and the result with the tool's empty
    /// list and the error when JSON was asked for. Throw what it returns.
    package func failed(_ error: ArchiverError) -> ExitCode {
        report(error)
        return ExitCode(error.code.exitStatus)
    }

    /// Says why the job failed or was abandoned, in every form asked for.
    private func report(_ error: ArchiverError) {
        endProgress()
        report.failed(error, elapsed: elapsed)
        desktop.failed(summary: couldNot.localized, error)
    }

    /// Replaces how an abandoned job (a signal, the budget, a stuck library) is reported.
    package func onAbandon(_ body: @escaping (ArchiverError) -> Void) { CommandRunner.onAbandon = body }

    /// The end of the job: the result object (JSON only), the statistics, the wait for the notification's
    /// buttons, and the exit status by the one rule (or `status` when the tool decides otherwise).
    /// - Parameter then: what comes after the result object (the notification, where a script must not wait
    ///   for it).
    package func finish(
        outcome: (any JobOutcome)?, status: Int32? = nil, statistics: (StatisticsEvent.Kind, [(before: Int64, after: Int64)])? = nil,
        then: () -> Void = {}
    ) -> ExitCode {
        let status = status ?? tally.exitStatus
        if json, let outcome { report.emit(exitCode: status, elapsed: elapsed, outcome.fields) }
        then()
        // After the result is shown: a wait for the statistics' lock never delays it.
        if let (kind, sizes) = statistics { recordStatistics(kind, sizes, settings: settings) }
        desktop.waitForAction()
        return ExitCode(status)
    }
}

extension Result where Failure == ArchiverError {
    /// The value, or the job failed as a whole with the error (said in every form asked for).
    package func get(or session: JobSession) throws -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let error): throw session.failed(error)
        }
    }
}
