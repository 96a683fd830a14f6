internal import CArchive
import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// The edit engine's tar (plain, or compressed as a whole by gzip, bzip2, xz or zstd): the blocks of every
/// entry the plan keeps as it was (its pax and GNU long-name records, header, data and padding) are copied
/// as they are; renamed entries and new ones are written by libarchive's pax writer. A compressed tar is
/// recompressed whole: no compressed stream can be cut and joined.
enum TarEditing {
    static func write(_ context: EditContext, filter: ArchiveFormat.Filter, into pending: PendingFile) throws(ArchiverError) -> EditPlan {
        // First pass: the entries' names.
        var entries: [EditPlan.Existing] = []
        do {
            var input = try TarInput(context.archive, name: context.name, plain: filter == .none ? context.descriptor : nil)
            while let entry = try input.nextEntry() {
                try context.control.check()
                if let path = entry.path { entries.append(.init(path: path, isFolder: entry.isFolder)) }
                try input.skip(entry.paddedSize)
            }
        }
        let plan = try context.plan(entries)
        if plan.changesNothing { return plan }

        let output = try TarOutput(
            pending: pending, folder: context.folder, filter: filter, level: level(context, filter: filter), control: context.control)
        let writer = try TarEntryWriter(output: output)
        var input = try TarInput(context.archive, name: context.name, plain: filter == .none ? context.descriptor : nil)
        // Old entries stay in their order in the plan (a renamed or replaced one keeps its place), so one pass
        // meets each in turn; those the plan leaves out are skipped on the way.
        var number = 0
        let total = context.size + context.newBytes
        for step in plan.steps {
            try context.control.check()
            switch step {
            case .new(let path, let isFolder, let source, let mode, let modified):
                try writer.add(path: path, isFolder: isFolder, item: source.map { context.items[$0] }, mode: mode, modified: modified, control: context.control)
            case .old(let index, let name, let mode, let modified):
                while true {
                    let start = input.offset
                    guard let entry = try input.nextEntry() else { throw input.broken() }
                    guard entry.path != nil else {
                        // A global pax header or a volume label: kept where it was.
                        try input.keep(entry, from: start, to: output)
                        continue
                    }
                    number += 1
                    guard number - 1 == index else {
                        try input.skip(entry.paddedSize)
                        continue
                    }
                    if name == nil, mode == nil, modified == nil {
                        try input.keep(entry, from: start, to: output)
                    } else {
                        try writer.rewrite(entry, name: name, mode: mode, modified: modified, from: &input)
                    }
                    break
                }
            }
            context.progress(min(input.bytesRead, context.size), total)
        }
        try writer.close()
        try output.finish()
        return plan
    }

    /// The compression level: the setting's, but gzip's header says whether the archive was made fast or
    /// with maximum compression, and that is kept.
    private static func level(_ context: EditContext, filter: ArchiveFormat.Filter) -> Int32? {
        let format: ArchiveFormat =
            switch filter {
            case .none: .tar
            case .gzip: .gz
            case .bzip2: .bz2
            case .xz: .xz
            case .zstd: .zst
            }
        if filter == .gzip, let flags = FileSystem.bytes(context.descriptor, at: 8, count: 1)?.first {
            if flags == 2 { return Int32(format.settings(for: .maximum).level ?? 9) }
            if flags == 4 { return Int32(format.settings(for: .fast).level ?? 1) }
        }
        return format.settings(for: context.level).level.map { Int32($0) }
    }

    /// Whether the first block of `archive`, uncompressed, is a tar header.
    static func startsWithTar(_ archive: FilePath) -> Bool {
        guard var input = try? TarInput(archive, name: ""), let block = try? input.read(512) else { return false }
        return TarBlock.isHeader(block)
    }
}

/// Tar's 512-byte header blocks, read as far as editing needs.
enum TarBlock {
    /// Whether `block` is a header: not all zeros, and its checksum adds up (unsigned, or signed as old tars made it).
    static func isHeader(_ block: [UInt8]) -> Bool {
        guard block.count == 512, block.contains(where: { $0 != 0 }), let stored = octal(block[148..<156]) else { return false }
        var unsigned = 0, signed = 0
        for (index, byte) in block.enumerated() {
            let value = (148..<156).contains(index) ? 0x20 : byte
            unsigned += Int(value)
            signed += Int(Int8(bitPattern: value))
        }
        return stored == Int64(unsigned) || stored == Int64(signed)
    }

    /// A number field: octal digits (spaces and NULs around them), or GNU's base-256 with the top bit set.
    static func octal(_ field: ArraySlice<UInt8>) -> Int64? {
        if let first = field.first, first & 0x80 != 0 {
            var value: Int64 = Int64(first & 0x3F)
            for byte in field.dropFirst() {
                guard value < Int64.max >> 8 else { return nil }
                value = value << 8 | Int64(byte)
            }
            return value
        }
        var value: Int64 = 0
        var seen = false
        for byte in field {
            if byte == 0 || byte == 0x20 {
                if seen { break } else { continue }
            }
            guard (0x30...0x37).contains(byte), value < Int64.max >> 3 else { return nil }
            value = value * 8 + Int64(byte - 0x30)
            seen = true
        }
        return value
    }

    /// The `key=value` records of a pax extended header's data.
    static func paxRecords(_ data: [UInt8]) -> [(key: [UInt8], value: [UInt8])] {
        var records: [(key: [UInt8], value: [UInt8])] = []
        var at = 0
        while at < data.count {
            guard let space = data[at...].firstIndex(of: 0x20), let length = Int(String(decoding: data[at..<space], as: UTF8.self)),
                length > 0, at + length <= data.count, let equals = data[(space + 1)..<(at + length)].firstIndex(of: UInt8(ascii: "="))
            else { break }
            records.append((Array(data[(space + 1)..<equals]), Array(data[(equals + 1)..<(at + length - 1)])))
            at += length
        }
        return records
    }
}

/// One entry as it lies in the tar: its header blocks (pax and GNU records, then its own header), and its
/// data's size; `path` is nil for what is no entry (a global pax header, a volume label).
struct TarEntry {
    var headers: [UInt8]
    var path: [UInt8]?
    var isFolder: Bool
    var size: Int64
    var paddedSize: Int64 { (size + 511) / 512 * 512 }
}

/// A tar's bytes in order: a plain tar straight from its file (so that untouched entries can be copied
/// inside the kernel, shared on btrfs and xfs), a compressed one uncompressed by libarchive.
struct TarInput: ~Copyable {
    private let handle: OpaquePointer?
    /// A plain tar's descriptor (not ours to close), else -1.
    private let file: Int32
    /// Where the file is read next.
    private var fileOffset: Int64 = 0
    private let own: UnsafeMutableRawBufferPointer?
    private var buffer: UnsafeRawBufferPointer = .init(start: nil, count: 0)
    private let name: String
    private(set) var ended = false
    /// The next refill reads one block's worth, not a buffer's: the data before it was skipped, and what
    /// follows may well be one header and more data to skip.
    private var afterSkip = false
    /// A plain tar's size.
    private var fileSize: Int64 = 0

    /// - Parameter plain: the descriptor of a tar that is not compressed, read directly.
    init(_ path: FilePath, name: String, plain: Int32? = nil) throws(ArchiverError) {
        self.name = name
        if let plain {
            (handle, file) = (nil, plain)
            own = .allocate(byteCount: 1 << 20, alignment: 16)
            var info = stat()
            fileSize = fstat(plain, &info) == 0 ? Int64(info.st_size) : 0
            return
        }
        (file, own) = (-1, nil)
        guard let handle = archive_read_new() else { throw ArchiverError(.inputUnreadable, tr("Out of memory while opening “%@”.", name)) }
        archive_read_support_filter_all(handle)
        archive_read_support_format_raw(handle)
        var entry: OpaquePointer?
        guard path.withPlatformString({ archive_read_open_filename(handle, $0, 1 << 20) }) == ARCHIVE_OK,
            archive_read_next_header(handle, &entry) == ARCHIVE_OK
        else {
            let (message, _) = lastError(handle)
            archive_read_free(handle)
            throw ArchiverError(.corrupt, tr("Reading “%1$@” failed: %2$@.", name, message), path: path.string)
        }
        self.handle = handle
    }

    deinit {
        if let handle { archive_read_free(handle) }
        own?.deallocate()
    }

    /// Bytes of the archive file read so far.
    var bytesRead: Int64 { handle.map { archive_filter_bytes($0, -1) } ?? fileOffset }

    /// Where in a plain tar's file the next byte lies.
    var offset: Int64 { fileOffset - Int64(buffer.count) }

    private mutating func refill() throws(ArchiverError) -> Bool {
        if ended { return false }
        if let own {
            let want = afterSkip ? Int(FileSystem.cloneBlock) : own.count
            afterSkip = false
            guard let got = FileSystem.readFully(file, into: own.baseAddress!, count: want, at: fileOffset) else {
                throw ArchiverError(.inputUnreadable, tr("Reading “%1$@” failed: %2$@.", name, TextValue.systemError(errno)))
            }
            fileOffset += Int64(got)
            buffer = UnsafeRawBufferPointer(rebasing: own[..<got])
            ended = got == 0
            return got > 0
        }
        guard let handle else { return false }
        var block: UnsafeRawPointer?
        var size = 0
        var offset: la_int64_t = 0
        let status = archive_read_data_block(handle, &block, &size, &offset)
        if status == ARCHIVE_EOF {
            ended = true
            return false
        }
        guard status == ARCHIVE_OK || status == ARCHIVE_WARN else {
            let (message, _) = lastError(handle)
            throw ArchiverError(.corrupt, tr("Reading “%1$@” failed: %2$@.", name, message))
        }
        buffer = UnsafeRawBufferPointer(start: block, count: size)
        return true
    }

    /// Gives `body` the next `count` bytes, in pieces.
    mutating func pass(_ count: Int64, _ body: (UnsafeRawBufferPointer) throws(ArchiverError) -> Void) throws(ArchiverError) {
        var remaining = count
        while remaining > 0 {
            if buffer.isEmpty, try !refill() {
                throw ArchiverError(.corrupt, tr("“%@” ends in the middle of an entry, so it cannot be changed.", name), hint: tr("Test it with “bsdtar -tf”."))
            }
            let piece = Int(min(Int64(buffer.count), remaining))
            try body(UnsafeRawBufferPointer(rebasing: buffer[..<piece]))
            buffer = UnsafeRawBufferPointer(rebasing: buffer[piece...])
            remaining -= Int64(piece)
        }
    }

    /// Passes over the next `count` bytes: in a plain tar without reading them.
    mutating func skip(_ count: Int64) throws(ArchiverError) {
        guard own != nil, count > Int64(buffer.count) else {
            return try pass(count) { _ throws(ArchiverError) in }
        }
        guard offset + count <= fileSize else {
            throw ArchiverError(.corrupt, tr("“%@” ends in the middle of an entry, so it cannot be changed.", name), hint: tr("Test it with “bsdtar -tf”."))
        }
        fileOffset = offset + count
        buffer = .init(start: nil, count: 0)
        afterSkip = true
    }

    /// Writes `entry`, whose headers were just read from `start` on, to `output` as it is, headers, data and
    /// padding: from a plain tar to a plain tar by a copy inside the kernel, held back while the next
    /// entries continue it.
    mutating func keep(_ entry: TarEntry, from start: Int64, to output: TarOutput) throws(ArchiverError) {
        guard own != nil, output.plainDescriptor != nil else {
            try output.write(entry.headers)
            return try pass(entry.paddedSize) { bytes throws(ArchiverError) in try output.write(bytes) }
        }
        try skip(entry.paddedSize)
        try output.copy(from: file, at: start, count: offset - start)
    }

    /// The next `count` bytes; fewer only at the end.
    mutating func read(_ count: Int) throws(ArchiverError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            if buffer.isEmpty, try !refill() { break }
            let piece = min(buffer.count, count - bytes.count)
            bytes += buffer[..<piece]
            buffer = UnsafeRawBufferPointer(rebasing: buffer[piece...])
        }
        return bytes
    }

    /// The next entry's header blocks, or nil at the end (a zero block, or the end of the data).
    mutating func nextEntry() throws(ArchiverError) -> TarEntry? {
        var headers: [UInt8] = []
        var longName: [UInt8]?
        var paxPath: [UInt8]?
        var paxSize: Int64?
        while true {
            let block = try read(512)
            if block.count < 512 || block.allSatisfy({ $0 == 0 }) {
                guard headers.isEmpty else { throw broken() }
                return nil
            }
            guard TarBlock.isHeader(block), let fieldSize = TarBlock.octal(block[124..<136]) else { throw broken() }
            headers += block
            let type = block[156]
            switch type {
            case UInt8(ascii: "x"), UInt8(ascii: "L"), UInt8(ascii: "K"):
                guard fieldSize < 1 << 24 else { throw broken() }
                let data = try read(Int((fieldSize + 511) / 512 * 512))
                guard data.count == (fieldSize + 511) / 512 * 512 else { throw broken() }
                headers += data
                let body = Array(data[..<Int(fieldSize)])
                if type == UInt8(ascii: "x") {
                    for record in TarBlock.paxRecords(body) {
                        if record.key == Array("path".utf8) { paxPath = record.value }
                        if record.key == Array("size".utf8) { paxSize = Int64(String(decoding: record.value, as: UTF8.self)) }
                    }
                } else if type == UInt8(ascii: "L") {
                    longName = Array(body.prefix { $0 != 0 })
                }
            case UInt8(ascii: "g"), UInt8(ascii: "V"):
                return TarEntry(headers: headers, path: nil, isFolder: false, size: type == UInt8(ascii: "V") ? 0 : fieldSize)
            case UInt8(ascii: "S"), UInt8(ascii: "M"):
                throw ArchiverError(
                    .notAnArchive, tr("“%@” holds GNU sparse or multi-volume entries, which Archiver cannot change; nothing was changed.", name),
                    hint: tr("Extract it, change the files, and compress them again."))
            default:
                var path = longName ?? paxPath ?? Array(block[0..<100].prefix { $0 != 0 })
                if longName == nil, paxPath == nil, Array(block[257..<263]) == Array("ustar\0".utf8) {
                    let prefix = Array(block[345..<500].prefix { $0 != 0 })
                    if !prefix.isEmpty { path = prefix + [UInt8(ascii: "/")] + path }
                }
                if let paxPath, longName != nil { path = paxPath }
                let noData = [UInt8(ascii: "2"), UInt8(ascii: "3"), UInt8(ascii: "4"), UInt8(ascii: "5"), UInt8(ascii: "6")].contains(type)
                return TarEntry(
                    headers: headers, path: path, isFolder: type == UInt8(ascii: "5") || path.last == UInt8(ascii: "/"),
                    size: noData ? 0 : (paxSize ?? fieldSize))
            }
        }
    }

    func broken() -> ArchiverError {
        ArchiverError(
            .corrupt, tr("“%@” is not a complete tar archive, so it cannot be changed.", name),
            hint: tr("Test it with “bsdtar -tf”; extract what can be read and make a new archive."))
    }
}

/// Where the new tar's bytes go: the file, or a compressor writing to it.
final class TarOutput {
    private let descriptor: Int32
    let folder: FilePath
    /// libarchive's raw writer with the filter, holding the tar as the one file it compresses.
    private final class Compression {
        let writer: ArchiveWriter
        init(_ writer: consuming ArchiveWriter) { self.writer = writer }
    }

    private let compressor: Compression?
    private let sink: OutputSink
    /// Bytes of the old tar to copy as they lie, held back while the next entries continue them: a run of
    /// untouched entries is one copy (and on btrfs and xfs one shared range).
    private var run: (source: Int32, offset: Int64, count: Int64)?

    init(pending: PendingFile, folder: FilePath, filter: ArchiveFormat.Filter, level: Int32?, control: JobControl) throws(ArchiverError) {
        descriptor = pending.descriptor
        self.folder = folder
        sink = OutputSink(descriptor: pending.descriptor, in: folder, control: control)
        let format: ArchiveFormat? =
            switch filter {
            case .none: nil
            case .gzip: .gz
            case .bzip2: .bz2
            case .xz: .xz
            case .zstd: .zst
            }
        guard let format else {
            compressor = nil
            return
        }
        var settings = format.settings(for: .normal)
        settings.level = level.map(Int.init)
        let writer = try ArchiveWriter(format: format, settings: settings, threads: Compressor.processorCount())
        try writer.open(sink: sink, folder: folder.string)
        let entry = ArchiveWriter.Entry()
        var status = stat()
        status.st_mode = S_IFREG | 0o644
        entry.fill(path: Array("tar".utf8), status: status, symlinkTarget: nil)
        try writer.writeHeader(entry, folder: folder.string)
        compressor = Compression(writer)
    }

    /// The file written, when nothing compresses on the way.
    var plainDescriptor: Int32? { compressor == nil ? descriptor : nil }

    func write(_ bytes: UnsafeRawBufferPointer) throws(ArchiverError) {
        guard !bytes.isEmpty else { return }
        try flush()
        if let compressor {
            try compressor.writer.writeData(bytes, folder: folder.string)
        } else if sink.write(bytes) < 0 {
            throw FileSystem.destinationError(sink.lastErrno, folder)
        }
    }

    func write(_ bytes: [UInt8]) throws(ArchiverError) {
        let result = bytes.withUnsafeBytes { buffer in Result { () throws(ArchiverError) in try write(buffer) } }
        try result.get()
    }

    /// Copies `count` bytes at `offset` of `source`, a plain tar, into a plain tar.
    func copy(from source: Int32, at offset: Int64, count: Int64) throws(ArchiverError) {
        guard count > 0 else { return }
        if let held = run, held.source == source, held.offset + held.count == offset {
            run = (source, held.offset, held.count + count)
        } else {
            try flush()
            run = (source, offset, count)
        }
    }

    private func flush() throws(ArchiverError) {
        guard let held = run else { return }
        run = nil
        guard FileSystem.copyRange(from: held.source, at: held.offset, count: held.count, to: descriptor) else {
            throw FileSystem.destinationError(errno, folder)
        }
    }

    func finish() throws(ArchiverError) {
        try flush()
        try compressor?.writer.close(folder: folder.string)
    }
}

/// libarchive's pax writer for the entries tar cannot copy: new ones and renamed ones. Unblocked, so that
/// each entry's bytes are out before the next raw copy; its end (two zero blocks) ends the archive.
final class TarEntryWriter {
    private let handle: OpaquePointer
    private let output: TarOutput
    private let folder = ""

    init(output: TarOutput) throws(ArchiverError) {
        guard let handle = archive_write_new() else { throw ArchiverError(.destination, tr("Out of memory while starting the archive.")) }
        archive_write_set_format_pax_restricted(handle)
        archive_write_set_bytes_per_block(handle, 0)
        self.handle = handle
        self.output = output
        let context = Unmanaged.passUnretained(output).toOpaque()
        let status = archive_write_open2(
            handle, context, nil,
            { archive, context, buffer, length in
                guard let context, let buffer else { return -1 }
                let output = Unmanaged<TarOutput>.fromOpaque(context).takeUnretainedValue()
                do {
                    try output.write(UnsafeRawBufferPointer(start: buffer, count: length))
                    return length
                } catch {
                    ca_set_error(archive, EIO, "write failed")
                    return -1
                }
            }, nil, nil)
        try check(status)
    }

    deinit { archive_write_free(handle) }

    private func check(_ status: Int32) throws(ArchiverError) {
        guard status < ARCHIVE_WARN else { return }
        throw failure()
    }

    private func failure() -> ArchiverError {
        let (message, _) = lastError(handle)
        return ArchiverError(.destination, tr("Writing the archive failed: %@.", message))
    }

    /// A new entry: a folder made by the plan (no item), or an item from disk.
    func add(path: [UInt8], isFolder: Bool, item: Sources.Item?, mode: UInt32?, modified: Int64?, control: JobControl) throws(ArchiverError) {
        guard let entry = archive_entry_new() else { throw ArchiverError(.destination, tr("Out of memory while starting the archive.")) }
        defer { archive_entry_free(entry) }
        let kind = item?.kind ?? .directory
        let type: UInt32 = kind == .directory ? 0o040000 : kind == .symlink ? 0o120000 : 0o100000
        withCString(path) { archive_entry_copy_pathname(entry, $0) }
        archive_entry_set_mode(entry, mode_t(type | (mode ?? item.map { $0.mode & 0o7777 } ?? 0o755)))
        archive_entry_set_mtime(entry, time_t(modified ?? item?.modified ?? Int64(time(nil))), 0)
        archive_entry_set_uid(entry, la_int64_t(item?.owner ?? getuid()))
        archive_entry_set_gid(entry, la_int64_t(item?.group ?? getgid()))
        archive_entry_set_size(entry, kind == .file ? la_int64_t(item?.size ?? 0) : 0)
        if let target = item?.linkTarget { withCString(target) { archive_entry_copy_symlink(entry, $0) } }
        try check(archive_write_header(handle, entry))
        guard kind == .file, let item else { return }
        let file = item.path.withPlatformString { open($0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard file >= 0 else {
            throw ArchiverError(
                .inputUnreadable, tr("Cannot read “%1$@”: %2$@.", item.path, TextValue.systemError(errno)),
                hint: tr("Check its permissions; nothing was changed."), path: item.path.string)
        }
        defer { Glibc.close(file) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var remaining = item.size
        while remaining > 0 {
            try control.check()
            let count = read(file, buffer.baseAddress, min(buffer.count, Int(clamping: remaining)))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                throw ArchiverError(.inputUnreadable, tr("“%@” got shorter while it was being compressed.", item.path), path: item.path.string)
            }
            guard archive_write_data(handle, buffer.baseAddress, count) == count else { throw failure() }
            remaining -= Int64(count)
        }
        try check(archive_write_finish_entry(handle))
    }

    /// An old entry with a new name, mode or time: its headers read by libarchive, written anew, its data
    /// passed through.
    func rewrite(_ old: TarEntry, name: [UInt8]?, mode: UInt32?, modified: Int64?, from input: inout TarInput) throws(ArchiverError) {
        guard let reader = archive_read_new() else { throw ArchiverError(.destination, tr("Out of memory while starting the archive.")) }
        defer { archive_read_free(reader) }
        archive_read_support_format_tar(reader)
        // The headers, then zeros standing in for the data, which libarchive may look at but never gives.
        let bytes = old.headers + [UInt8](repeating: 0, count: 1024)
        var entry: OpaquePointer?
        let opened = bytes.withUnsafeBytes { buffer in
            archive_read_open_memory(reader, buffer.baseAddress, buffer.count) == ARCHIVE_OK
                && archive_read_next_header(reader, &entry) >= ARCHIVE_WARN
        }
        guard opened, let entry else {
            throw ArchiverError(.corrupt, tr("The header of “%@” cannot be read, so it cannot be changed.", old.path?.displayName ?? ""))
        }
        if let name { withCString(name) { archive_entry_copy_pathname(entry, $0) } }
        if let mode { archive_entry_set_perm(entry, mode_t(mode & 0o7777)) }
        if let modified { archive_entry_set_mtime(entry, time_t(modified), 0) }
        archive_entry_set_size(entry, la_int64_t(old.size))
        try check(archive_write_header(handle, entry))
        let handle = handle
        var failed = false
        try input.pass(old.size) { bytes throws(ArchiverError) in
            if !failed, archive_write_data(handle, bytes.baseAddress, bytes.count) != bytes.count { failed = true }
        }
        if failed { throw failure() }
        try input.pass(old.paddedSize - old.size) { _ throws(ArchiverError) in }
        try check(archive_write_finish_entry(handle))
    }

    /// Writes the end of the archive.
    func close() throws(ArchiverError) {
        try check(archive_write_close(handle))
    }
}
