internal import CPlatform
import ArchiverCore
import Glibc
import SystemPackage

extension FileSystem {
    /// Gives `copy` what `original` has of its own: permission bits, owner and group (where this user may),
    /// extended attributes (where the file system keeps them). What cannot be carried over is left as it is.
    package static func carryOver(from original: FilePath, to copy: FilePath) {
        guard let info = status(original) else { return }
        original.withPlatformString { from in
            copy.withPlatformString { to in
                // Owner first: chown clears the setuid bits that chmod then puts back.
                if info.st_uid != getuid() || info.st_gid != getgid() { _ = chown(to, info.st_uid, info.st_gid) }
                _ = chmod(to, info.st_mode & 0o7777)
                let size = listxattr(from, nil, 0)
                guard size > 0 else { return }
                var names = [CChar](repeating: 0, count: size)
                let got = listxattr(from, &names, size)
                guard got > 0 else { return }
                for name in names[..<got].split(separator: 0) {
                    let key = Array(name) + [0]
                    let length = getxattr(from, key, nil, 0)
                    guard length >= 0 else { continue }
                    var value = [UInt8](repeating: 0, count: max(length, 1))
                    let read = getxattr(from, key, &value, length)
                    guard read >= 0 else { continue }
                    _ = setxattr(to, key, value, read, 0)
                }
            }
        }
    }

    /// Whether `path` is still the file described by `before`: same inode, size and modification time.
    package static func isUnchanged(_ path: FilePath, since before: Glibc.stat) -> Bool {
        guard let now = status(path) else { return false }
        return now.st_dev == before.st_dev && now.st_ino == before.st_ino && now.st_size == before.st_size
            && now.st_mtim.tv_sec == before.st_mtim.tv_sec && now.st_mtim.tv_nsec == before.st_mtim.tv_nsec
    }
}

extension PendingFile {
    /// Moves it over `target` in one step (rename), replacing what is there: the commit of an edited archive.
    /// - Throws: `.cancelled` when a stop already took it; the rename's error, the file then removed.
    package func replace(_ target: FilePath) throws(ArchiverError) {
        guard withdraw() else { throw ArchiverError(.cancelled, tr("Cancelled.")) }
        try closeForPublishing()
        // On disk before it takes the name: a crash must find the old archive or the whole new one.
        let synced = path.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        if synced >= 0 {
            defer { close(synced) }
            if fsync(synced) != 0, FileSystem.diskFailures.contains(errno) { throw FileSystem.destinationError(errno, target.removingLastComponent()) }
        }
        let moved = path.withPlatformString { from in target.withPlatformString { Glibc.rename(from, $0) } }
        guard moved == 0 else { throw FileSystem.destinationError(errno, target.removingLastComponent()) }
        markPublished()
    }
}
