import ArchiverCore
import Glibc
import Synchronization
import SystemPackage

/// The temporary outputs of the running job, so that a cancellation that cannot wait for libarchive (the
/// last flush of a large xz block or 7z archive takes seconds to minutes) can still remove them and exit.
///
/// A path is registered when created and withdrawn just before it is published; whoever takes it first
/// owns it, so a job is never half published and half removed.
public enum PendingOutputs {
    private static let paths = Mutex<[FilePath]>([])
    /// Programs writing into those outputs (7-Zip), killed before their output is removed.
    private static let children = Mutex<Set<pid_t>>([])

    static func register(child: pid_t) { _ = children.withLock { $0.insert(child) } }

    static func forget(child: pid_t) { _ = children.withLock { $0.remove(child) } }

    package static func register(_ path: FilePath) {
        paths.withLock { $0.append(path) }
    }

    /// Takes `path` back for publishing or cleanup. False when a cancellation already took it.
    package static func withdraw(_ path: FilePath) -> Bool {
        paths.withLock { list in
            guard let index = list.firstIndex(of: path) else { return false }
            list.remove(at: index)
            return true
        }
    }

    /// Removes every registered output; the caller then exits at once. Returns false when there was
    /// nothing to remove, because the job is already publishing its result and should be left to finish.
    public static func abandonAll() -> Bool {
        let taken = paths.withLock { list in
            defer { list.removeAll() }
            return list
        }
        // A child left running would go on writing into what is being removed, and outlive us.
        if !taken.isEmpty { for child in children.withLock({ $0 }) { kill(child, SIGKILL) } }
        for path in taken { FileSystem.removeTree(path) }
        return !taken.isEmpty
    }
}

/// One output file being written under a hidden temporary name in its destination folder: made with
/// O_EXCL (nobody else's file is written over), registered so that a stop removes it, and published under
/// its final name only when complete. Whatever is not published is removed when this goes away, so the
/// owner keeps it alive (`withExtendedLifetime`) for as long as the path or descriptor is in use.
package final class PendingFile {
    package let path: FilePath
    /// Open for writing; closed when this goes away.
    package let descriptor: Int32
    private let folder: FilePath
    private var withdrawn = false
    private var published = false
    private var closed = false

    package init(in folder: FilePath) throws(ArchiverError) {
        self.folder = folder
        path = folder.appending(TemporaryName.make(pid: getpid(), token: FileSystem.randomToken(), isDirectory: false))
        descriptor = path.withPlatformString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666) }
        guard descriptor >= 0 else { throw FileSystem.destinationError(errno, folder) }
        PendingOutputs.register(path)
    }

    deinit {
        if !closed { close(descriptor) }
        if withdrawn ? !published : PendingOutputs.withdraw(path) { FileSystem.removeTree(path) }
    }

    /// Its size now, in bytes.
    package var size: Int64 { FileSystem.status(path).map { Int64($0.st_size) } ?? 0 }

    /// Takes it back from the stop's clean-up, before publishing or anything that must go with it.
    /// - Returns: false when a stop already took it (and removes it).
    package func withdraw() -> Bool {
        if !withdrawn { withdrawn = PendingOutputs.withdraw(path) }
        return withdrawn
    }

    /// Moves it to `name` in its folder (numbered when taken, unless `exact`).
    /// - Throws: `.cancelled` when a stop already took it; the publisher's error, the file then removed.
    package func publish(as name: [UInt8], exact: Bool = false) throws(ArchiverError) -> FilePath {
        guard withdraw() else { throw ArchiverError(.cancelled, tr("Cancelled.")) }
        // Some file systems (NFS, a full quota) report a lost write only when the file is closed.
        closed = true
        if close(descriptor) != 0 { throw FileSystem.destinationError(errno, folder) }
        let output = try FileSystem.publish(path, in: folder, as: name, isDirectory: false, exact: exact)
        published = true
        return output
    }
}
