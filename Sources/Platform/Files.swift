import ArchiverCore
import Glibc
import SystemPackage

/// The few POSIX operations the engines need, with errors turned into `ArchiverError`: reading and listing
/// here; staging and publishing outputs in Staging.swift, free space and write errors in Space.swift.
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
    package static func openForReading(_ path: FilePath) -> (descriptor: Int32, size: Int64, failure: ArchiverError?) {
        let descriptor = path.withPlatformString { Glibc.open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            let failure = ArchiverError(
                .inputUnreadable, tr("Cannot open “%1$@”: %2$@.", path, TextValue.systemError(errno)), path: path.string)
            return (-1, 0, failure)
        }
        return (descriptor, Int64(lseek(descriptor, 0, SEEK_END)), nil)
    }

    /// Reads up to `count` bytes at `offset` into `buffer`, fewer only at the file's end; nil on a read error.
    package static func readFully(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) -> Int? {
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
    package static func bytes(_ descriptor: Int32, at offset: Int64, count: Int) -> [UInt8]? {
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

    /// Writes all of `bytes` to `descriptor`, going on after short writes and interruptions.
    package static func writeAll(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
        var sent = bytes.startIndex
        while sent < bytes.endIndex {
            let count = bytes[sent...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
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
}

extension FilePath {
    /// Whether the path starts with `/`.
    package var isAbsolutePath: Bool { bytes.first == UInt8(ascii: "/") }

    /// This path made absolute against the current folder and lexically normalised (symlinks are kept).
    public var madeAbsolute: FilePath {
        guard !isAbsolutePath else { return lexicallyNormalized() }
        guard let cwd = getcwd(nil, 0) else { return FilePath("/").pushing(self).lexicallyNormalized() }
        defer { free(cwd) }
        return FilePath(platformString: cwd).pushing(self).lexicallyNormalized()
    }
}

/// Calls `body` with `bytes` as a NUL-terminated C string.
package func withCString<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
    let chars = bytes.map { CChar(bitPattern: $0) } + [0]
    return try chars.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { preconditionFailure("a non-empty array has storage") }
        return try body(base)
    }
}
