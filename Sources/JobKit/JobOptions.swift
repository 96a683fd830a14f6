import ArchiverCore
import ArgumentParser
import Glibc

/// The options every job takes, in every executable: output form, time budget, notifications, and the
/// clean-up of the Recent list and the statistics.
package struct JobOptions: ParsableArguments {
    @Flag(help: ArgumentHelp(tr("Print one JSON result object on standard output.")))
    package var json = false

    @Option(help: ArgumentHelp(tr("Stop after this many seconds (0 = no limit; default: the time-budget setting, 1800).")))
    package var timeBudget: Double?

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(tr("Show progress and the result as desktop notifications (default: the notifications setting; off with --json).")))
    package var notify: Bool?

    @Flag(help: ArgumentHelp(tr("Remove Archiver's entries from the desktop's Recent files list, and nothing else.")))
    package var forgetRecent = false

    @Flag(help: ArgumentHelp(tr("Clear Archiver's statistics (the counts the app's Home shows), and nothing else; with --forget-recent, both.")))
    package var forgetStatistics = false

    /// `--forget-recent` or `--forget-statistics`: this run forgets, and does no job.
    package var forgets: Bool { forgetRecent || forgetStatistics }

    /// The notification choice for `DesktopFeedback`: the flag, else off for `--json`, else (nil) the setting.
    package var notifications: Bool? { notifications(json: json) }

    /// The same, with `json` also set by another flag (`--progress-json`).
    package func notifications(json: Bool) -> Bool? { notify ?? (json ? false : nil) }

    package init() {}

    package func validate() throws {
        guard let timeBudget else { return }
        if !timeBudget.isFinite || timeBudget < 0 || timeBudget >= 1e9 {
            throw ValidationError(tr("--time-budget must be between 0 (no limit) and 999999999 seconds.").localized)
        }
    }
}

/// `--progress-json`, for the archive executables (a window runs them and reads the stream).
package struct EventOptions: ParsableArguments {
    @Flag(help: ArgumentHelp(tr("Write progress, listed entries, warnings and at last the --json result as JSON objects, one per line, on standard output; no progress line on the terminal.")))
    package var progressJson = false

    package init() {}

    /// The stream `--progress-json` asks for; nil without it.
    package func stream() -> EventStream? { progressJson ? EventStream() : nil }

    /// Whether the terminal's progress line is drawn: on a terminal, unless the stream reports progress.
    package var terminalProgress: Bool { !progressJson && isatty(STDERR_FILENO) == 1 }
}

extension ArgumentHelp {
    /// `--help` text in the user's language. Property wrappers and `configuration` are evaluated after
    /// `Catalog.bootstrap()` (in `CommandRunner.main`), so the catalog is bound by then.
    package init(_ text: Text, valueName: String? = nil) {
        self.init(text.localized, valueName: valueName)
    }
}
