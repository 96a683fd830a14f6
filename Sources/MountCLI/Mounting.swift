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

/// The starter's side: where to mount, reuse of a live mount, the daemon's start, the password and
/// progress on its behalf, and the result.
enum Mounting {
    /// Ctrl-C, SIGTERM and the progress notification's Cancel stop the starter; the daemon then stops too.
    private static let control: JobControl = {
        let control = JobControl()
        CommandRunner.installSignalHandlers(control)
        return control
    }()

    static func open(
        _ archive: FilePath, folder given: FilePath?, idleTimeout: Double, readOnly: Bool, script: Bool, passwords: PasswordAsker,
        notify: Bool?
    ) throws {
        let name = archive.lastComponent?.string ?? archive.string
        // TRANSLATORS: the progress notification's title while an archive is read to open it as a folder.
        let feedback = DesktopFeedback(
            title: tr("Opening “%@” as a folder", name).localized, notify: notify, settings: UserSettings.current,
            control: Self.control)
        do throws(ArchiverError) {
            let (folder, reused, made) = try place(archive, given: given)
            if !reused {
                do throws(ArchiverError) {
                    try start(
                        archive, at: folder, keepFolder: !made, idleTimeout: idleTimeout, readOnly: readOnly,
                        notifyCommits: script ? notify == true : notify ?? UserSettings.current.notifications, passwords: passwords, feedback: feedback)
                } catch {
                    // A folder the person named and had made stays, even empty: only our own goes.
                    if made { _ = folder.withPlatformString { rmdir($0) } }
                    throw error
                }
            }
            print(folder.string)
            if script { return }
            Reveal.open(folder)
            // TRANSLATORS: a button on the notification of an archive opened as a folder.
            let unmount = Notifier.Action(id: "unmount", label: tr("Unmount").localized) { MountPoints.unmount(folder) }
            let show = Notifier.Action(id: "default", label: tr("Open folder").localized) { Reveal.open(folder) }
            feedback.succeeded(
                summary: tr("Opened “%@” as a folder", name).localized,
                body: tr("It stays open until nothing in it has been used for a while.").localized, actions: [show, unmount])
            feedback.waitForAction()
        } catch {
            printProblem(error)
            feedback.failed(summary: tr("Could not open “%@” as a folder", name).localized, error)
            throw ExitCode(error.code.exitStatus)
        }
    }

    /// `--unmount FOLDER`: unmounts (the daemon then exits and removes the folder) and waits until it is gone.
    static func unmount(_ folder: FilePath) throws {
        guard MountPoints.isOurs(folder) else {
            printProblem(ArchiverError(
                .inputUnreadable, tr("“%@” is not a folder opened by Archiver.", folder), path: folder.string))
            throw ExitCode(ArchiverError.Code.inputUnreadable.exitStatus)
        }
        let archive = MountPoints.current().first { $0.type == MountPlace.type && $0.mountPoint == folder.bytes }.map { FilePath(bytes: $0.source) }
        let result = LayerPlace.result(for: folder)
        guard MountPoints.unmount(folder) else {
            printProblem(ArchiverError(
                .destination, tr("“%@” is in use, so it stays open.", folder),
                hint: tr("Close the files and windows that use it, then try again."), path: folder.string))
            throw ExitCode(ArchiverError.Code.destination.exitStatus)
        }
        // The daemon removes a folder it made as it leaves; wait a little for it, then remove one under
        // $XDG_RUNTIME_DIR/archiver here (always ours). A folder the person named is never removed here.
        for _ in 0..<50 where MountPoints.isOurs(folder) { usleep(20_000) }
        if MountPoints.isOwnFolder(folder) {
            for _ in 0..<50 where folder.withPlatformString({ access($0, F_OK) }) == 0 { usleep(20_000) }
            _ = folder.withPlatformString { rmdir($0) }
        }
        // A writable folder's daemon commits after the unmount, holding the archive's lock until it is done.
        guard let archive else { return }
        _ = try? ArchiveLock.take(archive, wait: .seconds(24 * 3600))
        guard let bytes = FileSystem.wholeFile(result) else { return }
        _ = result.withPlatformString { unlink($0) }
        guard case .failed(let code, let message, let hint)? = DaemonMessage(line: String(decoding: bytes, as: UTF8.self).dropLast()) else { return }
        if code == ExitStatus.warnings {
            printWarning(.verbatim(message))
        } else {
            printProblem(ArchiverError(
                ArchiverError.Code(exitStatus: code) ?? .destination, .verbatim(message), hint: hint.isEmpty ? nil : .verbatim(hint),
                path: archive.string))
        }
        throw ExitCode(code)
    }

    /// The folder to mount on, whether the archive is mounted there already, and whether Archiver makes
    /// (and so may remove) the folder: always under $XDG_RUNTIME_DIR/archiver, a named one only when it was missing.
    private static func place(
        _ archive: FilePath, given: FilePath?
    ) throws(ArchiverError) -> (FilePath, reused: Bool, made: Bool) {
        // A mount whose daemon was killed and which its watchdog left: detached, and the archive mounted
        // again (which commits what that daemon left in its layer).
        for mount in MountPoints.current() where mount.type == MountPlace.type && mount.source == archive.bytes {
            let folder = FilePath(bytes: mount.mountPoint)
            if MountPoints.isDead(folder) { MountPoints.detach(folder) }
        }
        let mounts = MountPoints.current()
        if let given {
            let live = mounts.contains { $0.type == MountPlace.type && $0.mountPoint == given.bytes && $0.source == archive.bytes }
            let made = !live && FileSystem.status(given) == nil
            if !live { try FileSystem.makeDirectories(given) }
            return (given, live, made)
        }
        guard let runtime = ProcessEnvironment.current.variables["XDG_RUNTIME_DIR"], !runtime.isEmpty else {
            throw ArchiverError(
                .destination, tr("There is no $XDG_RUNTIME_DIR to open the archive in."),
                hint: tr("Log in to a desktop session, or name a folder: open-with-archiver --mount ARCHIVE FOLDER."))
        }
        let root = FilePath(runtime).appending("archiver")
        switch MountPlace.decide(archive: archive.bytes, in: root.bytes, mounts: mounts, isTaken: isTaken) {
        case .reuse(let folder): return (FilePath(bytes: folder), true, false)
        case .mount(let folder):
            try FileSystem.makeDirectories(FilePath(bytes: folder))
            return (FilePath(bytes: folder), false, true)
        }
    }

    /// Something other than an empty folder (an empty one is left by a mount that died) is there.
    private static func isTaken(_ path: [UInt8]) -> Bool {
        let folder = FilePath(bytes: path)
        guard FileSystem.status(folder) != nil else { return false }
        return (try? FileSystem.entries(of: folder))?.isEmpty != true
    }

    /// Starts the daemon and answers it until the folder is ready.
    private static func start(
        _ archive: FilePath, at folder: FilePath, keepFolder: Bool, idleTimeout: Double, readOnly: Bool, notifyCommits: Bool,
        passwords: PasswordAsker, feedback: DesktopFeedback
    ) throws(ArchiverError) {
        var toDaemon: [Int32] = [-1, -1], fromDaemon: [Int32] = [-1, -1]
        guard pipe(&toDaemon) == 0, pipe(&fromDaemon) == 0 else {
            throw ArchiverError(.destination, tr("Cannot start the folder's server: %@.", TextValue.systemError(errno)))
        }
        defer { close(toDaemon[1]); close(fromDaemon[0]) }
        // Our ends stay ours: the daemon must see the end of its input when we go.
        for end in [toDaemon[1], fromDaemon[0]] { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let me = FilePath(bytes: FileSystem.symlinkTarget(FilePath("/proc/self/exe")) ?? Array(CommandLine.arguments[0].utf8))
        // Bytes, not strings: an archive named in Latin-1 reaches the daemon under its own name.
        var arguments = Arguments(["--serve", "--idle-timeout", "\(idleTimeout)"])
        if keepFolder { arguments.add("--keep-folder") }
        if readOnly { arguments.add("--read-only") }
        if notifyCommits { arguments.add("--notify-commits") }
        arguments.operands([archive, folder])
        let pid = try ChildProcess.startDaemon(
            me, arguments.argv, stdin: toDaemon[0], stdout: fromDaemon[1])
        close(toDaemon[0])
        close(fromDaemon[1])
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fromDaemon[0], $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            pending += buffer[..<count]
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeFirst(newline + 1)
                switch DaemonMessage(line: line[...]) {
                case .progress(let read, let total): feedback.update(done: read, total: total)
                case .password(let attempt):
                    let name = archive.lastComponent?.string ?? archive.string
                    let secret: Secret
                    do throws(ArchiverError) {
                        secret = try passwords.ask(name, attempt)
                    } catch {
                        kill(pid, SIGKILL)
                        _ = waitpid(pid, nil, 0)
                        throw error
                    }
                    secret.withBytes { line in
                        _ = write(toDaemon[1], line.baseAddress, line.count)
                        _ = write(toDaemon[1], "\n", 1)
                    }
                case .ready:
                    reap(pid)
                    return
                case .failed(let code, let message, let hint):
                    _ = waitpid(pid, nil, 0)
                    throw ArchiverError(
                        ArchiverError.Code(exitStatus: code) ?? .corrupt, .verbatim(message),
                        hint: hint.isEmpty ? nil : .verbatim(hint), path: archive.string)
                case nil: continue
                }
            }
        }
        _ = waitpid(pid, nil, 0)
        throw ArchiverError(.corrupt, tr("The folder's server stopped before “%@” was open.", archive), path: archive.string)
    }

    /// The daemon lives on in a session of its own; it is reaped by init once we are gone.
    private static func reap(_ pid: pid_t) { _ = waitpid(pid, nil, WNOHANG) }
}
