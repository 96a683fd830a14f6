internal import CArchive
import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// A libarchive read handle over one archive file, with the format detected by content.
///
/// Single compressed streams (`notes.txt.gz`) are read through libarchive's raw format. Raw matches any
/// bytes, so a raw match counts only when a compression filter was found: random bytes and empty files
/// are not archives.
struct ArchiveReader: ~Copyable {
    let handle: OpaquePointer
    /// The borrowed current entry; valid until the next call to `next()`.
    private(set) var current: OpaquePointer?
    /// The path of the entry last returned, as stored: the extractor rewrites `current`'s path to where
    /// it writes, which must not show up in a message.
    private var previousPath: [UInt8]?
    /// The first header is read while detecting the format and handed out by the first `next()`.
    private var pending: Bool
    /// libarchive must not be asked for another header after it said EOF.
    private var finished: Bool
    /// Whether this is a single compressed stream rather than an archive.
    let isRawStream: Bool
    /// The archive's name, for messages.
    let displayName: String
    /// The archive's size in bytes, the total for progress.
    let fileSize: Int64
    /// What libarchive warned about while reading headers (a name it could not convert, …).
    private(set) var warnings: [String] = []
    /// The files read: every part of a multi-part set, whichever one was named.
    let volumes: VolumeSet
    /// Reads names written in a legacy code page (zip without the UTF-8 flag); nil: names as stored.
    var nameDecoder: NameDecoder?
    /// Feeds libarchive the parts of a set as one stream, or a gzip stream we inflate; nil for a plain
    /// file. Outlives `handle`'s use.
    private let source: (any ArchiveSource)?
    /// Where each header returned so far starts in the uncompressed stream, when asked for (set to []).
    var headerPositions: [Int64]?

    /// Opens `path` and reads its first header.
    /// - Throws: `ArchiverError`: `.inputUnreadable` for a missing, unreadable or folder input,
    ///   `.notAnArchive` for an empty file or unknown content, `.corrupt` for a damaged start.
    /// - Parameter password: decrypts encrypted entries (zip); libarchive keeps its own copy.
    /// - Parameter recordingSeekPoints: a tar.gz notes where reading can start again later (`seekPoints`).
    init(path: FilePath, password: Secret? = nil, recordingSeekPoints: Bool = false) throws(ArchiverError) {
        ArchiveEngineSetup.ensureLocale()
        let name = path.lastComponent?.string ?? path.string
        guard let info = FileSystem.status(path) ?? FileSystem.resolve(path).flatMap(FileSystem.status) else {
            throw ArchiverError(
                .inputUnreadable, tr("“%@” does not exist.", path), hint: tr("Check the name and try again."), path: path.string)
        }
        var target = info
        if FileSystem.isSymlink(info) {
            var followed = stat()
            guard path.withPlatformString({ stat($0, &followed) }) == 0 else {
                throw ArchiverError(.inputUnreadable, tr("“%@” is a broken symlink.", path), path: path.string)
            }
            target = followed
        }
        if FileSystem.isDirectory(target) {
            throw ArchiverError(
                .inputUnreadable, tr("“%@” is a folder, not an archive.", path), hint: tr("Name an archive file."),
                path: path.string)
        }
        guard path.withPlatformString({ access($0, R_OK) }) == 0 else {
            throw ArchiverError(
                .inputUnreadable, tr("You do not have permission to read “%@”.", path), hint: tr("Check its permissions."),
                path: path.string)
        }
        let volumes = try VolumeSet.find(path)
        if target.st_size == 0, FileSystem.isRegular(target), !volumes.isMultiPart {
            throw ArchiverError(
                .notAnArchive, tr("“%@” is empty (0 bytes), so it is not an archive.", name),
                hint: tr("The download or copy may have failed; get the file again."), path: path.string)
        }

        // What skippable frames hide is looked for in the first 4 KiB (they hold a few bytes of metadata).
        let start = volumes.isMultiPart ? [] : Self.start(of: path, count: 4096)
        let lz4 = StreamContent.lz4AfterSkippableFrames(start)
        func makeSource() throws(ArchiverError) -> (any ArchiveSource)? {
            if volumes.isMultiPart { return try VolumeSource(volumes.parts) }
            if let image = StreamContent.squashfsStart(start) { return try SquashfsSource(path, at: image, name: name) }
            if let lz4 { return try VolumeSource([path], from: Int64(lz4)) }
            // More gzip layers than libarchive undoes: the outer ones are undone before it.
            if start.starts(with: [0x1F, 0x8B]), let layers = GzipLayers(path) { return layers }
            return nil
        }
        let source = try makeSource()
        // A tar.gz, tar.zst, tar.xz or tar.bz2 is decoded by us, on threads of its own; anything else, or a
        // start we cannot read, goes to libarchive, which says what is wrong with it.
        if let image = source as? SquashfsSource {
            // Read as tar only: other formats' bidders read far ahead (ISO 9660's 32 KiB), and a damaged
            // block there failed the bid, which called the image no archive at all.
            guard let (handle, first) = Self.openTar(image) else {
                throw FailureClassifier.describeReadFailure(message: image.lastMessage, archive: name, place: nil)
            }
            try self.init(opened: handle, first: first, name: name, volumes: volumes, source: image, fileSize: image.total)
        } else if source == nil, let decoder = Self.ownDecoder(path, recording: recordingSeekPoints),
            let (handle, first) = Self.openTar(decoder)
        {
            try self.init(opened: handle, first: first, name: name, volumes: volumes, source: decoder, fileSize: decoder.total)
        } else {
            if StreamContent.isMtree(start) {
                throw ArchiverError(
                    .notAnArchive, tr("“%@” is an mtree manifest: it lists files on some disk but holds none of their contents.", name),
                    hint: tr("There is nothing in it to extract."), path: path.string)
            }
            let attempt = try Self.openHandle(path, name: name, password: password, source: source, volumes: volumes)
            var entry: OpaquePointer?
            let first = (archive_read_next_header(attempt, &entry), entry)
            let layers = Self.filterCodes(attempt)
            if let real = StreamContent.realLayerCount(layers.map(\.name), name: Array(name.utf8)) {
                // Only the real outer layers, and what they hold as one file.
                archive_read_free(attempt)
                let again = try makeSource()
                let raw = try Self.openHandle(
                    path, name: name, password: password, source: again, volumes: volumes, rawOnly: true,
                    filters: layers.prefix(real).map(\.code))
                try self.init(
                    opened: raw, first: nil, name: name, volumes: volumes, source: again, fileSize: again?.total ?? Int64(target.st_size))
                return
            }
            let found: StreamContent.Found =
                archive_format(attempt) & ARCHIVE_FORMAT_BASE_MASK == ARCHIVE_FORMAT_TAR ? .tar : .other
            if archive_filter_count(attempt) > 1,
                StreamContent.isOneFile(
                    found: found, hasEntries: first.0 != ARCHIVE_EOF, namedTar: StreamContent.nameSaysTar(Array(name.utf8)))
            {
                archive_read_free(attempt)
                let again = try makeSource()
                let raw = try Self.openHandle(path, name: name, password: password, source: again, volumes: volumes, rawOnly: true)
                try self.init(
                    opened: raw, first: nil, name: name, volumes: volumes, source: again, fileSize: again?.total ?? Int64(target.st_size))
                return
            }
            try self.init(
                opened: attempt, first: first, name: name, volumes: volumes, source: source,
                fileSize: source?.total ?? Int64(target.st_size))
        }
    }

    /// Up to `count` first bytes of `path`; fewer when it is shorter or unreadable.
    private static func start(of path: FilePath, count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let descriptor = path.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        let read = Glibc.read(descriptor, &bytes, count)
        return Array(bytes.prefix(max(0, read)))
    }

    /// Reads the tar inside a compressed file from a seek point (`SeekPlan.stream`), with its
    /// first header read.
    /// - Parameter entry: the entry it is opened for, named in a failure (the log says which file).
    init(tar source: any ArchiveSource, archive path: FilePath, entry: String? = nil) throws(ArchiverError) {
        let name = path.lastComponent?.string ?? path.string
        guard let (handle, first) = Self.openTar(source) else {
            throw FailureClassifier.describeReadFailure(message: source.lastMessage, archive: name, place: entry.map { .at($0) })
        }
        let volumes = VolumeSet(parts: [path], name: path.lastComponent?.bytes ?? [])
        try self.init(opened: handle, first: first, name: name, volumes: volumes, source: source, fileSize: source.total)
    }

    /// Our own decoder for a gzip file (ISA-L, about twice as fast as libarchive's zlib, and it notes seek
    /// points), a zstd one (it notes frames) or an xz one, a few blocks ahead of the reader; a bzip2 one
    /// decodes its blocks on every core itself (and notes them); nil for anything else.
    private static func ownDecoder(_ path: FilePath, recording: Bool) -> (any ArchiveSource)? {
        var magic = [UInt8](repeating: 0, count: 4)
        let descriptor = path.withPlatformString { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        let count = read(descriptor, &magic, 4)
        close(descriptor)
        guard count == 4 else { return nil }
        if magic.starts(with: Array("BZh".utf8)) { return try? BzipStream(path) }
        let decoder: (any ArchiveSource)?
        if magic.starts(with: [0x1F, 0x8B]) {
            decoder = try? GzipStream(path, recordingPoints: recording)
        } else if magic == [0x28, 0xB5, 0x2F, 0xFD] || (magic[0] & 0xF0 == 0x50 && magic[1...] == [0x2A, 0x4D, 0x18]) {
            // A zstd frame, or a skippable frame before one (pzstd starts with one).
            decoder = try? ZstdStream(path, recordingFrames: recording)
        } else if magic == [0xFD, 0x37, 0x7A, 0x58] {
            decoder = XzStream(path)
        } else {
            decoder = nil
        }
        return decoder.map(ReadAhead.init)
    }

    /// A tar reader over `source` with its first header read; nil when that is not a tar header.
    private static func openTar(_ source: any ArchiveSource) -> (OpaquePointer, (Int32, OpaquePointer?))? {
        guard let handle = archive_read_new() else { return nil }
        archive_read_support_format_tar(handle)
        var entry: OpaquePointer?
        guard ArchiveStatus(rawValue: source.attach(to: handle)).succeeded else {
            archive_read_free(handle)
            return nil
        }
        let status = archive_read_next_header(handle, &entry)
        guard ArchiveStatus(rawValue: status).succeeded else {
            archive_read_free(handle)
            return nil
        }
        return (handle, (status, entry))
    }

    /// Takes over `attempt`, opened over the archive, and reads its first header unless `first` has it.
    private init(
        opened attempt: OpaquePointer, first: (Int32, OpaquePointer?)?, name: String, volumes: VolumeSet,
        source: (any ArchiveSource)?, fileSize: Int64
    ) throws(ArchiverError) {
        let status: ArchiveStatus
        if let first {
            status = ArchiveStatus(rawValue: first.0)
            current = first.1
        } else {
            status = ArchiveStatus(rawValue: archive_read_next_header(attempt, &current))
        }
        if !status.succeeded, status != .eof {
            let (message, _) = lastError(attempt)
            archive_read_free(attempt)
            throw volumes.incomplete(FailureClassifier.describeReadFailure(message: message, archive: name, place: nil))
        }
        let raw = archive_format(attempt) == ARCHIVE_FORMAT_RAW
        if raw, archive_filter_count(attempt) <= 1 {
            // Raw matches anything; only a compressed stream with no archive inside is a real one.
            archive_read_free(attempt)
            throw FailureClassifier.describeReadFailure(message: "Unrecognized archive format", archive: name, place: nil)
        }
        handle = attempt
        self.volumes = volumes
        self.source = source
        if status == .warn { warnings.append(lastError(attempt).message) }
        pending = status != .eof
        finished = status == .eof
        if status == .eof { current = nil }
        isRawStream = raw
        displayName = name
        self.fileSize = fileSize
    }

    deinit { archive_read_free(handle) }

    /// - Parameter rawOnly: reads the content as one file (`StreamContent.isOneFile`).
    /// - Parameter filters: the only compression filters to look for (libarchive's codes); nil for all.
    private static func openHandle(
        _ path: FilePath, name: String, password: Secret?, source: (any ArchiveSource)?, volumes: VolumeSet, rawOnly: Bool = false,
        filters: [Int32]? = nil
    ) throws(ArchiverError) -> OpaquePointer {
        guard let handle = archive_read_new() else {
            throw ArchiverError(.inputUnreadable, tr("Out of memory while opening “%@”.", name))
        }
        if let filters {
            for code in filters { archive_read_support_filter_by_code(handle, code) }
        } else {
            archive_read_support_filter_all(handle)
        }
        if !rawOnly {
            // Every format of archive_read_support_format_all but mtree: its reader bids on any text with a
            // word per line (a gzipped word list became a folder of empty files), and it reads the files
            // on the local disk that a manifest names.
            archive_read_support_format_7zip(handle)
            archive_read_support_format_ar(handle)
            archive_read_support_format_cab(handle)
            archive_read_support_format_cpio(handle)
            archive_read_support_format_empty(handle)
            archive_read_support_format_iso9660(handle)
            archive_read_support_format_lha(handle)
            archive_read_support_format_rar(handle)
            archive_read_support_format_rar5(handle)
            archive_read_support_format_tar(handle)
            archive_read_support_format_warc(handle)
            archive_read_support_format_xar(handle)
            archive_read_support_format_zip(handle)
        }
        // Bids lowest, so any real format wins; `init` rejects raw matches that are not compressed.
        archive_read_support_format_raw(handle)
        if let password { _ = password.withCString { archive_read_add_passphrase(handle, $0) } }
        let status = source?.attach(to: handle) ?? path.withPlatformString { archive_read_open_filename(handle, $0, 128 * 1024) }
        guard ArchiveStatus(rawValue: status).succeeded else {
            let (message, code) = lastError(handle)
            archive_read_free(handle)
            if code == EACCES || code == ENOENT {
                // TRANSLATORS: %1$@ is a file, %2$@ libarchive's own message (English).
                throw ArchiverError(.inputUnreadable, tr("Cannot open “%1$@”: %2$@.", name, message), path: path.string)
            }
            throw volumes.incomplete(FailureClassifier.describeReadFailure(message: message, archive: name, place: nil))
        }
        return handle
    }

    /// The next entry, or nil at the end.
    /// - Throws: `ArchiverError` (`.corrupt`, `.notAnArchive`, `.password`) when the header cannot be read.
    mutating func next() throws(ArchiverError) -> ArchiveEntryInfo? {
        if finished { return nil }
        if pending {
            pending = false
        } else {
            var entry: OpaquePointer?
            let status = ArchiveStatus(rawValue: archive_read_next_header(handle, &entry))
            if status == .eof {
                current = nil
                finished = true
                return nil
            }
            if !status.succeeded {
                let message = lastMessage
                throw volumes.incomplete(FailureClassifier.describeReadFailure(
                    message: message, archive: displayName, place: previousPath.map { .after($0.displayName) }))
            }
            current = entry
            if status == .warn { warnings.append(lastError(handle).message) }
        }
        guard let current else { return nil }
        headerPositions?.append(archive_read_header_position(handle))
        let info = nameDecoder.map { $0(Self.info(current)) } ?? Self.info(current)
        previousPath = info.path
        return info
    }

    /// Copies what matters of a borrowed entry.
    static func info(_ entry: OpaquePointer) -> ArchiveEntryInfo {
        let hardlink = bytes(archive_entry_hardlink(entry))
        let kind: ArchiveEntryInfo.Kind
        if hardlink != nil {
            kind = .hardlink
        } else {
            switch UInt32(archive_entry_filetype(entry)) {
            case CA_AE_IFDIR: kind = .directory
            case CA_AE_IFLNK: kind = .symlink
            case CA_AE_IFCHR: kind = .characterDevice
            case CA_AE_IFBLK: kind = .blockDevice
            case CA_AE_IFIFO: kind = .fifo
            case CA_AE_IFSOCK: kind = .socket
            default: kind = .file
            }
        }
        return ArchiveEntryInfo(
            path: bytes(archive_entry_pathname(entry)) ?? [],
            kind: kind,
            size: archive_entry_size_is_set(entry) != 0 ? archive_entry_size(entry) : nil,
            packedSize: nil,
            modified: archive_entry_mtime_is_set(entry) != 0 ? Int64(archive_entry_mtime(entry)) : nil,
            encrypted: archive_entry_is_encrypted(entry) != 0,
            linkTarget: hardlink ?? bytes(archive_entry_symlink(entry)),
            permissions: UInt32(archive_entry_perm(entry)))
    }

    /// The next block of the current entry's data, or nil at its end.
    /// The corresponding C function is `archive_read_data_block`.
    func readBlock(entryName: String) throws(ArchiverError) -> (buffer: UnsafeRawBufferPointer, offset: Int64)? {
        // A folder has no data. rar5 refuses to read one ("Can't decompress an entry marked as a
        // directory"), which WinRAR's folders with Windows attributes met.
        if let current, UInt32(archive_entry_filetype(current)) == CA_AE_IFDIR { return nil }
        var buffer: UnsafeRawPointer?
        var size = 0
        var offset: la_int64_t = 0
        let status = ArchiveStatus(rawValue: archive_read_data_block(handle, &buffer, &size, &offset))
        if status == .eof { return nil }
        // zip reports a bad CRC or a wrong size as a warning on the last block: the data is damaged.
        if status != .ok {
            let message = lastMessage
            throw volumes.incomplete(FailureClassifier.describeReadFailure(message: message, archive: displayName, place: .at(entryName)))
        }
        return (UnsafeRawBufferPointer(start: buffer, count: size), offset)
    }

    /// libarchive's words for the last failure, English; gzip layers undone before it say why they stopped
    /// themselves (libarchive calls any failure of its input "truncated").
    var lastMessage: String {
        if let layers = source as? GzipLayers, let message = layers.failure { return message }
        return lastError(handle).message
    }

    /// Bytes of the archive file consumed so far, for progress.
    var bytesRead: Int64 { source?.consumed ?? archive_filter_bytes(handle, -1) }

    /// Whether the archive is one file, not a set of parts.
    var readsOneFile: Bool { !volumes.isMultiPart }

    /// Where reading can start again: noted while reading a tar.gz or tar.zst opened with
    /// `recordingSeekPoints`, and anywhere in a plain tar.
    var seekPlan: SeekPlan? {
        source?.seekPlan
            ?? (archive_format(handle) & ARCHIVE_FORMAT_BASE_MASK == ARCHIVE_FORMAT_TAR && archive_filter_count(handle) == 1
                && source?.filterName == nil && source?.formatName == nil ? .plain : nil)
    }



    /// libarchive's name for the detected format, e.g. "ZIP 2.0 (deflation)".
    var formatName: String {
        if let own = source?.formatName { return own }
        if isRawStream, let filter = archive_filter_name(handle, 0) { return "\(String(cString: filter)) stream" }
        let format = archive_format_name(handle).map { String(cString: $0) } ?? "unknown"
        let filters = (0..<max(0, archive_filter_count(handle) - 1)).compactMap { index in
            archive_filter_name(handle, index).map { String(cString: $0) }
        } + [source?.filterName].compactMap { $0 }
        return filters.isEmpty ? format : "\(format), \(filters.joined(separator: ", "))"
    }

    /// The compression filters around the archive, outermost first (`gzip` for a tar.gz); none for zip or 7z.
    var filterNames: [String] {
        [source?.filterName].compactMap { $0 } + Self.filterCodes(handle).map(\.name)
    }

    /// The compression filters libarchive reads `handle` through, outermost first (libarchive counts from the
    /// innermost, and its last is the file itself).
    private static func filterCodes(_ handle: OpaquePointer) -> [(name: String, code: Int32)] {
        (0..<max(0, archive_filter_count(handle) - 1)).reversed().compactMap { index in
            archive_filter_name(handle, index).map { (String(cString: $0), archive_filter_code(handle, index)) }
        }
    }

    /// Whether an entry's data may legitimately end before its size: tar's sparse files can end in a hole.
    var mayEndInHole: Bool { archive_format(handle) & ARCHIVE_FORMAT_BASE_MASK == ARCHIVE_FORMAT_TAR }

    /// Whether libarchive can decrypt this format's entries (zip only: not 7z, not rar).
    var canDecrypt: Bool { family == .zip }

    /// The format as far as encryption is concerned: which program can decrypt it.
    var family: EncryptionSupport.Family {
        switch archive_format(handle) & ARCHIVE_FORMAT_BASE_MASK {
        case ARCHIVE_FORMAT_ZIP: .zip
        case ARCHIVE_FORMAT_7ZIP: .sevenZip
        case ARCHIVE_FORMAT_RAR, ARCHIVE_FORMAT_RAR_V5: .rar
        default: .other
        }
    }

    /// Whether headers are cheap to read without the data (the format keeps a central directory or seeks
    /// over entries), so that a first pass for sizes and names costs little. Not 7z or rar: skipping an
    /// entry of a solid archive decompresses it, which doubled extraction time; a disk that fills up
    /// while they extract still stops cleanly.
    var hasCheapHeaders: Bool {
        switch archive_format(handle) & ARCHIVE_FORMAT_BASE_MASK {
        case ARCHIVE_FORMAT_ZIP, ARCHIVE_FORMAT_ISO9660, ARCHIVE_FORMAT_CAB, ARCHIVE_FORMAT_XAR:
            true
        default: false
        }
    }
}
