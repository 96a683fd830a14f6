import ArchiveEngine
import JobKit
import JobProtocol
import ArchiverCore
import Dispatch
import Desktop
import Glibc
import MountEngine
import Platform
import Synchronization
import SystemPackage

/// What the daemon tells the process that started it, one line each on its standard output, and what
/// that process answers on the daemon's standard input (a password, one line).
enum DaemonMessage: Equatable {
    case progress(read: Int64, total: Int64)
    /// Asks for the password, attempt 1, 2, …
    case password(attempt: Int)
    case ready
    case failed(code: Int32, message: String, hint: String)

    var line: String {
        func flat(_ text: String) -> String { text.map { $0 == "\t" || $0 == "\n" ? " " : $0 }.reduce(into: "") { $0.append($1) } }
        switch self {
        case .progress(let read, let total): return "progress\t\(read)\t\(total)\n"
        case .password(let attempt): return "password\t\(attempt)\n"
        case .ready: return "ready\n"
        case .failed(let code, let message, let hint): return "failed\t\(code)\t\(flat(message))\t\(flat(hint))\n"
        }
    }

    init?(line: Substring) {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        switch (fields.first, fields.count) {
        case ("progress", 3): self = .progress(read: Int64(fields[1]) ?? 0, total: Int64(fields[2]) ?? 0)
        case ("password", 2): self = .password(attempt: Int(fields[1]) ?? 1)
        case ("ready", 1): self = .ready
        case ("failed", 4): self = .failed(code: Int32(fields[1]) ?? 5, message: fields[2], hint: fields[3])
        default: return nil
        }
    }
}

/// `open-with-archiver --serve ARCHIVE FOLDER`: scans the archive, mounts it, says `ready` and serves
/// until unmounted; then removes the folder, unless it was the person's own (`--keep-folder`). Never forks: it
/// was started in a session of its own.
enum Daemon {
    static func run(archive: FilePath, folder: FilePath, idleTimeout: Double, keepFolder: Bool, readOnly: Bool, notify: Bool) throws -> Never {
        signal(SIGPIPE, SIG_IGN)
        let settings = UserSettings.current
        let commits = LayeredFileSystem.CommitSettings(level: settings.compressionLevel, passwords: remembered.asker) { outcome in
            if notify { Self.notify(outcome, archive: archive) }
        }
        // The writer's lock first: what a killed daemon of this archive left is committed before the scan.
        let session = readOnly || settings.mountReadOnly ? nil : editSession(archive)
        if let session { LayeredFileSystem.recover(session, settings: commits) }
        // A kept index lists at once; otherwise the archive is scanned (and its index kept once served).
        let cached = IndexCache.load(archive)
        let index = cached ?? scanned(archive)
        for text in index.refused { Log.line(text.english) }
        let ready: @Sendable () -> Void = {
            if !say(.ready) { DispatchQueue.global().async { MountPoints.unmount(folder) } }
            // The starter has what it waited for; nothing more goes to it.
            let null = open("/dev/null", O_RDWR)
            dup2(null, STDIN_FILENO)
            dup2(null, STDOUT_FILENO)
            // A pipe or socket as standard error (`dir=$(open-with-archiver --mount a.tar 2>&1)`) would keep
            // its reader waiting as long as the folder is served; a file or terminal goes on getting the log.
            var error = stat()
            if fstat(STDERR_FILENO, &error) == 0, error.st_mode & S_IFMT == S_IFIFO || error.st_mode & S_IFMT == S_IFSOCK {
                dup2(null, STDERR_FILENO)
            }
            close(null)
            // After the descriptors above: the watcher shares our standard error, never the starter's pipe.
            DeathWatch.start(folder: folder)
            // Kept for the next opening once this one is served.
            if cached == nil { DispatchQueue.global(qos: .utility).async { IndexCache.store(index) } }
        }
        let result = LayerPlace.result(for: folder)
        _ = result.withPlatformString { unlink($0) }
        var layer: FilePath?
        if let session {
            do throws(ArchiverError) {
                layer = try LayerPlace.make(for: session.archive, encrypted: remembered.secret != nil)
            } catch {
                Log.line("Read-only: " + error.message.english)
            }
        }
        do {
            if let session, let layer {
                let fileSystem = LayeredFileSystem(index, session: session, layer: layer, settings: commits, ready: ready)
                try fileSystem.serve(
                    at: folder, source: archive.string, idleTimeout: idleTimeout > 0 ? idleTimeout : nil,
                    commitDelay: settings.mountCommitDelay)
                // Unmounted: the rest is committed before the lock goes (`--unmount` waits for it).
                let outcome = fileSystem.commit()
                switch outcome {
                case .failed(let error):
                    // The changes stay in the layer; `--unmount` says why, and where they went.
                    Log.line(error.message.english)
                    // TRANSLATORS: after the reason a folder's changes could not be saved into the archive %@.
                    let kept = tr("The changes are kept, and saved when “%@” is opened as a folder again.", archive.lastComponent?.string ?? archive.string)
                    let hint = [error.hint?.localized, kept.localized].compactMap { $0 }.joined(separator: " ")
                    report(.failed(code: error.code.exitStatus, message: error.message.localized, hint: hint), to: result)
                case .saved(_, let edited) where edited.savedBeside:
                    let warning = edited.warnings.last?.text.localized ?? ""
                    report(.failed(code: ExitStatus.warnings, message: warning, hint: ""), to: result)
                    FileSystem.removeTree(layer)
                default:
                    FileSystem.removeTree(layer)
                }
            } else {
                try ArchiveFileSystem(index, ready: ready).serve(
                    at: folder, source: archive.string, idleTimeout: idleTimeout > 0 ? idleTimeout : nil)
            }
        } catch {
            let error = error.forFolder
            say(.failed(code: error.code.exitStatus, message: error.message.localized, hint: error.hint?.localized ?? ""))
            if !keepFolder { _ = folder.withPlatformString { rmdir($0) } }
            exit(error.code.exitStatus)
        }
        if !keepFolder { _ = folder.withPlatformString { rmdir($0) } }
        exit(ExitStatus.success)
    }

    /// The edit session when the folder can be writable; nil (and why, in the log) when the format cannot
    /// be written, the person cannot write the archive or its folder, or another writer holds it.
    private static func editSession(_ archive: FilePath) -> ArchiveEditSession? {
        // Formats Archiver does not write are read-only as they always were: nothing to say.
        if ArchiveEditSession.refusal(archive) != nil { return nil }
        let folder = archive.removingLastComponent()
        guard archive.withPlatformString({ access($0, W_OK) }) == 0, folder.withPlatformString({ access($0, W_OK | X_OK) }) == 0 else {
            Log.line("Read-only: \(archive) or its folder cannot be written.")
            return nil
        }
        let previous = PreviousVersion(
            keep: { archive in
                // The undo is a courtesy: a trash that cannot take it does not stop the save.
                do throws(ArchiverError) { try Trash.move(archive) } catch { Log.line(error.message.english) }
            }, restore: { _ = Trash.restore($0) })
        do throws(ArchiverError) {
            return try ArchiveEditSession(archive: archive, keepPrevious: previous, wait: .zero)
        } catch {
            Log.line("Read-only: " + error.message.english)
            return nil
        }
    }

    /// Leaves `message` where `--unmount` looks for it.
    private static func report(_ message: DaemonMessage, to file: FilePath) {
        try? FileSystem.makeDirectories(file.removingLastComponent())
        let bytes = Array(message.line.utf8)
        let descriptor = file.withPlatformString { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
        guard descriptor >= 0 else { return }
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }

    /// "Saved 3 changes to “x.zip”" (with Undo while the trash holds the version before the folder's first
    /// commit, shown by a process of its own that outlives us: `UndoOffer`), or why they could not be saved.
    private static func notify(_ outcome: CommitOutcome, archive: FilePath) {
        if case .saved(let changes, let result) = outcome, !result.savedBeside, let written = result.written {
            let previous = previousVersion.withLock { kept in
                kept = kept ?? result.previousVersion
                return kept
            }
            if let previous {
                UndoOffer.start(UndoOffer.Offer(
                    archive: archive, changes: changes, written: written, previous: previous, body: result.warnings.last?.text.localized ?? ""))
                return
            }
        }
        guard let notifier = Notifier.connect() else { return }
        let name = archive.lastComponent?.string ?? archive.string
        switch outcome {
        case .saved(let changes, let result):
            let output = result.output.lastComponent?.string ?? name
            // TRANSLATORS: %ld is a count of changed files and folders, %@ the archive.
            let summary = ntr("Saved %ld change to “%@”", "Saved %ld changes to “%@”", changes, output)
            notifier.show(summary: summary.localized, body: result.warnings.last?.text.localized ?? "", wait: true)
        case .failed(let error):
            notifier.show(
                summary: tr("Could not save the changes to “%@”", name).localized,
                body: error.message.localized + (error.hint.map { " " + $0.localized } ?? "") + " "
                    + tr("The changes are kept, and saving is tried again.").localized,
                urgency: .critical, wait: true)
        case .nothing: break
        }
    }

    /// The archive's index, read in one scan; a failure is said to the starter and ends the daemon.
    private static func scanned(_ archive: FilePath) -> ArchiveIndex {
        // The starter gone (its Cancel, Ctrl-C) stops the scan: nobody would open the folder.
        let control = JobControl()
        var lastProgress = -1.0
        do {
            return try ArchiveIndex.scan(archive, passwords: passwords, control: control) { read, total in
                let now = monotonicSeconds()
                guard now - lastProgress >= 0.25 else { return }
                lastProgress = now
                if !say(.progress(read: read, total: total)) { control.cancel() }
            }
        } catch {
            let error = error.forFolder
            say(.failed(code: error.code.exitStatus, message: error.message.localized, hint: error.hint?.localized ?? ""))
            exit(error.code.exitStatus)
        }
    }

    /// Asks the starter, which asks the person through the password chain; an empty answer is a cancel.
    /// The last answer is kept for the commits (`remembered`): the starter is gone by then.
    private static let passwords = PasswordAsker(attempts: 3) { _, attempt throws(ArchiverError) in
        say(.password(attempt: attempt))
        guard let secret = Secret.readLine(from: STDIN_FILENO), !secret.isEmpty else {
            throw ArchiverError(.password, tr("No password was given; %@.", tr("no folder was opened")))
        }
        remembered.secret = secret
        return secret
    }

    /// The version the session's first commit moved to the trash: every later commit's Undo puts it back.
    private static let previousVersion = Mutex<FileIdentity?>(nil)

    /// The password the folder was opened with, for the commits.
    private static let remembered = RememberedPassword()

    /// - Returns: false when the starter is gone.
    @discardableResult
    private static func say(_ message: DaemonMessage) -> Bool {
        let bytes = Array(message.line.utf8)
        return bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) } == bytes.count
    }
}

func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The password an encrypted archive was opened with, given again to each commit.
final class RememberedPassword: @unchecked Sendable {
    private let lock = Mutex<Secret?>(nil)
    var secret: Secret? {
        get { lock.withLock { $0 } }
        set { lock.withLock { $0 = newValue } }
    }

    var asker: PasswordAsker {
        PasswordAsker(attempts: 1) { [self] name, _ throws(ArchiverError) in
            guard let secret else { throw ArchiverError(.password, tr("“%@” is password-protected; nothing was changed.", name)) }
            return secret
        }
    }
}
