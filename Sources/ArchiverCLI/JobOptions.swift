import ArchiverCore
import ArgumentParser

/// The options every job takes, in both executables: output form, time budget, notifications, and the
/// Recent-list clean-up.
package struct JobOptions: ParsableArguments {
    @Flag(help: ArgumentHelp(tr("Print one JSON result object on standard output.")))
    package var json = false

    @Option(help: ArgumentHelp(tr("Stop after this many seconds (0 = no limit; default: the time-budget setting, 1800).")))
    package var timeBudget: Double?

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(tr("Show progress and the result as desktop notifications (default: the notifications setting; off with --json).")))
    package var notify: Bool?

    @Flag(help: ArgumentHelp(tr("Remove Archiver's entries from the desktop's Recent files list, and nothing else.")))
    package var forgetRecent = false

    /// The notification choice for `DesktopFeedback`: the flag, else off for `--json`, else (nil) the setting.
    package var notifications: Bool? { notify ?? (json ? false : nil) }

    package init() {}

    package func validate() throws {
        guard let timeBudget else { return }
        if !timeBudget.isFinite || timeBudget < 0 || timeBudget >= 1e9 {
            throw ValidationError(tr("--time-budget must be between 0 (no limit) and 999999999 seconds.").localized)
        }
    }
}

extension ArgumentHelp {
    /// `--help` text in the user's language. Property wrappers and `configuration` are evaluated after
    /// `Catalog.bootstrap()` (in `CommandRunner.main`), so the catalog is bound by then.
    package init(_ text: Text, valueName: String? = nil) {
        self.init(text.localized, valueName: valueName)
    }
}
