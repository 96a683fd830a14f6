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
        status(path).map { FileIdentity($0) } == FileIdentity(before)
    }
}

/// One version of a file, told from others without reading it: the file itself (device and inode, which a
/// replacement by rename changes, and a move into the trash keeps) and its size and modification time
/// (which a write in place changes).
package struct FileIdentity: Sendable, Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var seconds: Int64
    var nanoseconds: Int64

    package init(_ status: Glibc.stat) {
        (device, inode, size) = (UInt64(status.st_dev), UInt64(status.st_ino), Int64(status.st_size))
        (seconds, nanoseconds) = (Int64(status.st_mtim.tv_sec), Int64(status.st_mtim.tv_nsec))
    }

    /// `device.inode.size.seconds.nanoseconds`, to hand to another process.
    package var text: String { "\(device).\(inode).\(size).\(seconds).\(nanoseconds)" }

    package init?(text: some StringProtocol) {
        let fields = text.split(separator: ".", omittingEmptySubsequences: false)
        guard fields.count == 5, let device = UInt64(fields[0]), let inode = UInt64(fields[1]), let size = Int64(fields[2]),
            let seconds = Int64(fields[3]), let nanoseconds = Int64(fields[4])
        else { return nil }
        (self.device, self.inode, self.size, self.seconds, self.nanoseconds) = (device, inode, size, seconds, nanoseconds)
    }

    /// The identity of what is at `path` now (not following a symlink there), or nil.
    package static func of(_ path: FilePath) -> FileIdentity? { FileSystem.status(path).map { FileIdentity($0) } }
}

extension FileSystem {
    /// Closes `descriptor`, the last one of `size` bytes of a file that a commit just replaced, without
    /// waiting for the kernel to free the file (`cp_close_detached`); a small one is closed here, as that
    /// costs less than a process.
    package static func closeReplaced(_ descriptor: Int32, size: Int64) {
        if size < 64 << 20 || cp_close_detached(descriptor) != 0 { close(descriptor) }
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
        // The rename on disk too: a crash after the commit said it was done must not bring the old archive back.
        let folder = target.removingLastComponent().withPlatformString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }
}
