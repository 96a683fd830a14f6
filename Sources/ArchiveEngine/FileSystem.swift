import ArchiverCore
import Glibc
import SystemPackage

/// The few POSIX operations the engine needs, with errors turned into `ArchiverError`.
package enum FileSystem {
    /// `lstat`, or nil when the path does not exist or cannot be reached.
    package static func status(_ path: FilePath) -> stat? {
        var info = stat()
        let result = path.withPlatformString { lstat($0, &info) }
        return result == 0 ? info : nil
    }

    /// A file's size, following symlinks; nil when it cannot be reached.
    package static func size(of file: FilePath) -> Int64? {
        var info = stat()
        return file.withPlatformString { stat($0, &info) } == 0 ? Int64(info.st_size) : nil
    }

    /// `path` opened for reading and its size, or why it cannot be. A decoder throws the failure once
    /// every property is set, so that its `deinit` frees its buffers.
    static func openForReading(_ path: FilePath) -> (descriptor: Int32, size: Int64, failure: ArchiverError?) {
        let descriptor = path.withPlatformString { Glibc.open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            let failure = ArchiverError(
                .inputUnreadable, tr("Cannot open “%1$@”: %2$@.", path, TextValue.systemError(errno)), path: path.string)
            return (-1, 0, failure)
        }
        return (descriptor, Int64(lseek(descriptor, 0, SEEK_END)), nil)
    }

    /// Reads up to `count` bytes at `offset` into `buffer`, fewer only at the file's end; nil on a read error.
    static func readFully(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) -> Int? {
        var done = 0
        while done < count {
            let got = pread(descriptor, buffer + done, count - done, off_t(offset + Int64(done)))
            if got < 0, errno == EINTR { continue }
            if got < 0 { return nil }
            if got == 0 { break }
            done += got
        }
        return done
    }

    /// `count` bytes at `offset`, or nil when the file has fewer there or cannot be read.
    static func bytes(_ descriptor: Int32, at offset: Int64, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { readFully(descriptor, into: $0.baseAddress!, count: count, at: offset) }
        return got == count ? bytes : nil
    }

    /// The sum of the files' sizes, following symlinks; a file that cannot be reached counts 0.
    package static func size(of files: [FilePath]) -> Int64 {
        files.reduce(0) { $0 + (size(of: $1) ?? 0) }
    }

    package static func isDirectory(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFDIR }
    package static func isRegular(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFREG }
    package static func isSymlink(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFLNK }

    /// A symlink's target as bytes. The corresponding C function is `readlink`.
    package static func symlinkTarget(_ link: FilePath) -> [UInt8]? {
        let capacity = Int(PATH_MAX)
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        let length = link.withPlatformString { readlink($0, buffer, capacity) }
        guard length >= 0 else { return nil }
        return UnsafeRawBufferPointer(start: buffer, count: length).map { $0 }
    }

    /// The canonical path, with symlinks resolved. The corresponding C function is `realpath`.
    package static func resolve(_ path: FilePath) -> FilePath? {
        path.withPlatformString { pointer in
            guard let resolved = realpath(pointer, nil) else { return nil }
            defer { free(resolved) }
            return FilePath(platformString: resolved)
        }
    }

    /// Whether this process may create files in `folder`.
    package static func canWrite(_ folder: FilePath) -> Bool {
        folder.withPlatformString { access($0, W_OK | X_OK) } == 0
    }

    /// Why this process cannot create files in `folder` (a read-only disk, no permission); nil when it can.
    /// Writes all of `bytes` to `descriptor`, going on after short writes and interruptions.
    static func writeAll(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
        var sent = bytes.startIndex
        while sent < bytes.endIndex {
            let count = bytes[sent...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

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

    /// A file's bytes, read to its end (`/proc` files report no size) or to `limit`.
    package static func wholeFile(_ path: FilePath, limit: Int = .max) -> [UInt8]? {
        let descriptor = path.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? bytes : nil }
            bytes += chunk[..<count]
        }
        return bytes
    }

    /// The error for a job stopped while `free` bytes were still free in `folder`, short of what it needs.
    package static func notEnoughSpace(_ folder: FilePath, free: Int64?) -> ArchiverError {
        ArchiverError(
            // TRANSLATORS: %1$@ is a folder, %2$@ a size (“12 MB”).
            .destination, tr("Not enough space in “%1$@”: the job stopped with %2$@ left, before the disk was full; nothing was left behind.", folder, .bytes(free ?? 0)),
            hint: tr("Free some space or choose another destination."), path: folder.string)
    }

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
    static func publishParts(_ parts: [FilePath], in folder: FilePath, as name: [UInt8], exact: Bool = false)
        throws(ArchiverError) -> [FilePath]
    {
        for attempt in 1...10_000 {
            let candidate = ArchiveNaming.numbered(name, isDirectory: false, attempt: attempt)
            let targets = parts.indices.map { folder.appending(bytes: OutputSink.partName(candidate, $0 + 1)) }
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
    private static func claim(_ source: FilePath, at target: FilePath, isDirectory: Bool) throws(ArchiverError) -> Bool {
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

    /// Deletes a file or a whole tree, making read-only folders writable first. Never follows symlinks.
    /// Works relative to each folder, so that paths longer than PATH_MAX (an archive may hold them) go too.
    package static func removeTree(_ path: FilePath) {
        guard let info = status(path) else { return }
        guard isDirectory(info) else {
            _ = path.withPlatformString { unlink($0) }
            return
        }
        _ = path.withPlatformString { chmod($0, 0o700) }
        let folder = path.withPlatformString { open($0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        if folder >= 0 { removeContents(of: folder) }
        _ = path.withPlatformString { rmdir($0) }
    }

    /// Deletes everything in the open folder `folder`, and closes it.
    private static func removeContents(of folder: Int32) {
        guard let stream = fdopendir(folder) else {
            close(folder)
            return
        }
        defer { closedir(stream) }
        var names: [[UInt8]] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != [UInt8(ascii: ".")], name != [UInt8(ascii: "."), UInt8(ascii: ".")] { names.append(name) }
        }
        for name in names {
            withCString(name) { child in
                var info = stat()
                guard fstatat(folder, child, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return }
                guard isDirectory(info) else {
                    unlinkat(folder, child, 0)
                    return
                }
                fchmodat(folder, child, 0o700, 0)
                let inner = openat(folder, child, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if inner >= 0 { removeContents(of: inner) }
                unlinkat(folder, child, AT_REMOVEDIR)
            }
        }
    }

    /// The names in a folder, without `.` and `..`.
    package static func entries(of folder: FilePath) throws(ArchiverError) -> [[UInt8]] {
        guard let dir = folder.withPlatformString({ opendir($0) }) else {
            // TRANSLATORS: %1$@ is a folder, %2$@ the system's reason (from the C library, already translated).
            throw ArchiverError(.inputUnreadable, tr("Cannot read the folder “%1$@”: %2$@.", folder, TextValue.systemError(errno)),
                hint: tr("Check its permissions."), path: folder.string)
        }
        defer { closedir(dir) }
        var names: [[UInt8]] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
            names.append(name)
        }
        return names
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

    /// errno values that mean the disk as a whole cannot take more: the job stops, whatever the entry.
    static let diskFailures: Set<Int32> = [ENOSPC, EDQUOT, EROFS, EFBIG]

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

extension FilePath {
    /// Whether the path starts with `/`.
    var isAbsolutePath: Bool { bytes.first == UInt8(ascii: "/") }

    /// This path made absolute against the current folder and lexically normalised (symlinks are kept).
    public var madeAbsolute: FilePath {
        guard !isAbsolutePath else { return lexicallyNormalized() }
        guard let cwd = getcwd(nil, 0) else { return FilePath("/").pushing(self).lexicallyNormalized() }
        defer { free(cwd) }
        return FilePath(platformString: cwd).pushing(self).lexicallyNormalized()
    }
}
