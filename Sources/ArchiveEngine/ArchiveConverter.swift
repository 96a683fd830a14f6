internal import CArchive
internal import CZlib
import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// `--convert`: an archive → the same entries in another format beside it (`x.rar` → `x.zip`), streamed
/// from libarchive's reader into its writer with no temporary extraction. Names, folders, permissions,
/// times, symlinks and hard links go across as the reader gives them; an entry the target cannot hold is
/// left out and named, never changed.
public enum ArchiveConverter {
    /// Converts `archive` (any part of a set).
    /// - Parameters:
    ///   - format: the target, an archive format (not a single stream).
    ///   - passwords: asked when the source's entries are encrypted.
    ///   - password: encrypts the target (zip only, `--encrypt`).
    ///   - comment: the zip comment (UTF-8), for a zip target.
    ///   - beforePublishing: as for `Compressor.run` (`--verify`).
    /// - Returns: what was made, with a warning for each entry left out.
    /// - Throws: `ArchiverError`; nothing is left behind when it throws.
    public static func run(
        archive: FilePath, format: ArchiveFormat, level: CompressionLevel, passwords: PasswordAsker?, password: Secret?,
        comment: [UInt8]? = nil, control: JobControl, progress: (Int64, Int64?) -> Void = { _, _ in },
        beforePublishing: (_ written: FilePath, _ name: String) throws(ArchiverError) -> Void = { _, _ in }
    ) throws(ArchiverError) -> CompressResult {
        ArchiveEngineSetup.ensureLocale()
        PendingOutputs.beginJob()
        defer { PendingOutputs.endJob() }
        if password != nil, format.container != .zip {
            throw ArchiverError(
                .usage, tr("A converted archive can be encrypted as zip only; nothing was made."),
                hint: tr("Add --format zip, or convert without --encrypt and encrypt afterwards."))
        }
        let volumes = try VolumeSet.find(archive)
        let sourceName = archive.lastComponent?.string ?? archive.string
        if let encrypted = try EncryptedArchive(volumes.parts[0], control: control) {
            return try encrypted.convert(
                format: format, level: level, passwords: passwords, password: password, name: volumes.name, comment: comment,
                control: control, progress: progress, beforePublishing: beforePublishing)
        }
        var decrypting = false
        var reader = try ArchiveTester.openVerified(
            archive, volumes: volumes, passwords: passwords, nothingDone: tr("nothing was converted"), decrypting: &decrypting,
            control: control)
        if reader.isRawStream {
            throw ArchiverError(
                .usage, tr("“%@” is one compressed file, not an archive, so there is nothing to convert.", sourceName),
                hint: tr("Extract it instead."), path: archive.string)
        }
        let parent = archive.removingLastComponent()
        guard let folder = FileSystem.resolve(parent.isEmpty ? FilePath(".") : parent) else {
            throw FileSystem.destinationError(errno, parent)
        }
        if let error = FileSystem.writeError(folder) { throw error }
        let name = ArchiveNaming.stem(volumes.name) + Array(format.fileExtension.utf8)

        FileSystem.removeStaleTemporaries(in: folder)
        let pending = try PendingFile(in: folder)
        defer { withExtendedLifetime(pending) {} }
        let sink = OutputSink(descriptor: pending.descriptor, in: folder, control: control)
        let target: ConversionTarget =
            if format == .zip {
                ContainerTarget(sink: sink, folder: folder, level: level, password: password, comment: comment ?? [])
            } else {
                try LibarchiveTarget(sink: sink, folder: folder, format: format, level: level)
            }
        var result = CompressResult(
            output: folder.appending(bytes: name), size: 0, inputBytes: 0, files: 0, folders: 0, symlinks: 0, warnings: [])
        progress(0, reader.fileSize)
        let zeros = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        zeros.initializeMemory(as: UInt8.self, repeating: 0)
        defer { zeros.deallocate() }
        while let info = try reader.next() {
            try control.check()
            guard let entry = reader.current else { break }
            if info.encrypted, !decrypting { throw EncryptionSupport.cannotDecrypt(reader.displayName, family: reader.family) }
            if let reason = ConversionRule.cannotHold(info, in: format) {
                result.warnings.append(ConversionRule.leftOut(info, format: format, reason: reason))
                continue
            }
            try target.begin(info, entry: entry)
            switch info.kind {
            case .directory: result.folders += 1
            case .symlink: result.symlinks += 1
            case .file: result.files += 1
            default: break
            }
            guard info.kind == .file else { continue }
            // Data comes in blocks at offsets; a sparse file's holes are written as zeros, so that the
            // entry keeps its size in formats without holes.
            var written: Int64 = 0
            while let (buffer, offset) = try reader.readBlock(entryName: info.path.displayName) {
                while written < offset {
                    let count = Int(min(Int64(zeros.count), offset - written))
                    try target.write(UnsafeRawBufferPointer(rebasing: zeros[..<count]))
                    written += Int64(count)
                }
                try target.write(buffer)
                written += Int64(buffer.count)
                progress(reader.bytesRead, reader.fileSize)
                try control.check()
            }
            try target.end()
            result.inputBytes += written
        }
        try target.close()
        try beforePublishing(pending.path, name.displayName)
        result.size = pending.size
        result.output = try pending.publish(as: name, exact: false)
        result.parts = [result.output]
        progress(reader.fileSize, reader.fileSize)
        return result
    }
}

extension EncryptedArchive {
    /// An encrypted 7z or rar converted through its program: extracted into a private staging folder beside
    /// it (made safe as for extraction), compressed from there, and the staging folder removed whatever
    /// happens. Symlinks and names 7z cannot hold are left out and named, as in the streamed conversion.
    func convert(
        format: ArchiveFormat, level: CompressionLevel, passwords: PasswordAsker?, password: Secret?, name: [UInt8],
        comment: [UInt8]?, control: JobControl, progress: (Int64, Int64?) -> Void,
        beforePublishing: (FilePath, String) throws(ArchiverError) -> Void
    ) throws(ArchiverError) -> CompressResult {
        let (entries, sourcePassword) = try browse(passwords: passwords, control: control)
        let parent = archive.removingLastComponent()
        guard let folder = FileSystem.resolve(parent.isEmpty ? FilePath(".") : parent) else {
            throw FileSystem.destinationError(errno, parent)
        }
        var warnings: [JobWarning] = []
        for entry in entries {
            if let reason = ConversionRule.cannotHold(entry, in: format) {
                warnings.append(ConversionRule.leftOut(entry, format: format, reason: reason))
            }
        }
        let staging = try FileSystem.makeStaging(in: folder)
        defer { PendingOutputs.discard(staging) }
        let made =
            switch tool {
            case .sevenZip:
                try SevenZip.extractTree(archive, into: staging, password: sourcePassword, control: control) { _ in }
            case .unrar:
                try UnRAR.extractTree(archive, into: staging, password: sourcePassword, control: control) { _ in }
            }
        // What the target cannot hold goes before compressing, so that nothing is silently changed.
        for entry in entries where ConversionRule.cannotHold(entry, in: format) != nil {
            if case .success(let parts) = EntryPath.components(of: entry.path), !parts.isEmpty {
                FileSystem.removeTree(staging.appending(bytes: EntryPath.join(parts)))
            }
        }
        let items = (try? FileSystem.entries(of: staging)) ?? []
        guard !items.isEmpty else {
            throw ArchiverError(.usage, tr("“%@” holds nothing to convert.", ToolArchive.displayName(archive)), path: archive.string)
        }
        // The first free name by the compress rule; publishing refuses, never overwrites, if it is taken meanwhile.
        let base = ArchiveNaming.stem(name) + Array(format.fileExtension.utf8)
        let free = (1...).lazy.map { ArchiveNaming.numbered(base, isDirectory: false, attempt: $0) }
            .first { FileSystem.status(folder.appending(bytes: $0)) == nil } ?? base
        var result = try Compressor.run(
            inputs: items.map { staging.appending(bytes: $0) }, format: format, level: level,
            destination: .path(folder.appending(bytes: free)), control: control, password: password, progress: progress,
            comment: format == .zip ? comment.map { String(decoding: $0, as: UTF8.self) } : nil, beforePublishing: beforePublishing)
        result.warnings = made.refused.map { JobWarning("entry-refused", $0.text) } + made.warnings + warnings + result.warnings
        return result
    }
}

/// Where converted entries go, one after another: `begin`, the data through `write`, `end`; then `close`.
private protocol ConversionTarget: AnyObject {
    /// Starts `info` (its libarchive `entry`); a folder or symlink is whole after this.
    func begin(_ info: ArchiveEntryInfo, entry: OpaquePointer) throws(ArchiverError)
    func write(_ bytes: UnsafeRawBufferPointer) throws(ArchiverError)
    /// Ends the file begun.
    func end() throws(ArchiverError)
    /// Ends the archive (with its comment, for a zip).
    func close() throws(ArchiverError)
}

/// Zips: our container (the one zip writer, with the comment in its end record), each file's data
/// deflated as it streams in, on every core when it is large, and with a password encrypted as it comes
/// out (WinZip AES, `ZipAES`; symlinks, folders and empty files stay plain, as `ZipCompression` says why).
private final class ContainerTarget: ConversionTarget {
    private var writer: ZipContainerWriter
    private let level: Int32?
    private let password: Secret?
    private var salts = ZipAES.Salts()
    private let comment: [UInt8]
    private var open: (member: ZipContainerWriter.OpenMember, deflate: ParallelDeflate?, aes: ZipAES?, crc: uLong, size: Int64)?
    private var failure: ArchiverError?
    /// The deflater of small files, kept from one to the next (`ParallelDeflate.reset` says why).
    private lazy var small = level.map { ParallelDeflate(level: $0, workers: 1) }

    init(sink: OutputSink, folder: FilePath, level: CompressionLevel, password: Secret?, comment: [UInt8]) {
        writer = ZipContainerWriter(sink: sink, folder: folder)
        let settings = ArchiveFormat.zip.settings(for: level)
        self.level = settings.method == .store ? nil : Int32(settings.level ?? 6)
        self.password = password
        self.comment = comment
    }

    func begin(_ info: ArchiveEntryInfo, entry: OpaquePointer) throws(ArchiverError) {
        var name = info.path
        let type: UInt32
        switch info.kind {
        case .directory:
            type = 0o040000
            if name.last != UInt8(ascii: "/") { name.append(UInt8(ascii: "/")) }
        case .symlink: type = 0o120000
        default: type = 0o100000
        }
        let size = info.kind == .file ? max(0, info.size ?? 0) : 0
        let member = ZipContainerWriter.NewMember(
            name: name, mode: type | info.permissions & 0o7777, modified: info.modified ?? 0,
            owner: UInt32(truncatingIfNeeded: archive_entry_uid(entry)), group: UInt32(truncatingIfNeeded: archive_entry_gid(entry)),
            method: info.kind == .file && level != nil ? 8 : 0, expectedSize: size,
            encrypted: info.kind == .file && (info.size ?? 1) > 0 && password != nil)
        switch info.kind {
        case .file:
            // A small file gains nothing from more workers, which would each hold a block.
            var deflate = small
            if size > ZipCompression.wholeLimit {
                deflate = level.map { ParallelDeflate(level: $0, workers: Compressor.processorCount()) }
            } else {
                deflate?.reset()
            }
            let aes = member.encrypted ? ZipAES(password: password!, salt: salts.next()) : nil
            open = (try writer.begin(member), deflate, aes, 0, 0)
            if let aes, !aes.header.withUnsafeBytes(written) { throw failure ?? outOfMemory() }
        case .symlink:
            let target = info.linkTarget ?? []
            let crc = target.withUnsafeBytes { crc32(0, $0.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt($0.count)) }
            let sums = ZipContainerWriter.Sums(crc: UInt32(crc), compressedSize: Int64(target.count), size: Int64(target.count), method: 0)
            try writer.add(member, sums: sums, data: target)
        default:
            try writer.add(member, sums: .init(crc: 0, compressedSize: 0, size: 0, method: 0), data: [])
        }
    }

    /// Writes a member's bytes as they come out of deflate, encrypted first when it is.
    private func emit(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if let aes = open?.aes { return aes.encrypt(bytes, emit: written) }
        return written(bytes)
    }

    private func written(_ bytes: UnsafeRawBufferPointer) -> Bool {
        do throws(ArchiverError) { try writer.append(bytes) } catch {
            failure = error
            return false
        }
        return true
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(ArchiverError) {
        guard var current = open, !bytes.isEmpty else { return }
        current.size += Int64(bytes.count)
        if let deflate = current.deflate {
            guard deflate.write(bytes, emit: emit) else { throw failure ?? outOfMemory() }
        } else {
            current.crc = crc32(current.crc, bytes.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt(bytes.count))
            guard emit(bytes) else { throw failure ?? outOfMemory() }
        }
        open = current
    }

    func end() throws(ArchiverError) {
        guard let current = open else { return }
        var sums = ZipContainerWriter.Sums(crc: UInt32(current.crc), compressedSize: current.size, size: current.size, method: 0)
        if let deflate = current.deflate {
            guard deflate.finish(emit: emit) else { throw failure ?? outOfMemory() }
            sums = .init(crc: deflate.crc, compressedSize: deflate.outputSize, size: current.size, method: 8)
        }
        open = nil
        if let aes = current.aes {
            guard aes.authenticationCode().withUnsafeBytes(written) else { throw failure ?? outOfMemory() }
            sums.compressedSize += ZipAES.overhead
        }
        try writer.end(current.member, sums: sums)
    }

    func close() throws(ArchiverError) { try writer.finish(comment: comment) }

    private func outOfMemory() -> ArchiverError { ArchiverError(.destination, tr("Out of memory while starting the archive.")) }
}

/// Every other format: libarchive's writer (none of them is encrypted).
private final class LibarchiveTarget: ConversionTarget {
    private let writer: ArchiveWriter
    private let folder: String

    init(sink: OutputSink, folder: FilePath, format: ArchiveFormat, level: CompressionLevel) throws(ArchiverError) {
        let writer = try ArchiveWriter(format: format, settings: format.settings(for: level), threads: Compressor.processorCount())
        try writer.open(sink: sink, folder: folder.string)
        self.writer = writer
        self.folder = folder.string
    }

    func begin(_ info: ArchiveEntryInfo, entry: OpaquePointer) throws(ArchiverError) {
        try writer.writeHeader(borrowed: entry, folder: folder)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(ArchiverError) { try writer.writeData(bytes, folder: folder) }

    func end() {}

    func close() throws(ArchiverError) { try writer.close(folder: folder) }
}

/// What each target format can hold, decided from the entry alone.
enum ConversionRule {
    /// The warning for an entry left out.
    static func leftOut(_ entry: ArchiveEntryInfo, format: ArchiveFormat, reason: Text) -> JobWarning {
        JobWarning(
            // TRANSLATORS: %1$@ is an entry, %2$@ the target format (7z, zip), %3$@ why (“it is a symbolic link”).
            "entry-not-converted", tr("Left out “%1$@”: %2$@ cannot hold it (%3$@).", entry.path.displayName, format.rawValue, reason))
    }

    /// Why `format` cannot hold `entry`, in words; nil when it can.
    static func cannotHold(_ entry: ArchiveEntryInfo, in format: ArchiveFormat) -> Text? {
        let special: Set<ArchiveEntryInfo.Kind> = [.characterDevice, .blockDevice, .fifo, .socket]
        switch (format.container, entry.kind) {
        case (.zip, _) where special.contains(entry.kind), (.sevenZip, _) where special.contains(entry.kind):
            return tr("it is a special file")
        case (.sevenZip, .symlink):
            // 7-Zip makes links only with -snl, and libarchive's writer stores them as 7-Zip would not read them.
            return tr("it is a symbolic link")
        case (.sevenZip, .hardlink), (.zip, .hardlink):
            return tr("it is a hard link")
        case (.sevenZip, _) where String(validating: entry.path, as: UTF8.self) == nil:
            return tr("its name is not Unicode, and 7z names are")
        default:
            return nil
        }
    }
}
