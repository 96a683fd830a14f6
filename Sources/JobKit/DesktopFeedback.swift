import ArchiverCore
import ArgumentParser
import Desktop
import Glibc
import SystemPackage

/// The desktop side of one job: a progress notification once it runs longer than a second (with a
/// Cancel button), the result or failure replacing it, a sleep inhibitor while it runs long, and the
/// result added to the Recent list. Errors still go to stderr through `JobReport`; this only adds.
package final class DesktopFeedback: @unchecked Sendable {
    private let notifier: Notifier?
    private let settings: ArchiverSettings
    private let control: JobControl
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private var meter: ProgressMeter?
    private var lastShown = -1.0
    private var inhibitor: SleepInhibitor?
    private var longRunning = false
    private var waitsForAction = false
    /// What the progress notification says the job does, in the user's language: "Compressing “Photos”".
    package var title: String

    /// - Parameters:
    ///   - title: in the user's language, as every text given to this class.
    ///   - notify: the `--notify`/`--no-notify` flag; nil follows the setting.
    package init(title: String, notify: Bool?, settings: ArchiverSettings, control: JobControl) {
        self.title = title
        self.settings = settings
        self.control = control
        start = clock.now
        notifier = notify ?? settings.notifications ? Notifier.connect(desktopEntry: Self.desktopEntry) : nil
    }

    #if ARCHIVER_TEST_HOOKS
    private static let hangsForTests = getenv("ARCHIVER_TEST_HANG") != nil
    #else
    private static let hangsForTests = false
    #endif

    /// The launcher of this executable: `compress-pdf-with-archiver` → `io.github.archiver.CompressPdf`.
    static var desktopEntry: String {
        let executable = CommandLine.arguments.first?.split(separator: "/").last ?? ""
        let words = executable.replacing("-with-archiver", with: "").split(separator: "-")
        return "io.github.archiver." + words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// Records progress; shows it from the first second on, at most once a second.
    /// - Parameter detail: what the notification says instead of bytes (`12 of 48 photos…`); the time left follows.
    package func update(done: Int64, total: Int64?, detail: String? = nil) {
        // The stop tests' stand-in for a library call that never returns, where the job's temporary
        // outputs and child programs exist.
        if Self.hangsForTests, done > 0 { while true { pause() } }
        let now = elapsed
        if meter == nil { meter = ProgressMeter(total: total, start: 0) }
        guard let snapshot = meter?.update(done: done, now: now), now >= 1 else { return }
        if !longRunning {
            longRunning = true
            inhibitor = SleepInhibitor(why: title)
        }
        guard let notifier, now - lastShown >= 1 else { return }
        lastShown = now
        let percent = snapshot.fraction.map { Int($0 * 100) }
        let control = control
        // TRANSLATORS: a button on the progress notification.
        let cancel = Notifier.Action(id: "cancel", label: tr("Cancel").localized) { CommandRunner.requestStop(control) }
        let line = detail.map { $0 + (snapshot.remaining.map { "\n" + tr("%@ left", TextValue.clock($0)).localized } ?? "") }
        notifier.show(
            summary: title, body: line ?? HumanFormat.progressLine(snapshot).localized, urgency: .low, percent: percent,
            actions: [cancel], transient: true)
    }

    /// The result: what was made, with Open folder (and Email… for a new archive).
    /// - Parameters:
    ///   - item: the archive or extracted folder, shown selected by Open folder.
    ///   - attachable: offer Email… with this file.
    ///   - recent: the Recent entry's MIME type and command, for an item that is neither an archive nor a
    ///     folder (a compressed PDF or photo).
    ///   - originalSize: the size of what a smaller copy was made from, for the Recent row's saving.
    package func succeeded(
        summary: String, body: String, item: FilePath?, attachable: FilePath? = nil,
        recent: (mimeType: String, exec: String)? = nil, originalSize: Int64? = nil
    ) {
        release()
        if let item, settings.rememberRecent, RecentFiles.desktopAllowsRecent {
            let isArchive = attachable != nil
            try? RecentFiles.add(
                item, mimeType: recent?.mimeType ?? (isArchive ? RecentFiles.guessedType(of: item) : "inode/directory"),
                application: RecentFiles.applicationName,
                exec: recent?.exec ?? (isArchive ? "extract-with-archiver %u" : "xdg-open %u"), originalSize: originalSize)
        }
        if let item, settings.openFolderAfter { _ = Reveal.show(item) }
        var actions: [Notifier.Action] = []
        if let item {
            // TRANSLATORS: a button on the result notification; it shows the result in the file manager.
            let open = tr("Open folder").localized
            actions.append(Notifier.Action(id: "default", label: open) { _ = Reveal.show(item) })
            actions.append(Notifier.Action(id: "open-folder", label: open) { _ = Reveal.show(item) })
        }
        if let attachable {
            // TRANSLATORS: a button on the result notification; it opens the mail program with the archive attached.
            actions.append(Notifier.Action(id: "email", label: tr("Email…").localized) { _ = Reveal.email(attachable) })
        }
        succeeded(summary: summary, body: body, actions: actions)
    }

    /// A result with buttons of the job's own, kept for `waitForAction`.
    package func succeeded(summary: String, body: String, actions: [Notifier.Action]) {
        release()
        guard let notifier else { return }
        notifier.show(summary: summary, body: body, actions: actions, wait: true)
        waitsForAction = notifier.supportsActions && !actions.isEmpty && isatty(STDIN_FILENO) != 1
    }

    /// The failure, critical, in the words stderr got.
    package func failed(summary: String, _ error: ArchiverError) {
        release()
        let body = error.message.localized + (error.hint.map { "\n" + $0.localized } ?? "")
        notifier?.show(summary: summary, body: body, urgency: .critical, wait: true)
    }

    /// Keeps the process alive for the result's buttons: until one is clicked or the notification
    /// closes, at most a minute. Not at a terminal, where the person is waiting for the prompt.
    package func waitForAction() {
        guard waitsForAction, let notifier else { return }
        notifier.waitForInteraction(timeout: 60)
    }

    private func release() {
        inhibitor?.release()
        inhibitor = nil
    }

    private var elapsed: Double { (clock.now - start).inSeconds }
}

/// The user's settings, read once per process; a missing or broken schema is said once, on stderr.
package enum UserSettings {
    package static let current: ArchiverSettings = {
        let (settings, warning) = SettingsStore.shared.load()
        if let warning { printWarning(warning) }
        return settings
    }()
}

/// `--forget-recent` and `--forget-statistics`, shared by every executable: each one asked for is tried;
/// exit 0 when all succeeded, else 7 (the destination cannot be written).
package func forgetHistory(_ job: JobOptions) throws -> Never {
    var failed = false
    if job.forgetRecent {
        do {
            let count = try RecentFiles.forget()
            print(ntr("Removed Archiver from %ld entry of the Recent files list.", "Removed Archiver from %ld entries of the Recent files list.", count).localized)
        } catch {
            printError(tr("Could not change the Recent files list: %@.", String(describing: error)).localized)
            failed = true
        }
    }
    if job.forgetStatistics {
        do throws(ArchiverError) {
            try StatisticsStore().clear()
            print(tr("Cleared Archiver's statistics.").localized)
        } catch {
            printProblem(error)
            failed = true
        }
    }
    throw ExitCode(failed ? ArchiverError.Code.destination.exitStatus : ExitStatus.success)
}
