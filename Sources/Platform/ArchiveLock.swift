import ArchiverCore
import Glibc
import SystemPackage

/// The one-writer lock of an archive, taken by every writer (`edit-with-archiver`, the writable mount, the
/// window) for as long as it reads and replaces the archive: an `flock` on a file named after the archive's
/// real path in a folder only this user can enter (`$XDG_RUNTIME_DIR/archiver/locks`, else one in /tmp).
/// The archive itself cannot carry the lock: a commit replaces its file by another.
///
/// The kernel drops the lock when its holder dies, even by `kill -9`; the lock files stay (removing one
/// while another process waits on it would let two writers in).
package final class ArchiveLock {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// Takes the lock of `archive`, waiting up to `wait` for another writer to finish.
    /// - Throws: `.destination` when another writer keeps it longer (the archive is busy), or the lock
    ///   folder cannot be made.
    package static func take(_ archive: FilePath, wait: Duration = .zero, environment: [String: String] = ProcessEnvironment.current.variables)
        throws(ArchiverError) -> ArchiveLock
    {
        let folder = try lockFolder(environment)
        let real = FileSystem.resolve(archive) ?? archive.madeAbsolute
        let path = folder.appending(Self.name(for: real.bytes))
        let descriptor = path.withPlatformString { open($0, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600) }
        guard descriptor >= 0 else { throw FileSystem.destinationError(errno, folder) }
        let deadline = ContinuousClock.now + wait
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline else {
                close(descriptor)
                throw ArchiverError(
                    .destination, tr("“%@” is being changed by another program; nothing was changed.", archive.lastComponent?.string ?? archive.string),
                    hint: tr("Try again when it has finished (an open folder of the archive commits its changes when idle)."),
                    path: archive.string)
            }
            usleep(50_000)
        }
        return ArchiveLock(descriptor: descriptor)
    }

    /// `a1b2…​.lock`: a 64-bit FNV-1a of the path, so that any path fits a name (two archives sharing one
    /// only wait for each other).
    static func name(for path: [UInt8]) -> String { key(for: path) + ".lock" }

    /// A 64-bit FNV-1a of `path`, in hexadecimal: a file name for anything kept per path.
    package static func key(for path: [UInt8]) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in path { hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01B3 }
        return String(hash, radix: 16)
    }

    private static func lockFolder(_ environment: [String: String]) throws(ArchiverError) -> FilePath {
        let base: FilePath
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty, FileSystem.status(FilePath(runtime)) != nil {
            base = FilePath(runtime).appending("archiver")
        } else {
            base = FilePath("/tmp").appending("archiver-\(getuid())")
        }
        let folder = base.appending("locks")
        for path in [base, folder] {
            if path.withPlatformString({ mkdir($0, 0o700) }) != 0, errno != EEXIST { throw FileSystem.destinationError(errno, path) }
        }
        // In a shared /tmp, someone else could have made the folder first: only our own will do.
        guard let info = FileSystem.status(base), FileSystem.isDirectory(info), info.st_uid == getuid() else {
            throw ArchiverError(.destination, tr("“%@” belongs to someone else; it cannot hold this user's locks.", base), path: base.string)
        }
        return folder
    }
}
