import ArchiveEngine
import JobKit
import JobProtocol
import ArchiverCore
import Dispatch
import Glibc
import MountEngine
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
    static func run(archive: FilePath, folder: FilePath, idleTimeout: Double, keepFolder: Bool) throws -> Never {
        signal(SIGPIPE, SIG_IGN)
        // A kept index lists at once; otherwise the archive is scanned (and its index kept once served).
        let cached = IndexCache.load(archive)
        let index = cached ?? scanned(archive)
        for text in index.refused { Log.line(text.english) }
        let fileSystem = ArchiveFileSystem(index) {
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
            // Kept for the next opening once this one is served.
            if cached == nil { DispatchQueue.global(qos: .utility).async { IndexCache.store(index) } }
        }
        do {
            try fileSystem.serve(at: folder, source: archive.string, idleTimeout: idleTimeout > 0 ? idleTimeout : nil)
        } catch {
            let error = error.forFolder
            say(.failed(code: error.code.exitStatus, message: error.message.localized, hint: error.hint?.localized ?? ""))
            if !keepFolder { _ = folder.withPlatformString { rmdir($0) } }
            exit(error.code.exitStatus)
        }
        if !keepFolder { _ = folder.withPlatformString { rmdir($0) } }
        exit(ExitStatus.success)
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
    private static let passwords = PasswordAsker(attempts: 3) { _, attempt throws(ArchiverError) in
        say(.password(attempt: attempt))
        guard let secret = Secret.readLine(from: STDIN_FILENO), !secret.isEmpty else {
            throw ArchiverError(.password, tr("No password was given; %@.", tr("no folder was opened")))
        }
        return secret
    }

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
