internal import CPlatform
import ArchiverCore
import Glibc
import SystemPackage

/// Outputs are made in a hidden private folder or under a hidden temporary name beside where they go, and
/// moved to their final name only when complete, never over anything.
extension FileSystem {
    /// A hidden private folder in `folder` for one job's output, registered for cleanup when the job stops.
    package static func makeStaging(in folder: FilePath) throws(ArchiverError) -> FilePath {
        removeStaleTemporaries(in: folder)
        let staging = folder.appending(TemporaryName.make(pid: getpid(), token: randomToken(), isDirectory: true))
        try makePrivateDirectory(staging)
        PendingOutputs.register(staging)
        return staging
    }

    /// Creates a folder only this user can enter, for staging.
    package static func makePrivateDirectory(_ path: FilePath) throws(ArchiverError) {
        guard path.withPlatformString({ mkdir($0, 0o700) }) == 0 else {
            throw destinationError(errno, path.removingLastComponent())
        }
    }

    /// Creates the folder and its parents as needed (`mkdir -p`).
    package static func makeDirectories(_ path: FilePath) throws(ArchiverError) {
        if let info = status(path) {
            if isDirectory(info) || (isSymlink(info) && resolve(path).flatMap(status).map(isDirectory) == true) {
                return
            }
            throw ArchiverError(.destination, tr("“%@” exists and is not a folder.", path), hint: tr("Choose another destination."))
        }
        if !path.removingLastComponent().isEmpty, path.removingLastComponent() != path {
            try makeDirectories(path.removingLastComponent())
        }
        if path.withPlatformString({ mkdir($0, 0o777) }) != 0, errno != EEXIST {
            throw destinationError(errno, path)
        }
    }

    /// A unique token for temporary names.
    package static func randomToken() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }

    /// Moves `source` to a name that is free in `folder`: `name`, else `name (2)`, `name (3)`, … without ever
    /// replacing anything, even against another process doing the same.
    ///
    /// Folders claim their name with `mkdir` and are then renamed over the empty claim; files and symlinks
    /// with `link`, which fails if the name exists. File systems without hard links fall back to checking
    /// first, which leaves a tiny window.
    /// - Parameter exact: only `name` is acceptable; a taken name is an error.
    /// - Returns: the final path.
    package static func publish(_ source: FilePath, in folder: FilePath, as name: [UInt8], isDirectory: Bool, exact: Bool = false)
        throws(ArchiverError) -> FilePath
    {
        for attempt in 1...10_000 {
            let candidate = folder.appending(bytes: ArchiveNaming.numbered(name, isDirectory: isDirectory, attempt: attempt))
            if try claim(source, at: candidate, isDirectory: isDirectory) { return candidate }
            if exact {
                throw ArchiverError(
                    .destination, tr("“%@” already exists; nothing was overwritten.", candidate),
                    hint: tr("Choose another name, or move the existing file away."), path: candidate.string)
            }
        }
        throw ArchiverError(.destination, tr("No free name for “%1$@” in “%2$@”.", name.displayName, folder))
    }

    /// Moves the parts of a split archive to `NAME.001`, `NAME.002`, … in `folder`, all under the first
    /// name none of whose parts is taken (`Archive (2).zip.001` …). The first part is placed last, so that a
    /// set is never seen without its start; a failure half-way moves the placed parts back.
    /// - Returns: the published parts, in order.
    package static func publishParts(_ parts: [FilePath], in folder: FilePath, as name: [UInt8], exact: Bool = false)
        throws(ArchiverError) -> [FilePath]
    {
        for attempt in 1...10_000 {
            let candidate = ArchiveNaming.numbered(name, isDirectory: false, attempt: attempt)
            let targets = parts.indices.map { folder.appending(bytes: VolumeName.writtenPartName(candidate, $0 + 1)) }
            // A leftover part of that name (`.004` of an older, longer set) would join the new set.
            let leftovers = ((try? entries(of: folder)) ?? []).contains { entry in
                VolumeName.parse(entry).map { $0.base == candidate && $0.style == .numbered(width: 3) } ?? false
            }
            var placed: [(from: FilePath, to: FilePath)] = []
            func giveBack() { for move in placed.reversed() { _ = rename(move.to, move.from) } }
            do throws(ArchiverError) {
                if !leftovers, targets.allSatisfy({ status($0) == nil }) {
                    for (part, target) in zip(parts, targets).reversed() {
                        guard try claim(part, at: target, isDirectory: false) else { break }
                        placed.append((part, target))
                    }
                    if placed.count == parts.count { return targets }
                }
            } catch {
                giveBack()
                throw error
            }
            giveBack()
            if exact {
                throw ArchiverError(
                    .destination, tr("“%@” or another part of that name already exists; nothing was overwritten.", targets[0]),
                    hint: tr("Choose another name, or move the existing parts away."), path: targets[0].string)
            }
        }
        throw ArchiverError(.destination, tr("No free name for “%1$@” in “%2$@”.", name.displayName, folder))
    }

    /// Tries to move `source` to `target`; false when `target` is taken.
    package static func claim(_ source: FilePath, at target: FilePath, isDirectory: Bool) throws(ArchiverError) -> Bool {
        if isDirectory {
            // One step: a kill can never leave the name taken by an empty folder.
            let moved = renameIfFree(source, target)
            if moved == 0 { return true }
            if errno == EEXIST { return false }
            if errno != EINVAL, errno != ENOSYS, errno != ENOTSUP {
                throw destinationError(errno, target.removingLastComponent())
            }
            // A file system without it (FUSE ones, vfat): claim the name with an empty folder, then move over it.
            if target.withPlatformString({ mkdir($0, 0o700) }) != 0 {
                if errno == EEXIST { return false }
                throw destinationError(errno, target.removingLastComponent())
            }
            if rename(source, target) != 0 {
                let code = errno
                _ = target.withPlatformString { rmdir($0) }
                // Some file systems (fusefat) do not rename a folder over an empty one: give the claim back
                // and rename into the free name, which leaves a tiny window, as for files without links.
                guard code == EPERM || code == ENOTSUP || code == EEXIST, rename(source, target) == 0 else {
                    throw destinationError(code, target.removingLastComponent())
                }
            }
            return true
        }
        let linked = source.withPlatformString { from in target.withPlatformString { to in link(from, to) } }
        if linked == 0 {
            _ = source.withPlatformString { unlink($0) }
            return true
        }
        switch errno {
        case EEXIST: return false
        case EPERM, EXDEV, ENOTSUP, EMLINK:
            if status(target) != nil { return false }
            if rename(source, target) != 0 { throw destinationError(errno, target.removingLastComponent()) }
            return true
        default:
            throw destinationError(errno, target.removingLastComponent())
        }
    }

    private static func rename(_ from: FilePath, _ to: FilePath) -> Int32 {
        from.withPlatformString { a in to.withPlatformString { b in Glibc.rename(a, b) } }
    }

    /// Removes what killed runs left in `folder`: temporary names whose PID is no longer running. Live
    /// runs beside this one keep their work, and so does anything another user owns (in a shared folder
    /// it could be a trap, and it is not ours to delete).
    package static func removeStaleTemporaries(in folder: FilePath) {
        let ownPID = getpid()
        for name in (try? entries(of: folder)) ?? [] {
            guard let pid = TemporaryName.pid(in: name), pid != ownPID else { continue }
            let path = folder.appending(bytes: name)
            guard let info = status(path), info.st_uid == getuid() else { continue }
            if kill(pid, 0) != 0, errno == ESRCH {
                removeTree(path)
            }
        }
    }

    /// Moves `source` to `target` only if nothing is at `target`, in one step (renameat2's
    /// RENAME_NOREPLACE); -1 with errno EEXIST when something is, EINVAL or ENOSYS where the file system
    /// cannot.
    private static func renameIfFree(_ source: FilePath, _ target: FilePath) -> Int32 {
        source.withPlatformString { from in target.withPlatformString { cp_rename_noreplace(from, $0) } }
    }
}
