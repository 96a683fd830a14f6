internal import CArchive
import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// A libarchive write handle set up for one output format, writing to a file descriptor.
struct ArchiveWriter: ~Copyable {
    private let handle: OpaquePointer
    private let container: ArchiveFormat.Container
    /// Our own compression stage after libarchive's tar stream (gzip, zstd, bzip2), with its level and workers.
    private let stage: (kind: ArchiveFormat.Filter, level: Int32, workers: Int)?

    /// - Parameters:
    ///   - format: the output format.
    ///   - settings: the method and level it stands for.
    ///   - threads: worker threads for xz and zstd.
    ///   - password: encrypts a zip with AES-256 (WinZip AE-2), which 7-Zip, WinZip and Windows 11 read.
    ///   - zipEncryption: libarchive's name of the zip encryption (`aes256`, or `zipcrypt` to add to a
    ///     ZipCrypto archive).
    /// - Throws: `ArchiverError` when libarchive refuses the format or an option.
    /// The corresponding C function is `archive_write_new`.
    init(format: ArchiveFormat, settings: CompressionSettings, threads: Int, password: Secret? = nil, zipEncryption: String = "aes256")
        throws(ArchiverError)
    {
        guard let handle = archive_write_new() else {
            throw ArchiverError(.destination, tr("Out of memory while starting the archive."))
        }
        switch format.container {
        case .zip: archive_write_set_format_zip(handle)
        case .sevenZip: archive_write_set_format_7zip(handle)
        case .tar: archive_write_set_format_pax_restricted(handle)
        case .raw: archive_write_set_format_raw(handle)
        }
        switch format.filter {
        case .none: break
        case .xz: archive_write_add_filter_xz(handle)
        case .gzip, .zstd, .bzip2: break  // GzipStage, ZstdStage or Bzip2Stage, at open
        }
        var options = Self.options(format: format, settings: settings, threads: threads)
        if let password {
            precondition(format.container == .zip, "only zip is encrypted through libarchive")
            options += ",zip:encryption=\(zipEncryption)"
            _ = password.withCString { archive_write_set_passphrase(handle, $0) }
        }
        if !options.isEmpty, archive_write_set_options(handle, options) != ARCHIVE_OK {
            let (message, _) = lastError(handle)
            archive_write_free(handle)
            // TRANSLATORS: %1$@ is a list of libarchive options (“zip:compression=deflate”), %2$@ libarchive's own message.
            throw ArchiverError(.notAnArchive, tr("libarchive refused the options “%1$@”: %2$@.", options, message))
        }
        // A custom destination pads the last block to 10240 bytes unless told otherwise.
        archive_write_set_bytes_in_last_block(handle, 1)
        archive_write_set_bytes_per_block(handle, 128 * 1024)
        self.handle = handle
        container = format.container
        stage =
            switch format.filter {
            case .gzip: (.gzip, Int32(settings.level ?? 6), threads)
            case .zstd: (.zstd, Int32(settings.level ?? 3), threads)
            case .bzip2: (.bzip2, Int32(settings.level ?? 9), threads)
            default: nil
            }
    }

    deinit { archive_write_free(handle) }

    /// The libarchive option string for a format and its settings.
    static func options(format: ArchiveFormat, settings: CompressionSettings, threads: Int) -> String {
        var options: [String] = []
        switch format.container {
        case .zip:
            if settings.method == .store {
                options.append("zip:compression=store")
            } else {
                options.append("zip:compression=deflate")
                if let level = settings.level { options.append("zip:compression-level=\(level)") }
            }
        case .sevenZip:
            options.append("7zip:compression=\(settings.method?.rawValue ?? "lzma2")")
            if let level = settings.level { options.append("7zip:compression-level=\(level)") }
        case .tar, .raw:
            let module: String? =
                switch format.filter {
                case .none, .gzip, .zstd, .bzip2: nil
                case .xz: "xz"
                }
            if let module, let level = settings.level { options.append("\(module):compression-level=\(level)") }
            if format.usesThreads, let module { options.append("\(module):threads=\(threads)") }
        }
        return options.joined(separator: ",")
    }

    /// Starts writing into `sink`, which checks for cancellation on every block, so that even the long
    /// final flush of xz or 7z stops promptly.
    /// The corresponding C function is `archive_write_open2`.
    func open(sink: OutputSink, folder: String) throws(ArchiverError) {
        var compression: (any CompressionStage)?
        switch stage?.kind {
        case .zstd?:
            compression = ZstdStage(level: stage!.level, workers: stage!.workers, sink: sink)
            if compression == nil { throw ArchiverError(.destination, tr("Out of memory while starting the archive.")) }
        case .bzip2?: compression = Bzip2Stage(level: stage!.level, workers: stage!.workers, sink: sink)
        case .gzip?: compression = GzipStage(level: stage!.level, workers: stage!.workers, sink: sink)
        default: break
        }
        let context = Unmanaged.passRetained(WriteTarget(sink: sink, stage: compression)).toOpaque()
        let status = archive_write_open2(
            handle, context, nil,
            { archive, context, buffer, length in
                guard let context, let buffer else { return -1 }
                let target = Unmanaged<WriteTarget>.fromOpaque(context).takeUnretainedValue()
                let written = target.write(UnsafeRawBufferPointer(start: buffer, count: length))
                if written < 0 { ca_set_error(archive, target.lastErrno, "write failed") }
                return written
            },
            { archive, context in
                guard let context else { return ARCHIVE_OK }
                let target = Unmanaged<WriteTarget>.fromOpaque(context).takeUnretainedValue()
                if target.end() { return ARCHIVE_OK }
                ca_set_error(archive, target.lastErrno, "write failed")
                return ARCHIVE_FATAL
            },
            { _, context in
                if let context { Unmanaged<WriteTarget>.fromOpaque(context).release() }
                return ARCHIVE_OK
            })
        try check(status, folder: folder)
    }

    /// Writes an entry's header. The corresponding C function is `archive_write_header`.
    func writeHeader(_ entry: borrowing Entry, folder: String) throws(ArchiverError) {
        try writeHeader(borrowed: entry.handle, folder: folder)
    }

    /// Writes the header of an entry another handle owns (a reader's current entry, when converting).
    func writeHeader(borrowed entry: OpaquePointer, folder: String) throws(ArchiverError) {
        guard container == .zip, !Entry.hasUTF8Name(entry) else {
            try check(archive_write_header(handle, entry), folder: folder)
            return
        }
        // libarchive's zip writer sets the UTF-8 flag on every non-ASCII name when the locale is UTF-8,
        // even on bytes that are not UTF-8, which makes readers (Python's zipfile, ours) reject the name
        // or the whole archive. Under the C locale it stores the bytes without the flag, as Info-ZIP does.
        let cLocale = ca_new_c_locale()
        let previous = cLocale.map { uselocale($0) }
        defer {
            if let previous { uselocale(previous) }
            if let cLocale { freelocale(cLocale) }
        }
        try check(archive_write_header(handle, entry), folder: folder)
    }

    /// Writes the next bytes of the current entry. The corresponding C function is `archive_write_data`.
    func writeData(_ buffer: UnsafeRawBufferPointer, folder: String) throws(ArchiverError) {
        let written = archive_write_data(handle, buffer.baseAddress, buffer.count)
        // A failure here may follow a header that looked fine (zip encryption without a passphrase).
        if written < 0 { try check(Int32(truncatingIfNeeded: written), folder: folder) }
    }

    /// Flushes everything and writes the trailer. The corresponding C function is `archive_write_close`.
    func close(folder: String) throws(ArchiverError) {
        try check(archive_write_close(handle), folder: folder)
    }

    private func check(_ status: Int32, folder: String) throws(ArchiverError) {
        guard !ArchiveStatus(rawValue: status).succeeded else { return }
        let (message, code) = lastError(handle)
        if FileSystem.diskFailures.contains(code) || code == EACCES || code == EPERM {
            throw FileSystem.destinationError(code, .init(folder))
        }
        // TRANSLATORS: %@ is libarchive's own message (English).
        throw ArchiverError(.destination, tr("Writing the archive failed: %@.", message), path: folder)
    }

    /// An `archive_entry` owned by Swift.
    struct Entry: ~Copyable {
        let handle: OpaquePointer

        init() {
            guard let handle = archive_entry_new() else { fatalError("archive_entry_new: out of memory") }
            self.handle = handle
        }

        deinit { archive_entry_free(handle) }

        /// Whether the name (and a symlink's target) is valid UTF-8.
        var hasUTF8Name: Bool { Self.hasUTF8Name(handle) }

        static func hasUTF8Name(_ handle: OpaquePointer) -> Bool {
            [archive_entry_pathname(handle), archive_entry_symlink(handle)].allSatisfy { name in
                name.map { String(validatingCString: $0) != nil } ?? true
            }
        }

        /// Fills the entry from a file's `lstat`, named `path` inside the archive.
        func fill(path: [UInt8], status: stat, symlinkTarget: [UInt8]?) {
            var status = status
            archive_entry_copy_stat(handle, &status)
            withCString(path) { archive_entry_copy_pathname(handle, $0) }
            if !FileSystem.isRegular(status) { archive_entry_set_size(handle, 0) }
            if let symlinkTarget { withCString(symlinkTarget) { archive_entry_copy_symlink(handle, $0) } }
        }
    }
}

/// Compression of libarchive's output by our own code (`GzipStage`, `ZstdStage`, `Bzip2Stage`), on the way to the sink.
protocol CompressionStage: AnyObject {
    /// Takes all of `input`: its length, or -1 on failure (`lastErrno` says why).
    func write(_ input: UnsafeRawBufferPointer) -> Int
    /// Writes out everything still held; false on failure.
    func end() -> Bool
    var lastErrno: Int32 { get }
}

/// Where libarchive's bytes go: the sink, through our compression stage when there is one.
private final class WriteTarget {
    let sink: OutputSink
    let stage: (any CompressionStage)?
    private var ended = false

    init(sink: OutputSink, stage: (any CompressionStage)?) {
        self.sink = sink
        self.stage = stage
    }

    var lastErrno: Int32 { stage?.lastErrno ?? sink.lastErrno }

    func write(_ buffer: UnsafeRawBufferPointer) -> Int { stage?.write(buffer) ?? sink.write(buffer) }

    /// Ends the stage once: libarchive calls close again from free when close was never called.
    func end() -> Bool {
        guard let stage, !ended else { return true }
        ended = true
        return stage.end()
    }
}

/// Where an archive's bytes go: a file descriptor, or parts of a fixed size that it opens one after
/// another, with the job's cancellation and budget checked before every write.
final class OutputSink {
    /// Parts being written: `NAME.001`, `NAME.002`, … of `size` bytes in a private staging folder.
    private struct Parts {
        let folder: FilePath
        let name: [UInt8]
        let size: Int64
        var count = 0
        var written: Int64 = 0
    }

    private var descriptor: Int32
    private var parts: Parts?
    private let control: JobControl
    /// The folder written into, whose free space is watched.
    private let folder: FilePath
    private var space: SpaceWatch?
    /// The errno of the last failed write; ECANCELED when the job was stopped.
    private(set) var lastErrno: Int32 = 0
    /// Whether writing stopped to keep the disk's reserve free.
    private(set) var stoppedForSpace = false

    /// Writes into `descriptor`, a file in `folder`.
    init(descriptor: Int32, in folder: FilePath, control: JobControl) {
        self.descriptor = descriptor
        self.control = control
        self.folder = folder
        space = FileSystem.spaceWatch(folder)
    }

    /// Writes into `folder/NAME.001`, `.002`, … each of `partSize` bytes but the last.
    init(partsIn folder: FilePath, name: [UInt8], partSize: Int64, control: JobControl) throws(ArchiverError) {
        parts = Parts(folder: folder, name: name, size: partSize)
        descriptor = -1
        self.control = control
        self.folder = folder
        space = FileSystem.spaceWatch(folder)
        guard openNextPart() else { throw FileSystem.destinationError(lastErrno, folder) }
    }

    deinit { if parts != nil, descriptor >= 0 { close(descriptor) } }

    /// The parts written so far, in order.
    var partPaths: [FilePath] {
        guard let parts else { return [] }
        return (1...max(1, parts.count)).map { parts.folder.appending(bytes: Self.partName(parts.name, $0)) }
    }

    /// `NAME.001`: three digits, as 7-Zip writes them, more when a set has over 999 parts.
    static func partName(_ name: [UInt8], _ number: Int) -> [UInt8] { VolumeName.writtenPartName(name, number) }

    /// Closes the last part, which reports a write the disk could not keep (NFS reports it only here).
    func finish(folder: FilePath) throws(ArchiverError) {
        guard parts != nil, descriptor >= 0 else { return }
        let closed = close(descriptor)
        descriptor = -1
        if closed != 0 { throw FileSystem.destinationError(errno, folder) }
    }

    private func openNextPart() -> Bool {
        guard var next = parts else { return false }
        if descriptor >= 0 {
            let closed = close(descriptor)
            descriptor = -1
            if closed != 0 {
                lastErrno = errno
                return false
            }
        }
        next.count += 1
        next.written = 0
        let path = next.folder.appending(bytes: Self.partName(next.name, next.count))
        descriptor = path.withPlatformString { Glibc.open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666) }
        parts = next
        if descriptor < 0 { lastErrno = errno }
        return descriptor >= 0
    }

    /// Writes `bytes` over what was written at `offset` from the start (the zip writer setting a member's
    /// sizes and CRC in its header once the data is out), across a part boundary if need be; false on
    /// failure, with `lastErrno` set.
    func patch(_ bytes: [UInt8], at offset: Int64) -> Bool {
        var done = 0
        while done < bytes.count {
            var target = descriptor, at = offset + Int64(done), room = bytes.count - done
            var opened: Int32 = -1
            if let parts {
                let number = Int(at / parts.size) + 1
                at %= parts.size
                room = min(room, Int(clamping: parts.size - at))
                if number != parts.count {
                    let path = parts.folder.appending(bytes: Self.partName(parts.name, number))
                    opened = path.withPlatformString { Glibc.open($0, O_WRONLY | O_CLOEXEC) }
                    guard opened >= 0 else {
                        lastErrno = errno
                        return false
                    }
                    target = opened
                }
            }
            let count = bytes[done..<(done + room)].withUnsafeBytes { pwrite(target, $0.baseAddress, $0.count, off_t(at)) }
            let failure = errno
            if opened >= 0, close(opened) != 0, count >= 0 {
                lastErrno = errno
                return false
            }
            if count < 0, failure == EINTR { continue }
            guard count > 0 else {
                lastErrno = count < 0 ? failure : EIO
                return false
            }
            done += count
        }
        return true
    }

    /// Writes everything or fails: the count written, or -1.
    func write(_ buffer: UnsafeRawBufferPointer) -> Int {
        if (try? control.check()) == nil {
            lastErrno = ECANCELED
            return -1
        }
        if space?.spend(Int64(buffer.count), measure: { FileSystem.freeSpace(folder) }) == false {
            stoppedForSpace = true
            lastErrno = ENOSPC
            return -1
        }
        var offset = 0
        while offset < buffer.count {
            var room = buffer.count - offset
            if let current = parts, current.written == current.size, !openNextPart() { return -1 }
            if let current = parts { room = min(room, Int(clamping: current.size - current.written)) }
            let count = Glibc.write(descriptor, buffer.baseAddress?.advanced(by: offset), room)
            if count < 0 {
                if errno == EINTR { continue }
                lastErrno = errno
                return -1
            }
            offset += count
            parts?.written += Int64(count)
        }
        return buffer.count
    }
}
