import ArchiveEngine
import JobKit
import JobProtocol
import ArchiverCore
import ArgumentParser
import Desktop
import Glibc
import MountEngine
import Platform
import SystemPackage

/// `open-with-archiver`: an archive → a read-only folder under `$XDG_RUNTIME_DIR/archiver`, opened in the
/// file manager. The mount is served by a daemon of its own (this executable with `--serve`), started
/// only once; this process waits until the folder is ready, then reports and leaves.
public struct MountCommand: ParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "open-with-archiver",
            abstract: tr("Open an archive as a folder, without extracting it; changes made in it are saved into the archive.").localized,
            discussion: helpDiscussion(tr("open-with-archiver ARCHIVE… mounts each archive under $XDG_RUNTIME_DIR/archiver, opens the folder in the file manager and says so in a notification with an Unmount button; opening the same archive again reuses the folder. --mount ARCHIVE [FOLDER] only mounts and prints the folder, for scripts; --unmount FOLDER unmounts it, once the changes made in it are saved into the archive (exit 7 when they could not be, with the reason; they are then kept). A zip, 7z or tar folder is writable unless --read-only or the mount-read-only setting says otherwise; changes are saved once no file has been open for the mount-commit-delay setting's seconds. The folder is unmounted and removed by itself once nothing has been read for the mount-idle-timeout setting's seconds.")),
            version: archiverVersion(library: ArchiveEngineSetup.libarchiveVersion))
    }

    @Flag(help: ArgumentHelp(tr("Mount without opening the file manager or notifying (unless --notify), and print the folder: open-with-archiver --mount ARCHIVE [FOLDER].")))
    var mount = false

    @Flag(help: ArgumentHelp(tr("Unmount a folder opened by Archiver and remove it: open-with-archiver --unmount FOLDER.")))
    var unmount = false

    @Option(help: ArgumentHelp(tr("Unmount after this many seconds with nothing read (0 = never; default: the mount-idle-timeout setting, 300).")))
    var idleTimeout: Double?

    @Flag(help: ArgumentHelp(tr("Open the folder read-only, even when Archiver could change the archive (default: the mount-read-only setting).")))
    var readOnly = false

    @Flag(help: ArgumentHelp(tr("Read the password of an encrypted archive from one line of standard input, for scripts.")))
    var passwordStdin = false

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(tr("Show progress and the result as desktop notifications (default: the notifications setting).")))
    var notify: Bool?

    /// The daemon's side: scan, mount, serve (started by this executable, never by a person).
    @Flag(help: .hidden)
    var serve = false

    /// The watcher a daemon starts: PID FOLDER (it detaches the folder if the daemon dies and leaves it).
    @Flag(help: .hidden)
    var watch = false

    /// The Undo of a commit's notification, offered by a process of its own: CHANGES WRITTEN PREVIOUS BODY
    /// ARCHIVE (`UndoOffer`).
    @Flag(help: .hidden)
    var offerUndo = false

    /// With --serve: the folder was there before (the person's own), so the daemon leaves it when it goes.
    @Flag(help: .hidden)
    var keepFolder = false

    /// With --serve: commits are said in notifications.
    @Flag(help: .hidden)
    var notifyCommits = false

    @Argument(help: ArgumentHelp(tr("The archives to open (with --mount, one archive and optionally the folder to mount it on); with --unmount, the folder.")))
    var paths: [String] = []

    public init() {}

    public func validate() throws {
        if mount, unmount { throw ValidationError(tr("Use either --mount or --unmount, not both.").localized) }
        if unmount, paths.count != 1 { throw ValidationError(tr("--unmount takes one folder.").localized) }
        if paths.isEmpty { throw ValidationError(tr("Name an archive to open.").localized) }
        if mount || serve, paths.count > 2 {
            throw ValidationError(tr("--mount takes one archive and, optionally, the folder to mount it on.").localized)
        }
        if let idleTimeout, !idleTimeout.isFinite || idleTimeout < 0 || idleTimeout >= 1e9 {
            throw ValidationError(tr("--idle-timeout must be between 0 (never) and 999999999 seconds.").localized)
        }
    }

    public func run() throws {
        var raw = RawArguments.current()
        let given = paths.map { raw.path(for: $0).madeAbsolute }
        if unmount { try Mounting.unmount(given[0]); return }
        if watch, paths.count == 2, let daemon = pid_t(paths[0]) { DeathWatch.run(daemon: daemon, folder: given[1]) }
        if offerUndo, let offer = UndoOffer.Offer(paths, archive: given[given.count - 1]) { UndoOffer.run(offer) }
        let idle = idleTimeout ?? UserSettings.current.mountIdleTimeout
        if serve { try Daemon.run(
                archive: given[0], folder: given[1], idleTimeout: idle, keepFolder: keepFolder, readOnly: readOnly, notify: notifyCommits) }
        let passwords = Passwords.asker(fromStandardInput: passwordStdin, nothingMade: tr("no folder was opened"))
        if mount {
            try Mounting.open(
                given[0], folder: given.count > 1 ? given[1] : nil, idleTimeout: idle, readOnly: readOnly, script: true, passwords: passwords,
                notify: notify ?? false)
            return
        }
        // From a menu: each archive selected, in turn; the first failure decides the exit status.
        var failure: Error?
        for archive in given {
            do {
                try Mounting.open(
                    archive, folder: nil, idleTimeout: idle, readOnly: readOnly, script: false, passwords: passwords, notify: notify)
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }
}
