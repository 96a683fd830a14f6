import ArchiverCore
import Glibc
import SystemPackage

/// What the destination can take: free space, the file system's traits, and write errors in words.
extension FileSystem {
    /// Why this process cannot create files in `folder` (a read-only disk, no permission); nil when it can.
    package static func writeError(_ folder: FilePath) -> ArchiverError? {
        canWrite(folder) ? nil : destinationError(errno, folder)
    }

    /// Free bytes for an unprivileged user in the file system holding `folder`.
    package static func freeSpace(_ folder: FilePath) -> Int64? {
        var info = statvfs()
        guard folder.withPlatformString({ statvfs($0, &info) }) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// A watch over the free space of the file system holding `folder`; nil when the system cannot tell.
    package static func spaceWatch(_ folder: FilePath) -> SpaceWatch? {
        var info = statvfs()
        guard folder.withPlatformString({ statvfs($0, &info) }) == 0 else { return nil }
        let block = Int64(info.f_frsize)
        return SpaceWatch(diskSize: Int64(info.f_blocks) * block, free: Int64(info.f_bavail) * block)
    }

    /// What the file system holding `folder` can hold (case, symlinks, file size), from its type.
    package static func traits(of folder: FilePath) -> FileSystemTraits {
        guard let device = status(folder)?.st_dev, let mountinfo = wholeFile("/proc/self/mountinfo") else { return .posix }
        // glibc's `major` and `minor` are macros.
        let major = (device >> 8) & 0xfff | (device >> 32) & ~0xfff
        let minor = device & 0xff | (device >> 12) & ~0xff
        let text = String(decoding: mountinfo, as: UTF8.self)
        return FileSystemTraits.mountType(device: "\(major):\(minor)", mountinfo: text).map(FileSystemTraits.of) ?? .posix
    }

    /// The traits of the file system holding `staging`, an empty private folder, with whether it tells
    /// capitals apart and holds symlinks tried out there: that is true of any file system, network and
    /// FUSE ones (whose type says little) included.
    package static func probedTraits(staging: FilePath) -> FileSystemTraits {
        var traits = traits(of: staging)
        let probe = staging.appending("archiver-probe")
        if probe.withPlatformString({ symlink("archiver-probe", $0) }) == 0 {
            traits.holdsSymlinks = true
            traits.foldsCase = status(staging.appending("ARCHIVER-PROBE")) != nil
            _ = probe.withPlatformString { unlink($0) }
        } else {
            traits.holdsSymlinks = false
            let made = probe.withPlatformString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
            if made >= 0 {
                close(made)
                traits.foldsCase = status(staging.appending("ARCHIVER-PROBE")) != nil
                _ = probe.withPlatformString { unlink($0) }
            }
        }
        return traits
    }

    /// The error for a job stopped while `free` bytes were still free in `folder`, short of what it needs.
    package static func notEnoughSpace(_ folder: FilePath, free: Int64?) -> ArchiverError {
        ArchiverError(
            // TRANSLATORS: %1$@ is a folder, %2$@ a size (“12 MB”).
            .destination, tr("Not enough space in “%1$@”: the job stopped with %2$@ left, before the disk was full; nothing was left behind.", folder, .bytes(free ?? 0)),
            hint: tr("Free some space or choose another destination."), path: folder.string)
    }

    /// errno values that mean the disk as a whole cannot take more: the job stops, whatever the entry.
    package static let diskFailures: Set<Int32> = [ENOSPC, EDQUOT, EROFS, EFBIG]

    /// An `ArchiverError` for a failed write into `folder`.
    package static func destinationError(_ code: Int32, _ folder: FilePath) -> ArchiverError {
        let reason = TextValue.systemError(code)
        switch code {
        case ENOSPC, EDQUOT:
            return ArchiverError(
                .destination, tr("The disk holding “%@” is full; nothing was left behind.", folder),
                hint: tr("Free some space or choose another destination."), path: folder.string)
        case EROFS:
            return ArchiverError(
                .destination, tr("“%@” is on a read-only disk.", folder), hint: tr("Choose another destination."),
                path: folder.string)
        case ENAMETOOLONG:
            return ArchiverError(
                .destination, tr("A name is too long for the disk holding “%@”, which allows 255 bytes per name.", folder),
                hint: tr("Choose a shorter name, for example with --name."), path: folder.string)
        case EACCES, EPERM:
            return ArchiverError(
                .destination, tr("You do not have permission to write in “%@”.", folder),
                hint: tr("Choose a folder you own."), path: folder.string)
        default:
            // TRANSLATORS: %1$@ is a folder, %2$@ the system's reason (from the C library, already translated).
            return ArchiverError(.destination, tr("Cannot write in “%1$@”: %2$@.", folder, reason), path: folder.string)
        }
    }
}
